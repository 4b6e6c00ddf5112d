//! `quarry cs1qa ...`: CS1QA's question-type classification, code-line selection and
//! answer retrieval (train, evaluate, retrieve) and the understanding-type augmentation.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};

use anyhow::{bail, Context, Result};
use clap::{Args, Subcommand, ValueEnum};
use quarry_data::cs1qa::augment::augment;
use quarry_data::cs1qa::{read_questions, read_retrieved, read_rows, write_retrieved, write_rows, Cs1qaRow};
use quarry_data::cs1qa::{Bm25Retriever, RetrievalQuestion, Retrieved};
use quarry_model::models::cs1qa::{
    answer_bleu, bm25_pairs, dense_search, hits_text, line_report_json, line_report_text, middle_baseline, recall_at,
    score_selections, DualEncoder, LineModel, Pooling, TypeModel,
};
use quarry_model::{LoadedModel, ModelSource};
use quarry_stdx::AtomicFile;
use serde_json::json;

use super::input::Format;
use super::model_arg::{DeviceArgs, InferenceArgs};
use super::output::{report_error, with_stdout, write_json, EXIT_INPUT_ERROR, EXIT_OK};
use super::training::{load, run_training, TrainArgs};

/// A CS1QA subcommand.
#[derive(Subcommand)]
pub enum Cs1qaCommand {
    /// Train a type classifier, a line selector or a dense retriever.
    #[command(subcommand)]
    Train(TrainTask),
    /// Score a model, the middle-lines baseline, retrieved answers or dense recall.
    #[command(subcommand, visible_alias = "evaluate")]
    Eval(EvalTask),
    /// Retrieve corpus questions for each question (BM25 or a dense retriever).
    Retrieve(RetrieveArgs),
    /// Add generated understanding-type questions (paper Appendix C) to annotated rows.
    Augment(AugmentArgs),
}

/// What to train.
#[derive(Subcommand)]
pub enum TrainTask {
    /// Question type over question + code segments (`--train`/`--valid`: annotated JSONL).
    #[command(mut_arg("train", |a| a.help(ROWS_TRAIN)), mut_arg("valid", |a| a.help(ROWS_VALID)))]
    Type(TrainArgs),
    /// Code-line selection (`--train`/`--valid`: annotated JSONL).
    #[command(mut_arg("train", |a| a.help(ROWS_TRAIN)), mut_arg("valid", |a| a.help(ROWS_VALID)))]
    Lines(TrainArgs),
    /// Dense retriever on BM25 positives with in-batch negatives (`--train`/`--valid`:
    /// retrieval question files such as `q_train.jsonl`, `q_dev.jsonl`).
    #[command(
        mut_arg("train", |a| a.help("Retrieval questions to train on (`q_train.jsonl`); each one's positive is its BM25 top-1 in --corpus")),
        mut_arg("valid", |a| a.help("Retrieval questions to validate on (`q_dev.jsonl`)"))
    )]
    Dense(DenseTrainArgs),
}

/// `--train` of `cs1qa train type|lines`.
const ROWS_TRAIN: &str = "Annotated rows to train on: JSON Lines in CS1QA's schema (`train_cleaned.jsonl`)";
/// `--valid` of `cs1qa train type|lines`.
const ROWS_VALID: &str = "Annotated rows to validate on, same format (`dev_cleaned.jsonl`)";

/// Arguments of `quarry cs1qa train dense`.
#[derive(Args)]
pub struct DenseTrainArgs {
    /// The settings shared with the other training commands.
    #[command(flatten)]
    pub common: TrainArgs,
    /// The corpus questions (`corpus.jsonl`).
    #[arg(long)]
    pub corpus: PathBuf,
    /// `cls` (DPR) or `mean` pooling of the last layer.
    #[arg(long, default_value = "cls")]
    pub pooling: String,
}

/// What to evaluate.
#[derive(Subcommand)]
pub enum EvalTask {
    /// Type accuracy and per-class F1 of a `train type` checkpoint, voted over segments.
    #[command(mut_arg("model", |a| a.required(true)))]
    Type(ModelEvalArgs),
    /// Line F1 and EM (all rows, valid-line rows) of a checkpoint or the baseline.
    #[command(mut_arg("model", |a| a.required_unless_present("baseline").conflicts_with("baseline")))]
    Lines(LinesEvalArgs),
    /// BLEU-1 of retrieved answers, overall and per questioner.
    Answers(AnswersArgs),
    /// Recall@1 and @5 of a dense retriever against each question's BM25 top-1.
    Dense(DenseEvalArgs),
}

