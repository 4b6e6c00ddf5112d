//! Typed errors of the evaluation library.

use std::path::PathBuf;

use quarry_stdx::io_error::IoError;

/// Everything that can go wrong while computing a metric.
#[derive(Debug, thiserror::Error)]
pub enum EvalError {
    /// Hypotheses and one reference stream have different lengths.
    #[error("{hyps} hypotheses but {refs} references in reference stream {stream}")]
    LengthMismatch {
        /// Number of hypotheses.
        hyps: usize,
        /// Number of references in the offending stream.
        refs: usize,
        /// Zero-based index of the offending reference stream.
        stream: usize,
    },
    /// No reference stream was given.
    #[error("at least one reference is required")]
    NoReferences,
    /// The input has no segments at all.
    #[error("the input is empty")]
    EmptyInput,
    /// A parameter is outside its valid range.
    #[error("invalid parameter: {0}")]
    InvalidParameter(String),
    /// The reference implementation raises on this input (kept as an error).
    #[error("undefined for this input: {0}")]
    Undefined(String),
    /// A line of an input does not hold what the metric reads (a line set, a span set).
    #[error("{input} line {line}: {message}")]
    BadLine {
        /// The input's name (its file).
        input: String,
        /// One-based line number.
        line: usize,
        /// What is wrong.
        message: String,
    },
    /// A file (a WordNet database file) could not be read (the message
    /// names it).
    #[error(transparent)]
    Io(#[from] IoError),
    /// The computation was cancelled by its caller ([`crate::cancel::within`]).
    #[error("cancelled")]
    Cancelled,
    /// A WordNet file is malformed.
    #[error("malformed WordNet file {path}, line {line}: {message}")]
    WordNetFormat {
        /// The file that is malformed.
        path: PathBuf,
        /// One-based line number.
        line: usize,
        /// What is wrong.
        message: String,
    },
}
