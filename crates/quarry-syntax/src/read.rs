//! Reading a file's bytes from disk without trusting what the path names.
//!
//! Only regular files are read: a named pipe would block forever, a device
//! such as `/dev/zero` never ends, and a socket cannot be read at all, so
//! these are refused before they are opened. Links are followed, and only to
//! a regular file; a link cycle ends in the kernel's "too many levels of
//! symbolic links" error. The size limit is checked on the metadata before
//! reading and enforced again while reading, so a file that grows, or whose
//! metadata lies, cannot make the reader hold more than the limit.

use std::fs::{File, OpenOptions};
use std::io::Read;
use std::path::Path;

use crate::error::SyntaxError;
use quarry_stdx::io_error::IoError;

/// What a path that is not a regular file or a directory names, in words.
pub fn special_file_kind(file_type: &std::fs::FileType) -> Option<&'static str> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if file_type.is_fifo() {
            return Some("named pipe (FIFO)");
        }
        if file_type.is_socket() {
            return Some("socket");
        }
        if file_type.is_char_device() {
            return Some("character device");
        }
        if file_type.is_block_device() {
            return Some("block device");
        }
    }
    if file_type.is_file() || file_type.is_dir() {
        None
    } else {
        Some("special file")
    }
}

/// Reads the whole regular file at `path` (links followed), refusing
/// directories, special files and files over `max_bytes`.
pub fn read_regular_file(path: &Path, max_bytes: u64) -> Result<Vec<u8>, SyntaxError> {
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

/// Opens the regular file at `path` (links followed) for reading as a stream, with no size
/// limit: the readers of data files (JSON Lines, parallel text files) that must not block on
/// a named pipe or read a device forever. Anything else is an [`std::io::Error`] of kind
/// `InvalidInput` saying what the path names, for the caller to report with the path.
pub fn open_regular_file(path: &Path) -> std::io::Result<File> {
    let refuse = |metadata: &std::fs::Metadata| -> std::io::Result<()> {
        let file_type = metadata.file_type();
        let kind = if file_type.is_dir() { Some("directory") } else { special_file_kind(&file_type) };
        match kind {
            Some(kind) => Err(std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                format!("not a regular file ({kind}), not read"),
            )),
            None => Ok(()),
        }
    };
    refuse(&std::fs::metadata(path)?)?;
    let file = open_without_blocking(path)?;
    // The path may have been replaced between the two looks: check what was opened.
    refuse(&file.metadata()?)?;
    Ok(file)
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

/// Opens for reading with `O_NONBLOCK` where there is one: if the path became
/// a named pipe after it was checked, opening it does not wait for a writer.
fn open_without_blocking(path: &Path) -> std::io::Result<File> {
    let mut options = OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NONBLOCK);
    }
    options.open(path)
}
