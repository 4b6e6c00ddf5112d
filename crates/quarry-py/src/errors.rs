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

/// How often a waiting call checks for signals (Ctrl-C, a kernel interrupt).
const SIGNAL_POLL: Duration = Duration::from_millis(50);

/// The stack of the thread that runs a call's work: the 8 MiB a Linux main
/// thread has, where the work used to run.
const WORK_STACK_BYTES: usize = 8 << 20;

/// Runs `work` with the GIL released, on this process's thread pool
/// ([`crate::pool`]); its failure or panic becomes an exception.
///
/// The work runs on a thread of its own while the calling thread waits
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

/// [`detached`] for work that watches a cancel flag: the flag is set when
/// the call ends early (a signal), so that the work stops instead of
/// running on in the background.
pub fn detached_cancellable<T, F>(py: Python<'_>, work: F) -> PyResult<T>
where
    T: Send + 'static,
    F: FnOnce(&AtomicBool) -> Result<T, Failure> + Send + 'static,
{
    let cancel = Arc::new(AtomicBool::new(false));
    let flag = cancel.clone();
    let work = move || work(&flag);
    let (sender, receiver) = sync_channel(1);
    std::thread::Builder::new()
        .name("quarry_code".into())
        .stack_size(WORK_STACK_BYTES)
        .spawn(move || {
            // The caller may have gone (interrupted): then nobody wants the result.
            let _ = sender.send(catch_unwind(AssertUnwindSafe(|| crate::pool::in_process_pool(work))));
        })
        .map_err(|e| to_exception(py, (Kind::Internal, format!("cannot start a thread for the work: {e}"))))?;
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
