//! The `--model` argument: how a command names a checkpoint and loads it.

use anyhow::{Context, Result};
use clap::Args;
use quarry_model::device::parse_device;
use quarry_model::file_level::BlockSelector;
use quarry_model::{load_model, LoadedModel, RelevanceModel, SpanModel};

/// Interprets a `--model` argument like [`quarry_model::ModelSource::parse`], saying on
/// stderr which checkpoint a training output directory stands for.
pub fn model_source(spec: &str) -> quarry_model::Result<quarry_model::ModelSource> {
    let (source, note) = quarry_model::ModelSource::parse_noting(spec)?;
    if let Some(note) = note {
        eprintln!("quarry: {note}");
    }
    Ok(source)
}

/// Loads a checkpoint (directory, cached hub id) onto `device`.
pub fn load_checkpoint(spec: &str, device: &str) -> Result<LoadedModel> {
    let device = parse_device(device)?;
    let source = model_source(spec)?;
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

/// How a command runs a model for inference: input length, batch and device.
#[derive(Args)]
pub struct InferenceArgs {
    /// Maximum model input in sub-tokens.
    #[arg(value_parser = crate::commands::numbers::length, long, default_value_t = 512)]
    pub max_len: usize,
    /// Model inputs per forward pass.
    #[arg(value_parser = crate::commands::numbers::size, long, default_value_t = 16)]
    pub batch_size: usize,
    /// `cpu`, `cuda` or `cuda:N`.
    #[arg(long, default_value = "cpu")]
    pub device: String,
}
