//! Small file-system helpers.

use std::path::Path;

use crate::error::{ProbeError, Result};

/// Writes `bytes` to `path` through a temporary file in the same folder and a
/// rename, so readers never see a half-written file. Creates missing folders.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> Result<()> {
    if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent).map_err(|e| ProbeError::io(parent, e))?;
    }
    let file_name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let temp = path.with_file_name(format!(".{file_name}.tmp{}", std::process::id()));
    std::fs::write(&temp, bytes).map_err(|e| ProbeError::io(&temp, e))?;
    std::fs::rename(&temp, path).map_err(|e| {
        let _ = std::fs::remove_file(&temp);
        ProbeError::io(path, e)
    })
}
