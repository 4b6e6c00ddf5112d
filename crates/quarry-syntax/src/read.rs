//! Reading a file's bytes from disk without trusting what the path names.
//!
//! Only regular files are read: a named pipe would block forever, a device
//! such as `/dev/zero` never ends, and a socket cannot be read at all, so
//! these are refused before they are opened. Links are followed, and only to
//! a regular file; a link cycle ends in the kernel's "too many levels of
//! symbolic links" error. The size limit is checked on the metadata before
//! reading and enforced again while reading, so a file that grows, or whose
//! metadata lies, cannot make the reader hold more than the limit.

use std::io::Read;
use std::path::Path;

use crate::error::SyntaxError;
use quarry_stdx::io_error::IoError;

use quarry_stdx::read::open_without_blocking;
pub use quarry_stdx::read::{open_regular_file, special_file_kind};

/// Reads the whole regular file at `path` (links followed), refusing
/// directories, special files and files over `max_bytes`.
///
/// `-` is standard input ([`quarry_stdx::read::is_stdio`]), read under the same limit.
pub fn read_regular_file(path: &Path, max_bytes: u64) -> Result<Vec<u8>, SyntaxError> {
    if quarry_stdx::read::is_stdio(path) {
        return quarry_stdx::read::read_stdin(max_bytes).map_err(SyntaxError::Io);
    }
    let io_error = |source| SyntaxError::Io(IoError::new(path, source));
    let metadata = std::fs::metadata(path).map_err(io_error)?;
    check_kind(path, &metadata)?;
    check_size(path, metadata.len(), max_bytes)?;
    let file = open_without_blocking(path).map_err(io_error)?;
    // The path may have been replaced between the two looks: check what was opened.
    let opened = file.metadata().map_err(io_error)?;
    check_kind(path, &opened)?;
    check_size(path, opened.len(), max_bytes)?;
    let capacity = usize::try_from(opened.len().min(max_bytes)).unwrap_or(0);
    let mut bytes = Vec::with_capacity(capacity);
    file.take(max_bytes.saturating_add(1)).read_to_end(&mut bytes).map_err(io_error)?;
    check_size(path, bytes.len() as u64, max_bytes)?;
    Ok(bytes)
}

fn check_kind(path: &Path, metadata: &std::fs::Metadata) -> Result<(), SyntaxError> {
    let file_type = metadata.file_type();
    if file_type.is_dir() {
        return Err(SyntaxError::IsDirectory { path: path.to_path_buf() });
    }
    match special_file_kind(&file_type) {
        Some(kind) => Err(SyntaxError::NotRegular { path: path.to_path_buf(), kind }),
        None => Ok(()),
    }
}

fn check_size(path: &Path, size: u64, limit: u64) -> Result<(), SyntaxError> {
    if size > limit {
        return Err(SyntaxError::TooLarge { path: path.to_path_buf(), size, limit });
    }
    Ok(())
}
