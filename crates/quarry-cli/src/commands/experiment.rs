//! `quarry experiment codequeries`: the CodeQueries paper's experiments (Section 5, Tables
//! 2–5, Figure 5) from a corpus and an encoder in one resumable command.

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use clap::{Args, Subcommand};
use quarry_data::codequeries::split::Ratios;
use quarry_experiment::codequeries::{run as run_codequeries, Config, Progress};
use quarry_model::training::train::TrainEvent;
use quarry_model::LabelWeighting;

use super::model_arg::DeviceArgs;
use super::training::ScheduleArgs;

/// Which paper's protocol to run.
#[derive(Subcommand)]
pub enum ExperimentTask {
    /// CodeQueries: dataset, span and relevance models, every setting, limited budgets,
    /// perturbed code; writes OUT/report.md. A rerun skips finished stages.
    Codequeries(CodeQueriesArgs),
    /// INSPECT: a probe per layer for every task of a folder of task datasets (INSPECT's
    /// released files or `quarry inspect generate`'s); writes OUT/report.md and
    /// OUT/report.html (layer x task heatmap, accuracy by layer). A rerun skips finished tasks.
    Inspect(InspectArgs),
    /// CodeQA: train the answer generator on the released dev pairs, answer the test
    /// questions, score them beside the two floors and the paper; writes OUT/report.md and
    /// OUT/report.html. A rerun skips finished stages.
    Codeqa(CodeQaArgs),
    /// CS1QA: DPR trained on the released retrieval questions (recall of the BM25 top-1
    /// beside the untrained encoder); with --annotated, the type and line tasks per seed
    /// beside their baselines and the confusion matrix; writes OUT/report.md and
    /// OUT/report.html. A rerun skips finished stages.
    Cs1qa(Cs1qaArgs),
}

/// Arguments of `quarry experiment cs1qa`.
#[derive(Args)]
pub struct Cs1qaArgs {
    /// The released answer-retrieval folder (`corpus.jsonl`, `q_train.jsonl`,
    /// `q_dev.jsonl`, `q_test.jsonl`).
    #[arg(long)]
    pub retrieval: PathBuf,
    /// The annotated rows' folder (`train_cleaned.jsonl`, `dev_cleaned.jsonl`,
    /// `test_cleaned.jsonl`; the authors' `data/final/cleaned/equal/`).
    #[arg(long)]
    pub annotated: Option<PathBuf>,
    /// Encoder: Hugging Face directory, hub id, or `scratch:LAYERSxHIDDEN[xHEADS]`.
    #[arg(long)]
    pub model: String,
    /// Name of the model in reports (default: the --model argument).
    #[arg(long)]
    pub name: Option<String>,
    /// Tokenizer (file or directory); required for scratch models.
    #[arg(long)]
    pub tokenizer: Option<PathBuf>,
    /// Output directory (hits, runs, stage records, reports).
    #[arg(long, value_parser = super::folder_arg::folder_output())]
    pub out: PathBuf,
    /// Seeds of the type and line runs, comma-separated.
    #[arg(long, value_delimiter = ',', default_value = "7,42,312")]
    pub seeds: Vec<u64>,
    /// Epochs of the type and line runs.
    #[arg(value_parser = crate::commands::numbers::epochs, long, default_value_t = 10)]
    pub epochs: usize,
    /// Learning rate of the type and line runs.
    #[arg(value_parser = crate::commands::numbers::positive, long = "learning-rate", visible_alias = "lr", default_value_t = 1e-5)]
    pub lr: f64,
    /// Batch of the type and line runs.
    #[arg(value_parser = crate::commands::numbers::size, long, default_value_t = 8)]
    pub batch_size: usize,
    /// Sub-tokens per question + code segment.
    #[arg(value_parser = crate::commands::numbers::length, long, default_value_t = 512)]
    pub max_len: usize,
    /// Epochs of the dense retriever.
    #[arg(value_parser = crate::commands::numbers::epochs, long, default_value_t = 3)]
    pub dense_epochs: usize,
    /// Learning rate of the dense retriever.
    #[arg(value_parser = crate::commands::numbers::positive, long, default_value_t = 2e-5)]
    pub dense_lr: f64,
    /// Questions per batch of the dense retriever (its in-batch negatives).
    #[arg(value_parser = crate::commands::numbers::size, long, default_value_t = 32)]
    pub dense_batch_size: usize,
    /// Sub-tokens per question of the dense retriever.
    #[arg(value_parser = crate::commands::numbers::length, long, default_value_t = 64)]
    pub dense_max_len: usize,
    /// Pooling of the dense retriever: `cls` (DPR) or `mean` (sentence encoders such as
    /// all-MiniLM-L6-v2).
    #[arg(long, default_value = "cls")]
    pub pooling: String,
    /// Keep a resumable checkpoint every N optimizer steps.
    #[arg(long, default_value_t = 200)]
    pub checkpoint_every: usize,
    /// Device and precision.
    #[command(flatten)]
    pub device: DeviceArgs,
}

