//! A saved checkpoint loads back with the same configuration, tokenizer, head and outputs,
//! and training resumes from its `last/` state.

mod common;

use candle_core::Device;
use quarry_model::checkpoint::{read_head_config, save_checkpoint};
use quarry_model::training::data::{encode_examples, make_batch};
use quarry_model::training::train::{fit, read_state, TrainConfig};
use quarry_model::{load_model, ModelSource, ScratchSpec, SpanModel};

#[test]
fn checkpoint_round_trip_and_resume() {
    std::env::set_var("RAYON_NUM_THREADS", "1");
    let vocab = common::vocab_dir("ckpt");
    let source = ModelSource::Scratch(ScratchSpec::parse("1x32x2").unwrap());
    let model = SpanModel::new(load_model(&source, Some(&vocab), &Device::Cpu, 5).unwrap()).unwrap();
    let data = encode_examples(&common::synthetic_set(8, 4), &model.model.tokenizer, 64).unwrap();
    let refs: Vec<_> = data.iter().collect();
    let batch = make_batch(&refs, model.model.tokenizer.pad_id(), &Device::Cpu).unwrap();
    let before = model.logits(&batch.ids, &batch.mask, false).unwrap();

    let dir = vocab.join("saved");
    let m = &model.model;
    save_checkpoint(&dir, &m.config, &m.tokenizer, &m.store, Some(&model.head_config())).unwrap();
    assert_eq!(read_head_config(&dir).unwrap(), Some(model.head_config()));
    let again = SpanModel::new(load_model(&ModelSource::Dir(dir.clone()), None, &Device::Cpu, 9).unwrap()).unwrap();
    let after = again.logits(&batch.ids, &batch.mask, false).unwrap();
    let diff: f32 = (before - after).unwrap().abs().unwrap().max_all().unwrap().to_scalar().unwrap();
    assert_eq!(diff, 0.0);

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
