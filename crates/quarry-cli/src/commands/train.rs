//! `quarry train span|relevance|answer`: fine-tunes an encoder with a B/I/O/F head, or with
//! the two-step procedure's relevance classifier, on CodeQueries-style JSONL; or trains
//! CodeQA's encoder-decoder answer generator on CodeQA's parallel files.

use std::io::{IsTerminal, Write};
use std::path::PathBuf;

use anyhow::{Context, Result};
use clap::{Args, Subcommand};
use quarry_model::data::{
    class_weights_for, encode_examples, encode_relevance, read_relevance_jsonl, read_span_jsonl, RelevanceExample,
};
use quarry_model::device::parse_device;
use quarry_model::relevance_model::RELEVANCE_CLASSES;
use quarry_model::train::{fit, planned_steps, read_state, EpochLog, TrainConfig, TrainEvent, Trainable};
use quarry_model::{load_model, AnswerConfig, AnswerModel, LoadedModel, ModelSource, RelevanceModel, SpanModel};

/// What to train.
#[derive(Subcommand)]
pub enum TrainTask {
    /// Span prediction: one B/I/O/F label per sub-token.
    Span(TrainArgs),
    /// Block relevance (two-step procedure): is `[CLS] query [SEP] block [SEP]` relevant?
    Relevance(RelevanceArgs),
    /// CodeQA answer generation: encoder + Transformer decoder on `PREFIX.code`,
    /// `PREFIX.question` and `PREFIX.answer` (`--train`/`--valid` are such prefixes, e.g.
    /// `data/codeqa/python/dev`; `--max-len` caps the source sequence).
    Answer(AnswerArgs),
}

/// Arguments of `quarry train answer`.
#[derive(Args)]
pub struct AnswerArgs {
    /// The settings shared with `quarry train span`; `--train` and `--valid` are split
    /// prefixes, `--max-len` is the source length cap (CodeQA's scripts: 400).
    #[command(flatten)]
    pub common: TrainArgs,
    /// Answer length cap in sub-tokens, start and end tokens included; also the generation
    /// limit.
    #[arg(long, default_value_t = 30)]
    pub max_target_len: usize,
    /// Decoder layers (CodeQA: 6).
    #[arg(long, default_value_t = quarry_model::answer_model::DEFAULT_DECODER_LAYERS)]
    pub decoder_layers: usize,
    /// Decoder feed-forward size (CodeQA: PyTorch's default, 2048).
    #[arg(long, default_value_t = quarry_model::answer_model::DEFAULT_DECODER_FFN)]
    pub decoder_ffn: usize,
    /// Keep the encoder layers fixed (embeddings and decoder still train); about half the
    /// step time, at some cost in accuracy (CodeQA trains everything).
    #[arg(long)]
    pub freeze_encoder: bool,
}

/// Arguments of every `quarry train` task.
#[derive(Args)]
pub struct TrainArgs {
    /// Training examples: JSONL with `subtokenized_input_sequence` and `label_sequence`
    /// (span) or `relevance_label` (relevance, the dataset builder's `twostep_*.jsonl`).
    #[arg(long)]
    pub train: PathBuf,
    /// Validation examples, same format.
    #[arg(long)]
    pub valid: PathBuf,
    /// Model directory, hub id, or `scratch:LAYERSxHIDDEN[xHEADS]`.
    #[arg(long)]
    pub model: String,
    /// Tokenizer (file or directory); required for scratch models.
    #[arg(long)]
    pub tokenizer: Option<PathBuf>,
    /// Output directory: `best/` (lowest validation loss) and `last/` (resumable state).
    #[arg(long)]
    pub out: PathBuf,
    /// Passes over the training set.
    #[arg(long, default_value_t = 3)]
    pub epochs: usize,
    /// Examples per forward pass.
    #[arg(long, default_value_t = 8)]
    pub batch_size: usize,
    /// Forward passes per optimizer step.
    #[arg(long, default_value_t = 1)]
    pub grad_accum: usize,
    /// Peak learning rate, decayed linearly to zero.
    #[arg(long = "learning-rate", visible_alias = "lr", default_value_t = 5e-5)]
    pub lr: f64,
    /// Optimizer steps of linear warm-up from zero to `--lr`.
    #[arg(long, default_value_t = 0)]
    pub warmup_steps: usize,
    /// AdamW weight decay.
    #[arg(long, default_value_t = 0.01)]
    pub weight_decay: f64,
    /// Maximum sequence length in sub-tokens (longer examples are truncated).
    #[arg(long, default_value_t = 512)]
    pub max_len: usize,
    /// Seed of initialization, dropout and data order.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Continue from `OUT/last` if it holds a training state; with the same settings the run
    /// ends exactly as an uninterrupted one would.
    #[arg(long)]
    pub resume: bool,
    /// Also write the resumable `OUT/last` every N optimizer steps within an epoch.
    #[arg(long)]
    pub checkpoint_every: Option<usize>,
    /// `cpu`, `cuda` or `cuda:N`.
    #[arg(long, default_value = "cpu")]
    pub device: String,
}

