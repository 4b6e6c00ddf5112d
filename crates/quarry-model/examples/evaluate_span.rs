//! Evaluates a span checkpoint from Rust, as `quarry evaluate span` does without the
//! binary: exact match in one of the paper's settings, printed as the command's table.
//!
//! `cargo run --release -p quarry-model --example evaluate_span -- MODEL_DIR DATA.jsonl [SETTING]`
//! (SETTING: ideal, prefix, sliding-window or file-ideal; two-step needs a relevance model).

use std::path::PathBuf;

use candle_core::Device;
use quarry_model::evaluation::file_level::Setting;
use quarry_model::evaluation::span_eval::{evaluate_span, SpanEvalOptions};
use quarry_model::{load_model, ModelSource, SpanModel};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [model, data, rest @ ..] = args.as_slice() else {
        eprintln!("usage: evaluate_span MODEL_DIR DATA.jsonl [SETTING]");
        std::process::exit(2);
    };
    let setting: Setting = rest.first().map_or("ideal", String::as_str).parse()?;
    let loaded = load_model(&ModelSource::parse(model)?, None, &Device::Cpu, 0)?;
    let span = SpanModel::trained(loaded)?;
    let options = SpanEvalOptions {
        setting,
        max_len: 512,
        batch_size: 16,
        limit_per_query: None,
        seed: 0,
        predictions: None,
        limit: None,
    };
    let report = evaluate_span(&span, &PathBuf::from(data), None, &options, &mut |_, _| {})?;
    report.write_table(&mut std::io::stdout())?;
    Ok(())
}
