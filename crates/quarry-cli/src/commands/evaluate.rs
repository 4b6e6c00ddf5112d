//! `quarry evaluate span|relevance` (alias `quarry eval`): exact match of a span checkpoint
//! in one of the paper's settings (Tables 2 and 3), or accuracy, precision, recall and F1 of
//! a relevance checkpoint, as a table or JSON.

use std::io::{IsTerminal, Write};
use std::path::PathBuf;

use anyhow::{Context, Result};
use clap::{Args, Subcommand};
use quarry_data::atomic::{read_records, AtomicFile};
use quarry_data::codequeries::labels::Subtokenizer;
use quarry_data::codequeries::Example;
use quarry_model::data::{encode_examples, read_span_jsonl};
use quarry_model::data::{encode_relevance, read_relevance_jsonl};
use quarry_model::device::parse_device;
use quarry_model::file_level::{BlockSelector, Runner, Setting};
use quarry_model::spans::{decode, Breakdown, Counts, ExactMatch, Label};
use quarry_model::{load_model, LoadedModel, RelevanceModel, SpanModel};
use serde_json::{json, Value};

use super::input::Format;
use super::output::{with_stdout, write_json};

/// What to evaluate.
#[derive(Subcommand)]
pub enum EvaluateTask {
    /// Span prediction: exact match of answer and fact span sets.
    Span(SpanEvalArgs),
    /// Block relevance: accuracy, precision, recall and F1 of the relevant class.
    Relevance(RelevanceEvalArgs),
    /// CodeQA answers: BLEU, ROUGE-L, METEOR, EM and F1 of generated against gold answers.
    Answer(super::evaluate_answer::AnswerEvalArgs),
}

/// Arguments of every `quarry evaluate` task.
#[derive(Args)]
pub struct EvalArgs {
    /// A checkpoint written by `quarry train span|relevance` (its `best/` directory).
    #[arg(long)]
    pub model: String,
    /// Examples. Span, `ideal` setting: JSONL with `subtokenized_input_sequence` and
    /// `label_sequence` (`ideal_*.jsonl`, or the public dataset); span, file-level settings:
    /// the `file_ideal_*.jsonl` examples of `quarry dataset codequeries` (`.gz` accepted);
    /// relevance: `twostep_*.jsonl` rows with `relevance_label`.
    #[arg(long)]
    pub data: PathBuf,
    /// Maximum model input in sub-tokens.
    #[arg(long, default_value_t = 512)]
    pub max_len: usize,
    /// Model inputs per forward pass.
    #[arg(long, default_value_t = 16)]
    pub batch_size: usize,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Pretty)]
    pub format: Format,
    /// `cpu`, `cuda` or `cuda:N`.
    #[arg(long, default_value = "cpu")]
    pub device: String,
}

/// Arguments of `quarry evaluate relevance`.
#[derive(Args)]
pub struct RelevanceEvalArgs {
    /// The settings shared with `quarry evaluate span`.
    #[command(flatten)]
    pub common: EvalArgs,
}

/// Arguments of `quarry evaluate span`.
#[derive(Args)]
pub struct SpanEvalArgs {
    /// The settings shared with `quarry evaluate relevance`.
    #[command(flatten)]
    pub common: EvalArgs,
    /// ideal, prefix, sliding-window, two-step or file-ideal.
    #[arg(long, default_value = "ideal")]
    pub setting: String,
    /// Relevance classifier for the two-step setting (a `quarry train relevance` checkpoint).
    #[arg(long)]
    pub relevance_model: Option<String>,
    /// Evaluate at most N positive and N negative examples per query (a seeded sample).
    #[arg(long)]
    pub limit_per_query: Option<usize>,
    /// Seed of that sample.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Write one JSON line of predicted labels and spans per example here (ideal setting).
    #[arg(long)]
    pub predictions: Option<PathBuf>,
}

/// Runs `quarry evaluate ...`.
pub fn run(task: EvaluateTask) -> i32 {
    let result = match task {
        EvaluateTask::Span(args) => evaluate(args),
        EvaluateTask::Relevance(args) => evaluate_relevance(args),
        EvaluateTask::Answer(args) => super::evaluate_answer::evaluate_answers(args),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("quarry: error: {e:#}");
            1
        }
    }
}

/// Loads a checkpoint (directory, cached hub id) onto `device`.
fn load_checkpoint(spec: &str, device: &str) -> Result<LoadedModel> {
    let device = parse_device(device)?;
    let source = super::model_source(spec)?;
    load_model(&source, None, &device, 0).with_context(|| format!("loading model '{spec}'"))
}

/// Loads a span checkpoint.
pub fn load_span_model(spec: &str, device: &str) -> Result<SpanModel> {
    Ok(SpanModel::new(load_checkpoint(spec, device)?)?)
}

/// Loads the relevance classifier named by `spec`, if any.
pub fn load_selector(spec: Option<&str>, device: &str) -> Result<Option<Box<dyn BlockSelector>>> {
    let Some(spec) = spec else { return Ok(None) };
    Ok(Some(Box::new(RelevanceModel::new(load_checkpoint(spec, device)?, None)?)))
}

/// The layout tokenizer of a checkpoint: its `tokenizer.json`.
pub fn subtokenizer_of(model: &SpanModel) -> Result<Subtokenizer> {
    let source = model.model.tokenizer.source();
    let dir = model.model.dir.clone().unwrap_or_else(|| source.to_path_buf());
    Subtokenizer::load(&dir).with_context(|| format!("the file-level settings need {}/tokenizer.json", dir.display()))
}