/// Arguments of `quarry experiment codeqa`.
#[derive(Args)]
pub struct CodeQaArgs {
    /// The released folder of one language (`dev.{code,question,answer}`, `test.*`), e.g.
    /// `DATA/codeqa/python`.
    #[arg(long)]
    pub data: PathBuf,
    /// `python` or `java`: which of the paper's tables the report compares with [default:
    /// the folder's name].
    #[arg(long)]
    pub lang: Option<String>,
    /// Encoder: Hugging Face directory, hub id, or `scratch:LAYERSxHIDDEN[xHEADS]`.
    #[arg(long)]
    pub model: String,
    /// Name of the model in reports (default: the --model argument).
    #[arg(long)]
    pub name: Option<String>,
    /// Tokenizer (file or directory); required for scratch models.
    #[arg(long)]
    pub tokenizer: Option<PathBuf>,
    /// Output directory (pairs used, runs, answers, stage records, reports).
    #[arg(long, value_parser = super::folder_arg::folder_output())]
    pub out: PathBuf,
    /// The last N dev pairs validate; the others train.
    #[arg(value_parser = crate::commands::numbers::size, long, default_value_t = 200)]
    pub valid: usize,
    /// Train on N training pairs only, drawn at random with --seed (the released files are not shuffled).
    #[arg(long)]
    pub train_limit: Option<usize>,
    /// Answer N test questions only, drawn at random with --seed.
    #[arg(long)]
    pub test_limit: Option<usize>,
    /// Source length cap in sub-tokens.
    #[arg(value_parser = crate::commands::numbers::length, long, default_value_t = 128)]
    pub max_len: usize,
    /// Answer length cap in sub-tokens.
    #[arg(value_parser = crate::commands::numbers::length, long, default_value_t = 24)]
    pub max_target_len: usize,
    /// Decoder layers.
    #[arg(long, default_value_t = 2)]
    pub decoder_layers: usize,
    /// Decoder feed-forward size.
    #[arg(value_parser = crate::commands::numbers::size, long, default_value_t = 1024)]
    pub decoder_ffn: usize,
    /// Epochs of the decoder alone over the frozen encoder, whose outputs are computed once
    /// (0: no such stage).
    #[arg(long, default_value_t = 10)]
    pub frozen_epochs: usize,
    /// Peak learning rate of the frozen-encoder stage.
    #[arg(value_parser = crate::commands::numbers::positive, long, default_value_t = 1e-3)]
    pub frozen_lr: f64,
    /// Epochs of fine-tuning everything afterwards (0: no such stage).
    #[arg(long, default_value_t = 2)]
    pub epochs: usize,
    /// Peak learning rate of fine-tuning.
    #[arg(value_parser = crate::commands::numbers::positive, long = "learning-rate", visible_alias = "lr", default_value_t = 1e-4)]
    pub lr: f64,
    /// Examples per forward pass.
    #[arg(value_parser = crate::commands::numbers::size, long, default_value_t = 32)]
    pub batch_size: usize,
    /// Optimizer steps of linear warm-up in each stage.
    #[arg(long, default_value_t = 50)]
    pub warmup_steps: usize,
    /// Beam width of answering (1: greedy).
    #[arg(value_parser = crate::commands::numbers::size, long, default_value_t = 10)]
    pub beam: usize,
    /// Which of a beam's candidates answers (`best`, or `expected-f1` at temperature 4).
    #[arg(long, value_enum, default_value_t = super::generate::Select::ExpectedF1)]
    pub select: super::generate::Select,
    /// METEOR 1.5's `meteor-1.5.jar` [default: $QUARRY_METEOR_JAR].
    #[arg(long, value_name = "JAR")]
    pub meteor_jar: Option<PathBuf>,
    /// Seed of initialization, dropout and data order.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Keep a resumable checkpoint every N optimizer steps.
    #[arg(long, default_value_t = 200)]
    pub checkpoint_every: usize,
    /// Device and precision.
    #[command(flatten)]
    pub device: DeviceArgs,
}

