//! `quarry encode`: per-layer summary-token vectors of texts, as JSON lines.

use std::io::Write;

use super::model_arg::DeviceArgs;
use anyhow::{Context, Result};
use clap::Args;

/// Arguments of `quarry encode`.
#[derive(Args)]
pub struct EncodeArgs {
    /// Model directory, hub id, or `scratch:LAYERSxHIDDEN[xHEADS]`.
    #[arg(long)]
    pub model: String,
    /// Tokenizer (file or directory); required for scratch models.
    #[arg(long)]
    pub tokenizer: Option<std::path::PathBuf>,
    /// Texts to encode.
    #[arg(required = true)]
    pub texts: Vec<String>,
    /// Print every layer's summary-token vector, not only the last.
    #[arg(long)]
    pub all_layers: bool,
    /// Device and precision.
    #[command(flatten)]
    pub device: DeviceArgs,
}

/// Runs `quarry encode`.
pub fn run(args: EncodeArgs) -> i32 {
    match encode(args) {
        Ok(()) => 0,
        Err(e) => {
            crate::commands::output::error(&crate::commands::output::describe(&e));
            super::output::EXIT_INPUT_ERROR
        }
    }
}

fn encode(args: EncodeArgs) -> Result<()> {
    let source = super::model_arg::model_source(&args.model)?;
    let model = args
        .device
        .load_features(&source, args.tokenizer.as_deref(), 0)
        .with_context(|| format!("loading model '{}'", args.model))?;
    let max_len = model.config.max_input_len();
    let mut stdout = std::io::stdout().lock();
    for (i, text) in args.texts.iter().enumerate() {
        let mut enc = model.tokenizer.encode(text, None)?;
        if enc.ids.len() > max_len {
            super::output::warning(&format!(
                "text {}: {} sub-tokens, cut to the model's {max_len}; the vectors stand for its start",
                i + 1,
                enc.ids.len()
            ));
            enc = model.tokenizer.encode(text, Some(max_len))?;
        }
        let features = model.encode_summary(&enc.ids)?;
        if features.iter().flatten().any(|v| !v.is_finite()) {
            super::output::warning(&format!(
                "text {}: the model's output holds NaN or infinite values (printed as null); are its weights \
                 finite?",
                i + 1
            ));
        }
        let layers: Vec<Vec<f32>> =
            if args.all_layers { features } else { features.into_iter().last().into_iter().collect() };
        let value = serde_json::json!({
            "text": text,
            "ids": enc.ids,
            "tokens": enc.tokens,
            "offsets": enc.offsets,
            "summary": layers,
        });
        if writeln!(stdout, "{value}").is_err() {
            // The reader went away (e.g. `| head`); stop quietly.
            return Ok(());
        }
    }
    Ok(())
}
