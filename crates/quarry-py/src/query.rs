//! `quarry_code.query`: [`quarry_workspace::check`] over paths, findings as the
//! JSON lines `quarry query --format jsonl` prints, each with its file's path (which
//! the JSON's `file` spells lossily when the name is not UTF-8); with `cache=True`
//! through the analysis cache `quarry query` uses for the same project
//! ([`quarry_workspace::cache_dir`] says why it is off by default). A file
//! that cannot be analysed raises, warns or is left out, as the caller asks.

use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use pyo3::prelude::*;
use quarry_query::Polarity;
use quarry_syntax::{time_budget_from_secs, SyntaxError, DEFAULT_TIME_BUDGET};
use quarry_workspace::check::{reported_findings_cancellable, settings_for, ConfigChoice, Plan};
use quarry_workspace::config::Settings;

use crate::errors::{cancelled, detached_cancellable, io_failure, to_exception, Failure, Kind};

/// What `on_error=` asks of files that cannot be analysed.
#[derive(Clone, Copy, PartialEq)]
enum OnError {
    /// The first one is raised, naming how many more there are.
    Raise,
    /// Each one is a `QuarryWarning`, and the findings of the rest are returned.
    Warn,
    /// They are left out without a word.
    Ignore,
}

impl OnError {
    fn parse(name: &str) -> Result<OnError, Failure> {
        match name {
            "raise" => Ok(OnError::Raise),
            "warn" => Ok(OnError::Warn),
            "ignore" => Ok(OnError::Ignore),
            other => Err((Kind::Value, format!("on_error must be \"raise\", \"warn\" or \"ignore\", not {other:?}"))),
        }
    }
}

/// The reported findings of the selected queries over `paths`, one JSON
/// object per finding with the path of its file (a `str` as `os.fsdecode`
/// gives it, so that a name that is not UTF-8 round-trips); configuration as
/// `quarry query` finds it (`config`: this file instead); `cache`: through the project's analysis cache (one
/// that cannot be opened is not used, with a warning); `time_budget`: seconds
/// per file (0 or `None`: none); `on_error`: what a path or file that cannot be
/// analysed does (`raise`, `warn` or `ignore`).
#[pyfunction]
#[pyo3(signature = (paths, select=None, negative=false, config=None, cache=false, time_budget=Some(DEFAULT_TIME_BUDGET.as_secs_f64()), on_error="raise".to_string()))]
#[allow(clippy::too_many_arguments)]
pub fn query_jsonl(
    py: Python<'_>,
    paths: Vec<PathBuf>,
    select: Option<Vec<String>>,
    negative: bool,
    config: Option<PathBuf>,
    cache: bool,
    time_budget: Option<f64>,
    on_error: String,
) -> PyResult<Vec<Line>> {
    let on_error = OnError::parse(&on_error).map_err(|failure| to_exception(py, failure))?;
    let budget = time_budget_from_secs(time_budget.unwrap_or(0.0))
        .map_err(|message| to_exception(py, (Kind::Value, format!("time_budget: {message}"))))?;
    // The module's own file is its build: the interpreter is not quarry.
    let build = if cache { Some(module_file(py)?) } else { None };
    let request = Request { select, negative, config, budget, on_error };
    let (lines, warnings) = detached_cancellable(py, move |cancel| run(&paths, request, build.as_deref(), cancel))?;
    for (class, message) in warnings {
        let category = py.import("quarry_code.errors")?.getattr(class)?;
        PyErr::warn(py, &category, &std::ffi::CString::new(message)?, 1)?;
    }
    Ok(lines)
}

/// The file this module was loaded from.
fn module_file(py: Python<'_>) -> PyResult<PathBuf> {
    py.import("quarry_code._native")?.getattr("__file__")?.extract()
}

/// The options of one call besides its paths.
struct Request {
    select: Option<Vec<String>>,
    negative: bool,
    config: Option<PathBuf>,
    budget: Option<Duration>,
    on_error: OnError,
}

/// A warning to give: the class's name in `quarry_code.errors` and the message.
type Warning = (&'static str, String);

/// A finding as a JSON line and the path of its file.
type Line = (String, std::ffi::OsString);

/// The findings as JSON lines with their files' paths, and the warnings to give
/// (the cache's, the files' that could not be analysed).
fn run(
    paths: &[PathBuf],
    request: Request,
    build: Option<&Path>,
    cancel: &AtomicBool,
) -> Result<(Vec<Line>, Vec<Warning>), Failure> {
    let value = |message: String| (Kind::Value, message);
    if request.on_error == OnError::Raise {
        // A path that cannot be read at all fails at once, as Python's own OSError.
        if let Some((path, error)) = paths.iter().find_map(|p| std::fs::metadata(p).err().map(|e| (p, e))) {
            return Err(io_failure(path, &error));
        }
    }
    let anchor = paths.first().map_or(Path::new("."), PathBuf::as_path);
    let choice = request.config.map_or(ConfigChoice::Discover, ConfigChoice::File);
    let overrides = Settings { select: request.select, ..Settings::default() };
    let (settings, root) = settings_for(&choice, anchor, overrides).map_err(value)?;
    let polarity = if request.negative { Polarity::Negative } else { Polarity::Positive };
    let plan = Plan::new(&settings, &root, &[polarity], request.budget).map_err(value)?;
    let mut warnings = Vec::new();
    let cache = match build.map(|build| quarry_workspace::cache_dir::open_for_build(&root, build)) {
        Some(Ok(cache)) => Some(cache),
        Some(Err(error)) => {
            warnings.push(("QuarryWarning", format!("quarry: no analysis cache: {error}")));
            None
        }
        None => None,
    };
    let reported =
        reported_findings_cancellable(paths, &plan, true, cache.as_ref(), cancel).map_err(|_| cancelled())?;
    let problems = reported.walk_errors.iter().map(|error| (Kind::Os, error.to_string())).chain(
        reported.failed.iter().map(|error| {
            let kind = if matches!(error, SyntaxError::Io(_)) { Kind::Os } else { Kind::Value };
            (kind, error.to_string())
        }),
    );
    match request.on_error {
        OnError::Raise => {
            let count = reported.walk_errors.len() + reported.failed.len();
            let more = if count > 1 {
                format!(" (and {} more path(s) that could not be analysed)", count - 1)
            } else {
                String::new()
            };
            if reported.walk_errors.is_empty() {
                if let Some(SyntaxError::Io(io)) = reported.failed.first() {
                    let (kind, message) = io_failure(&io.path, &io.source);
                    return Err((kind, format!("{message}{more}")));
                }
            }
            if let Some((kind, message)) = problems.into_iter().next() {
                return Err((kind, format!("{message}{more}")));
            }
        }
        OnError::Warn => warnings.extend(problems.map(|(_, message)| ("QuarryWarning", message))),
        OnError::Ignore => {}
    }
    let lines = reported
        .findings
        .into_iter()
        .zip(reported.finding_paths)
        .map(|(finding, path)| {
            let line = serde_json::to_string(&finding)
                .map_err(|e| (Kind::Internal, format!("cannot serialize a finding: {e}")))?;
            // An `OsString` becomes a `str` as `os.fsdecode` makes it (a `PathBuf`, a `pathlib.Path`).
            Ok((line, path.into_os_string()))
        })
        .collect::<Result<_, Failure>>()?;
    Ok((lines, warnings))
}
