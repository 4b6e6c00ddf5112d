//! What killed runs leave behind: [`quarry_stdx::AtomicFile`] writes `.NAME.TAG.tmp` beside
//! its target and removes it when dropped, which a killed process never does, so a builder
//! clears a name's leftovers before writing it again.

use std::path::Path;

use crate::error::DataError;

/// Removes what a killed earlier run left of `name` in `dir`. Only this name's
/// temporaries: another shard may be writing beside it.
pub(crate) fn remove_temporaries_of(dir: &Path, name: &str) -> Result<(), DataError> {
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(DataError::io(dir, e)),
    };
    for entry in entries {
        let entry = entry.map_err(|e| DataError::io(dir, e))?;
        let file_name = entry.file_name().to_string_lossy().into_owned();
        let stale = file_name
            .strip_prefix('.')
            .and_then(|rest| rest.strip_prefix(name))
            .is_some_and(|tag| tag.starts_with('.') && tag.ends_with(".tmp"));
        if stale && entry.file_type().is_ok_and(|t| t.is_file()) {
            std::fs::remove_file(entry.path()).map_err(|e| DataError::io(entry.path(), e))?;
        }
    }
    Ok(())
}

/// Removes what a killed earlier run left of the output `path` (see
/// [`remove_temporaries_of`]).
pub(crate) fn remove_temporaries_beside(path: &Path) -> Result<(), DataError> {
    match (path.parent(), path.file_name()) {
        (Some(dir), Some(name)) => remove_temporaries_of(dir, &name.to_string_lossy()),
        _ => Ok(()),
    }
}
