//! End-to-end learning of the relevance classifier: a tiny scratch encoder learns a synthetic
//! relevance task (a block is relevant iff it holds a key token) to at least 95% held-out
//! accuracy, on CPU, in well under a minute; the best checkpoint keeps its class weights.

mod common;

use std::time::Instant;

use candle_core::Device;
use quarry_model::nn::rng::SeededRng;
use quarry_model::training::data::{class_weights_for, encode_relevance, RelevanceExample};
use quarry_model::training::train::{fit, TrainConfig, TrainEvent};
use quarry_model::{load_model, ModelSource, RelevanceModel, ScratchSpec};

/// `[CLS] query [SEP] block [SEP]`: a short query of words, a block of words and facts with,
/// in about a third of the examples, one key token somewhere, which makes it relevant.
fn synthetic_set(n: usize, seed: u64) -> Vec<RelevanceExample> {
    let rng = SeededRng::new(seed);
    let pick = |n: usize| ((rng.uniform() * n as f32) as usize).min(n - 1);
    (0..n)
        .map(|_| {
            let mut tokens = vec!["[CLS]".to_string()];
            tokens.extend((0..2).map(|_| format!("w{}", pick(common::WORDS))));
            tokens.push("[SEP]".into());
            let len = 8 + pick(10);
            let mut block: Vec<String> = (0..len)
                .map(|_| {
                    if rng.uniform() < 0.2 {
                        format!("f{}", pick(common::FACTS))
                    } else {
                        format!("w{}", pick(common::WORDS))
                    }
                })
                .collect();
            let relevant = rng.uniform() < 0.35;
            if relevant {
                block[pick(len)] = format!("k{}", pick(common::KEYS));
            }
            tokens.extend(block);
            tokens.push("[SEP]".into());
            RelevanceExample { tokens, relevant, query: Some("keys".into()) }
        })
        .collect()
}

#[test]
fn scratch_encoder_learns_synthetic_relevance() {
    // One thread: synchronization costs dominate on a model this small.
    std::env::set_var("RAYON_NUM_THREADS", "1");
    let start = Instant::now();
    let dir = common::vocab_dir("relevance");
    let source = ModelSource::Scratch(ScratchSpec::parse("2x32x2").unwrap());
    let train_set = synthetic_set(800, 1);
    let weights = class_weights_for(train_set.iter().map(|e| usize::from(e.relevant)), 2).unwrap();
    assert!(weights[1] > 1.0 && weights[0] < 1.0, "{weights:?}");
    let model =
        RelevanceModel::new(load_model(&source, Some(&dir), &Device::Cpu, 7).unwrap(), Some(weights.clone())).unwrap();
    let tok = &model.model.tokenizer;
    let train = encode_relevance(&train_set, tok, 64).unwrap();
    let valid = encode_relevance(&synthetic_set(200, 2), tok, 64).unwrap();
    let test = encode_relevance(&synthetic_set(300, 3), tok, 64).unwrap();
    let out = dir.join("run");
    let config =
        TrainConfig { epochs: 6, batch_size: 16, lr: 3e-3, out_dir: Some(out.clone()), ..TrainConfig::default() };
    let logs = fit(&model, &train, &valid, &config, &mut |e| {
        if let TrainEvent::Epoch(l) = e {
            eprintln!(
                "epoch {} loss {:.4} valid_loss {:.4} accuracy {:.3} precision {:.3} recall {:.3} ({:.1}s)",
                l.epoch,
                l.loss,
                l.valid_loss,
                l.metrics["accuracy"],
                l.metrics["precision"],
                l.metrics["recall"],
                l.seconds
            );
        }
    })
    .unwrap();
    assert_eq!(logs.len(), 6);
    assert!(logs.iter().all(|l| l.metric_name == "accuracy" && l.metrics.len() == 4));

    // The best checkpoint reloads with the training's class weights.
    let best = load_model(&ModelSource::Dir(out.join("best")), None, &Device::Cpu, 0).unwrap();
    let model = RelevanceModel::new(best, None).unwrap();
    assert_eq!(model.class_weights(), Some(weights.as_slice()));
    let eval = model.evaluate(&test, 64).unwrap();
    eprintln!(
        "held-out accuracy {:.3} precision {:.3} recall {:.3} f1 {:.3} ({:?}) in {:.1}s",
        eval.accuracy,
        eval.precision,
        eval.recall,
        eval.f1,
        eval.confusion,
        start.elapsed().as_secs_f64()
    );
    assert!(eval.accuracy >= 0.95, "accuracy {:.3}", eval.accuracy);
    let ids: Vec<Vec<u32>> = test.iter().map(|e| e.ids.clone()).collect();
    assert_eq!(model.relevant(&ids, 32).unwrap(), eval.predictions);
    assert!(start.elapsed().as_secs() < 60);
    std::fs::remove_dir_all(&dir).unwrap();
}
