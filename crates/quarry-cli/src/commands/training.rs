//! What every training command shares (`quarry train span|relevance|answer`,
//! `quarry cs1qa train type|lines|dense`): the arguments, loading the model or resuming
//! from `OUT/last`, and running [`quarry_model::training::train::fit`] with progress on stderr.

use std::io::{IsTerminal, Write};
use std::path::PathBuf;

use anyhow::{Context, Result};
use clap::Args;
use quarry_model::training::train::{
    fit, keep_checkpoints, planned_steps, read_state, EpochLog, Keep, TrainConfig, TrainEvent, Trainable,
};
use quarry_model::{LoadedModel, ModelSource};

use super::model_arg::{model_source, DeviceArgs};

/// Arguments of every `quarry train` task.
#[derive(Args)]
pub struct TrainArgs {
    /// Training examples: JSON Lines or Parquet records with `subtokenized_input_sequence`
    /// and `label_sequence` (span) or `relevance_label` (relevance, the dataset builder's
    /// `twostep_*.jsonl`); a file, a directory of them, or a quoted `*` pattern such as
    /// `'OUT/data/ideal/train-*.parquet'`.
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
    #[arg(long, value_parser = super::folder_arg::folder_output())]
    pub out: PathBuf,
    /// Epochs, batch, learning rate and warm-up.
    #[command(flatten)]
    pub schedule: ScheduleArgs,
    /// Forward passes per optimizer step.
    #[arg(value_parser = crate::commands::numbers::size, long, default_value_t = 1)]
    pub grad_accum: usize,
    /// AdamW weight decay.
    #[arg(value_parser = crate::commands::numbers::non_negative, long, default_value_t = 0.01)]
    pub weight_decay: f64,
    /// Maximum sequence length in sub-tokens (longer examples are truncated).
    #[arg(value_parser = crate::commands::numbers::length, long, default_value_t = 512)]
    pub max_len: usize,
    /// Seed of initialization, dropout and data order.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Continue from `OUT/last` if it holds a training state; with the same settings the run
    /// ends exactly as an uninterrupted one would.
    #[arg(long)]
    pub resume: bool,
    /// Also write the resumable `OUT/last` every N optimizer steps within an epoch.
    #[arg(value_parser = crate::commands::numbers::amount, long)]
    pub checkpoint_every: Option<usize>,
    /// Device and precision.
    #[command(flatten)]
    pub device: DeviceArgs,
    /// Train and validate on the first N examples of each file only.
    #[arg(value_parser = crate::commands::numbers::amount, long)]
    pub limit: Option<usize>,
    /// Checkpoints kept once training ends: `best` (lowest validation loss; the resumable
    /// `last/` is removed), `last`, or `all`.
    #[arg(long, default_value = "all")]
    pub keep: Keep,
}

/// The training schedule every training command shares, `quarry experiment` included.
#[derive(Args)]
pub struct ScheduleArgs {
    /// Passes over the training set (`experiment`: of every span training run).
    #[arg(value_parser = crate::commands::numbers::epochs, long, default_value_t = 3)]
    pub epochs: usize,
    /// Examples per forward pass.
    #[arg(value_parser = crate::commands::numbers::size, long, default_value_t = 8)]
    pub batch_size: usize,
    /// Peak learning rate, decayed linearly to zero.
    #[arg(value_parser = crate::commands::numbers::positive, long = "learning-rate", visible_alias = "lr", default_value_t = 5e-5)]
    pub lr: f64,
    /// Optimizer steps of linear warm-up from zero to `--lr`.
    #[arg(long, default_value_t = 0)]
    pub warmup_steps: usize,
}

/// What loading decided: the usable maximum length, and whether training resumes.
pub struct Setup {
    /// The usable maximum input length.
    pub max_len: usize,
    /// Whether training resumes from `OUT/last`.
    pub resuming: bool,
}

/// Loads `--model`, or `OUT/last` when resuming.
pub fn load(args: &TrainArgs) -> Result<(LoadedModel, Setup)> {
    let state = if args.resume { read_state(&args.out)? } else { None };
    let resuming = state.is_some();
    let source = if let Some(state) = &state {
        eprintln!(
            "resuming from {} ({} epoch(s) and {} batch(es) done)",
            args.out.join("last").display(),
            state.epochs_done,
            state.batches_done
        );
        if let Some(started) = state.started_from.as_ref().filter(|started| **started != args.model) {
            crate::commands::output::warning(&format!(
                "the run in {} started from `{started}`: resuming continues it, and --model `{}` is not used",
                args.out.display(),
                args.model
            ));
        }
        ModelSource::Dir(args.out.join("last"))
    } else {
        let earlier = if args.resume { None } else { read_state(&args.out).ok().flatten() };
        if let Some(done) = earlier {
            crate::commands::output::warning(&format!(
                "{} holds a resumable run ({} epoch(s) done); this one starts over and replaces it \
                 (--resume continues it)",
                args.out.display(),
                done.epochs_done
            ));
        }
        model_source(&args.model)?
    };
    let model = args
        .device
        .load(&source, args.tokenizer.as_deref(), args.seed)
        .with_context(|| format!("loading model '{}'", args.model))?;
    let max_len = args.max_len.min(model.config.max_input_len());
    Ok((model, Setup { max_len, resuming }))
}

/// Trains `model` with the settings of `args`, printing progress, then the best checkpoint.
pub fn run_training<'a, M: Trainable>(
    model: &M,
    train: &'a [M::Example],
    valid: &'a [M::Example],
    args: &TrainArgs,
    setup: &Setup,
) -> Result<()> {
    let first = |examples: &'a [M::Example]| &examples[..args.limit.map_or(examples.len(), |n| n.min(examples.len()))];
    let (train, valid) = (first(train), first(valid));
    eprintln!("{} training and {} validation examples, max length {}", train.len(), valid.len(), setup.max_len);
    let config = TrainConfig {
        epochs: args.schedule.epochs,
        batch_size: args.schedule.batch_size,
        grad_accum: args.grad_accum,
        lr: args.schedule.lr,
        warmup_steps: args.schedule.warmup_steps,
        weight_decay: args.weight_decay,
        seed: args.seed,
        out_dir: Some(args.out.clone()),
        resume: setup.resuming,
        checkpoint_every: args.checkpoint_every,
        stop_after_steps: None,
        started_from: Some(args.model.clone()),
    };
    if setup.resuming {
        if let Some(state) = read_state(&args.out)? {
            let planned = planned_steps(train.len(), &config);
            if state.total_steps != 0 && state.total_steps != planned {
                crate::commands::output::warning(&format!(
                    "the interrupted run planned its learning-rate schedule over {} steps, this one over \
                     {planned}; the result will differ from an uninterrupted run of either length",
                    state.total_steps
                ));
            }
        }
    }
    let mut progress = Progress { bar: std::io::stderr().is_terminal() };
    fit(model, train, valid, &config, &mut |event| progress.report(event))?;
    keep_checkpoints(&args.out, args.keep)?;
    let kept = if args.keep == Keep::Last { "last checkpoint" } else { "best checkpoint" };
    let dir = if args.keep == Keep::Last { "last" } else { "best" };
    println!("{kept}: {}", args.out.join(dir).display());
    Ok(())
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
