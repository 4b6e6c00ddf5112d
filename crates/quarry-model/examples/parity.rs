//! quarry's side of the step-parity check against PyTorch (see `parity/README.md`): trains
//! a span or relevance model with `train::fit` on given examples and writes every optimizer
//! step (learning rate, loss, gradient norm, the examples it saw) and the final weights.
//!
//! Usage: cargo run --release -p quarry-model --example parity -- span|relevance MODEL_DIR
//! DATA_JSON OUT_DIR
//!
//! DATA_JSON: `{"examples": [{"ids": [..], "label": 0|1} or {"ids": [..], "labels": [..]}],
//! "epochs", "batch_size", "lr", "warmup_steps", "weight_decay", "seed", "class_weights"}`;
//! span labels are 0..3 (B, I, O, F) or -100 (no label). Writes `OUT_DIR/steps.json` and
//! `OUT_DIR/final/model.safetensors`.

use std::path::{Path, PathBuf};

use candle_core::Device;
use quarry_model::evaluation::spans::Label;
use quarry_model::training::data::{EncodedExample, EncodedRelevance};
use quarry_model::training::train::{fit, TrainConfig, TrainEvent, Trainable};
use quarry_model::{load_model, ModelSource, RelevanceModel, SpanModel};
use serde::Deserialize;
use serde_json::json;

#[derive(Deserialize)]
struct Example {
    ids: Vec<u32>,
    #[serde(default)]
    labels: Vec<i64>,
    #[serde(default)]
    label: i64,
}

#[derive(Deserialize)]
struct Data {
    examples: Vec<Example>,
    epochs: usize,
    batch_size: usize,
    lr: f64,
    warmup_steps: usize,
    weight_decay: f64,
    seed: u64,
    class_weights: Option<Vec<f32>>,
}

type Error = Box<dyn std::error::Error>;

/// Trains `model`, then writes its steps and final weights under `out`.
fn run<M: Trainable>(model: &M, examples: &[M::Example], config: &TrainConfig, out: &Path) -> Result<(), Error> {
    let mut steps = Vec::new();
    fit(model, examples, examples, config, &mut |event| {
        if let TrainEvent::Step(s) = event {
            eprintln!("step {:>3} lr {:.3e} loss {:.6} grad_norm {:.6}", s.step, s.lr, s.loss, s.grad_norm);
            steps.push(json!({"step": s.step, "lr": s.lr, "loss": s.loss, "grad_norm": s.grad_norm,
                              "examples": s.examples}));
        }
    })?;
    model.save(&out.join("final"))?;
    std::fs::write(out.join("steps.json"), serde_json::to_string_pretty(&steps)?)?;
    Ok(())
}

fn main() -> Result<(), Error> {
    let args: Vec<String> = std::env::args().collect();
    if args.len() != 5 || !["span", "relevance"].contains(&args[1].as_str()) {
        return Err("usage: parity span|relevance MODEL_DIR DATA_JSON OUT_DIR".into());
    }
    let (task, model_dir, data_path, out) =
        (&args[1], PathBuf::from(&args[2]), PathBuf::from(&args[3]), PathBuf::from(&args[4]));
    let data: Data = serde_json::from_str(&std::fs::read_to_string(&data_path)?)?;
    let config = TrainConfig {
        epochs: data.epochs,
        batch_size: data.batch_size,
        lr: data.lr,
        warmup_steps: data.warmup_steps,
        weight_decay: data.weight_decay,
        seed: data.seed,
        ..TrainConfig::default()
    };
    let loaded = load_model(&ModelSource::Dir(model_dir), None, &Device::Cpu, data.seed)?;
    if task == "span" {
        let model = SpanModel::new(loaded)?;
        let examples = data
            .examples
            .iter()
            .map(|e| {
                let labels = e.labels.iter().map(|&l| if l < 0 { None } else { Label::from_index(l as usize) });
                EncodedExample { ids: e.ids.clone(), labels: labels.collect(), query: None, single_hop: None }
            })
            .collect::<Vec<_>>();
        run(&model, &examples, &config, &out)
    } else {
        let model = RelevanceModel::new(loaded, data.class_weights.clone())?;
        let examples = data
            .examples
            .iter()
            .map(|e| EncodedRelevance { ids: e.ids.clone(), relevant: e.label == 1, query: None })
            .collect::<Vec<_>>();
        run(&model, &examples, &config, &out)
    }
}
