//! Evaluating checkpoints on a data file, as `quarry evaluate span|relevance` does: exact
//! match of a span model in one of the paper's settings (Tables 2 and 3), and accuracy,
//! precision, recall and F1 of a relevance model, with their JSON and table forms. Every
//! figure comes with the score of a model that predicts nothing, and with warnings
//! ([`EvalChecks`]) when it could mislead; a figure over no examples is `–` (JSON `null`).

use std::io::Write;
use std::path::Path;
use std::time::Instant;

use quarry_data::codequeries::labels::Subtokenizer;
use quarry_data::codequeries::Example;
use quarry_data::records::read_numbered;
use quarry_stdx::rng::sample_per_key;
use quarry_stdx::AtomicFile;
use serde_json::{json, Value};

use crate::error::{ModelError, Result};
use crate::evaluation::eval_checks::{percent_text, EvalChecks};
use crate::evaluation::file_level::{BlockSelector, Runner, Setting};
use crate::evaluation::spans::{decode, Breakdown, Counts, ExactMatch, Label};
use crate::models::relevance::{RelevanceEvaluation, RelevanceModel};
use crate::models::span::SpanModel;
use crate::training::data::{encode_examples, encode_relevance, read_relevance_jsonl, read_span_jsonl, EncodedExample};

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
    /// Evaluate only the first N examples of the file (before `limit_per_query`).
    pub limit: Option<usize>,
}

/// What the evaluation reads of an example beside its tokens and labels: its identity and
/// whether the data calls it positive.
#[derive(Debug, Clone, Default, serde::Deserialize)]
struct ExampleMeta {
    #[serde(default)]
    id: Option<String>,
    #[serde(default)]
    example_type: Option<u8>,
}

/// Whether the data's `example_type` calls each span example of `data` positive (`None` where
/// a line does not say): the positives truncation or perturbation left without an answer span
/// are told from real negatives by it ([`EvalChecks::of_encoded`]).
pub fn declared_positives(data: &Path) -> Result<Vec<Option<bool>>> {
    let metas: Vec<(usize, ExampleMeta)> =
        read_numbered(data, "a span example").map_err(|e| ModelError::Data(e.to_string()))?;
    Ok(metas.into_iter().map(|(_, m)| m.example_type.map(|t| t == 1)).collect())
}

/// An example's origin and the data's `example_type` (1 positive), when it says.
type SpanExampleRef = (ExampleRef, Option<u8>);

