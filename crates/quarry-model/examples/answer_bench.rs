//! CodeQA answer generator speed on CPU: one training step (forward, backward, AdamW) and
//! beam-search generation throughput on real CodeQA pairs. Writes the encoded pairs as JSON
//! so that `scripts/bench_answer_torch.py` runs PyTorch on exactly the same ids.
//!
//! Usage: cargo run --release -p quarry-model --example answer_bench -- MODEL_DIR CODEQA_PREFIX IDS_JSON
//! Settings (environment): BATCH (8), MAX_SOURCE (128), MAX_TARGET (24), DECODER_LAYERS (6),
//! GEN_N (64 inputs generated), GEN_BATCH (16), BEAM (4), ITERS (3). Threads follow
//! RAYON_NUM_THREADS. Prints one JSON object.

use std::collections::HashMap;
use std::time::Instant;

use candle_core::Device;
use quarry_model::nn::params::sorted_vars;
use quarry_model::training::optim::{AdamW, AdamWConfig};
use quarry_model::training::train::Trainable;
use quarry_model::{load_model, AnswerConfig, AnswerModel, DecodeOptions, EncodedAnswer, ModelSource};

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn env(name: &str, default: usize) -> usize {
    std::env::var(name).ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    // Keep freed pages (mimalloc's purge delay, option 15): activations recur every step.
    unsafe { libmimalloc_sys::mi_option_set(15, -1) };
    let args: Vec<String> = std::env::args().collect();
    let [_, dir, prefix, ids_json] = args.as_slice() else {
        return Err("usage: answer_bench MODEL_DIR CODEQA_PREFIX IDS_JSON".into());
    };
    let (batch, iters) = (env("BATCH", 8), env("ITERS", 3));
    let (gen_n, gen_batch, beam) = (env("GEN_N", 64), env("GEN_BATCH", 16), env("BEAM", 4));
    let config = AnswerConfig {
        decoder_layers: env("DECODER_LAYERS", 6),
        max_source_len: env("MAX_SOURCE", 128),
        max_target_len: env("MAX_TARGET", 24),
        ..AnswerConfig::default()
    };
    let loaded = load_model(&ModelSource::Dir(dir.into()), None, &Device::Cpu, 0)?;
    let model = AnswerModel::new(loaded, config)?;
    let examples = quarry_data::codeqa::read_split(prefix.as_ref(), true, false)?;
    let encoded: Vec<EncodedAnswer> = examples
        .iter()
        .take(batch.max(gen_n))
        .map(|e| model.encode(&e.question, &e.code, e.answer.as_deref()))
        .collect::<Result<_, _>>()?;
    let json = serde_json::json!({
        "sources": encoded.iter().map(|e| &e.source).collect::<Vec<_>>(),
        "targets": encoded.iter().map(|e| &e.target).collect::<Vec<_>>(),
        "config": config,
        "batch": batch, "gen_n": gen_n, "gen_batch": gen_batch, "beam": beam, "iters": iters,
    });
    std::fs::write(ids_json, serde_json::to_string(&json)?)?;

    // The initial weights, for PyTorch to load: generation runs on them before training.
    let weights_dir = std::path::Path::new(ids_json).with_extension("model");
    let m = &model.model;
    quarry_model::checkpoint::save_checkpoint(
        &weights_dir,
        &m.config,
        &m.tokenizer,
        &m.store,
        Some(&model.head_config()),
    )?;
    let sources: Vec<Vec<u32>> = encoded.iter().take(gen_n).map(|e| e.source.clone()).collect();
    let options = DecodeOptions {
        beam_size: beam,
        max_len: None,
        length_penalty: 0.0,
        batch_size: gen_batch,
        ..Default::default()
    };
    let start = Instant::now();
    let answers = model.generate_ids(&sources, &options)?;
    let gen = start.elapsed().as_secs_f64();
    let tokens: usize = answers.iter().map(Vec::len).sum();

    let vars = sorted_vars(model.model.store.vars());
    let mut opt = AdamW::new(vars.clone(), AdamWConfig { weight_decay: 0.0, ..AdamWConfig::default() })?;
    let train_batch: Vec<&EncodedAnswer> = encoded.iter().take(batch).collect();
    let mut step = || -> Result<f64, Box<dyn std::error::Error>> {
        let start = Instant::now();
        let loss = model.batch_loss(&train_batch, true)?;
        let grads = loss.backward()?;
        let map: HashMap<String, _> =
            vars.iter().filter_map(|(n, v)| grads.get(v.as_tensor()).map(|g| (n.clone(), g.detach()))).collect();
        opt.step(&map, 5e-5)?;
        Ok(start.elapsed().as_secs_f64())
    };
    step()?; // warm-up
    let mut train = f64::INFINITY;
    for _ in 0..iters {
        train = train.min(step()?);
    }

    println!(
        "{}",
        serde_json::json!({
            "impl": "quarry/candle",
            "threads": candle_core::utils::get_num_threads(),
            "train_step_s": train,
            "generate_s": gen,
            "answers_per_s": gen_n as f64 / gen,
            "generated_tokens": tokens,
            "answers": answers,
        })
    );
    Ok(())
}
