//! `quarry_code.metrics`: [`quarry_eval::metric::score`] on lists of strings,
//! as `quarry metrics NAME` computes it on files.

use std::path::PathBuf;
use std::sync::Arc;

use pyo3::prelude::*;
use quarry_eval::cancel::within;
use quarry_eval::metric::{self, Input, Metric, Options};
use quarry_eval::sentence_bleu::Smoothing;
use quarry_eval::wordnet::WordNet;
use quarry_eval::EvalError;

use crate::errors::{cancelled, detached_cancellable, Failure, Kind};

/// Every metric's name and a line of help, in `quarry metrics --help`'s order.
#[pyfunction]
pub fn metric_names() -> Vec<(&'static str, &'static str)> {
    Metric::all().map(|m| (m.name(), m.help())).collect()
}

/// A metric's result: the score, its description, the details as JSON and
/// the score of every line.
type Scored = (f64, String, String, Vec<f64>);

/// Scores `hyps` against the reference streams `refs` with the metric `name`; an
/// interrupted call stops its work at the metric's next line ([`quarry_eval::cancel`]).
#[pyfunction]
#[pyo3(signature = (name, hyps, refs, weights=None, smoothing="method0".to_string(), auto_reweigh=false, stem=false, wordnet=None, use_wordnet=true, meteor_jar=None))]
#[allow(clippy::too_many_arguments)]
pub fn score(
    py: Python<'_>,
    name: String,
    hyps: Vec<String>,
    refs: Vec<Vec<String>>,
    weights: Option<Vec<f64>>,
    smoothing: String,
    auto_reweigh: bool,
    stem: bool,
    wordnet: Option<PathBuf>,
    use_wordnet: bool,
    meteor_jar: Option<PathBuf>,
) -> PyResult<Scored> {
    detached_cancellable(py, move |cancel| {
        let cancel = Arc::clone(cancel);
        let metric = Metric::from_name(&name).ok_or_else(|| {
            let known: Vec<&str> = Metric::all().map(Metric::name).collect();
            (Kind::Value, format!("unknown metric `{name}`; known: {}", known.join(", ")))
        })?;
        let wordnet = if metric == Metric::Meteor && use_wordnet { open_wordnet(wordnet)? } else { None };
        let options = Options {
            weights: weights.unwrap_or_else(|| Options::default().weights),
            smoothing: if metric == Metric::SentenceBleu {
                Smoothing::parse(&smoothing).map_err(failure)?
            } else {
                Smoothing::Method0
            },
            auto_reweigh,
            stem,
            wordnet: wordnet.as_ref(),
            meteor_jar: meteor_jar.as_deref(),
        };
        let names: Vec<String> = (0..refs.len()).map(|i| format!("refs[{i}]")).collect();
        let hyps = Input { name: "hyps", lines: hyps.iter().map(String::as_str).collect() };
        let refs: Vec<Input> = refs
            .iter()
            .zip(&names)
            .map(|(lines, name)| Input { name, lines: lines.iter().map(String::as_str).collect() })
            .collect();
        let s = within(cancel, || metric::score(metric, &hyps, &refs, &options)).map_err(failure)?;
        let details = serde_json::Value::Object(s.details).to_string();
        Ok((s.score, s.description, details, s.per_line))
    })
}

/// Corpus BLEU alone, as `sacrebleu.corpus_bleu(hyps, refs).score` (the headline of
/// `score("bleu", ...)` without the sentence BLEU of every line it also computes);
/// interrupted, as [`score`].
#[pyfunction]
pub fn corpus_bleu(py: Python<'_>, hyps: Vec<String>, refs: Vec<Vec<String>>) -> PyResult<f64> {
    detached_cancellable(py, move |cancel| {
        let hyps: Vec<&str> = hyps.iter().map(String::as_str).collect();
        let refs: Vec<Vec<&str>> = refs.iter().map(|stream| stream.iter().map(String::as_str).collect()).collect();
        within(Arc::clone(cancel), || quarry_eval::bleu::corpus_bleu(&hyps, &refs)).map(|s| s.score).map_err(failure)
    })
}

/// WordNet as `quarry metrics meteor` opens it: `dir`, else
/// `$QUARRY_WORDNET_DIR` or the system's; none when absent and not named.
fn open_wordnet(dir: Option<PathBuf>) -> Result<Option<WordNet>, Failure> {
    let resolved = WordNet::resolve_dir(dir.as_deref());
    if !WordNet::is_present(&resolved) {
        return match dir {
            Some(_) => Err((Kind::Os, format!("no WordNet 3.0 dict files in {}", resolved.display()))),
            None => Ok(None),
        };
    }
    WordNet::open(&resolved).map(Some).map_err(failure)
}

fn failure(error: EvalError) -> Failure {
    match error {
        EvalError::Io(io) => crate::errors::io_failure(&io.path, &io.source),
        EvalError::Cancelled => cancelled(),
        other => (Kind::Value, other.to_string()),
    }
}
