//! Evaluating checkpoints on a data file, as `quarry evaluate span|relevance` does: exact
//! match of a span model in one of the paper's settings (Tables 2 and 3), and accuracy,
//! precision, recall and F1 of a relevance model, with their JSON and table forms.

use std::io::Write;
use std::path::Path;
use std::time::Instant;

use quarry_data::codequeries::labels::Subtokenizer;
use quarry_data::codequeries::Example;
use quarry_data::jsonl::read_records;
use quarry_stdx::rng::sample_per_key;
use quarry_stdx::AtomicFile;
use serde_json::{json, Value};

use crate::data::{encode_examples, encode_relevance, read_relevance_jsonl, read_span_jsonl, EncodedExample};
use crate::error::{ModelError, Result};
use crate::file_level::{BlockSelector, Runner, Setting};
use crate::relevance_model::{RelevanceEvaluation, RelevanceModel};
use crate::span_model::SpanModel;
use crate::spans::{decode, Breakdown, Counts, ExactMatch, Label};

/// How to evaluate a span model.
#[derive(Debug, Clone)]
pub struct SpanEvalOptions<'a> {
    /// The setting: ideal (encoded examples) or one of the file-level settings.
    pub setting: Setting,
    /// Longest model input in sub-tokens (capped by the model's own maximum).
    pub max_len: usize,
    /// Model inputs per forward pass.
    pub batch_size: usize,
    /// At most this many positive and this many negative examples per query, a sample
    /// seeded with `seed`.
    pub limit_per_query: Option<usize>,
    /// Seed of that sample.
    pub seed: u64,
    /// Ideal setting: write one JSON line of predicted labels and spans per example here.
    pub predictions: Option<&'a Path>,
}

/// The result of [`evaluate_span`].
#[derive(Debug, Clone)]
pub struct SpanEvalReport {
    /// The setting evaluated.
    pub setting: Setting,
    /// Examples evaluated.
    pub examples: usize,
    /// Mean token loss (ideal setting only).
    pub loss: Option<f64>,
    /// Exact match, overall and per query and hop class.
    pub exact_match: ExactMatch,
    /// Wall-clock seconds.
    pub seconds: f64,
}

/// The layout tokenizer of a span checkpoint: its `tokenizer.json`.
pub fn subtokenizer_of(model: &SpanModel) -> Result<Subtokenizer> {
    let source = model.model.tokenizer.source();
    let dir = model.model.dir.clone().unwrap_or_else(|| source.to_path_buf());
    Subtokenizer::load(&dir)
        .map_err(|e| ModelError::Data(format!("the file-level settings need {}/tokenizer.json: {e}", dir.display())))
}

/// Evaluates `model` on `data` in `options.setting`: the ideal setting reads span JSON Lines
/// (`subtokenized_input_sequence`, `label_sequence`); the file-level settings read the
/// builder's `file_ideal_*.jsonl` examples, the two-step setting choosing blocks with
/// `selector`. `on_example(done, total)` follows the file-level settings' progress.
pub fn evaluate_span(
    model: &SpanModel,
    data: &Path,
    selector: Option<&dyn BlockSelector>,
    options: &SpanEvalOptions,
    on_example: &mut dyn FnMut(usize, usize),
) -> Result<SpanEvalReport> {
    let started = Instant::now();
    let max_len = options.max_len.min(model.model.config.max_input_len());
    let (exact_match, examples, loss) = if options.setting == Setting::Ideal {
        let examples = read_span_jsonl(data)?;
        let examples =
            sample(examples, options, |e| (e.query.clone().unwrap_or_default(), e.labels.contains(&Some(Label::B))));
        let enc = encode_examples(&examples, &model.model.tokenizer, max_len)
            .map_err(|e| ModelError::Data(format!("encoding {}: {e}", data.display())))?;
        let eval = model.evaluate(&enc, options.batch_size)?;
        if let Some(path) = options.predictions {
            write_predictions(path, &enc, &eval.predictions)?;
        }
        (eval.exact_match, enc.len(), Some(eval.loss))
    } else {
        let examples: Vec<Example> = read_records(data).map_err(|e| ModelError::Data(e.to_string()))?;
        let examples = sample(examples, options, |e| (e.query_name.clone(), e.example_type == 1));
        let subtokenizer = subtokenizer_of(model)?;
        let runner =
            Runner { span: model, subtokenizer: &subtokenizer, selector, max_len, batch_size: options.batch_size };
        (runner.evaluate(options.setting, &examples, on_example)?, examples.len(), None)
    };
    Ok(SpanEvalReport {
        setting: options.setting,
        examples,
        loss,
        exact_match,
        seconds: started.elapsed().as_secs_f64(),
    })
}

/// At most `options.limit_per_query` positive and negative items per query, if set.
fn sample<T>(items: Vec<T>, options: &SpanEvalOptions, key: impl Fn(&T) -> (String, bool)) -> Vec<T> {
    match options.limit_per_query {
        Some(limit) => sample_per_key(items, limit, options.seed, key),
        None => items,
    }
}