/// Arguments of `quarry experiment inspect`.
#[derive(Args)]
pub struct InspectArgs {
    /// Folder of task datasets: `datasets_TASK/TASK_ORIG_{size}.txt`, or `data/TASK/` (Parquet).
    #[arg(long)]
    pub data: PathBuf,
    /// Encoder: Hugging Face directory, hub id, `scratch:LxH[xA]` (with --tokenizer), or
    /// `hashed-tokens`.
    #[arg(long)]
    pub model: String,
    /// Name of the model in reports (default: the --model argument).
    #[arg(long)]
    pub name: Option<String>,
    /// Tokenizer (file or directory); required for scratch models.
    #[arg(long)]
    pub tokenizer: Option<PathBuf>,
    /// Tasks, comma-separated, or `all` (a task without a dataset in --data is named and
    /// left out).
    #[arg(long, default_value = "all")]
    pub tasks: String,
    /// Which size of INSPECT's released files to read: `datasets_TASK/TASK_ORIG_{size}.txt`
    /// (`100`, `1k`, `10k`; `quarry inspect generate --size 1000` writes `1k`).
    #[arg(long, default_value = "1k")]
    pub size: String,
    /// Output folder (feature cache, results.csv, heatmaps, stage records, reports).
    #[arg(long, value_parser = super::folder_arg::folder_output())]
    pub out: PathBuf,
    /// Maximum epochs of each probe.
    #[arg(value_parser = crate::commands::numbers::epochs, long, default_value_t = 20)]
    pub epochs: usize,
    /// Use an MLP probe with one hidden layer of this width.
    #[arg(value_parser = crate::commands::numbers::length, long)]
    pub mlp: Option<usize>,
    /// Samples per encoder forward pass during extraction.
    #[arg(value_parser = crate::commands::numbers::size, long, default_value_t = 8)]
    pub encoder_batch: usize,
    /// How a sample becomes the encoder's input: `inspect` (INSPECT's extractor, per model
    /// family) or `tokenizer` (the tokenizer's own special tokens).
    #[arg(long, default_value = "inspect")]
    pub input: quarry_probe::input::InputRule,
    /// Seed of initialisation and shuffling.
    #[arg(long, default_value_t = 42)]
    pub seed: u64,
    /// Device and precision of feature extraction.
    #[command(flatten)]
    pub device: DeviceArgs,
}

/// Arguments of `quarry experiment codequeries`.
#[derive(Args)]
pub struct CodeQueriesArgs {
    /// Directory of Python files.
    #[arg(long)]
    pub corpus: PathBuf,
    /// Encoder: Hugging Face directory, hub id, or `scratch:LAYERSxHIDDEN[xHEADS]`.
    #[arg(long)]
    pub model: String,
    /// Tokenizer (file or directory); required for scratch models.
    #[arg(long)]
    pub tokenizer: Option<PathBuf>,
    /// Output directory (dataset, runs, stage records, report).
    #[arg(long, value_parser = super::folder_arg::folder_output())]
    pub out: PathBuf,
    /// Queries to build the dataset for (id, name or Q-index); repeatable or
    /// comma-separated. Default: all.
    #[arg(long = "select", visible_alias = "query", value_delimiter = ',')]
    pub queries: Vec<String>,
    /// Split ratios train,valid,test (by file).
    #[arg(long, default_value = "0.8,0.1,0.1")]
    pub split: Ratios,
    /// Maximum model input in sub-tokens.
    #[arg(value_parser = crate::commands::numbers::length, long, default_value_t = 512)]
    pub max_len: usize,
    /// Epochs, batch, learning rate and warm-up of every run.
    #[command(flatten)]
    pub schedule: ScheduleArgs,
    /// Epochs of the relevance classifier.
    #[arg(value_parser = crate::commands::numbers::epochs, long, default_value_t = 1)]
    pub relevance_epochs: usize,
    /// How the span runs' loss weighs the labels: `plain` (the paper's cross-entropy) or
    /// `balanced` (inverse label frequencies, for short schedules).
    #[arg(long, default_value = "plain")]
    pub label_weights: LabelWeighting,
    /// Seed of splits, samples, initialization, dropout and data order.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Limited training budgets per query (comma-separated; empty for none).
    #[arg(long, value_delimiter = ',', default_value = "512,256,128,64")]
    pub budgets: Vec<usize>,
    /// Runs per budget, each on its own sample.
    #[arg(long, default_value_t = 1)]
    pub budget_repeats: usize,
    /// Evaluate at most N positive and N negative test examples per query.
    #[arg(long)]
    pub test_limit: Option<usize>,
    /// Train on at most N positive and N negative examples per query (span and relevance),
    /// and validate the relevance classifier on as many.
    #[arg(long)]
    pub train_limit: Option<usize>,
    /// Keep a resumable checkpoint every N optimizer steps.
    #[arg(long, default_value_t = 200)]
    pub checkpoint_every: usize,
    /// Device and precision.
    #[command(flatten)]
    pub device: DeviceArgs,
}

