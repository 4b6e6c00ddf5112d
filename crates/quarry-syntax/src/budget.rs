//! Work bounds for one file: a time budget that long-running steps check as
//! they go, and the nesting depth beyond which analyses refuse a tree.
//!
//! The budget is cooperative: parsing checks it through tree-sitter's
//! progress callback, analyses between their steps. A file that runs out is
//! reported as skipped ([`SyntaxError::TimeBudget`]) and the run goes on.
//! A deadline can also carry a cancellation flag, set from another thread
//! when the work is no longer wanted (a language server whose input changed):
//! the same checks then stop it ([`SyntaxError::Cancelled`]).

use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use tree_sitter::Node;

use crate::error::SyntaxError;
use crate::walk::preorder_with_depth;
use quarry_stdx::io_error::IoError;

/// Default time budget per file.
pub const DEFAULT_TIME_BUDGET: Duration = Duration::from_secs(5);

/// A time budget of `seconds` (none for 0), or why it is not one (negative, NaN, too long).
pub fn time_budget_from_secs(seconds: f64) -> Result<Option<Duration>, String> {
    if seconds == 0.0 {
        return Ok(None);
    }
    Duration::try_from_secs_f64(seconds).map(Some).map_err(|_| {
        let shown = if seconds.abs() < 1e9 { seconds.to_string() } else { format!("{seconds:e}") };
        if seconds > 0.0 {
            format!("a time budget of {shown} seconds is too long to count; 0 means no limit")
        } else {
            format!("the time budget must be a number of seconds of zero or more, not {shown}")
        }
    })
}

/// Default limit on the depth of a syntax tree handed to analyses. CPython
/// itself refuses more than 200 nested brackets and 100 nested blocks, which
/// is well under this; the limit keeps ancestor walks cheap.
pub const DEFAULT_MAX_DEPTH: usize = 1000;

/// When the work on one file must stop.
#[derive(Debug, Clone)]
pub struct Deadline {
    start: Instant,
    budget: Option<Duration>,
    cancel: Option<Arc<AtomicBool>>,
}

impl Deadline {
    /// No limit.
    pub fn unlimited() -> Deadline {
        Deadline::new(None)
    }

    /// `budget` from now.
    pub fn after(budget: Duration) -> Deadline {
        Deadline::new(Some(budget))
    }

    /// `budget` from now, or no limit when `None`.
    pub fn new(budget: Option<Duration>) -> Deadline {
        Deadline { start: Instant::now(), budget, cancel: None }
    }

    /// This deadline, also passed as soon as `flag` is set (by any thread).
    pub fn cancelled_by(self, flag: Arc<AtomicBool>) -> Deadline {
        Deadline { cancel: Some(flag), ..self }
    }

    /// Whether the work was cancelled through the flag of [`Deadline::cancelled_by`].
    pub fn cancelled(&self) -> bool {
        self.cancel.as_ref().is_some_and(|flag| flag.load(Ordering::Relaxed))
    }

    /// Whether work under this deadline can be stopped early: it has a
    /// budget or a cancellation flag.
    pub fn is_bounded(&self) -> bool {
        self.budget.is_some() || self.cancel.is_some()
    }

    /// Whether the budget has run out or the work was cancelled.
    pub fn expired(&self) -> bool {
        self.cancelled() || self.budget.is_some_and(|budget| self.start.elapsed() > budget)
    }

    /// The budget, if there is one.
    pub fn budget(&self) -> Option<Duration> {
        self.budget
    }

    /// Time left before the budget runs out (`None`: no limit).
    pub fn remaining(&self) -> Option<Duration> {
        self.budget.map(|budget| budget.saturating_sub(self.start.elapsed()))
    }

