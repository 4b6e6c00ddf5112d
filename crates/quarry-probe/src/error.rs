//! Typed errors of the probing library.

use std::path::PathBuf;

use quarry_stdx::IoError;

/// Everything that can go wrong in quarry-probe.
#[derive(Debug, thiserror::Error)]
pub enum ProbeError {
    /// A file could not be read or written.
    #[error(transparent)]
    Io(#[from] IoError),
    /// A task code that is not one of the 15 INSPECT tasks.
    #[error("unknown task `{0}` (expected one of KTX, IDN, LEN, TYP, REA, JBL, SRI, SRK, SCK, OCU, VCU, CSC, MXN, CPX, NPT)")]
    UnknownTask(String),
    /// The task's labels cannot be recomputed from the text alone.
    #[error("task {0} has no deterministic label: it is a mutation or token-class task")]
    NotDeterministic(String),
    /// A dataset has no usable sample.
    #[error("{path}: no valid sample")]
    EmptyDataset {
        /// The dataset file.
        path: PathBuf,
    },
    /// A feature cache file is malformed.
    #[error("{path}: bad feature file: {reason}")]
    BadFeatures {
        /// The file concerned.
        path: PathBuf,
        /// What is wrong with it.
        reason: String,
    },
    /// Training data that cannot be used (no training sample, mismatched sizes).
    #[error("cannot train probe: {0}")]
    BadTrainingData(String),
    /// The encoder failed to tokenize or run a sample.
    #[error("encoder: {0}")]
    Model(String),
    /// A corpus could not be read.
    #[error("{0}")]
    Corpus(String),
}

impl ProbeError {
    /// Wraps an I/O error with the path it concerns.
    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> ProbeError {
        ProbeError::Io(IoError::new(path, source))
    }
}

/// Result alias of the crate.
pub type Result<T> = std::result::Result<T, ProbeError>;
