//! T5, BART and PLBART encoders: every layer's hidden states match transformers within 1e-4.
//!
//! The fixtures under `tests/fixtures/seq2seq/` are tiny random-weight checkpoints that
//! transformers wrote, with the hidden states it computed on real Java and Python snippets
//! (`parity/seq2seq_fixtures.py` makes them, and says how).

use std::path::{Path, PathBuf};

use candle_core::{DType, Device, IndexOp, Tensor};
use quarry_model::checkpoint::save_checkpoint;
use quarry_model::{load_model, load_model_in, Family, LoadedModel, ModelSource, Precision};
use serde_json::Value;

const TOLERANCE: f32 = 1e-4;

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/seq2seq").join(name)
}

fn load(dir: &Path) -> LoadedModel {
    load_model(&ModelSource::Dir(dir.to_path_buf()), None, &Device::Cpu, 0).unwrap()
}

/// The snippets' ids, padded into one batch, with the attention mask.
fn batch(model: &LoadedModel, ids: &[Vec<u32>]) -> (Tensor, Tensor) {
    let width = ids.iter().map(Vec::len).max().unwrap();
    let pad = model.tokenizer.pad_id();
    let padded: Vec<u32> =
        ids.iter().flat_map(|x| x.iter().copied().chain(std::iter::repeat_n(pad, width - x.len()))).collect();
    let mask: Vec<u32> = ids.iter().flat_map(|x| (0..width).map(|j| u32::from(j < x.len()))).collect();
    (
        Tensor::from_vec(padded, (ids.len(), width), &Device::Cpu).unwrap(),
        Tensor::from_vec(mask, (ids.len(), width), &Device::Cpu).unwrap(),
    )
}

/// The largest difference from transformers' hidden states over every layer and real token,
/// with the model computing in `precision`.
fn worst_difference_in(name: &str, family: Family, precision: Precision) -> f32 {
    let dir = fixture(name);
    let model = load_model_in(&ModelSource::Dir(dir.clone()), None, &Device::Cpu, 0, precision).unwrap();
    assert_eq!(model.config.family().unwrap(), family);
    let reference: Value = serde_json::from_str(&std::fs::read_to_string(dir.join("reference.json")).unwrap()).unwrap();
    let ids: Vec<Vec<u32>> = serde_json::from_value(reference["ids"].clone()).unwrap();
    for (snippet, want) in reference["snippets"].as_array().unwrap().iter().zip(&ids) {
        assert_eq!(&model.tokenizer.encode(snippet.as_str().unwrap(), None).unwrap().ids, want, "{name}: tokenization");
    }
    let states = candle_core::safetensors::load(dir.join("reference.safetensors"), &Device::Cpu).unwrap();
    let (input, mask) = batch(&model, &ids);
    let out = model.encoder.forward(&input, &mask, false).unwrap();
    assert_eq!(out.hidden_states.len() as u64, reference["layers"].as_u64().unwrap(), "{name}: layer count");
    let mut worst = 0f32;
    for (i, x) in ids.iter().enumerate() {
        let want = &states[&format!("hidden.{i}")];
        for (layer, got) in out.hidden_states.iter().enumerate() {
            let dtype = if precision == Precision::F64 { DType::F64 } else { DType::F32 };
            assert_eq!(got.dtype(), dtype, "{name}: layer {layer} computed in {:?}", got.dtype());
            let got = got.i((i, ..x.len(), ..)).unwrap().to_dtype(DType::F32).unwrap();
            let d: f32 = (got - want.i(layer).unwrap()).unwrap().abs().unwrap().max_all().unwrap().to_scalar().unwrap();
            assert!(d < TOLERANCE, "{name}: snippet {i} layer {layer}: max abs diff {d}");
            worst = worst.max(d);
        }
    }
    eprintln!(
        "{name} parity ({precision}): worst max abs diff {worst:.3e} over {} hidden states",
        out.hidden_states.len()
    );
    worst
}

fn worst_difference(name: &str, family: Family) -> f32 {
    worst_difference_in(name, family, Precision::F32)
}

/// Built in f64 (`--dtype f64`), every family computes every layer in f64 (nothing falls back
/// to f32 on the way) and still matches transformers' float32 states.
#[test]
fn f64_encoders_compute_in_f64_and_match_transformers() {
    for (name, family) in
        [("t5", Family::T5), ("t5_gated", Family::T5), ("bart", Family::Bart), ("plbart", Family::Bart)]
    {
        worst_difference_in(name, family, Precision::F64);
    }
}