/// Arguments of `quarry cs1qa eval type`.
#[derive(Args)]
pub struct ModelEvalArgs {
    /// A checkpoint (the `best/` directory of a training run).
    #[arg(long)]
    pub model: Option<String>,
    /// Annotated rows (JSONL).
    #[arg(long)]
    pub data: PathBuf,
    /// Input length (question + code segment), batch and device.
    #[command(flatten)]
    pub run: InferenceArgs,
    /// Writes one JSON line per row with its prediction.
    #[arg(long)]
    pub predictions: Option<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Pretty)]
    pub format: Format,
}

/// Arguments of `quarry cs1qa eval lines`.
#[derive(Args)]
pub struct LinesEvalArgs {
    /// Model, data and output options (`--model` unless `--baseline`).
    #[command(flatten)]
    pub common: ModelEvalArgs,
    /// Score the naive baseline instead of a model: the middle `--width` lines.
    #[arg(long)]
    pub baseline: bool,
    /// Lines of the baseline window (60 in the paper).
    #[arg(value_parser = crate::commands::numbers::amount, long, default_value_t = 60)]
    pub width: usize,
}

/// Arguments of `quarry cs1qa eval answers`.
#[derive(Args)]
pub struct AnswersArgs {
    /// Retrieval results (`quarry cs1qa retrieve --format jsonl`).
    #[arg(long)]
    pub hits: PathBuf,
    /// Annotated rows with answers; a retrieval id is the 0-based line of its row.
    #[arg(long)]
    pub rows: PathBuf,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Pretty)]
    pub format: Format,
}

/// Arguments of `quarry cs1qa eval dense`.
#[derive(Args)]
pub struct DenseEvalArgs {
    /// A `train dense` checkpoint or any encoder directory.
    #[arg(long)]
    pub model: String,
    /// The corpus and the questions to retrieve for (`q_test.jsonl`).
    #[command(flatten)]
    pub data: RetrievalData,
    /// Pooling when the model is not a `train dense` checkpoint.
    #[arg(long)]
    pub pooling: Option<String>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Pretty)]
    pub format: Format,
    /// How questions are encoded.
    #[command(flatten)]
    pub encoding: QuestionEncoding,
}

/// The question sets of `cs1qa retrieve` and `cs1qa eval dense`.
#[derive(Args)]
pub struct RetrievalData {
    /// The corpus questions (`corpus.jsonl`).
    #[arg(long)]
    pub corpus: PathBuf,
    /// The questions to retrieve for.
    #[arg(long)]
    pub questions: PathBuf,
}

/// How a dual encoder encodes questions (`cs1qa retrieve --method dense`,
/// `cs1qa eval dense`).
#[derive(Args)]
pub struct QuestionEncoding {
    /// Maximum sub-tokens per question (dense).
    #[arg(value_parser = crate::commands::numbers::length, long, default_value_t = 128)]
    pub max_len: usize,
    /// Questions per forward pass (dense).
    #[arg(value_parser = crate::commands::numbers::size, long, default_value_t = 64)]
    pub batch_size: usize,
    /// Device and precision.
    #[command(flatten)]
    pub device: DeviceArgs,
}

/// Retrieval method.
#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Method {
    /// rank-bm25's BM25Okapi on `text.lower().split()` tokens.
    Bm25,
    /// A dual encoder (`--model`).
    Dense,
}

/// Output format of `retrieve`.
#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum HitsFormat {
    /// One JSON line per question (`json` is accepted too).
    #[value(alias = "json")]
    Jsonl,
    /// Human-readable text.
    Pretty,
}

