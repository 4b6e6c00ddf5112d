//! Every encoder parameter receives a non-zero gradient after one training step, except the
//! attention key biases, whose gradient is exactly zero (softmax cancels them; see
//! `bert.rs`), and which must still receive that gradient so that the optimizer sees them.

mod common;

use candle_core::Device;
use quarry_model::nn::params::sorted_vars;
use quarry_model::training::data::{encode_examples, make_batch};
use quarry_model::{load_model, ModelSource, ScratchSpec, SpanModel};

fn assert_all_tensors_train(model: &SpanModel, skip: &[&str]) {
    let examples = common::synthetic_set(4, 1);
    let enc = encode_examples(&examples, &model.model.tokenizer, 64).unwrap();
    let refs: Vec<_> = enc.iter().collect();
    let batch = make_batch(&refs, model.model.tokenizer.pad_id(), &Device::Cpu).unwrap();
    let loss = model.loss(&batch.ids, &batch.mask, &batch.labels, true).unwrap();
    let grads = loss.backward().unwrap();
    let vars = sorted_vars(model.model.store.vars());
    let mut checked = 0;
    for (name, var) in &vars {
        if skip.iter().any(|s| name.starts_with(s)) {
            continue;
        }
        let g = grads.get(var.as_tensor()).unwrap_or_else(|| panic!("no gradient for {name}"));
        let norm: f32 = g.abs().unwrap().sum_all().unwrap().to_scalar().unwrap();
        if name.ends_with("attention.self.key.bias") {
            assert_eq!(norm, 0.0, "the key bias {name} has a non-zero gradient");
            continue;
        }
        assert!(norm > 0.0, "zero gradient for {name}");
        checked += 1;
    }
    assert!(checked > 0);
    eprintln!("{checked} of {} tensors received non-zero gradients, the key biases zero ones", vars.len());
}

#[test]
fn every_scratch_encoder_tensor_gets_a_gradient() {
    let dir = common::vocab_dir("grads");
    let source = ModelSource::Scratch(ScratchSpec::parse("2x32x4").unwrap());
    let model = load_model(&source, Some(&dir), &Device::Cpu, 3).unwrap();
    let model = SpanModel::new(model).unwrap();
    // 2 layers x 16 tensors + 5 embedding tensors + 2 head tensors.
    assert_eq!(sorted_vars(model.model.store.vars()).len(), 2 * 16 + 5 + 2);
    assert_all_tensors_train(&model, &[]);
}

#[test]
fn every_minilm_encoder_tensor_gets_a_gradient() {
    let Some(dir) = std::env::var_os("QUARRY_MINILM_DIR") else {
        quarry_stdx::skip::skip(
            concat!(env!("CARGO_PKG_NAME"), "::", module_path!()),
            "set QUARRY_MINILM_DIR to an all-MiniLM-L6-v2 directory",
        );
        return;
    };
    let model = load_model(&ModelSource::Dir(dir.into()), None, &Device::Cpu, 3).unwrap();
    let model = SpanModel::new(model).unwrap();
    // The pooler is not on the token-classification path.
    assert_all_tensors_train(&model, &["pooler."]);
}
