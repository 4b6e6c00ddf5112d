//! End-to-end learning: a tiny scratch encoder learns a synthetic span task to at least
//! 95% exact match on held-out examples, on CPU, in well under a minute.

mod common;

use std::time::Instant;

use candle_core::Device;
use quarry_model::training::data::encode_examples;
use quarry_model::training::train::{fit, TrainConfig, TrainEvent};
use quarry_model::{load_model, ModelSource, ScratchSpec, SpanModel};

#[test]
fn scratch_encoder_learns_synthetic_spans() {
    // The model is tiny: one thread avoids synchronization costs that dominate on small ops.
    // Set before the first tensor operation, which reads it.
    std::env::set_var("RAYON_NUM_THREADS", "1");
    let start = Instant::now();
    let dir = common::vocab_dir("synthetic");
    let source = ModelSource::Scratch(ScratchSpec::parse("2x64x4").unwrap());
    let loaded = load_model(&source, Some(&dir), &Device::Cpu, 11).unwrap();
    let model = SpanModel::new(loaded).unwrap();
    let tok = &model.model.tokenizer;
    let train = encode_examples(&common::synthetic_set(1500, 1), tok, 64).unwrap();
    let valid = encode_examples(&common::synthetic_set(200, 2), tok, 64).unwrap();
    let test = encode_examples(&common::synthetic_set(300, 3), tok, 64).unwrap();
    let config = TrainConfig { epochs: 8, batch_size: 16, lr: 3e-3, ..TrainConfig::default() };
    let logs = fit(&model, &train, &valid, &config, &mut |e| {
        if let TrainEvent::Epoch(l) = e {
            eprintln!(
                "epoch {} loss {:.4} valid_loss {:.4} exact_match {:.3} ({:.1}s)",
                l.epoch,
                l.loss,
                l.valid_loss,
                l.metric(),
                l.seconds
            );
        }
    })
    .unwrap();
    assert_eq!(logs.len(), 8);
    let eval = model.evaluate(&test, 64).unwrap();
    let em = &eval.exact_match;
    eprintln!(
        "held-out exact match: all {:.3} positive {:.3} negative {:.3} in {:.1}s",
        em.all.rate(),
        em.positive.rate(),
        em.negative.rate(),
        start.elapsed().as_secs_f64()
    );
    assert!(em.all.rate() >= 0.95, "exact match {:.3}", em.all.rate());
    assert!(em.positive.total > 0 && em.negative.total > 0);
}