/// Arguments of `quarry cs1qa retrieve`.
#[derive(Args)]
pub struct RetrieveArgs {
    /// The corpus and the questions to retrieve for.
    #[command(flatten)]
    pub data: RetrievalData,
    /// `bm25` or `dense`.
    #[arg(long, value_enum, default_value_t = Method::Bm25)]
    pub method: Method,
    /// The dense retriever (`train dense` checkpoint).
    #[arg(long)]
    pub model: Option<String>,
    /// Hits per question.
    #[arg(value_parser = crate::commands::numbers::amount, long, default_value_t = 5)]
    pub top_k: usize,
    /// `jsonl` (`{"id", "hits": [{"id", "score"}]}` per line) or `pretty`.
    #[arg(long, value_enum, default_value_t = HitsFormat::Jsonl)]
    pub format: HitsFormat,
    /// Write here (atomically) instead of stdout.
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// How questions are encoded (dense).
    #[command(flatten)]
    pub encoding: QuestionEncoding,
}

/// Arguments of `quarry cs1qa augment`.
#[derive(Args)]
pub struct AugmentArgs {
    /// Annotated rows whose programs supply the keywords.
    #[arg(long)]
    pub data: PathBuf,
    /// Questions to generate.
    #[arg(value_parser = crate::commands::numbers::amount, long)]
    pub count: usize,
    /// Seed of the draws.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Output: the input rows followed by the generated ones.
    #[arg(long)]
    pub out: PathBuf,
    /// Write only the generated rows.
    #[arg(long)]
    pub only_generated: bool,
}

/// Runs `quarry cs1qa ...`; input errors exit with 2.
pub fn run(command: Cs1qaCommand) -> i32 {
    let result = match command {
        Cs1qaCommand::Train(TrainTask::Type(args)) => train_type(args),
        Cs1qaCommand::Train(TrainTask::Lines(args)) => train_lines(args),
        Cs1qaCommand::Train(TrainTask::Dense(args)) => train_dense(args),
        Cs1qaCommand::Eval(EvalTask::Type(args)) => eval_type(args),
        Cs1qaCommand::Eval(EvalTask::Lines(args)) => eval_lines(args),
        Cs1qaCommand::Eval(EvalTask::Answers(args)) => eval_answers(args),
        Cs1qaCommand::Eval(EvalTask::Dense(args)) => eval_dense(args),
        Cs1qaCommand::Retrieve(args) => retrieve(args),
        Cs1qaCommand::Augment(args) => run_augment(args),
    };
    match result {
        // Skipped malformed input still fails the run, after the rest was done.
        Ok(EXIT_OK) if SKIPPED_INPUT.load(Ordering::Relaxed) => EXIT_INPUT_ERROR,
        Ok(code) => code,
        Err(e) => report_error(&crate::commands::output::describe(&e)),
    }
}

/// Set when a malformed row or line was reported and skipped.
static SKIPPED_INPUT: AtomicBool = AtomicBool::new(false);

/// Reports a skipped malformed row or line on stderr and remembers that the
/// run must end with exit code 2.
fn warn_skipped(e: &impl std::fmt::Display) {
    SKIPPED_INPUT.store(true, Ordering::Relaxed);
    crate::commands::output::warning(&format!("skipping {e}"));
}

/// Annotated rows; malformed ones are reported on stderr and skipped.
fn rows(path: &Path) -> Result<Vec<Cs1qaRow>> {
    let loaded = read_rows(path)?;
    for e in &loaded.errors {
        warn_skipped(e);
    }
    if loaded.records.is_empty() {
        bail!("{}: no usable rows", path.display());
    }
    Ok(loaded.into_records())
}

/// Retrieval questions; malformed lines are reported on stderr and skipped.
fn questions(path: &Path) -> Result<Vec<RetrievalQuestion>> {
    let loaded = read_questions(path)?;
    for e in &loaded.errors {
        warn_skipped(e);
    }
    if loaded.records.is_empty() {
        bail!("{}: no usable questions", path.display());
    }
    Ok(loaded.into_records())
}

fn load_eval_model(model: &Option<String>, device: &DeviceArgs) -> Result<LoadedModel> {
    let Some(spec) = model else { bail!("--model is required") };
    device.load(&ModelSource::parse(spec)?, None, 0).with_context(|| format!("loading model '{spec}'"))
}

