//! `quarry evaluate span|relevance|answer` (alias `quarry eval`): parses the arguments, calls
//! [`quarry_model::evaluation::span_eval`] (or [`super::evaluate_answer`]) and prints a table or JSON.

use std::io::{IsTerminal, Write};
use std::path::PathBuf;

use anyhow::Result;
use clap::{Args, Subcommand};
use quarry_model::evaluation::file_level::Setting;
use quarry_model::evaluation::span_eval::{evaluate_relevance, evaluate_span, SpanEvalOptions};
use quarry_model::RelevanceModel;

use super::input::Format;
use super::model_arg::{load_checkpoint, load_selector, load_span_model, InferenceArgs};
use super::output::{with_stdout, write_json, EXIT_INPUT_ERROR};

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
    /// relevance: `twostep_*.jsonl` rows with `relevance_label`. JSON Lines or Parquet: a
    /// file, a directory of them, or a quoted `*` pattern (`'OUT/data/ideal/test-*.parquet'`).
    #[arg(long)]
    pub data: PathBuf,
    /// Input length, batch and device.
    #[command(flatten)]
    pub run: InferenceArgs,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Pretty)]
    pub format: Format,
    /// Evaluate only the first N examples of the data file.
    #[arg(long)]
    pub limit: Option<usize>,
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
        EvaluateTask::Relevance(args) => relevance(args),
        EvaluateTask::Answer(args) => super::evaluate_answer::evaluate_answers(args),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            crate::commands::output::error(&crate::commands::output::describe(&e));
            EXIT_INPUT_ERROR
        }
    }
}

fn evaluate(span_args: SpanEvalArgs) -> Result<i32> {
    let args = &span_args.common;
    let setting: Setting = span_args.setting.parse()?;
    let model = load_span_model(&args.model, &args.run.device)?;
    let selector = if setting == Setting::Ideal {
        None
    } else {
        load_selector(span_args.relevance_model.as_deref(), &args.run.device)?
    };
    let options = SpanEvalOptions {
        setting,
        max_len: args.run.max_len,
        batch_size: args.run.batch_size,
        limit_per_query: span_args.limit_per_query,
        seed: span_args.seed,
        predictions: span_args.predictions.as_deref(),
        limit: args.limit,
    };
    let show = std::io::stderr().is_terminal() && setting != Setting::Ideal;
    let report = evaluate_span(&model, &args.data, selector.as_deref(), &options, &mut |done, total| {
        if show {
            eprint!("\r{} {done}/{total}   ", setting.name());
            let _ = std::io::stderr().flush();
        }
    })?;
    if show {
        eprintln!();
    }
    warn(&report.warnings());
    Ok(with_stdout(|out| match args.format {
        Format::Json => write_json(out, &report.to_json(&args.model, &args.data)),
        Format::Pretty => report.write_table(out),
    }))
}

fn relevance(relevance_args: RelevanceEvalArgs) -> Result<i32> {
    let args = &relevance_args.common;
    let model = RelevanceModel::trained(load_checkpoint(&args.model, &args.run.device)?)?;
    let eval = evaluate_relevance(&model, &args.data, args.run.max_len, args.run.batch_size, args.limit)?;
    warn(&eval.warnings());
    Ok(with_stdout(|out| match args.format {
        Format::Json => write_json(out, &eval.to_json()),
        Format::Pretty => eval.write_table(out),
    }))
}

/// Prints each warning on stderr (they are also in the table and in the JSON output).
fn warn(warnings: &[String]) {
    for warning in warnings {
        crate::commands::output::warning(&warning.to_string());
    }
}
