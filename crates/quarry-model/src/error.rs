//! Typed errors of the model crate.

use std::path::PathBuf;

use quarry_stdx::IoError;

/// Everything that can go wrong while loading, running or training a model.
#[derive(Debug, thiserror::Error)]
pub enum ModelError {
    /// A file could not be read or written.
    #[error(transparent)]
    Io(#[from] IoError),
    /// A JSON file or line did not parse.
    #[error("{path}: invalid JSON: {message}")]
    Json {
        /// The file concerned.
        path: PathBuf,
        /// What the parser reported.
        message: String,
    },
    /// A model configuration is unusable.
    #[error("invalid model configuration: {0}")]
    Config(String),
    /// A model directory lacks a file it needs.
    #[error("{dir}: no {what} found (looked for {looked_for})")]
    MissingFile {
        /// The directory searched.
        dir: PathBuf,
        /// What was missing, in words.
        what: &'static str,
        /// The file names tried.
        looked_for: String,
    },
    /// A weight file lacks a tensor, or has one of the wrong shape.
    #[error("{path}: {message}")]
    Weights {
        /// The weight file.
        path: PathBuf,
        /// What is wrong with it.
        message: String,
    },
    /// A `--model` argument could not be understood or resolved.
    #[error("cannot use model '{spec}': {message}")]
    ModelSpec {
        /// The argument as given.
        spec: String,
        /// Why it cannot be used.
        message: String,
    },
    /// A tokenizer could not be loaded or applied.
    #[error("tokenizer: {0}")]
    Tokenizer(String),
    /// A device could not be parsed or opened.
    #[error("device '{spec}': {message}")]
    Device {
        /// The device argument as given.
        spec: String,
        /// Why it cannot be used.
        message: String,
    },
    /// Input data is malformed.
    #[error("{0}")]
    Data(String),
    /// A tensor operation failed.
    #[error(transparent)]
    Candle(#[from] candle_core::Error),
}

/// Result type of the model crate.
pub type Result<T> = std::result::Result<T, ModelError>;

impl ModelError {
    /// Wraps an I/O error with the path it concerns.
    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        ModelError::Io(IoError::new(path, source))
    }
}
