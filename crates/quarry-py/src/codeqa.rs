//! `quarry_code.codeqa.pairs`: CodeQA question–answer pairs from a comment
//! ([`quarry_data::codeqa::generate`]), as `quarry codeqa qa` makes them.

use pyo3::prelude::*;
use quarry_data::codeqa::{generate, Outcome};

use crate::errors::{detached, Kind};
use crate::nlp::Pipeline;

/// The pairs of `comment` (at most `max_pairs`), each as the JSON object
/// `quarry codeqa qa` prints in `pairs`.
#[pyfunction]
#[pyo3(signature = (comment, pipeline, max_pairs=quarry_data::codeqa::DEFAULT_MAX_PAIRS))]
pub fn codeqa_pairs(py: Python<'_>, comment: String, pipeline: &Pipeline, max_pairs: usize) -> PyResult<Vec<String>> {
    let shared = std::sync::Arc::clone(&pipeline.inner);
    detached(py, move || {
        let mut parser: &quarry_nlp::Pipeline = &shared;
        match generate(&[comment.as_str()], &mut parser, max_pairs).pop() {
            Some(Outcome::Pairs(pairs)) => pairs
                .iter()
                .map(|p| {
                    serde_json::to_string(p).map_err(|e| (Kind::Internal, format!("cannot serialize a pair: {e}")))
                })
                .collect(),
            Some(Outcome::ParseError(e)) => Err((Kind::Value, format!("cannot parse the comment: {e}"))),
            None => Ok(Vec::new()),
        }
    })
}
