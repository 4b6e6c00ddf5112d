//! Errors as exceptions: every failure becomes `quarry_code.errors.QuarryError`
//! or its `ValueError`/`OSError` subclasses, and a Rust panic is caught before
//! it reaches Python and raised as a `QuarryError` too. Work runs off the
//! interpreter ([`detached`]), so a signal (Ctrl-C) interrupts the call.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{sync_channel, RecvTimeoutError};
use std::sync::Arc;
use std::time::Duration;

use pyo3::prelude::*;

/// Which exception a failure raises.
#[derive(Debug, Clone)]
pub enum Kind {
    /// Bad input or options: `QuarryValueError` (a `ValueError`).
    Value,
    /// A file or directory that cannot be read: `QuarryOSError` (an `OSError`).
    Os,
    /// A system call on a path failed: `QuarryOSError` with `errno` and `filename`
    /// set, of the subclass Python's `OSError` picks for the errno (`except
    /// FileNotFoundError` catches a missing path).
    Path {
        /// The operating system's error number.
        errno: i32,
        /// The path, as the file system spells it (Python gets it as `os.fsdecode`
        /// does, so that a name that is not UTF-8 round-trips).
        path: std::path::PathBuf,
    },
    /// Anything else (a bug): `QuarryError`.
    Internal,
}

/// A failure: its kind and a message naming the file and the problem.
pub type Failure = (Kind, String);

/// The failure of a system call on `path`: [`Kind::Path`] when the error has an errno,
/// else [`Kind::Os`] with a message naming the path.
pub fn io_failure(path: &std::path::Path, error: &std::io::Error) -> Failure {
    match error.raw_os_error() {
        Some(errno) => (Kind::Path { errno, path: path.to_path_buf() }, strerror(errno)),
        None => (Kind::Os, format!("{}: {error}", path.display())),
    }
}

/// The system's description of `errno` ("No such file or directory"), as `os.strerror`.
fn strerror(errno: i32) -> String {
    let text = std::io::Error::from_raw_os_error(errno).to_string();
    let suffix = format!(" (os error {errno})");
    text.strip_suffix(&suffix).map_or(text.clone(), str::to_string)
}

/// The `quarry_code.errors` class of an OS error numbered `errno`.
fn os_error_class(errno: i32) -> &'static str {
    use std::io::ErrorKind;
    match std::io::Error::from_raw_os_error(errno).kind() {
        ErrorKind::NotFound => "QuarryFileNotFoundError",
        ErrorKind::PermissionDenied => "QuarryPermissionError",
        ErrorKind::IsADirectory => "QuarryIsADirectoryError",
        ErrorKind::NotADirectory => "QuarryNotADirectoryError",
        _ => "QuarryOSError",
    }
}

/// The exception for `failure`, an instance of `quarry_code.errors`' class.
pub fn to_exception(py: Python<'_>, (kind, message): Failure) -> PyErr {
    let errors = match py.import("quarry_code.errors") {
        Ok(module) => module,
        Err(error) => return error,
    };
    let made = match kind {
        Kind::Value => errors.getattr("QuarryValueError").and_then(|c| c.call1((message,))),
        Kind::Os => errors.getattr("QuarryOSError").and_then(|c| c.call1((message,))),
        Kind::Path { errno, path } => {
            // As an `OsString`, a `str` as `os.fsdecode` makes it (a `PathBuf` would be a `pathlib.Path`).
            let path = path.into_os_string();
            errors.getattr(os_error_class(errno)).and_then(|c| c.call1((errno, message, path)))
        }
        Kind::Internal => errors.getattr("QuarryError").and_then(|c| c.call1((message,))),
    };
    match made {
        Ok(instance) => PyErr::from_value(instance),
        Err(error) => error,
    }
}

/// How often a waiting call checks for signals (Ctrl-C, a kernel interrupt).
const SIGNAL_POLL: Duration = Duration::from_millis(50);

/// Runs `work` with the GIL released, on this process's thread pool
/// ([`crate::pool`]); its failure or panic becomes an exception. For work
/// that is short whatever its input; long work is [`detached_cancellable`].
///
/// The work runs on a thread of the pool while the calling thread waits
/// without the GIL and checks for signals every [`SIGNAL_POLL`]: a Ctrl-C
/// (`KeyboardInterrupt`) or any exception a signal handler raises ends the
/// call at once. Work that cannot be told to stop runs to its end in the
/// background, its result dropped; [`detached_cancellable`] tells it.
pub fn detached<T, F>(py: Python<'_>, work: F) -> PyResult<T>
where
    T: Send + 'static,
    F: FnOnce() -> Result<T, Failure> + Send + 'static,
{
    detached_cancellable(py, move |_| work())
}

/// The failure a cancelled call's work ends with; nobody reads it, since the call
/// has already ended with the exception of the signal that cancelled it.
pub fn cancelled() -> Failure {
    (Kind::Internal, "the call was cancelled".to_string())
}

/// [`detached`] for work that watches a cancel flag: the flag is set when
/// the call ends early (a signal), so that the work stops instead of
/// running on in the background (and holding a thread of the pool that later
/// calls wait for). The work's result once cancelled is dropped unread.
pub fn detached_cancellable<T, F>(py: Python<'_>, work: F) -> PyResult<T>
where
    T: Send + 'static,
    F: FnOnce(&Arc<AtomicBool>) -> Result<T, Failure> + Send + 'static,
{
    let cancel = Arc::new(AtomicBool::new(false));
    let flag = cancel.clone();
    let work = move || work(&flag);
    let (sender, receiver) = sync_channel(1);
    let pool = crate::pool::process_pool().map_err(|e| to_exception(py, (Kind::Internal, e)))?;
    // On a thread of the pool, not one started per call: a short call (a metric in a loop)
    // does not pay for a thread, and the work's parallel iterators run on that pool.
    pool.spawn(move || {
        // The caller may have gone (interrupted): then nobody wants the result.
        let _ = sender.send(catch_unwind(AssertUnwindSafe(work)));
    });
    let mut receiver = receiver;
    let outcome = loop {
        // The receiver goes into the GIL-free wait and comes back (it is not `Sync`).
        let (received, back) = py.detach(move || (receiver.recv_timeout(SIGNAL_POLL), receiver));
        receiver = back;
        match received {
            Ok(outcome) => break outcome,
            Err(RecvTimeoutError::Timeout) => {
                if let Err(signal) = py.check_signals() {
                    cancel.store(true, Ordering::Relaxed);
                    return Err(signal);
                }
            }
            Err(RecvTimeoutError::Disconnected) => {
                let message = "internal error (a bug in quarry, please report it): the work ended without a result";
                return Err(to_exception(py, (Kind::Internal, message.into())));
            }
        }
    };
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
