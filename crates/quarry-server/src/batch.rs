//! Analysing a batch of files while the input keeps being read: the batch
//! runs on the worker threads, the main thread waits for it and for
//! messages at once, and a message that makes the batch's work stale (any
//! message for a batch of unopened files; an edit of one of its documents
//! for a batch of open ones) cancels it through the files' deadlines. So an
//! edit waits for the check the analyses make between their steps, not for
//! a whole batch of other files.

use std::collections::HashSet;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use crossbeam_channel::{bounded, select, Receiver};
use quarry_query::cache::run::CacheView;
use quarry_query::project::{ModuleId, Project};
use quarry_query::report::{analyze_file_until, FileReport};
use quarry_query::Polarity;
use quarry_syntax::{Deadline, SyntaxError};
use rayon::prelude::*;

use crate::transport::Incoming;
use quarry_workspace::folder::Resolved;

/// The outcome of one file: its report or why it has none, or the message
/// of a panic in its analysis (a bug in quarry).
pub type Outcome = Result<Result<FileReport, SyntaxError>, String>;

/// What came of a batch.
pub struct Ran {
    /// One outcome per file, in the batch's order (a cancelled file's is
    /// [`SyntaxError::Cancelled`]).
    pub outcomes: Vec<Outcome>,
    /// For each file, in the batch's order, the modules its analysis (or
    /// its entry in the cache) reached only as attributes of other modules
    /// ([`Project::recording_attribute_modules`]).
    pub reached: Vec<Vec<ModuleId>>,
    /// The messages that arrived while it ran, in order.
    pub arrived: Vec<Incoming>,
}

/// Analyses `batch` in parallel in `project` with `config`'s queries and
/// limits, reading `incoming` meanwhile; the first message for which
/// `interrupts` is true cancels the files not finished yet. With `cache`
/// (a view of the analysis cache made for this `project`), a file's
/// findings are taken from it when they are there, and stored when not;
/// the files in `uncached` are analysed whatever it holds (and stored).
pub fn run(
    batch: &[PathBuf],
    project: &Project,
    config: &Resolved,
    cache: Option<&CacheView>,
    uncached: &HashSet<PathBuf>,
    incoming: &Receiver<Incoming>,
    interrupts: impl Fn(&Incoming) -> bool,
) -> Ran {
    let cancel = Arc::new(AtomicBool::new(false));
    let mut arrived = Vec::new();
    let (done, finished) = bounded::<()>(1);
    let outcomes = std::thread::scope(|scope| {
        let worker = scope.spawn(|| {
            let outcomes: Vec<(Outcome, Vec<ModuleId>)> =
                batch.par_iter().map(|path| analyse(path, project, config, cache, uncached, &cancel)).collect();
            let _ = done.send(());
            outcomes
        });
        loop {
            select! {
                recv(finished) -> _ => break,
                recv(incoming) -> message => match message {
                    Ok(message) => {
                        if interrupts(&message) {
                            cancel.store(true, Ordering::Relaxed);
                        }
                        arrived.push(message);
                    }
                    // The input closed: nothing more will be asked.
                    Err(_) => {
                        cancel.store(true, Ordering::Relaxed);
                        let _ = finished.recv();
                        break;
                    }
                },
            }
        }
        worker.join().unwrap_or_else(|_| {
            let failed = || (Err("quarry: the analysis of a batch failed (a bug in quarry)".to_string()), Vec::new());
            batch.iter().map(|_| failed()).collect()
        })
    });
    let (outcomes, reached) = outcomes.into_iter().unzip();
    Ran { outcomes, reached, arrived }
}