    /// Runs `work` within the budget. With a budget, `work` runs on a thread
    /// of its own and the caller waits at most until the budget runs out: an
    /// analysis that overruns (one whose cost grows faster than its input on
    /// some pathological file) is then reported as [`SyntaxError::TimeBudget`]
    /// and left to finish on its own, detached, while the run goes on; the
    /// process exiting ends it. Without a budget, `work` runs here.
    pub fn run_bounded<T: Send + 'static>(
        &self,
        path: &Path,
        stage: &str,
        work: impl FnOnce() -> Result<T, SyntaxError> + Send + 'static,
    ) -> Result<T, SyntaxError> {
        let (Some(budget), Some(remaining)) = (self.budget, self.remaining()) else { return work() };
        let (send, receive) = std::sync::mpsc::sync_channel(1);
        let spawned = std::thread::Builder::new().name("quarry-bounded".into()).spawn(move || {
            let _ = send.send(work());
        });
        if let Err(e) = spawned {
            return Err(SyntaxError::Io(IoError::new(path, e)));
        }
        match receive.recv_timeout(remaining) {
            Ok(result) => result,
            Err(_) => Err(SyntaxError::TimeBudget { path: path.to_path_buf(), budget, stage: stage.to_string() }),
        }
    }

    /// An error for `path` when the budget has run out while doing `stage`
    /// ([`SyntaxError::TimeBudget`]), or the work was cancelled
    /// ([`SyntaxError::Cancelled`]).
    pub fn check(&self, path: &Path, stage: impl FnOnce() -> String) -> Result<(), SyntaxError> {
        if self.cancelled() {
            return Err(SyntaxError::Cancelled { path: path.to_path_buf() });
        }
        match self.budget {
            Some(budget) if self.start.elapsed() > budget => {
                Err(SyntaxError::TimeBudget { path: path.to_path_buf(), budget, stage: stage() })
            }
            _ => Ok(()),
        }
    }
}

/// The depth of the deepest node below `root` (the root is at depth 0) and
/// that node, found by one iterative walk.
pub fn deepest_node(root: Node<'_>) -> (usize, Node<'_>) {
    let mut deepest = (0, root);
    for (node, depth) in preorder_with_depth(root) {
        if depth > deepest.0 {
            deepest = (depth, node);
        }
    }
    deepest
}

/// Refuses a tree deeper than `limit`, naming the file and the line.
pub fn check_depth(path: &Path, root: Node<'_>, limit: usize) -> Result<(), SyntaxError> {
    let (depth, node) = deepest_node(root);
    if depth > limit {
        return Err(SyntaxError::TooDeep { path: path.to_path_buf(), depth, limit, line: node.start_position().row });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Language, ParsedFile, SourceFile};

    #[test]
    fn a_set_flag_stops_checks_and_parsing_as_cancelled() {
        let flag = Arc::new(AtomicBool::new(false));
        let deadline = Deadline::unlimited().cancelled_by(flag.clone());
        assert!(deadline.is_bounded() && !deadline.expired());
        assert!(deadline.check(Path::new("m.py"), || "querying".into()).is_ok());
        flag.store(true, Ordering::Relaxed);
        let error = deadline.check(Path::new("m.py"), || "querying".into()).unwrap_err();
        assert!(matches!(error, SyntaxError::Cancelled { .. }), "{error}");
        let source = SourceFile::from_text("m.py", "x = [1, 2, 3]\n".repeat(20_000));
        let error = ParsedFile::parse_within(source, Language::Python, &deadline).err().unwrap();
        assert!(matches!(error, SyntaxError::Cancelled { .. }), "{error}");
    }

    #[test]
    fn a_budget_too_long_to_count_says_so() {
        assert_eq!(time_budget_from_secs(0.0), Ok(None));
        assert_eq!(time_budget_from_secs(2.5), Ok(Some(Duration::from_millis(2500))));
        let long = time_budget_from_secs(1e30).unwrap_err();
        assert!(long.contains("1e30 seconds is too long"), "{long}");
        for bad in [-1.0, f64::NAN] {
            let error = time_budget_from_secs(bad).unwrap_err();
            assert!(error.contains("zero or more"), "{error}");
        }
    }
}