/// f64 is chosen when a model is loaded: switching a loaded model to or from it is refused,
/// and so is training an f64 model.
#[test]
fn f64_is_chosen_at_load_and_refused_by_training() {
    let f32_model = load(&fixture("bart"));
    let err = f32_model.set_precision(Precision::F64).unwrap_err().to_string();
    assert!(err.contains("loaded in f32"), "{err}");
    let source = ModelSource::Dir(fixture("bart"));
    let f64_model = load_model_in(&source, None, &Device::Cpu, 0, Precision::F64).unwrap();
    assert!(f64_model.set_precision(Precision::Bf16).is_err());
    let vars = quarry_model::nn::params::sorted_vars(f64_model.store.vars());
    let err = quarry_model::training::optim::AdamW::new(vars, Default::default()).err().unwrap().to_string();
    assert!(err.contains("training runs in f32 or bf16"), "{err}");
}

#[test]
fn t5_relu_hidden_states_match_transformers() {
    worst_difference("t5", Family::T5);
}

#[test]
fn t5_gated_gelu_hidden_states_match_transformers() {
    worst_difference("t5_gated", Family::T5);
}

#[test]
fn bart_hidden_states_match_transformers() {
    worst_difference("bart", Family::Bart);
}

#[test]
fn plbart_hidden_states_match_transformers() {
    worst_difference("plbart", Family::Bart);
}

/// A saved T5 or BART checkpoint (quarry's `save_checkpoint`) loads back to the same encoder.
#[test]
fn t5_and_bart_checkpoints_round_trip() {
    for name in ["t5_gated", "bart"] {
        let model = load(&fixture(name));
        let out = tempfile::tempdir().unwrap();
        save_checkpoint(out.path(), &model.config, &model.tokenizer, &model.store, None).unwrap();
        let again = load(out.path());
        let ids = model.tokenizer.encode("int x = 0 ;", None).unwrap().ids;
        let input = Tensor::new(ids.as_slice(), &Device::Cpu).unwrap().unsqueeze(0).unwrap();
        let mask = input.ones_like().unwrap();
        let a = model.encoder.forward(&input, &mask, false).unwrap().last;
        let b = again.encoder.forward(&input, &mask, false).unwrap().last;
        let d: f32 = (a - b).unwrap().abs().unwrap().max_all().unwrap().to_scalar().unwrap();
        assert_eq!(d, 0.0, "{name}: the reloaded checkpoint differs");
    }
}

/// Training passes reach every parameter: T5's relative-position table and RMS norms, BART's
/// positions and embedding norm included (dropout on, as in fine-tuning); key biases get
/// exactly zero, as BERT's do.
#[test]
fn t5_and_bart_parameters_all_get_gradients() {
    for name in ["t5", "t5_gated", "plbart"] {
        let model = load(&fixture(name));
        let ids = model.tokenizer.encode("public int size ( ) { return n ; }", None).unwrap().ids;
        let input = Tensor::new(ids.as_slice(), &Device::Cpu).unwrap().unsqueeze(0).unwrap();
        let out = model.encoder.forward(&input, &input.ones_like().unwrap(), true).unwrap();
        let grads = out.last.sqr().unwrap().sum_all().unwrap().backward().unwrap();
        for (param, var) in model.store.vars().data().lock().unwrap().iter() {
            let g = grads.get(var.as_tensor()).unwrap_or_else(|| panic!("{name}: no gradient for {param}"));
            let norm: f32 = g.sqr().unwrap().sum_all().unwrap().to_scalar().unwrap();
            // A key bias's gradient is exactly zero: softmax cancels it (bert.rs, `key_bias`).
            let key_bias = param.ends_with("k_proj.bias");
            assert!((norm > 0.0) != key_bias, "{name}: gradient norm {norm} for {param}");
        }
    }
}

/// CodeQA's answer generator refuses T5 (no absolute positions for its decoder) and builds
/// over BART.
#[test]
fn answer_generator_refuses_t5_and_builds_over_bart() {
    use quarry_model::{AnswerConfig, AnswerModel};
    let config = AnswerConfig { max_source_len: 64, max_target_len: 16, ..AnswerConfig::default() };
    let err = AnswerModel::new(load(&fixture("t5")), config).err().unwrap().to_string();
    assert!(err.contains("T5 encoder has none"), "{err}");
    assert!(AnswerModel::new(load(&fixture("bart")), config).is_ok());
}
