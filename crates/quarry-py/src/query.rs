//! `quarry_code.query`: [`quarry_workspace::check`] over paths, findings as the
//! JSON lines `quarry query --format jsonl` prints.

use std::path::{Path, PathBuf};

use pyo3::prelude::*;
use quarry_query::Polarity;
use quarry_syntax::{SyntaxError, DEFAULT_TIME_BUDGET};
use quarry_workspace::check::{reported_findings, settings_for, ConfigChoice, Plan};
use quarry_workspace::config::Settings;

use crate::errors::{detached, Failure, Kind};

/// The reported findings of the selected queries over `paths`, one JSON
/// object per finding; configuration as `quarry query` finds it (`config`:
/// this file instead).
#[pyfunction]
#[pyo3(signature = (paths, select=None, negative=false, config=None))]
pub fn query_jsonl(
    py: Python<'_>,
    paths: Vec<PathBuf>,
    select: Option<Vec<String>>,
    negative: bool,
    config: Option<PathBuf>,
) -> PyResult<Vec<String>> {
    detached(py, move || run(&paths, select, negative, config))
}

fn run(
    paths: &[PathBuf],
    select: Option<Vec<String>>,
    negative: bool,
    config: Option<PathBuf>,
) -> Result<Vec<String>, Failure> {
    let value = |message: String| (Kind::Value, message);
    let anchor = paths.first().map_or(Path::new("."), PathBuf::as_path);
    let choice = config.map_or(ConfigChoice::Discover, ConfigChoice::File);
    let overrides = Settings { select, ..Settings::default() };
    let (settings, root) = settings_for(&choice, anchor, overrides).map_err(value)?;
    let polarity = if negative { Polarity::Negative } else { Polarity::Positive };
    let plan = Plan::new(&settings, &root, &[polarity], Some(DEFAULT_TIME_BUDGET)).map_err(value)?;
    let reported = reported_findings(paths, &plan, true);
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
    reported
        .findings
        .iter()
        .map(|f| serde_json::to_string(f).map_err(|e| (Kind::Internal, format!("cannot serialize a finding: {e}"))))
        .collect()
}