fn train_type(args: TrainArgs) -> Result<i32> {
    let (train_rows, valid_rows) = (rows(&args.train)?, rows(&args.valid)?);
    let (model, setup) = load(&args)?;
    let model = TypeModel::new(model)?;
    let train = model.encode(&train_rows, setup.max_len)?;
    let valid = model.encode(&valid_rows, setup.max_len)?;
    eprintln!("{} training rows in {} segments, {} validation rows", train_rows.len(), train.len(), valid_rows.len());
    run_training(&model, &train, &valid, &args, &setup)?;
    Ok(EXIT_OK)
}

fn train_lines(args: TrainArgs) -> Result<i32> {
    let (train_rows, valid_rows) = (rows(&args.train)?, rows(&args.valid)?);
    let (model, setup) = load(&args)?;
    let model = LineModel::new(model)?;
    let train = model.encode(&train_rows, setup.max_len)?;
    let valid = model.encode(&valid_rows, setup.max_len)?;
    eprintln!("{} training rows in {} segments, {} validation rows", train_rows.len(), train.len(), valid_rows.len());
    run_training(&model, &train, &valid, &args, &setup)?;
    Ok(EXIT_OK)
}

fn train_dense(args: DenseTrainArgs) -> Result<i32> {
    let common = &args.common;
    let corpus = questions(&args.corpus)?;
    let (train_q, valid_q) = (questions(&common.train)?, questions(&common.valid)?);
    let pooling = Pooling::parse(&args.pooling)?;
    let (model, setup) = load(common)?;
    let model = DualEncoder::new(model, Some(pooling))?;
    let bm25 = Bm25Retriever::new(&corpus)?;
    let train = bm25_pairs(&model, &bm25, &corpus, &train_q, setup.max_len)?;
    let valid = bm25_pairs(&model, &bm25, &corpus, &valid_q, setup.max_len)?;
    run_training(&model, &train, &valid, common, &setup)?;
    Ok(EXIT_OK)
}

fn eval_type(args: ModelEvalArgs) -> Result<i32> {
    let data = rows(&args.data)?;
    let model = TypeModel::new(load_eval_model(&args.model, &args.run.device)?)?;
    let examples = model.encode(&data, args.run.max_len)?;
    let e = model.evaluate(&examples, args.run.batch_size)?;
    if let Some(path) = &args.predictions {
        let mut f = AtomicFile::create(path)?;
        for (i, (r, p)) in data.iter().zip(&e.predictions).enumerate() {
            f.write_json_line(&json!({"row": i, "gold": r.question_type, "predicted": p}))?;
        }
        f.commit()?;
    }
    Ok(with_stdout(|out| match args.format {
        Format::Pretty => out.write_all(e.to_text().as_bytes()),
        _ => write_json(out, &e.to_json()),
    }))
}

fn eval_lines(args: LinesEvalArgs) -> Result<i32> {
    let c = &args.common;
    let data = rows(&c.data)?;
    let selections = if args.baseline {
        middle_baseline(&data, args.width as u64)
    } else {
        let model = LineModel::new(load_eval_model(&c.model, &c.run.device)?)?;
        let examples = model.encode(&data, c.run.max_len)?;
        model.evaluate(&examples, c.run.batch_size)?.selections
    };
    let report = score_selections(&data, &selections)?;
    if let Some(path) = &c.predictions {
        let mut f = AtomicFile::create(path)?;
        for (i, s) in selections.iter().enumerate() {
            f.write_json_line(&json!({"row": i, "lines": s}))?;
        }
        f.commit()?;
    }
    Ok(with_stdout(|out| match c.format {
        Format::Pretty => out.write_all(line_report_text(&report).as_bytes()),
        _ => write_json(out, &line_report_json(&report)),
    }))
}

fn eval_answers(args: AnswersArgs) -> Result<i32> {
    let loaded = read_rows(&args.rows)?;
    for e in &loaded.errors {
        warn_skipped(e);
    }
    let by_id: HashMap<u64, &Cs1qaRow> = loaded.records.iter().map(|(line, r)| (*line as u64 - 1, r)).collect();
    let hits = read_retrieved(&args.hits)?;
    for e in &hits.errors {
        warn_skipped(e);
    }
    let results: Vec<Retrieved> = hits.into_records();
    let b = answer_bleu(&results, &by_id)?;
    if !b.missing.is_empty() {
        crate::commands::output::warning(&format!(
            "{} ids have no annotated row, e.g. {}",
            b.missing.len(),
            b.missing[0]
        ));
    }
    if b.count == 0 {
        bail!("no retrieved answer could be scored");
    }
    Ok(with_stdout(|out| match args.format {
        Format::Pretty => out.write_all(b.to_text().as_bytes()),
        _ => write_json(out, &b),
    }))
}

