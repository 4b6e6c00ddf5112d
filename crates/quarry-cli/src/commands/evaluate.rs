//! `quarry evaluate span|relevance`: exact match of a span checkpoint, or accuracy,
//! precision, recall and F1 of a relevance checkpoint, on JSONL examples.

use std::io::Write;
use std::path::PathBuf;

use anyhow::{Context, Result};
use clap::{Args, Subcommand};
use quarry_model::data::{encode_examples, encode_relevance, read_relevance_jsonl, read_span_jsonl};
use quarry_model::device::parse_device;
use quarry_model::spans::{decode, Counts, Label};
use quarry_model::{load_model, LoadedModel, ModelSource, RelevanceModel, SpanModel};

use super::input::Format;
use super::output::write_json;

/// What to evaluate.
#[derive(Subcommand)]
pub enum EvaluateTask {
    /// Span prediction: exact match of answer and fact span sets.
    Span(SpanEvalArgs),
    /// Block relevance: accuracy, precision, recall and F1 of the relevant class.
    Relevance(RelevanceEvalArgs),
}

/// Arguments of every `quarry evaluate` task.
#[derive(Args)]
pub struct EvalArgs {
    /// A checkpoint written by `quarry train span|relevance` (its `best/` directory).
    #[arg(long)]
    pub model: String,
    /// Examples: JSONL with `subtokenized_input_sequence` and `label_sequence` (span) or
    /// `relevance_label` (relevance).
    #[arg(long)]
    pub data: PathBuf,
    /// Maximum sequence length in sub-tokens.
    #[arg(long, default_value_t = 512)]
    pub max_len: usize,
    /// Examples per forward pass.
    #[arg(long, default_value_t = 16)]
    pub batch_size: usize,
    /// `cpu`, `cuda` or `cuda:N`.
    #[arg(long, default_value = "cpu")]
    pub device: String,
}

/// Arguments of `quarry evaluate span`.
#[derive(Args)]
pub struct SpanEvalArgs {
    /// The settings shared with `quarry evaluate relevance`.
    #[command(flatten)]
    pub common: EvalArgs,
    /// Write one JSON line of predicted labels and spans per example here.
    #[arg(long)]
    pub predictions: Option<PathBuf>,
}

/// Arguments of `quarry evaluate relevance`.
#[derive(Args)]
pub struct RelevanceEvalArgs {
    /// The settings shared with `quarry evaluate span`.
    #[command(flatten)]
    pub common: EvalArgs,
    /// Output format: text, or one JSON object of fractions and counts.
    #[arg(long, value_enum, default_value_t = Format::Pretty)]
    pub format: Format,
}

/// Runs `quarry evaluate ...`.
pub fn run(task: EvaluateTask) -> i32 {
    let result = match task {
        EvaluateTask::Span(args) => evaluate(args),
        EvaluateTask::Relevance(args) => evaluate_relevance(args),
    };
    match result {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("error: {e:#}");
            1
        }
    }
}

fn line(name: &str, c: &Counts) -> String {
    format!("{name:<40} {:>6}/{:<6} {:.4}", c.exact, c.total, c.rate())
}

/// Loads the checkpoint of `args` and the maximum length it can take.
fn load(args: &EvalArgs) -> Result<(LoadedModel, usize)> {
    let device = parse_device(&args.device)?;
    let source = ModelSource::parse(&args.model)?;
    let loaded = load_model(&source, None, &device, 0).with_context(|| format!("loading model '{}'", args.model))?;
    let max_len = args.max_len.min(loaded.config.max_input_len());
    Ok((loaded, max_len))
}

fn evaluate(span_args: SpanEvalArgs) -> Result<()> {
    let args = &span_args.common;
    let (loaded, max_len) = load(args)?;
    let model = SpanModel::new(loaded)?;
    let examples = read_span_jsonl(&args.data)?;
    let enc = encode_examples(&examples, &model.model.tokenizer, max_len)
        .with_context(|| format!("encoding {}", args.data.display()))?;
    let eval = model.evaluate(&enc, args.batch_size)?;
    let em = &eval.exact_match;
    println!("loss {:.4}", eval.loss);
    println!("{}", line("all", &em.all));
    println!("{}", line("positive", &em.positive));
    println!("{}", line("negative", &em.negative));
    for (q, c) in &em.per_query {
        println!("{}", line(&format!("query: {q}"), c));
    }
    if let Some(path) = &span_args.predictions {
        let file = std::fs::File::create(path).with_context(|| format!("creating {}", path.display()))?;
        let mut w = std::io::BufWriter::new(file);
        for (e, pred) in enc.iter().zip(&eval.predictions) {
            // Unlabeled positions (special tokens, ignored sub-tokens) count as outside.
            let shown: Vec<Label> =
                pred.iter().zip(&e.labels).map(|(p, g)| if g.is_some() { *p } else { Label::O }).collect();
            let spans = decode(&shown);
            let value = serde_json::json!({
                "query_name": e.query,
                "predicted_labels": shown.iter().map(|l| l.name()).collect::<Vec<_>>(),
                "answer_spans": spans.answers,
                "fact_spans": spans.facts,
            });
            writeln!(w, "{value}").with_context(|| format!("writing {}", path.display()))?;
        }
    }
    Ok(())
}

fn evaluate_relevance(relevance_args: RelevanceEvalArgs) -> Result<()> {
    let args = &relevance_args.common;
    let (loaded, max_len) = load(args)?;
    let model = RelevanceModel::new(loaded, None)?;
    let examples = read_relevance_jsonl(&args.data)?;
    let enc = encode_relevance(&examples, &model.model.tokenizer, max_len)
        .with_context(|| format!("encoding {}", args.data.display()))?;
    let eval = model.evaluate(&enc, args.batch_size)?;
    let c = &eval.confusion;
    let mut out = std::io::stdout().lock();
    match relevance_args.format {
        Format::Json => {
            let value = serde_json::json!({
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
            });
            write_json(&mut out, &value)?;
        }
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
            )?;
        }
    }
    Ok(())
}
