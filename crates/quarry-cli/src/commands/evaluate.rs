//! `quarry evaluate span`: exact match of a span checkpoint on JSONL examples.

use std::io::Write;
use std::path::PathBuf;

use anyhow::{Context, Result};
use clap::{Args, Subcommand};
use quarry_model::data::{encode_examples, read_span_jsonl};
use quarry_model::device::parse_device;
use quarry_model::spans::{decode, Counts, Label};
use quarry_model::{load_model, ModelSource, SpanModel};

/// What to evaluate.
#[derive(Subcommand)]
pub enum EvaluateTask {
    /// Span prediction: exact match of answer and fact span sets.
    Span(SpanEvalArgs),
}

/// Arguments of `quarry evaluate span`.
#[derive(Args)]
pub struct SpanEvalArgs {
    /// A checkpoint written by `quarry train span` (its `best/` directory).
    #[arg(long)]
    pub model: String,
    /// Examples (JSONL with `subtokenized_input_sequence` and `label_sequence`).
    #[arg(long)]
    pub data: PathBuf,
    /// Maximum sequence length in sub-tokens.
    #[arg(long, default_value_t = 512)]
    pub max_len: usize,
    /// Examples per forward pass.
    #[arg(long, default_value_t = 16)]
    pub batch_size: usize,
    /// Write one JSON line of predicted labels and spans per example here.
    #[arg(long)]
    pub predictions: Option<PathBuf>,
    /// `cpu`, `cuda` or `cuda:N`.
    #[arg(long, default_value = "cpu")]
    pub device: String,
}

/// Runs `quarry evaluate ...`.
pub fn run(task: EvaluateTask) -> i32 {
    let EvaluateTask::Span(args) = task;
    match evaluate(args) {
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

fn evaluate(args: SpanEvalArgs) -> Result<()> {
    let device = parse_device(&args.device)?;
    let source = ModelSource::parse(&args.model)?;
    let loaded = load_model(&source, None, &device, 0).with_context(|| format!("loading model '{}'", args.model))?;
    let max_len = args.max_len.min(loaded.config.max_input_len());
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
    if let Some(path) = &args.predictions {
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
