//! `quarry train span`: fine-tunes an encoder with a B/I/O/F head on CodeQueries-style JSONL.

use std::io::Write;
use std::path::PathBuf;

use anyhow::{Context, Result};
use clap::{Args, Subcommand};
use quarry_model::data::{encode_examples, read_span_jsonl};
use quarry_model::device::parse_device;
use quarry_model::train::{read_state, train_span, TrainConfig, TrainEvent};
use quarry_model::{load_model, ModelSource, SpanModel};

/// What to train.
#[derive(Subcommand)]
pub enum TrainTask {
    /// Span prediction: one B/I/O/F label per sub-token.
    Span(SpanArgs),
}

/// Arguments of `quarry train span`.
#[derive(Args)]
pub struct SpanArgs {
    /// Training examples (JSONL with `subtokenized_input_sequence` and `label_sequence`).
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
    #[arg(long, default_value_t = 5e-5)]
    pub lr: f64,
    /// AdamW weight decay.
    #[arg(long, default_value_t = 0.01)]
    pub weight_decay: f64,
    /// Maximum sequence length in sub-tokens (longer examples are truncated).
    #[arg(long, default_value_t = 512)]
    pub max_len: usize,
    /// Seed of initialization, dropout and data order.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Continue from `OUT/last` if it holds a training state.
    #[arg(long)]
    pub resume: bool,
    /// `cpu`, `cuda` or `cuda:N`.
    #[arg(long, default_value = "cpu")]
    pub device: String,
}

/// Runs `quarry train ...`.
pub fn run(task: TrainTask) -> i32 {
    let TrainTask::Span(args) = task;
    match train(args) {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("error: {e:#}");
            1
        }
    }
}

fn train(args: SpanArgs) -> Result<()> {
    let device = parse_device(&args.device)?;
    let resuming = args.resume && read_state(&args.out)?.is_some();
    let source = if resuming {
        eprintln!("resuming from {}", args.out.join("last").display());
        ModelSource::Dir(args.out.join("last"))
    } else {
        ModelSource::parse(&args.model)?
    };
    let loaded = load_model(&source, args.tokenizer.as_deref(), &device, args.seed)
        .with_context(|| format!("loading model '{}'", args.model))?;
    let max_len = args.max_len.min(loaded.config.max_input_len());
    let model = SpanModel::new(loaded)?;
    let tok = &model.model.tokenizer;
    let train_set = read_span_jsonl(&args.train)?;
    let valid_set = read_span_jsonl(&args.valid)?;
    let train_enc =
        encode_examples(&train_set, tok, max_len).with_context(|| format!("encoding {}", args.train.display()))?;
    let valid_enc =
        encode_examples(&valid_set, tok, max_len).with_context(|| format!("encoding {}", args.valid.display()))?;
    eprintln!("{} training and {} validation examples, max length {max_len}", train_enc.len(), valid_enc.len());
    let config = TrainConfig {
        epochs: args.epochs,
        batch_size: args.batch_size,
        grad_accum: args.grad_accum,
        lr: args.lr,
        weight_decay: args.weight_decay,
        seed: args.seed,
        out_dir: Some(args.out.clone()),
        resume: resuming,
    };
    train_span(&model, &train_enc, &valid_enc, &config, &mut report)?;
    eprintln!();
    println!("best checkpoint: {}", args.out.join("best").display());
    Ok(())
}

fn report(event: &TrainEvent) {
    match event {
        TrainEvent::Batch { epoch, done, total, loss } => {
            const WIDTH: usize = 30;
            let filled = done * WIDTH / total.max(&1);
            eprint!(
                "\repoch {epoch} [{}{}] {done}/{total} loss {loss:.4}",
                "#".repeat(filled),
                ".".repeat(WIDTH - filled)
            );
            let _ = std::io::stderr().flush();
        }
        TrainEvent::Epoch(l) => {
            eprintln!();
            println!(
                "epoch {} loss {:.4} valid_loss {:.4} exact_match {:.4}{} ({:.1}s)",
                l.epoch,
                l.loss,
                l.valid_loss,
                l.exact_match,
                if l.best { " best" } else { "" },
                l.seconds
            );
        }
    }
}
