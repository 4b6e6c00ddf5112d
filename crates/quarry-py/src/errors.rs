//! Errors as exceptions: every failure becomes `quarry_code.errors.QuarryError`
//! or its `ValueError`/`OSError` subclasses, and a Rust panic is caught before
//! it reaches Python and raised as a `QuarryError` too.

use std::panic::{catch_unwind, AssertUnwindSafe};

use pyo3::prelude::*;

/// Which exception a failure raises.
#[derive(Debug, Clone, Copy)]
pub enum Kind {
    /// Bad input or options: `QuarryValueError` (a `ValueError`).
    Value,
    /// A file or directory that cannot be read: `QuarryOSError` (an `OSError`).
    Os,
    /// Anything else (a bug): `QuarryError`.
    Internal,
}

/// A failure: its kind and a message naming the file and the problem.
pub type Failure = (Kind, String);

/// The exception for `failure`, an instance of `quarry_code.errors`' class.
pub fn to_exception(py: Python<'_>, (kind, message): Failure) -> PyErr {
    let class = match kind {
        Kind::Value => "QuarryValueError",
        Kind::Os => "QuarryOSError",
        Kind::Internal => "QuarryError",
    };
    let made = py.import("quarry_code.errors").and_then(|m| m.getattr(class)).and_then(|c| c.call1((message,)));
    match made {
        Ok(instance) => PyErr::from_value(instance),
        Err(error) => error,
    }
}

/// Runs `work` with the GIL released; its failure or panic becomes an exception.
pub fn detached<T, F>(py: Python<'_>, work: F) -> PyResult<T>
where
    T: Send,
    F: FnOnce() -> Result<T, Failure> + Send,
{
    let outcome = py.detach(|| catch_unwind(AssertUnwindSafe(work)));
    match outcome {
        Ok(Ok(value)) => Ok(value),
        Ok(Err(failure)) => Err(to_exception(py, failure)),
        Err(payload) => {
            let what = payload
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic".into());
            Err(to_exception(
                py,
                (Kind::Internal, format!("internal error (a bug in quarry, please report it): {what}")),
            ))
        }
    }
}