/// Arguments of `quarry train relevance`.
#[derive(Args)]
pub struct RelevanceArgs {
    /// The settings shared with `quarry train span`.
    #[command(flatten)]
    pub common: TrainArgs,
    /// Train with an unweighted loss; by default each class is weighted by its inverse
    /// frequency in the training set (stored in the checkpoint's head configuration).
    #[arg(long)]
    pub no_class_weights: bool,
}

/// Runs `quarry train ...`.
pub fn run(task: TrainTask) -> i32 {
    let result = match task {
        TrainTask::Span(args) => train_span(args),
        TrainTask::Relevance(args) => train_relevance(args),
        TrainTask::Answer(args) => train_answer(args),
    };
    match result {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("quarry: error: {e:#}");
            1
        }
    }
}

/// What loading decided: the usable maximum length, and whether training resumes.
pub(crate) struct Setup {
    pub(crate) max_len: usize,
    pub(crate) resuming: bool,
}

/// Loads `--model`, or `OUT/last` when resuming.
pub(crate) fn load(args: &TrainArgs) -> Result<(LoadedModel, Setup)> {
    let device = parse_device(&args.device)?;
    let state = if args.resume { read_state(&args.out)? } else { None };
    let resuming = state.is_some();
    let source = if let Some(state) = &state {
        eprintln!(
            "resuming from {} ({} epoch(s) and {} batch(es) done)",
            args.out.join("last").display(),
            state.epochs_done,
            state.batches_done
        );
        ModelSource::Dir(args.out.join("last"))
    } else {
        super::model_source(&args.model)?
    };
    let model = load_model(&source, args.tokenizer.as_deref(), &device, args.seed)
        .with_context(|| format!("loading model '{}'", args.model))?;
    let max_len = args.max_len.min(model.config.max_input_len());
    Ok((model, Setup { max_len, resuming }))
}

/// Trains `model` with the settings of `args`, printing progress, then the best checkpoint.
pub(crate) fn run_training<M: Trainable>(
    model: &M,
    train: &[M::Example],
    valid: &[M::Example],
    args: &TrainArgs,
    setup: &Setup,
) -> Result<()> {
    eprintln!("{} training and {} validation examples, max length {}", train.len(), valid.len(), setup.max_len);
    let config = TrainConfig {
        epochs: args.epochs,
        batch_size: args.batch_size,
        grad_accum: args.grad_accum,
        lr: args.lr,
        warmup_steps: args.warmup_steps,
        weight_decay: args.weight_decay,
        seed: args.seed,
        out_dir: Some(args.out.clone()),
        resume: setup.resuming,
        checkpoint_every: args.checkpoint_every,
        stop_after_steps: None,
    };
    if setup.resuming {
        if let Some(state) = read_state(&args.out)? {
            let planned = planned_steps(train.len(), &config);
            if state.total_steps != 0 && state.total_steps != planned {
                eprintln!(
                    "warning: the interrupted run planned its learning-rate schedule over {} steps, this one over \
                     {planned}; the result will differ from an uninterrupted run of either length",
                    state.total_steps
                );
            }
        }
    }
    let mut progress = Progress { bar: std::io::stderr().is_terminal() };
    fit(model, train, valid, &config, &mut |event| progress.report(event))?;
    println!("best checkpoint: {}", args.out.join("best").display());
    Ok(())
}

fn train_span(args: TrainArgs) -> Result<()> {
    let (model, setup) = load(&args)?;
    let model = SpanModel::new(model)?;
    let tok = &model.model.tokenizer;
    let encode = |path: &PathBuf| {
        let examples = read_span_jsonl(path)?;
        encode_examples(&examples, tok, setup.max_len).with_context(|| format!("encoding {}", path.display()))
    };
    run_training(&model, &encode(&args.train)?, &encode(&args.valid)?, &args, &setup)
}

