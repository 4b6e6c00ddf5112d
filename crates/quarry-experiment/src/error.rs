//! Errors of an experiment run.

use quarry_stdx::IoError;

/// What went wrong in a stage.
#[derive(Debug, thiserror::Error)]
pub enum ExperimentError {
    /// Loading, training or evaluating a model failed.
    #[error(transparent)]
    Model(#[from] quarry_model::ModelError),
    /// Building or reading a dataset failed.
    #[error(transparent)]
    Data(#[from] quarry_data::error::DataError),
    /// A file could not be read or written.
    #[error(transparent)]
    Io(#[from] IoError),
    /// The settings or the data cannot make an experiment.
    #[error("{0}")]
    Invalid(String),
}

impl ExperimentError {
    /// An I/O error on `path`.
    pub fn io(path: &std::path::Path, source: std::io::Error) -> Self {
        ExperimentError::Io(IoError::new(path, source))
    }
}

/// Result of experiment code.
pub type Result<T> = std::result::Result<T, ExperimentError>;
