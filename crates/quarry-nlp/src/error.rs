//! The errors of loading a model and analysing text.

use std::path::PathBuf;

use quarry_stdx::io_error::IoError;

/// Everything that can go wrong in quarry-nlp. Each message names the file
/// (where there is one) and the problem.
#[derive(Debug, thiserror::Error)]
pub enum NlpError {
    /// A model file could not be read (the message names it).
    #[error(transparent)]
    Io(#[from] IoError),
    /// A model file is missing.
    #[error("{path}: missing (is this a spaCy model directory?)")]
    Missing {
        /// The file that should be there.
        path: PathBuf,
    },
    /// A model file is there but its content is not what it should be
    /// (truncated, corrupt, wrong shape).
    #[error("{path}: {problem}")]
    Corrupt {
        /// The file.
        path: PathBuf,
        /// What is wrong with it.
        problem: String,
    },
    /// The model asks for a component or architecture quarry does not run.
    #[error("{path}: unsupported {what} `{name}`; supported: {supported}")]
    Unsupported {
        /// The file that names it (config.cfg).
        path: PathBuf,
        /// "component", "architecture", "setting", ...
        what: String,
        /// The name found.
        name: String,
        /// The names quarry supports, comma separated.
        supported: String,
    },
    /// The text given cannot be analysed.
    #[error("bad input: {0}")]
    Input(String),
}

impl NlpError {
    /// A [`NlpError::Corrupt`] for `path`.
    pub fn corrupt(path: impl Into<PathBuf>, problem: impl Into<String>) -> Self {
        NlpError::Corrupt { path: path.into(), problem: problem.into() }
    }
}