/// Writes one JSON line per example: `query_name`, `predicted_labels` (unlabelled positions
/// shown as `O`), `answer_spans` and `fact_spans` as token ranges.
pub fn write_predictions(path: &Path, enc: &[EncodedExample], predictions: &[Vec<Label>]) -> Result<()> {
    let mut file = AtomicFile::create(path)?;
    for (e, pred) in enc.iter().zip(predictions) {
        // Unlabeled positions (special tokens, ignored sub-tokens) count as outside.
        let shown: Vec<Label> =
            pred.iter().zip(&e.labels).map(|(p, g)| if g.is_some() { *p } else { Label::O }).collect();
        let spans = decode(&shown);
        file.write_json_line(&json!({
            "query_name": e.query,
            "predicted_labels": shown.iter().map(|l| l.name()).collect::<Vec<_>>(),
            "answer_spans": spans.answers,
            "fact_spans": spans.facts,
        }))?;
    }
    file.commit()?;
    Ok(())
}

fn percent(c: &Counts) -> f64 {
    (c.rate() * 10_000.0).round() / 100.0
}

fn breakdown_json(b: &Breakdown) -> Value {
    json!({
        "all": percent(&b.all),
        "positive": percent(&b.positive),
        "negative": percent(&b.negative),
        "counts": b,
    })
}

/// Exact match as percentages: `all`, `positive`, `negative`, `per_query` and `per_hops`.
fn exact_match_json(em: &ExactMatch) -> Value {
    let overall = Breakdown { all: em.all, positive: em.positive, negative: em.negative };
    let mut value = breakdown_json(&overall);
    value["per_query"] = em.per_query.iter().map(|(q, b)| (q.clone(), breakdown_json(b))).collect();
    value["per_hops"] = em.per_hops.iter().map(|(h, b)| (h.clone(), breakdown_json(b))).collect();
    value
}

fn cell(c: &Counts) -> String {
    format!("{:6.2} ({}/{})", percent(c), c.exact, c.total)
}

impl SpanEvalReport {
    /// The report as JSON, naming the model and data it came from.
    pub fn to_json(&self, model: &str, data: &Path) -> Value {
        json!({
            "setting": self.setting.name(),
            "model": model,
            "data": data.display().to_string(),
            "examples": self.examples,
            "loss": self.loss,
            "seconds": self.seconds,
            "exact_match": exact_match_json(&self.exact_match),
            "answer_only": breakdown_json(&self.exact_match.answer_only),
        })
    }

    /// The report as a table: all, positive and negative examples; answer and facts, answer
    /// only, per hop class and per query.
    pub fn write_table(&self, out: &mut dyn Write) -> std::io::Result<()> {
        let em = &self.exact_match;
        write!(out, "exact match, {} setting, {} examples", self.setting.name(), self.examples)?;
        if let Some(loss) = self.loss {
            write!(out, ", loss {loss:.4}")?;
        }
        writeln!(out)?;
        writeln!(out, "{:<56} {:>20} {:>20} {:>20}", "", "all", "positive", "negative")?;
        let row = |out: &mut dyn Write, name: &str, b: &Breakdown| {
            writeln!(out, "{name:<56} {:>20} {:>20} {:>20}", cell(&b.all), cell(&b.positive), cell(&b.negative))
        };
        row(out, "answer and facts", &Breakdown { all: em.all, positive: em.positive, negative: em.negative })?;
        row(out, "answer only", &em.answer_only)?;
        for (hops, b) in &em.per_hops {
            row(out, hops, b)?;
        }
        for (query, b) in &em.per_query {
            row(out, query, b)?;
        }
        Ok(())
    }
}

/// Evaluates a relevance model on `twostep_*.jsonl` rows (`relevance_label`).
pub fn evaluate_relevance(
    model: &RelevanceModel,
    data: &Path,
    max_len: usize,
    batch_size: usize,
) -> Result<RelevanceEvaluation> {
    let max_len = max_len.min(model.model.config.max_input_len());
    let examples = read_relevance_jsonl(data)?;
    let enc = encode_relevance(&examples, &model.model.tokenizer, max_len)
        .map_err(|e| ModelError::Data(format!("encoding {}: {e}", data.display())))?;
    model.evaluate(&enc, batch_size)
}

impl RelevanceEvaluation {
    /// The evaluation as JSON: examples, loss, the rates and the confusion counts.
    pub fn to_json(&self) -> Value {
        let c = &self.confusion;
        json!({
            "examples": c.total(),
            "loss": self.loss,
            "accuracy": self.accuracy,
            "precision": self.precision,
            "recall": self.recall,
            "f1": self.f1,
            "true_positives": c.true_positives,
            "false_positives": c.false_positives,
            "true_negatives": c.true_negatives,
            "false_negatives": c.false_negatives,
        })
    }

    /// The evaluation as aligned lines.
    pub fn write_table(&self, out: &mut dyn Write) -> std::io::Result<()> {
        let c = &self.confusion;
        writeln!(out, "examples  {}", c.total())?;
        writeln!(out, "loss      {:.4}", self.loss)?;
        writeln!(out, "accuracy  {:.4}", self.accuracy)?;
        writeln!(out, "precision {:.4}", self.precision)?;
        writeln!(out, "recall    {:.4}", self.recall)?;
        writeln!(out, "f1        {:.4}", self.f1)?;
        writeln!(
            out,
            "confusion tp {} fp {} tn {} fn {}",
            c.true_positives, c.false_positives, c.true_negatives, c.false_negatives
        )
    }
}
