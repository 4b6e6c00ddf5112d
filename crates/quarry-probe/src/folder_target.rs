//! The check made before a folder output is written whole: its path must be a folder or
//! nothing. `quarry_stdx::atomic::write_dir_atomically` moves whatever stands at the path
//! aside before renaming the new folder in; a regular file standing there would be hidden
//! under a temporary name and its place taken by the folder.

use std::path::Path;

use quarry_stdx::IoError;

use crate::error::Result;

/// Refuses `dir` when something other than a folder (or a link to one) exists there, naming
/// the path; nothing is moved or written.
pub fn refuse_non_folder(dir: &Path) -> Result<()> {
    match std::fs::metadata(dir) {
        Ok(meta) if !meta.is_dir() => Err(IoError::new(
            dir,
            std::io::Error::new(std::io::ErrorKind::AlreadyExists, "exists and is not a folder, not replaced"),
        )
        .into()),
        _ => Ok(()),
    }
}
