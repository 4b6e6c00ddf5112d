//! `quarry_code.query`: [`quarry_workspace::check`] over paths, findings as the
//! JSON lines `quarry query --format jsonl` prints; with `cache=True`
//! through the analysis cache `quarry query` uses for the same project
//! ([`quarry_workspace::cache_dir`] says why it is off by default).

use std::path::{Path, PathBuf};

use pyo3::prelude::*;
use quarry_query::Polarity;
use quarry_syntax::{SyntaxError, DEFAULT_TIME_BUDGET};
use quarry_workspace::check::{reported_findings_cached, settings_for, ConfigChoice, Plan};
use quarry_workspace::config::Settings;

use crate::errors::{detached, Failure, Kind};

/// The reported findings of the selected queries over `paths`, one JSON
/// object per finding; configuration as `quarry query` finds it (`config`:
/// this file instead); `cache`: through the project's analysis cache (one
/// that cannot be opened is not used, with a warning).
#[pyfunction]
#[pyo3(signature = (paths, select=None, negative=false, config=None, cache=false))]
pub fn query_jsonl(
    py: Python<'_>,
    paths: Vec<PathBuf>,
    select: Option<Vec<String>>,
    negative: bool,
    config: Option<PathBuf>,
    cache: bool,
) -> PyResult<Vec<String>> {
    // The module's own file is its build: the interpreter is not quarry.
    let build = if cache { Some(module_file(py)?) } else { None };
    let (lines, warning) = detached(py, move || run(&paths, select, negative, config, build.as_deref()))?;
    if let Some(message) = warning {
        PyErr::warn(py, &py.get_type::<pyo3::exceptions::PyUserWarning>(), &std::ffi::CString::new(message)?, 1)?;
    }
    Ok(lines)
}

/// The file this module was loaded from.
fn module_file(py: Python<'_>) -> PyResult<PathBuf> {
    py.import("quarry_code._native")?.getattr("__file__")?.extract()
}

/// The findings as JSON lines, and a warning about the cache if any.
fn run(
    paths: &[PathBuf],
    select: Option<Vec<String>>,
    negative: bool,
    config: Option<PathBuf>,
    build: Option<&Path>,
) -> Result<(Vec<String>, Option<String>), Failure> {
    let value = |message: String| (Kind::Value, message);
    let anchor = paths.first().map_or(Path::new("."), PathBuf::as_path);
    let choice = config.map_or(ConfigChoice::Discover, ConfigChoice::File);
    let overrides = Settings { select, ..Settings::default() };
    let (settings, root) = settings_for(&choice, anchor, overrides).map_err(value)?;
    let polarity = if negative { Polarity::Negative } else { Polarity::Positive };
    let plan = Plan::new(&settings, &root, &[polarity], Some(DEFAULT_TIME_BUDGET)).map_err(value)?;
    let (cache, warning) = match build.map(|build| quarry_workspace::cache_dir::open_for_build(&root, build)) {
        Some(Ok(cache)) => (Some(cache), None),
        Some(Err(error)) => (None, Some(format!("quarry: no analysis cache: {error}"))),
        None => (None, None),
    };
    let reported = reported_findings_cached(paths, &plan, true, cache.as_ref());
    let count = reported.walk_errors.len() + reported.failed.len();
    let more =
        if count > 1 { format!(" (and {} more path(s) that could not be analysed)", count - 1) } else { String::new() };
    if let Some(error) = reported.walk_errors.first() {
        return Err((Kind::Os, format!("{error}{more}")));
    }
    if let Some(error) = reported.failed.first() {
        let kind = if matches!(error, SyntaxError::Io(_)) { Kind::Os } else { Kind::Value };
        return Err((kind, format!("{error}{more}")));
    }
    let lines = reported
        .findings
        .iter()
        .map(|f| serde_json::to_string(f).map_err(|e| (Kind::Internal, format!("cannot serialize a finding: {e}"))))
        .collect::<Result<_, _>>()?;
    Ok((lines, warning))
}
