//! An I/O error together with the path it concerns.

use std::path::{Path, PathBuf};

/// An I/O error on a file or directory; displays as `PATH: ERROR`. Every crate's error
/// type wraps this one (`#[error(transparent)] Io(#[from] IoError)`), so a message always
/// names the file.
#[derive(Debug, thiserror::Error)]
#[error("{path}: {source}")]
pub struct IoError {
    /// The file or directory concerned.
    pub path: PathBuf,
    /// The underlying error.
    pub source: std::io::Error,
}

impl IoError {
    /// Wraps `source` with `path`.
    pub fn new(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        IoError { path: path.into(), source }
    }
}

/// Attaches a path to the error of an I/O result: `std::fs::read(p).with_path(p)?`.
pub trait IoResultExt<T> {
    /// The result with its error wrapped as an [`IoError`] on `path`.
    fn with_path(self, path: impl AsRef<Path>) -> Result<T, IoError>;
}

impl<T> IoResultExt<T> for std::io::Result<T> {
    fn with_path(self, path: impl AsRef<Path>) -> Result<T, IoError> {
        self.map_err(|e| IoError::new(path.as_ref(), e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_the_path_then_the_error() {
        let err = std::fs::read("/nonexistent/quarry-stdx").with_path("/nonexistent/quarry-stdx").unwrap_err();
        assert!(err.to_string().starts_with("/nonexistent/quarry-stdx: "), "{err}");
        assert_eq!(err.source.kind(), std::io::ErrorKind::NotFound);
    }
}