fn dense_model(spec: &str, pooling: Option<&str>, device: &DeviceArgs) -> Result<DualEncoder> {
    let model = load_eval_model(&Some(spec.to_string()), device)?;
    let pooling = pooling.map(Pooling::parse).transpose()?;
    Ok(DualEncoder::new(model, pooling)?)
}

impl RetrievalData {
    /// The corpus questions and the questions to retrieve for.
    fn read(&self) -> Result<(Vec<RetrievalQuestion>, Vec<RetrievalQuestion>)> {
        Ok((questions(&self.corpus)?, questions(&self.questions)?))
    }
}

fn eval_dense(args: DenseEvalArgs) -> Result<i32> {
    let (corpus, qs) = args.data.read()?;
    let bm25 = Bm25Retriever::new(&corpus)?;
    let reference: HashMap<u64, u64> =
        bm25.search_all(&qs, 1).into_iter().filter_map(|r| r.hits.first().map(|h| (r.id, h.id))).collect();
    let model = dense_model(&args.model, args.pooling.as_deref(), &args.encoding.device)?;
    let start = std::time::Instant::now();
    let results = dense_search(&model, &corpus, &qs, 5, args.encoding.max_len, args.encoding.batch_size)?;
    let seconds = start.elapsed().as_secs_f64();
    let (r1, r5) = (recall_at(&results, &reference, 1), recall_at(&results, &reference, 5));
    Ok(with_stdout(|out| match args.format {
        Format::Pretty => writeln!(
            out,
            "questions {}  recall@1 {:.4}  recall@5 {:.4} (of the BM25 top-1; {} pooling, {:.1}s)",
            qs.len(),
            r1,
            r5,
            model.pooling().name(),
            seconds
        ),
        _ => write_json(
            out,
            &json!({"questions": qs.len(), "recall@1": r1, "recall@5": r5, "pooling": model.pooling().name(), "seconds": seconds}),
        ),
    }))
}

fn retrieve(args: RetrieveArgs) -> Result<i32> {
    let (corpus, qs) = args.data.read()?;
    let results = match args.method {
        Method::Bm25 => Bm25Retriever::new(&corpus)?.search_all(&qs, args.top_k),
        Method::Dense => {
            let Some(spec) = &args.model else { bail!("--method dense needs --model") };
            let model = dense_model(spec, None, &args.encoding.device)?;
            dense_search(&model, &corpus, &qs, args.top_k, args.encoding.max_len, args.encoding.batch_size)?
        }
    };
    if args.format == HitsFormat::Pretty {
        let text = hits_text(&qs, &corpus, &results);
        return match &args.out {
            Some(path) => {
                let mut f = AtomicFile::create(path)?;
                f.write_all(text.as_bytes())?;
                f.commit()?;
                Ok(EXIT_OK)
            }
            None => Ok(with_stdout(|out| out.write_all(text.as_bytes()))),
        };
    }
    match &args.out {
        Some(path) => {
            write_retrieved(path, &results)?;
            Ok(EXIT_OK)
        }
        None => Ok(with_stdout(|out| {
            for r in &results {
                // serialized first, so that a closed pipe keeps its error kind
                let line = serde_json::to_string(r).map_err(std::io::Error::other)?;
                writeln!(out, "{line}")?;
            }
            Ok(())
        })),
    }
}

fn run_augment(args: AugmentArgs) -> Result<i32> {
    let data = rows(&args.data)?;
    let generated = augment(&data, args.count, args.seed);
    if generated.len() < args.count {
        crate::commands::output::warning(&format!("generated {} of {} questions", generated.len(), args.count));
    }
    let mut out = if args.only_generated { Vec::new() } else { data };
    out.extend(generated);
    write_rows(&args.out, &out)?;
    eprintln!("wrote {} rows to {}", out.len(), args.out.display());
    Ok(EXIT_OK)
}
