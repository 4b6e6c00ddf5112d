//! A saved checkpoint loads back with the same configuration, tokenizer, head and outputs,
//! and training resumes from its `last/` state.

mod common;
#[path = "common/saved.rs"]
mod saved;

use candle_core::Device;
use quarry_model::checkpoint::{read_head_config, save_checkpoint};
use quarry_model::training::data::{encode_examples, make_batch};
use quarry_model::training::train::{fit, read_state, TrainConfig};
use quarry_model::{load_model, ModelSource, ScratchSpec, SpanModel};

#[test]
fn checkpoint_round_trip_and_resume() {
    std::env::set_var("RAYON_NUM_THREADS", "1");
    let saved::SavedSpanModel { vocab, dir, model, data, batch, logits: before } =
        saved::saved_span_model("ckpt", "1x32x2");
    assert_eq!(read_head_config(&dir).unwrap(), Some(model.head_config()));
    let again = SpanModel::new(load_model(&ModelSource::Dir(dir.clone()), None, &Device::Cpu, 9).unwrap()).unwrap();
    let after = again.logits(&batch.ids, &batch.mask, false).unwrap();
    assert_eq!(saved::max_difference(&before, &after), 0.0);

    // Two epochs, then a resumed run to three: the history continues where it stopped.
    let out = vocab.join("run");
    let mut config =
        TrainConfig { epochs: 2, batch_size: 4, lr: 1e-3, out_dir: Some(out.clone()), ..TrainConfig::default() };
    fit(&again, &data, &data, &config, &mut |_| {}).unwrap();
    assert_eq!(read_state(&out).unwrap().unwrap().epochs_done, 2);
    assert!(out.join("best/model.safetensors").is_file());
    let resumed =
        SpanModel::new(load_model(&ModelSource::Dir(out.join("last")), None, &Device::Cpu, 9).unwrap()).unwrap();
    config.epochs = 3;
    config.resume = true;
    let logs = fit(&resumed, &data, &data, &config, &mut |_| {}).unwrap();
    assert_eq!(logs.iter().map(|l| l.epoch).collect::<Vec<_>>(), vec![1, 2, 3]);
    std::fs::remove_dir_all(&vocab).unwrap();
}

#[test]
fn label_weights_travel_with_the_checkpoint_and_are_divided_out_of_predictions() {
    std::env::set_var("RAYON_NUM_THREADS", "1");
    let vocab = common::vocab_dir("weights");
    let source = ModelSource::Scratch(ScratchSpec::parse("1x32x2").unwrap());
    let mut model = SpanModel::new(load_model(&source, Some(&vocab), &Device::Cpu, 5).unwrap()).unwrap();
    let data = encode_examples(&common::synthetic_set(8, 4), &model.model.tokenizer, 64).unwrap();
    let ids: Vec<Vec<u32>> = data.iter().map(|e| e.ids.clone()).collect();
    let refs: Vec<_> = data.iter().collect();
    let batch = make_batch(&refs, model.model.tokenizer.pad_id(), &Device::Cpu).unwrap();
    let raw = model.logits(&batch.ids, &batch.mask, false).unwrap().to_vec3::<f32>().unwrap();

    // Weights this large move every argmax to the label with the smallest weight: I.
    let weights = vec![1e6, 1e-6, 1e6, 1e6];
    assert!(model.set_class_weights(Some(vec![1.0, -1.0, 1.0, 1.0])).is_err());
    model.set_class_weights(Some(weights.clone())).unwrap();
    let predicted = model.predict_labels(&ids, 4).unwrap();
    for (row, (labels, example)) in raw.iter().zip(predicted.iter().zip(&data)) {
        assert_eq!(labels.len(), example.ids.len());
        for (logits, label) in row.iter().zip(labels) {
            let adjusted: Vec<f32> = logits.iter().zip(&weights).map(|(l, w)| l - w.ln()).collect();
            let best = (0..4).max_by(|&a, &b| adjusted[a].total_cmp(&adjusted[b])).unwrap();
            assert_eq!(label.index(), best);
        }
    }
    assert!(predicted.iter().flatten().all(|l| l.index() == 1));

    // Saved and loaded, the model keeps its weights and predicts the same.
    let dir = vocab.join("saved");
    let m = &model.model;
    save_checkpoint(&dir, &m.config, &m.tokenizer, &m.store, Some(&model.head_config())).unwrap();
    let again = SpanModel::new(load_model(&ModelSource::Dir(dir), None, &Device::Cpu, 9).unwrap()).unwrap();
    assert_eq!(again.head_config(), model.head_config());
    assert_eq!(again.predict_labels(&ids, 4).unwrap(), predicted);
    std::fs::remove_dir_all(&vocab).unwrap();
}

#[test]
fn a_tokenizer_past_the_configured_vocabulary_is_refused_at_load() {
    let saved = saved::saved_span_model("vocab-size", "1x32x2");
    let (vocab, dir) = (saved.vocab, saved.dir);
    let config_path = dir.join("config.json");
    let mut config: serde_json::Value = serde_json::from_slice(&std::fs::read(&config_path).unwrap()).unwrap();
    config["vocab_size"] = 8.into();
    std::fs::write(&config_path, config.to_string()).unwrap();
    let error = match load_model(&ModelSource::Dir(dir), None, &Device::Cpu, 0) {
        Ok(_) => panic!("loaded with a vocabulary of 8"),
        Err(e) => e.to_string(),
    };
    assert!(error.contains("vocab_size is 8") && error.contains("config.json"), "{error}");
    std::fs::remove_dir_all(&vocab).unwrap();
}
