//! `quarry_code.codeqa.pairs`: CodeQA question–answer pairs from a comment
//! ([`quarry_data::codeqa::generate`]), as `quarry codeqa qa` makes them.

use std::sync::atomic::AtomicBool;

use pyo3::prelude::*;
use quarry_data::codeqa::{generate_cancellable, CommentParser, Outcome};

use crate::errors::{cancelled, detached_cancellable, Kind};
use crate::nlp::Pipeline;

/// The pairs of `comment` (at most `max_pairs`), each as the JSON object
/// `quarry codeqa qa` prints in `pairs`. An interrupted call stops its work at
/// the parser's next component or the comment's next predicate (a long comment
/// takes time in the product of its predicates and its length: minutes).
#[pyfunction]
#[pyo3(signature = (comment, pipeline, max_pairs=quarry_data::codeqa::DEFAULT_MAX_PAIRS))]
pub fn codeqa_pairs(py: Python<'_>, comment: String, pipeline: &Pipeline, max_pairs: usize) -> PyResult<Vec<String>> {
    let shared = std::sync::Arc::clone(&pipeline.inner);
    detached_cancellable(py, move |cancel| {
        let mut parser = StoppingParser { pipeline: &shared, cancel };
        let outcomes =
            generate_cancellable(&[comment.as_str()], &mut parser, max_pairs, cancel).ok_or_else(cancelled)?;
        match outcomes.into_iter().next() {
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

/// The pipeline as the generator's parser (the same docs as quarry-data's), stopping
/// once `cancel` is set; the generator then stops at its next check.
struct StoppingParser<'a> {
    pipeline: &'a quarry_nlp::Pipeline,
    cancel: &'a AtomicBool,
}

impl CommentParser for StoppingParser<'_> {
    fn parse_many(&mut self, texts: &[&str]) -> Vec<Result<quarry_nlp::Doc, String>> {
        match self.pipeline.pipe_cancellable(texts, self.cancel) {
            Some(docs) => docs.into_iter().map(|doc| doc.map_err(|e| e.to_string())).collect(),
            None => texts.iter().map(|_| Err("cancelled".to_string())).collect(),
        }
    }
}