/// Where an example came from: the data's `id` (when it has one) and its line.
#[derive(Debug, Clone)]
pub struct ExampleRef {
    /// The example's `id` field.
    pub id: Option<String>,
    /// Its 1-based line in the data file.
    pub line: usize,
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
    /// The predict-nothing baseline and the counts behind the warnings.
    pub checks: EvalChecks,
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
    let (exact_match, checks, examples, loss) = if options.setting == Setting::Ideal {
        let examples = read_span_jsonl(data)?;
        let metas: Vec<(usize, ExampleMeta)> =
            read_numbered(data, "a span example").map_err(|e| ModelError::Data(e.to_string()))?;
        if metas.len() != examples.len() {
            return Err(ModelError::Data(format!("{}: examples changed while reading", data.display())));
        }
        let mut items: Vec<(SpanExampleRef, _)> = examples
            .into_iter()
            .zip(metas)
            .map(|(e, (line, m))| ((ExampleRef { id: m.id, line }, m.example_type), e))
            .collect();
        if let Some(limit) = options.limit {
            items.truncate(limit);
        }
        let items =
            sample(items, options, |(_, e)| (e.query.clone().unwrap_or_default(), e.labels.contains(&Some(Label::B))));
        let (refs, examples): (Vec<SpanExampleRef>, Vec<_>) = items.into_iter().unzip();
        let enc = encode_examples(&examples, &model.model.tokenizer, max_len)
            .map_err(|e| ModelError::Data(format!("encoding {}: {e}", data.display())))?;
        let eval = model.evaluate(&enc, options.batch_size)?;
        let declared: Vec<Option<bool>> = refs.iter().map(|(_, t)| t.map(|t| t == 1)).collect();
        let unk = model.model.tokenizer.unk_id();
        let checks = EvalChecks::of_encoded(&enc, &eval.predictions, &examples, &declared, (max_len, unk));
        if let Some(path) = options.predictions {
            let refs: Vec<ExampleRef> = refs.into_iter().map(|(r, _)| r).collect();
            write_predictions(path, &enc, &eval.predictions, &refs)?;
        }
        (eval.exact_match, checks, enc.len(), Some(eval.loss))
    } else {
        let mut examples: Vec<Example> = read_numbered(data, "a file-level example")
            .map_err(|e| ModelError::Data(e.to_string()))?
            .into_iter()
            .map(|(_, e)| e)
            .collect();
        if let Some(limit) = options.limit {
            examples.truncate(limit);
        }
        let examples = sample(examples, options, |e| (e.query_name.clone(), e.example_type == 1));
        let subtokenizer = subtokenizer_of(model)?;
        let runner =
            Runner { span: model, subtokenizer: &subtokenizer, selector, max_len, batch_size: options.batch_size };
        let (em, checks) = runner.evaluate_checked(options.setting, &examples, on_example)?;
        (em, checks, examples.len(), None)
    };
    Ok(SpanEvalReport {
        setting: options.setting,
        examples,
        loss,
        exact_match,
        checks,
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

/// Writes one JSON line per example: its `id` (the data's, else `null`) and `line` in the
/// data file, `query_name`, `predicted_labels` (unlabelled positions shown as `O`),
/// `answer_spans` and `fact_spans` as token ranges, and the label encoding of
/// `predicted_labels`.
pub fn write_predictions(
    path: &Path,
    enc: &[EncodedExample],
    predictions: &[Vec<Label>],
    refs: &[ExampleRef],
) -> Result<()> {
    let mut file = AtomicFile::create(path)?;
    for ((e, pred), r) in enc.iter().zip(predictions).zip(refs) {
        // Unlabeled positions (special tokens, ignored sub-tokens) count as outside.
        let shown: Vec<Label> =
            pred.iter().zip(&e.labels).map(|(p, g)| if g.is_some() { *p } else { Label::O }).collect();
        let spans = decode(&shown);
        file.write_json_line(&json!({
            "id": r.id,
            "line": r.line,
            "query_name": e.query,
            "label_encoding": "BIOF",
            "predicted_labels": shown.iter().map(|l| l.name()).collect::<Vec<_>>(),
            "answer_spans": spans.answers,
            "fact_spans": spans.facts,
        }))?;
    }
    file.commit()?;
    Ok(())
}

/// A percentage with two decimals; `None` (JSON `null`, shown `–`) for no examples.
fn percent(c: &Counts) -> Option<f64> {
    (c.total > 0).then(|| (c.rate() * 10_000.0).round() / 100.0)
}

fn breakdown_json(b: &Breakdown, baseline: &Breakdown) -> Value {
    json!({
        "all": percent(&b.all),
        "positive": percent(&b.positive),
        "negative": percent(&b.negative),
        "counts": b,
        "predict_nothing": {
            "all": percent(&baseline.all),
            "positive": percent(&baseline.positive),
            "negative": percent(&baseline.negative),
        },
    })
}

fn overall(em: &ExactMatch) -> Breakdown {
    Breakdown { all: em.all, positive: em.positive, negative: em.negative }
}

/// Exact match as percentages: `all`, `positive`, `negative`, `per_query` and `per_hops`,
/// each with the predict-nothing baseline of the same examples.
fn exact_match_json(em: &ExactMatch, baseline: &ExactMatch) -> Value {
    let mut value = breakdown_json(&overall(em), &overall(baseline));
    let of = |map: &std::collections::BTreeMap<String, Breakdown>, key: &str| map.get(key).copied().unwrap_or_default();
    value["per_query"] =
        em.per_query.iter().map(|(q, b)| (q.clone(), breakdown_json(b, &of(&baseline.per_query, q)))).collect();
    value["per_hops"] =
        em.per_hops.iter().map(|(h, b)| (h.clone(), breakdown_json(b, &of(&baseline.per_hops, h)))).collect();
    value
}

fn cell(c: &Counts) -> String {
    match percent(c) {
        Some(p) => format!("{p:6.2} ({}/{})", c.exact, c.total),
        None => "– (0/0)".to_string(),
    }
}

impl SpanEvalReport {
    /// The warnings of this evaluation (see [`EvalChecks::warnings`]).
    pub fn warnings(&self) -> Vec<String> {
        self.checks.warnings(&self.exact_match)
    }

    /// The report as JSON, naming the model and data it came from.
    pub fn to_json(&self, model: &str, data: &Path) -> Value {
        let baseline = &self.checks.baseline;
        json!({
            "setting": self.setting.name(),
            "model": model,
            "data": data.display().to_string(),
            "examples": self.examples,
            "loss": self.loss,
            "seconds": self.seconds,
            "exact_match": exact_match_json(&self.exact_match, baseline),
            "answer_only": breakdown_json(&self.exact_match.answer_only, &baseline.answer_only),
            "empty_predictions": self.checks.empty_predictions,
            "positives_without_answers": self.checks.positives_without_answers,
            "spans_lost_to_truncation": self.checks.spans_cut,
            "warnings": self.warnings(),
        })
    }

    /// The report as a table: all, positive and negative examples, and beside them what
    /// predicting nothing scores on all of them; answer and facts, answer only, per hop class
    /// and per query.
    pub fn write_table(&self, out: &mut dyn Write) -> std::io::Result<()> {
        let em = &self.exact_match;
        let base = &self.checks.baseline;
        write!(out, "exact match, {} setting, {} examples", self.setting.name(), self.examples)?;
        if let Some(loss) = self.loss {
            write!(out, ", loss {loss:.4}")?;
        }
        writeln!(out)?;
        writeln!(out, "{:<56} {:>20} {:>20} {:>20} {:>20}", "", "all", "positive", "negative", "predict nothing")?;
        let row = |out: &mut dyn Write, name: &str, b: &Breakdown, baseline: &Breakdown| {
            writeln!(
                out,
                "{name:<56} {:>20} {:>20} {:>20} {:>20}",
                cell(&b.all),
                cell(&b.positive),
                cell(&b.negative),
                cell(&baseline.all)
            )
        };
        row(out, "answer and facts", &overall(em), &overall(base))?;
        row(out, "answer only", &em.answer_only, &base.answer_only)?;
        for (hops, b) in &em.per_hops {
            row(out, hops, b, &base.per_hops.get(hops).copied().unwrap_or_default())?;
        }
        for (query, b) in &em.per_query {
            row(out, query, b, &base.per_query.get(query).copied().unwrap_or_default())?;
        }
        for warning in self.warnings() {
            writeln!(out, "warning: {warning}")?;
        }
        Ok(())
    }
}

/// Evaluates a relevance model on `twostep_*.jsonl` rows (`relevance_label`), the first
/// `limit` of them when given.
pub fn evaluate_relevance(
    model: &RelevanceModel,
    data: &Path,
    max_len: usize,
    batch_size: usize,
    limit: Option<usize>,
) -> Result<RelevanceEvaluation> {
    let max_len = max_len.min(model.model.config.max_input_len());
    let mut examples = read_relevance_jsonl(data)?;
    if let Some(limit) = limit {
        examples.truncate(limit.max(1));
    }
    let enc = encode_relevance(&examples, &model.model.tokenizer, max_len)
        .map_err(|e| ModelError::Data(format!("encoding {}: {e}", data.display())))?;
    model.evaluate(&enc, batch_size)
}

/// A fraction as a percentage of the 0–100 scale with two decimals; `None` when undefined.
fn rate(numerator: usize, denominator: usize) -> Option<f64> {
    (denominator > 0).then(|| (10_000.0 * numerator as f64 / denominator as f64).round() / 100.0)
}

impl RelevanceEvaluation {
    /// Precision, `None` where it is undefined (no row predicted relevant).
    pub fn precision_if_defined(&self) -> Option<f64> {
        (self.confusion.true_positives + self.confusion.false_positives > 0).then_some(self.precision)
    }

    /// Recall, `None` where it is undefined (no relevant row).
    pub fn recall_if_defined(&self) -> Option<f64> {
        (self.confusion.true_positives + self.confusion.false_negatives > 0).then_some(self.recall)
    }

    /// F1, `None` where it is undefined (no row predicted or labelled relevant).
    pub fn f1_if_defined(&self) -> Option<f64> {
        let c = &self.confusion;
        (c.true_positives + c.false_positives + c.false_negatives > 0).then_some(self.f1)
    }

    /// What a classifier that calls no block relevant scores on the same rows: accuracy
    /// (the share of irrelevant rows), precision (undefined), recall and F1 (0, or
    /// undefined without relevant rows).
    pub fn predict_nothing(&self) -> Value {
        let c = &self.confusion;
        let relevant = c.true_positives + c.false_negatives;
        json!({
            "accuracy": rate(c.false_positives + c.true_negatives, c.total()),
            "precision": null,
            "recall": rate(0, relevant),
            "f1": rate(0, relevant),
        })
    }

    /// Warnings: no relevant row (recall and F1 undefined), no row predicted relevant
    /// (precision undefined, the classifier calls nothing relevant).
    pub fn warnings(&self) -> Vec<String> {
        let c = &self.confusion;
        let mut out = Vec::new();
        if c.total() > 0 && c.true_positives + c.false_negatives == 0 {
            out.push(format!(
                "no relevant row among the {}: recall and F1 are undefined, accuracy measures irrelevant rows only",
                c.total()
            ));
        }
        if c.total() > 0 && c.true_positives + c.false_positives == 0 {
            out.push(format!(
                "the model calls none of the {} rows relevant: precision is undefined, and its accuracy is the \
                 predict-nothing baseline ({})",
                c.total(),
                percent_text(c.true_negatives + c.false_positives, c.total())
            ));
        }
        out
    }

    /// The evaluation as JSON on the 0–100 scale: examples, loss, the rates (`null` where
    /// undefined), the confusion counts, the predict-nothing baseline and the warnings.
    pub fn to_json(&self) -> Value {
        let c = &self.confusion;
        json!({
            "examples": c.total(),
            "loss": self.loss,
            "accuracy": rate(c.true_positives + c.true_negatives, c.total()),
            "precision": rate(c.true_positives, c.true_positives + c.false_positives),
            "recall": rate(c.true_positives, c.true_positives + c.false_negatives),
            "f1": rate(2 * c.true_positives, 2 * c.true_positives + c.false_positives + c.false_negatives),
            "true_positives": c.true_positives,
            "false_positives": c.false_positives,
            "true_negatives": c.true_negatives,
            "false_negatives": c.false_negatives,
            "predict_nothing": self.predict_nothing(),
            "warnings": self.warnings(),
        })
    }

    /// The evaluation as aligned lines, percentages beside the predict-nothing baseline.
    pub fn write_table(&self, out: &mut dyn Write) -> std::io::Result<()> {
        let c = &self.confusion;
        let shown = |v: Option<f64>| v.map_or("–".to_string(), |v| format!("{v:.2}"));
        let base = self.predict_nothing();
        let base_of = |key: &str| shown(base[key].as_f64());
        writeln!(out, "examples  {}", c.total())?;
        writeln!(out, "loss      {:.4}", self.loss)?;
        writeln!(out, "{:<9} {:>8} {:>16}", "", "model", "predict nothing")?;
        let rows = [
            ("accuracy", rate(c.true_positives + c.true_negatives, c.total())),
            ("precision", rate(c.true_positives, c.true_positives + c.false_positives)),
            ("recall", rate(c.true_positives, c.true_positives + c.false_negatives)),
            ("f1", rate(2 * c.true_positives, 2 * c.true_positives + c.false_positives + c.false_negatives)),
        ];
        for (name, value) in rows {
            writeln!(out, "{name:<9} {:>8} {:>16}", shown(value), base_of(name))?;
        }
        writeln!(
            out,
            "confusion tp {} fp {} tn {} fn {}",
            c.true_positives, c.false_positives, c.true_negatives, c.false_negatives
        )?;
        for warning in self.warnings() {
            writeln!(out, "warning: {warning}")?;
        }
        Ok(())
    }
}