/// One file's analysis (or its findings from the cache, unless it is one
/// of `uncached`) with the modules it reached as attributes; a panic in it
/// (a bug) costs that file's diagnostics, not the session.
fn analyse(
    path: &std::path::Path,
    project: &Project,
    config: &Resolved,
    cache: Option<&CacheView>,
    uncached: &HashSet<PathBuf>,
    cancel: &Arc<AtomicBool>,
) -> (Outcome, Vec<ModuleId>) {
    let deadline = Deadline::new(config.limits.time_budget).cancelled_by(cancel.clone());
    let analyse = || {
        let lookup = cache.filter(|_| !uncached.contains(path));
        if let Some((report, reached)) = lookup.and_then(|cache| cache.lookup(project, path)) {
            return (Ok(report), reached);
        }
        let positive = [Polarity::Positive];
        let (report, reached) = project.recording_attribute_modules(|project| {
            analyze_file_until(
                project,
                path,
                &config.queries,
                &positive,
                &config.load,
                config.limits.max_depth,
                deadline,
            )
        });
        if let (Some(cache), Ok(report)) = (cache, &report) {
            cache.store(project, path, report, &reached);
        }
        (report, reached)
    };
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(analyse)) {
        Ok((report, reached)) => (Ok(report), reached),
        Err(_) => (Err(format!("quarry: {}: the analysis failed (a bug in quarry)", path.display())), Vec::new()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crossbeam_channel::unbounded;
    use lsp_server::{Message, Notification};

    #[test]
    fn a_message_cancels_the_batch_and_is_handed_back() {
        let temp = tempfile::tempdir().unwrap();
        let dir = temp.path();
        let (big, small) = (dir.join("big.py"), dir.join("small.py"));
        std::fs::write(&big, "def f(x):\n    return x + 1\n".repeat(50_000)).unwrap();
        std::fs::write(&small, "import os\n").unwrap();
        let files = vec![big.clone(), small.clone()];
        let project = Project::new(&files, &Default::default());
        let config = Resolved::defaults(dir);
        let (sender, incoming) = unbounded();
        let progress = Notification::new("$/progress".into(), serde_json::Value::Null);
        sender.send(Incoming::Message(Message::Notification(progress))).unwrap();

        let ran = run(&files[..1], &project, &config, None, &HashSet::new(), &incoming, |_| true);
        assert!(matches!(ran.outcomes[0], Ok(Err(SyntaxError::Cancelled { .. }))), "not cancelled");
        assert!(
            matches!(ran.arrived.as_slice(), [Incoming::Message(Message::Notification(n))] if n.method == "$/progress")
        );
        // A message that does not interrupt: the batch completes.
        let progress = Notification::new("$/progress".into(), serde_json::Value::Null);
        sender.send(Incoming::Message(Message::Notification(progress))).unwrap();
        let ran = run(&files[1..], &project, &config, None, &HashSet::new(), &incoming, |_| false);
        assert!(matches!(&ran.outcomes[0], Ok(Ok(report)) if report.findings.len() == 1), "small.py failed");
        assert_eq!(ran.arrived.len(), 1);
    }

    #[test]
    fn unopened_files_are_stored_in_and_served_from_the_cache() {
        let temp = tempfile::tempdir().unwrap();
        let file = temp.path().join("m.py");
        std::fs::write(&file, "import os\n").unwrap();
        let files = vec![file.clone()];
        let project = Project::new(&files, &Default::default());
        let config = Resolved::defaults(temp.path());
        let options = quarry_query::run::RunOptions {
            queries: config.queries.clone(),
            polarities: vec![Polarity::Positive],
            load: config.load,
            limits: config.limits,
            chunk: 1,
        };
        let cache = quarry_query::cache::AnalysisCache::open(&temp.path().join(".quarry_cache")).unwrap();
        let view = CacheView::new(&project, &files, &options, &cache);
        assert!(view.report(&project, &file).is_none());
        let (_sender, incoming) = crossbeam_channel::unbounded::<Incoming>();
        let ran = run(&files, &project, &config, Some(&view), &HashSet::new(), &incoming, |_| false);
        let Ok(Ok(analysed)) = &ran.outcomes[0] else { panic!("m.py failed") };
        // A new session's view serves the same findings without analysing.
        let project = Project::new(&files, &Default::default());
        let cached = CacheView::new(&project, &files, &options, &cache).report(&project, &file).expect("a cache hit");
        let ids = |r: &FileReport| r.findings.iter().map(|f| f.query_id).collect::<Vec<_>>();
        assert_eq!(ids(&cached), ids(analysed));
        assert_eq!(ids(&cached), ["unused-import"]);
    }
}