/// Runs `quarry experiment ...`.
pub fn run(task: ExperimentTask) -> i32 {
    let result = match task {
        ExperimentTask::Codequeries(args) => codequeries(args),
        ExperimentTask::Inspect(args) => inspect(args),
        ExperimentTask::Codeqa(args) => codeqa(args),
        ExperimentTask::Cs1qa(args) => cs1qa(args),
    };
    match result {
        Ok(()) => 0,
        Err(e) => {
            crate::commands::output::error(&crate::commands::output::describe(&e));
            crate::commands::output::EXIT_INPUT_ERROR
        }
    }
}

fn codequeries(args: CodeQueriesArgs) -> Result<()> {
    let mut config = Config::new(args.corpus, args.model, args.out.clone());
    config.tokenizer = args.tokenizer;
    config.queries = args.queries;
    config.ratios = args.split;
    config.max_len = args.max_len;
    config.epochs = args.schedule.epochs;
    config.relevance_epochs = args.relevance_epochs;
    config.batch_size = args.schedule.batch_size;
    config.lr = args.schedule.lr;
    config.warmup_steps = args.schedule.warmup_steps;
    config.label_weights = args.label_weights;
    config.seed = args.seed;
    config.budgets = args.budgets.into_iter().filter(|&b| b > 0).collect();
    config.budget_repeats = args.budget_repeats;
    config.test_limit = args.test_limit;
    config.train_limit = args.train_limit;
    config.checkpoint_every = Some(args.checkpoint_every.max(1));
    config.device = args.device.device()?;
    config.precision = args.device.dtype;
    with_progress(&args.out, |progress| {
        run_codequeries(&config, progress).context("codequeries experiment")?;
        Ok(Vec::new())
    })
}

