//! Reading input without trusting what a path (or standard input) names: the one reader
//! every file a quarry command reads goes through.
//!
//! Only regular files are read: a named pipe would block forever, a device such as
//! `/dev/zero` never ends, and a socket cannot be read at all, so these are refused before
//! they are opened (and the file is opened `O_NONBLOCK`, then checked again, against a path
//! swapped in between). Links are followed, and only to a regular file; a link cycle ends
//! in the kernel's "too many levels of symbolic links" error. A size limit is checked on
//! the metadata and enforced while reading (`take(limit + 1)`), so a file that grows or
//! lies about its size cannot make the reader hold more. Standard input, which may be
//! anything, is read under the same limit.
//!
//! The path `-` (exactly; `./-` names a file) is standard input, for every reader here, as
//! [`crate::atomic::AtomicFile`] takes it for standard output.

use std::fs::{File, OpenOptions};
use std::io::Read;
use std::path::Path;

use crate::io_error::{IoError, IoResultExt};

/// The size limit of the small text files a command reads whole (configurations,
/// baselines, model configurations, tokenizers, hypotheses and references): 256 MiB.
pub const MAX_TEXT_FILE_BYTES: u64 = 256 << 20;

/// The size limit of the large files a command reads whole (model weights in msgpack,
/// cached features, probing datasets): 4 GiB.
pub const MAX_DATA_FILE_BYTES: u64 = 4 << 30;

/// Whether `path` is `-`, standard input or output.
pub fn is_stdio(path: &Path) -> bool {
    path.as_os_str() == "-"
}

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

/// Why a path is not read, when it is not a regular file: `Some("directory")`,
/// `Some("named pipe (FIFO)")`, ...
pub fn not_regular_kind(metadata: &std::fs::Metadata) -> Option<&'static str> {
    let file_type = metadata.file_type();
    if file_type.is_dir() {
        Some("directory")
    } else {
        special_file_kind(&file_type)
    }
}

fn refuse_not_regular(metadata: &std::fs::Metadata) -> std::io::Result<()> {
    match not_regular_kind(metadata) {
        Some(kind) => {
            Err(std::io::Error::new(std::io::ErrorKind::InvalidInput, format!("not a regular file ({kind}), not read")))
        }
        None => Ok(()),
    }
}

/// The error of a file or stream over its size limit.
pub fn too_large(size: u64, limit: u64) -> std::io::Error {
    std::io::Error::new(
        std::io::ErrorKind::InvalidData,
        format!("{size} bytes or more, over the limit of {limit} bytes; not read"),
    )
}

/// Opens the regular file at `path` (links followed) for reading as a stream, with no size
/// limit: the readers of data files (JSON Lines, parallel text files) that must not block on
/// a named pipe or read a device forever. Anything else is an [`std::io::Error`] of kind
/// `InvalidInput` saying what the path names, for the caller to report with the path.
///
/// `-` is standard input, copied (up to [`MAX_DATA_FILE_BYTES`]) into an unnamed temporary
/// file first, so that a stream that never ends is refused rather than read forever.
pub fn open_regular_file(path: &Path) -> std::io::Result<File> {
    if is_stdio(path) {
        return spool_stdin(MAX_DATA_FILE_BYTES);
    }
    refuse_not_regular(&std::fs::metadata(path)?)?;
    let file = open_without_blocking(path)?;
    // The path may have been replaced between the two looks: check what was opened.
    refuse_not_regular(&file.metadata()?)?;
    Ok(file)
}

/// Reads the whole regular file at `path` (links followed), refusing directories, special
/// files and files over `max_bytes` bytes.
pub fn read_bytes(path: &Path, max_bytes: u64) -> Result<Vec<u8>, IoError> {
    if is_stdio(path) {
        return read_stdin(max_bytes);
    }
    let file = open_regular_file(path).with_path(path)?;
    let declared = file.metadata().with_path(path)?.len();
    if declared > max_bytes {
        return Err(IoError::new(path, too_large(declared, max_bytes)));
    }
    read_limited(file, max_bytes, usize::try_from(declared).unwrap_or(0)).with_path(path)
}

