//! Typed errors of the dataset layer.

use std::path::PathBuf;

use quarry_stdx::IoError;

/// What can go wrong while reading or writing datasets.
#[derive(Debug, thiserror::Error)]
pub enum DataError {
    /// A file could not be read or written.
    #[error(transparent)]
    Io(#[from] IoError),
    /// A line of a JSON Lines file is not a valid record.
    #[error("{path}:{line}: {message}")]
    BadRecord {
        /// The file.
        path: PathBuf,
        /// 1-based line number.
        line: usize,
        /// What is wrong.
        message: String,
    },
    /// The tokenizer could not be loaded or failed.
    #[error("tokenizer {path}: {message}")]
    Tokenizer {
        /// Where it was loaded from.
        path: PathBuf,
        /// What went wrong.
        message: String,
    },
    /// Options that do not fit together.
    #[error("{0}")]
    Invalid(String),
}

impl DataError {
    /// Wraps an I/O error with the path it concerns.
    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> DataError {
        DataError::Io(IoError::new(path, source))
    }
}
