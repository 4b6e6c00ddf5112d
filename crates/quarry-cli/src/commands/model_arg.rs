//! The `--model` argument: how a command names a checkpoint and loads it.

use std::path::Path;

use anyhow::{Context, Result};
use clap::Args;
use quarry_model::device::parse_device;
use quarry_model::evaluation::file_level::BlockSelector;
use quarry_model::{load_model_in, LoadedModel, ModelSource, Precision, RelevanceModel, SpanModel};

/// Where a command runs its model (`--device`) and in what precision (`--dtype`): one
/// definition for every model command.
#[derive(Args, Clone, Debug)]
pub struct DeviceArgs {
    /// `cpu`, `cuda` or `cuda:N`.
    #[arg(id = "device", long = "device", value_name = "DEVICE", default_value = "cpu")]
    pub name: String,
    /// `f32`; `bf16`: mixed precision as PyTorch's autocast (linear layers in bf16;
    /// weights, optimizer state, layer norms, softmax and losses in f32), meant for CUDA (on
    /// the CPU bf16 products are slow); or `f64`: every parameter and activation in double
    /// precision, for feature extraction and parity checks against PyTorch in float64
    /// (`encode`, `probe`, `experiment inspect`; other commands refuse it).
    #[arg(long, default_value = "f32")]
    pub dtype: Precision,
}

impl DeviceArgs {
    /// The device named by `--device`.
    pub fn device(&self) -> quarry_model::Result<quarry_model::device::Device> {
        parse_device(&self.name)
    }

    /// Loads `source` onto the device, computing in `--dtype`, for a command that trains,
    /// scores or generates: `f64` is refused (it serves feature extraction only).
    pub fn load(&self, source: &ModelSource, tokenizer: Option<&Path>, seed: u64) -> quarry_model::Result<LoadedModel> {
        if self.dtype == Precision::F64 {
            return Err(quarry_model::ModelError::Config(
                "--dtype f64 is for feature extraction (`quarry encode`, `quarry probe`, `quarry experiment inspect`)"
                    .into(),
            ));
        }
        self.load_features(source, tokenizer, seed)
    }

    /// Loads `source` onto the device, computing in `--dtype` (`f64` included), for a
    /// command that only reads the encoder's hidden states.
    pub fn load_features(
        &self,
        source: &ModelSource,
        tokenizer: Option<&Path>,
        seed: u64,
    ) -> quarry_model::Result<LoadedModel> {
        load_model_in(source, tokenizer, &self.device()?, seed, self.dtype)
    }
}

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
pub fn load_checkpoint(spec: &str, device: &DeviceArgs) -> Result<LoadedModel> {
    let source = model_source(spec)?;
    device.load(&source, None, 0).with_context(|| format!("loading model '{spec}'"))
}

/// Loads a span checkpoint.
pub fn load_span_model(spec: &str, device: &DeviceArgs) -> Result<SpanModel> {
    Ok(SpanModel::trained(load_checkpoint(spec, device)?)?)
}

/// Loads the relevance classifier named by `spec`, if any.
pub fn load_selector(spec: Option<&str>, device: &DeviceArgs) -> Result<Option<Box<dyn BlockSelector>>> {
    let Some(spec) = spec else { return Ok(None) };
    Ok(Some(Box::new(RelevanceModel::trained(load_checkpoint(spec, device)?)?)))
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
    /// Device and precision.
    #[command(flatten)]
    pub device: DeviceArgs,
}
