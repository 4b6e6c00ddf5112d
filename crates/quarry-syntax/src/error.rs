//! Typed errors for loading and parsing source files.

use std::path::PathBuf;

/// Everything that can go wrong while turning a path into a parsed file.
#[derive(Debug, thiserror::Error)]
pub enum SyntaxError {
    /// The file could not be read from disk.
    #[error("{path}: cannot read file: {source}")]
    Io {
        /// The file that failed.
        path: PathBuf,
        /// The underlying I/O error.
        source: std::io::Error,
    },
    /// A directory was given where a file was expected.
    #[error("{path}: is a directory, expected a file")]
    IsDirectory {
        /// The offending path.
        path: PathBuf,
    },
    /// The file is larger than the configured limit.
    #[error("{path}: file is {size} bytes, over the limit of {limit} bytes")]
    TooLarge {
        /// The offending path.
        path: PathBuf,
        /// Its size in bytes.
        size: u64,
        /// The configured limit in bytes.
        limit: u64,
    },
    /// The file contains NUL bytes, so it is treated as binary.
    #[error("{path}: binary file (NUL byte at offset {offset})")]
    Binary {
        /// The offending path.
        path: PathBuf,
        /// Byte offset of the first NUL byte.
        offset: usize,
    },
    /// The file is not valid UTF-8.
    #[error("{path}: invalid UTF-8 at byte offset {offset}")]
    InvalidUtf8 {
        /// The offending path.
        path: PathBuf,
        /// Byte offset of the first invalid sequence.
        offset: usize,
    },
    /// No language is known for the file's extension.
    #[error("{path}: unknown language (use --lang python|java)")]
    UnknownLanguage {
        /// The offending path.
        path: PathBuf,
    },
    /// tree-sitter refused to produce a tree (for example, it was cancelled).
    #[error("{path}: the parser produced no tree")]
    ParseFailed {
        /// The offending path.
        path: PathBuf,
    },
}