fn train_relevance(args: RelevanceArgs) -> Result<()> {
    let common = &args.common;
    let (model, setup) = load(common)?;
    let train_set = read_relevance_jsonl(&common.train)?;
    let valid_set = read_relevance_jsonl(&common.valid)?;
    let weights = if args.no_class_weights {
        None
    } else {
        let labels = train_set.iter().map(|e| usize::from(e.relevant));
        let w = class_weights_for(labels, RELEVANCE_CLASSES)
            .with_context(|| format!("class weights of {} (or pass --no-class-weights)", common.train.display()))?;
        eprintln!("class weights: not relevant {:.4}, relevant {:.4}", w[0], w[1]);
        Some(w)
    };
    // These weights, or none, replace any that a relevance checkpoint given as --model has.
    let mut model = RelevanceModel::new(model, None)?;
    model.set_class_weights(weights)?;
    let tok = &model.model.tokenizer;
    let encode = |set: &[RelevanceExample], path: &PathBuf| {
        encode_relevance(set, tok, setup.max_len).with_context(|| format!("encoding {}", path.display()))
    };
    let train = encode(&train_set, &common.train)?;
    let valid = encode(&valid_set, &common.valid)?;
    run_training(&model, &train, &valid, common, &setup)
}

fn train_answer(args: AnswerArgs) -> Result<()> {
    let common = &args.common;
    let (model, setup) = load(common)?;
    let config = AnswerConfig {
        decoder_layers: args.decoder_layers,
        decoder_ffn: args.decoder_ffn,
        max_source_len: setup.max_len,
        max_target_len: args.max_target_len,
        freeze_encoder: args.freeze_encoder,
        ..AnswerConfig::default()
    };
    let model = AnswerModel::new(model, config)?;
    let encode = |prefix: &PathBuf| -> Result<Vec<quarry_model::EncodedAnswer>> {
        let examples = quarry_data::codeqa::read_split(prefix, true, false)?;
        examples
            .iter()
            .map(|e| model.encode(&e.question, &e.code, e.answer.as_deref()))
            .collect::<quarry_model::Result<Vec<_>>>()
            .with_context(|| format!("encoding {}", prefix.display()))
    };
    let train = encode(&common.train)?;
    let valid = encode(&common.valid)?;
    run_training(&model, &train, &valid, common, &setup)
}

/// Training progress: a bar redrawn in place on stderr only when stderr is a terminal, and
/// one plain line per epoch on stdout (loss, validation loss and metrics, time) always.
struct Progress {
    bar: bool,
}

impl Progress {
    fn report(&mut self, event: &TrainEvent) {
        match event {
            TrainEvent::Batch { epoch, done, total, loss } if self.bar => draw_bar(*epoch, *done, *total, *loss),
            TrainEvent::Epoch(l) => {
                if self.bar {
                    // Ends the bar's line.
                    eprintln!();
                }
                epoch_line(l);
            }
            _ => {}
        }
    }
}

fn draw_bar(epoch: usize, done: usize, total: usize, loss: f64) {
    const WIDTH: usize = 30;
    let filled = done * WIDTH / total.max(1);
    eprint!("\repoch {epoch} [{}{}] {done}/{total} loss {loss:.4}", "#".repeat(filled), ".".repeat(WIDTH - filled));
    let _ = std::io::stderr().flush();
}

fn epoch_line(l: &EpochLog) {
    // The headline metric first, then the known ones in this order, then any others.
    const ORDER: [&str; 5] = ["exact_match", "accuracy", "precision", "recall", "f1"];
    let mut names: Vec<&String> = l.metrics.keys().collect();
    names.sort_by_key(|n| (**n != l.metric_name, ORDER.iter().position(|o| o == n).unwrap_or(ORDER.len())));
    let metrics: String = names.iter().map(|n| format!(" {n} {:.4}", l.metrics[*n])).collect();
    println!(
        "epoch {} loss {:.4} valid_loss {:.4}{metrics}{} ({:.1}s)",
        l.epoch,
        l.loss,
        l.valid_loss,
        if l.best { " best" } else { "" },
        l.seconds
    );
}