/// At most `limit` positive and `limit` negative items per key, in a seeded order.
fn sample<T>(items: Vec<T>, limit: Option<usize>, seed: u64, key: impl Fn(&T) -> (String, bool)) -> Vec<T> {
    let Some(limit) = limit else { return items };
    let order = quarry_model::rng::SeededRng::new(seed).permutation(items.len());
    let mut taken = std::collections::HashMap::<(String, bool), usize>::new();
    let mut keep = vec![false; items.len()];
    for i in order {
        let count = taken.entry(key(&items[i])).or_default();
        if *count < limit {
            *count += 1;
            keep[i] = true;
        }
    }
    items.into_iter().zip(keep).filter_map(|(item, k)| k.then_some(item)).collect()
}

fn evaluate(span_args: SpanEvalArgs) -> Result<i32> {
    let args = &span_args.common;
    let setting: Setting = span_args.setting.parse()?;
    let model = load_span_model(&args.model, &args.device)?;
    let max_len = args.max_len.min(model.model.config.max_input_len());
    let started = std::time::Instant::now();
    let (em, examples, loss) = if setting == Setting::Ideal {
        let examples = read_span_jsonl(&args.data)?;
        let examples = sample(examples, span_args.limit_per_query, span_args.seed, |e| {
            (e.query.clone().unwrap_or_default(), e.labels.contains(&Some(Label::B)))
        });
        let enc = encode_examples(&examples, &model.model.tokenizer, max_len)
            .with_context(|| format!("encoding {}", args.data.display()))?;
        let eval = model.evaluate(&enc, args.batch_size)?;
        if let Some(path) = &span_args.predictions {
            write_predictions(path, &enc, &eval.predictions)?;
        }
        (eval.exact_match, enc.len(), Some(eval.loss))
    } else {
        let examples: Vec<Example> = read_records(&args.data)?;
        let examples = sample(examples, span_args.limit_per_query, span_args.seed, |e| {
            (e.query_name.clone(), e.example_type == 1)
        });
        let subtokenizer = subtokenizer_of(&model)?;
        let selector = load_selector(span_args.relevance_model.as_deref(), &args.device)?;
        let runner = Runner {
            span: &model,
            subtokenizer: &subtokenizer,
            selector: selector.as_deref(),
            max_len,
            batch_size: args.batch_size,
        };
        let show = std::io::stderr().is_terminal();
        let em = runner.evaluate(setting, &examples, &mut |done, total| {
            if show {
                eprint!("\r{} {done}/{total}   ", setting.name());
                let _ = std::io::stderr().flush();
            }
        })?;
        if show {
            eprintln!();
        }
        (em, examples.len(), None)
    };
    let report = json!({
        "setting": setting.name(),
        "model": args.model,
        "data": args.data.display().to_string(),
        "examples": examples,
        "loss": loss,
        "seconds": started.elapsed().as_secs_f64(),
        "exact_match": exact_match_json(&em),
        "answer_only": breakdown_json(&em.answer_only),
    });
    Ok(with_stdout(|out| match args.format {
        Format::Json => write_json(out, &report),
        Format::Pretty => write_table(out, setting, &em, examples, loss),
    }))
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

fn write_table(
    out: &mut dyn Write,
    setting: Setting,
    em: &ExactMatch,
    n: usize,
    loss: Option<f64>,
) -> std::io::Result<()> {
    write!(out, "exact match, {} setting, {n} examples", setting.name())?;
    if let Some(loss) = loss {
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

fn write_predictions(
    path: &std::path::Path,
    enc: &[quarry_model::data::EncodedExample],
    predictions: &[Vec<Label>],
) -> Result<()> {
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

fn evaluate_relevance(relevance_args: RelevanceEvalArgs) -> Result<i32> {
    let args = &relevance_args.common;
    let model = RelevanceModel::new(load_checkpoint(&args.model, &args.device)?, None)?;
    let max_len = args.max_len.min(model.model.config.max_input_len());
    let examples = read_relevance_jsonl(&args.data)?;
    let enc = encode_relevance(&examples, &model.model.tokenizer, max_len)
        .with_context(|| format!("encoding {}", args.data.display()))?;
    let eval = model.evaluate(&enc, args.batch_size)?;
    let c = &eval.confusion;
    Ok(with_stdout(|out| match args.format {
        Format::Json => write_json(
            out,
            &json!({
                "examples": c.total(),
                "loss": eval.loss,
                "accuracy": eval.accuracy,
                "precision": eval.precision,
                "recall": eval.recall,
                "f1": eval.f1,
                "true_positives": c.true_positives,
                "false_positives": c.false_positives,
                "true_negatives": c.true_negatives,
                "false_negatives": c.false_negatives,
            }),
        ),
        Format::Pretty => {
            writeln!(out, "examples  {}", c.total())?;
            writeln!(out, "loss      {:.4}", eval.loss)?;
            writeln!(out, "accuracy  {:.4}", eval.accuracy)?;
            writeln!(out, "precision {:.4}", eval.precision)?;
            writeln!(out, "recall    {:.4}", eval.recall)?;
            writeln!(out, "f1        {:.4}", eval.f1)?;
            writeln!(
                out,
                "confusion tp {} fp {} tn {} fn {}",
                c.true_positives, c.false_positives, c.true_negatives, c.false_negatives
            )
        }
    }))
}
