//! `quarry bench encoder`: forward throughput and fine-tuning step time of an encoder on a
//! device, as JSON (what the GPU check compares with PyTorch).

use std::path::PathBuf;

use anyhow::{Context, Result};
use clap::{Args, Subcommand};
use quarry_model::speed::{measure, SpeedConfig, SyntheticBatch};
use quarry_model::SpanModel;

use super::model_arg::{model_source, DeviceArgs};
use super::output::EXIT_INPUT_ERROR;

/// What `quarry bench` measures.
#[derive(Subcommand)]
pub enum BenchTask {
    /// Forward tokens/s and span fine-tuning step time on a synthetic batch.
    Encoder(EncoderBenchArgs),
}

/// Arguments of `quarry bench encoder`.
#[derive(Args)]
pub struct EncoderBenchArgs {
    /// Model directory, hub id, or `scratch:LAYERSxHIDDEN[xHEADS]`.
    #[arg(long)]
    pub model: String,
    /// Tokenizer (file or directory); required for scratch models.
    #[arg(long)]
    pub tokenizer: Option<PathBuf>,
    /// Sequences per batch.
    #[arg(value_parser = super::numbers::size, long, default_value_t = 32)]
    pub batch_size: usize,
    /// Tokens per sequence.
    #[arg(value_parser = super::numbers::length, long, default_value_t = 128)]
    pub seq_len: usize,
    /// Untimed passes before timing.
    #[arg(value_parser = super::numbers::repeats, long, default_value_t = 3)]
    pub warmup: usize,
    /// Timed passes.
    #[arg(value_parser = super::numbers::size, long, default_value_t = 20)]
    pub steps: usize,
    /// Seed of the synthetic batch and of a fresh head.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// AdamW learning rate of the training steps.
    #[arg(value_parser = super::numbers::positive, long = "learning-rate", visible_alias = "lr", default_value_t = 5e-5)]
    pub lr: f64,
    /// Also write the synthetic batch (ids and labels) as JSON here, for a reference run.
    #[arg(long)]
    pub batch_out: Option<PathBuf>,
    /// Device and precision.
    #[command(flatten)]
    pub device: DeviceArgs,
}

/// Runs `quarry bench ...`.
pub fn run(task: BenchTask) -> i32 {
    let BenchTask::Encoder(args) = task;
    match encoder(&args) {
        Ok(()) => 0,
        Err(e) => {
            crate::commands::output::error(&crate::commands::output::describe(&e));
            EXIT_INPUT_ERROR
        }
    }
}

fn encoder(args: &EncoderBenchArgs) -> Result<()> {
    let source = model_source(&args.model)?;
    let loaded = args
        .device
        .load(&source, args.tokenizer.as_deref(), args.seed)
        .with_context(|| format!("loading model '{}'", args.model))?;
    if args.seq_len > loaded.config.max_input_len() {
        anyhow::bail!("--seq-len {} exceeds the model's maximum of {}", args.seq_len, loaded.config.max_input_len());
    }
    let config = SpeedConfig {
        batch_size: args.batch_size,
        seq_len: args.seq_len,
        warmup: args.warmup,
        steps: args.steps,
        seed: args.seed,
        lr: args.lr,
    };
    // Ids above the tokenizer's special tokens, as real text has.
    let first_id = loaded.tokenizer.pad_id().max(loaded.config.pad_token_id) + 1;
    let batch = SyntheticBatch::new(&config, first_id.max(5), loaded.config.vocab_size);
    if let Some(path) = &args.batch_out {
        quarry_stdx::atomic::write_atomically(path, serde_json::to_string(&batch)?.as_bytes())
            .with_context(|| format!("writing {}", path.display()))?;
    }
    let model = SpanModel::new(loaded)?;
    let report = measure(&model, &batch, &config)?;
    let value = serde_json::json!({
        "model": args.model,
        "device": args.device.name,
        "dtype": args.device.dtype.to_string(),
        "config": config,
        "report": report,
    });
    println!("{value}");
    Ok(())
}