/// Reads the whole regular file at `path` as UTF-8 text, under the checks of
/// [`read_bytes`].
pub fn read_text(path: &Path, max_bytes: u64) -> Result<String, IoError> {
    let bytes = read_bytes(path, max_bytes)?;
    String::from_utf8(bytes).map_err(|e| {
        IoError::new(
            path,
            std::io::Error::new(
                std::io::ErrorKind::InvalidData,
                format!("not UTF-8 text (invalid byte at offset {})", e.utf8_error().valid_up_to()),
            ),
        )
    })
}

/// Reads standard input to its end, refusing more than `max_bytes` bytes (standard input
/// may be `/dev/zero`). Errors name `<stdin>`.
pub fn read_stdin(max_bytes: u64) -> Result<Vec<u8>, IoError> {
    read_limited(std::io::stdin().lock(), max_bytes, 0).with_path("<stdin>")
}

/// Standard input copied into an unnamed temporary file, rewound: at most `max_bytes`.
fn spool_stdin(max_bytes: u64) -> std::io::Result<File> {
    use std::io::{Seek, Write};
    let mut file = tempfile::tempfile()?;
    let copied = std::io::copy(&mut std::io::stdin().lock().take(max_bytes.saturating_add(1)), &mut file)?;
    if copied > max_bytes {
        return Err(too_large(copied, max_bytes));
    }
    file.flush()?;
    file.rewind()?;
    Ok(file)
}

/// A regular file's version as its metadata gives it, for cache keys: `size\tmodified`
/// (nanoseconds since the epoch), links followed; `None` for anything but a regular file
/// whose metadata reads. A rewritten, replaced or edited file gets another stamp without
/// being read through.
pub fn file_stamp(path: &Path) -> Option<String> {
    let meta = std::fs::metadata(path).ok().filter(std::fs::Metadata::is_file)?;
    let modified = meta.modified().ok()?.duration_since(std::time::UNIX_EPOCH).ok()?;
    Some(format!("{}\t{}", meta.len(), modified.as_nanos()))
}

/// Reads `reader` to its end, refusing more than `max_bytes` bytes.
pub fn read_limited(reader: impl Read, max_bytes: u64, capacity: usize) -> std::io::Result<Vec<u8>> {
    let mut bytes = Vec::with_capacity(capacity.min(usize::try_from(max_bytes).unwrap_or(usize::MAX)));
    reader.take(max_bytes.saturating_add(1)).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > max_bytes {
        return Err(too_large(bytes.len() as u64, max_bytes));
    }
    Ok(bytes)
}

/// Opens for reading with `O_NONBLOCK` where there is one: if the path became a named pipe
/// after it was checked, opening it does not wait for a writer.
pub fn open_without_blocking(path: &Path) -> std::io::Result<File> {
    let mut options = OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NONBLOCK);
    }
    options.open(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!("quarry-stdx-read-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn regular_files_are_read_within_their_limit() {
        let dir = scratch("limit");
        let path = dir.join("a.txt");
        std::fs::write(&path, "hello").unwrap();
        assert_eq!(read_text(&path, 5).unwrap(), "hello");
        let err = read_text(&path, 4).unwrap_err().to_string();
        assert!(err.contains("a.txt") && err.contains("over the limit of 4 bytes"), "{err}");
        let err = read_text(&dir, 100).unwrap_err().to_string();
        assert!(err.contains("not a regular file (directory)"), "{err}");
        std::fs::write(&path, b"\xff").unwrap();
        assert!(read_text(&path, 5).unwrap_err().to_string().contains("not UTF-8"));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[cfg(unix)]
    #[test]
    fn devices_are_refused_and_streams_are_bounded() {
        let err = read_bytes(Path::new("/dev/zero"), 100).unwrap_err().to_string();
        assert!(err.contains("/dev/zero") && err.contains("character device"), "{err}");
        let zero = std::fs::File::open("/dev/zero").unwrap();
        let err = read_limited(zero, 1000, 0).unwrap_err();
        assert!(err.to_string().contains("over the limit of 1000 bytes"));
        assert_eq!(read_limited(&b"abc"[..], 3, 0).unwrap(), b"abc");
    }
}