/// Runs an experiment with its progress on stderr, then prints its warnings and where its
/// reports are.
fn with_progress(out: &Path, run: impl FnOnce(&mut Progress<'_>) -> Result<Vec<String>>) -> Result<()> {
    let mut message = |m: &str| eprintln!("quarry: {m}");
    let mut train = train_printer();
    let warnings = run(&mut Progress { message: &mut message, train: &mut train })?;
    for warning in warnings {
        crate::commands::output::warning(&warning);
    }
    println!("report: {} and {}", out.join("report.md").display(), out.join("report.html").display());
    Ok(())
}

/// Prints a training run's progress on stderr: a line redrawn per batch on a terminal,
/// one line per epoch always.
fn train_printer() -> impl FnMut(&TrainEvent) {
    let bar = std::io::stderr().is_terminal();
    move |event: &TrainEvent| match event {
        TrainEvent::Batch { epoch, done, total, loss } if bar => {
            eprint!("\r  epoch {epoch} {done}/{total} loss {loss:.4}   ");
            let _ = std::io::stderr().flush();
        }
        TrainEvent::Epoch(l) => {
            if bar {
                eprintln!();
            }
            eprintln!(
                "  epoch {} loss {:.4} valid_loss {:.4} {} {:.4}{} ({:.1}s)",
                l.epoch,
                l.loss,
                l.valid_loss,
                l.metric_name,
                l.metric(),
                if l.best { " best" } else { "" },
                l.seconds
            );
        }
        _ => {}
    }
}

fn codeqa(args: CodeQaArgs) -> Result<()> {
    let mut config = quarry_experiment::codeqa::Config::new(args.data, args.model, args.out.clone());
    if let Some(lang) = args.lang {
        config.lang = lang.to_ascii_lowercase();
    }
    config.name = args.name;
    config.tokenizer = args.tokenizer;
    config.valid = args.valid;
    config.train_limit = args.train_limit;
    config.test_limit = args.test_limit;
    config.max_source_len = args.max_len;
    config.max_target_len = args.max_target_len;
    config.decoder_layers = args.decoder_layers;
    config.decoder_ffn = args.decoder_ffn;
    config.frozen_epochs = args.frozen_epochs;
    config.frozen_lr = args.frozen_lr;
    config.epochs = args.epochs;
    config.lr = args.lr;
    config.batch_size = args.batch_size;
    config.warmup_steps = args.warmup_steps;
    config.beam = args.beam;
    config.selection = args.select.selection(4.0)?;
    config.meteor_jar = args.meteor_jar;
    config.seed = args.seed;
    config.checkpoint_every = Some(args.checkpoint_every.max(1));
    config.device = args.device.device()?;
    config.precision = args.device.dtype;
    with_progress(&args.out, |progress| {
        Ok(quarry_experiment::codeqa::run(&config, progress).context("codeqa experiment")?.warnings())
    })
}

fn cs1qa(args: Cs1qaArgs) -> Result<()> {
    let mut config = quarry_experiment::cs1qa::Config::new(args.retrieval, args.model, args.out.clone());
    config.annotated = args.annotated;
    config.name = args.name;
    config.tokenizer = args.tokenizer;
    config.seeds = args.seeds;
    config.epochs = args.epochs;
    config.lr = args.lr;
    config.batch_size = args.batch_size;
    config.max_len = args.max_len;
    config.dense_epochs = args.dense_epochs;
    config.dense_lr = args.dense_lr;
    config.dense_batch_size = args.dense_batch_size;
    config.dense_max_len = args.dense_max_len;
    config.pooling = quarry_model::models::cs1qa::Pooling::parse(&args.pooling)?;
    config.checkpoint_every = Some(args.checkpoint_every.max(1));
    config.device = args.device.device()?;
    config.precision = args.device.dtype;
    with_progress(&args.out, |progress| {
        Ok(quarry_experiment::cs1qa::run(&config, progress).context("cs1qa experiment")?.warnings())
    })
}

fn inspect(args: InspectArgs) -> Result<()> {
    let tasks: Vec<quarry_probe::Task> = if args.tasks.eq_ignore_ascii_case("all") {
        quarry_probe::Task::ALL.to_vec()
    } else {
        args.tasks.split(',').map(|t| t.trim().parse()).collect::<std::result::Result<_, _>>()?
    };
    let train = quarry_probe::train::TrainConfig {
        epochs: args.epochs,
        hidden: args.mlp,
        seed: args.seed,
        ..quarry_probe::train::TrainConfig::default()
    };
    let config = quarry_experiment::inspect::InspectConfig {
        data: args.data.clone(),
        out: args.out.clone(),
        model: args.name.clone().unwrap_or_else(|| args.model.clone()),
        model_fingerprint: super::probe::model_fingerprint(&args.model, args.tokenizer.as_deref(), args.seed),
        tasks,
        size: args.size.clone(),
        input: args.input,
        precision: args.device.dtype,
        options: quarry_probe::experiment::ExperimentOptions { train, layers: None, control: false },
    };
    let choice = super::probe::EncoderChoice {
        model: &args.model,
        tokenizer: args.tokenizer.as_deref(),
        device: &args.device,
        seed: args.seed,
        batch: args.encoder_batch,
        input: args.input,
    };
    let mut message = |m: &str| eprintln!("quarry: {m}");
    let report = quarry_experiment::inspect::run(&config, &mut |task| choice.encoder_for(task), &mut message)
        .context("inspect experiment")?;
    println!("report: {} and {}", args.out.join("report.md").display(), args.out.join("report.html").display());
    if !report.missing.is_empty() {
        anyhow::bail!("{} task(s) left out: {}", report.missing.len(), report.missing.join("; "));
    }
    Ok(())
}
