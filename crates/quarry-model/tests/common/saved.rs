//! A saved scratch span model for the tests that load checkpoints back (apart from
//! `common`, which quarry-cli's tests share and which needs no candle).

#![allow(dead_code)]

use std::path::PathBuf;

use candle_core::{Device, Tensor};
use quarry_model::checkpoint::save_checkpoint;
use quarry_model::training::data::{encode_examples, make_batch, Batch, EncodedExample};
use quarry_model::{load_model, ModelSource, ScratchSpec, SpanModel};

use crate::common::{synthetic_set, vocab_dir};

/// A scratch span model saved as a checkpoint, with what it computed before it was saved.
pub struct SavedSpanModel {
    /// The fresh directory holding the vocabulary and, in `saved/`, the checkpoint.
    pub vocab: PathBuf,
    /// The checkpoint's directory.
    pub dir: PathBuf,
    /// The model.
    pub model: SpanModel,
    /// The synthetic set (8 examples), encoded.
    pub data: Vec<EncodedExample>,
    /// All of it as one batch.
    pub batch: Batch,
    /// The model's logits on the batch.
    pub logits: Tensor,
}

/// A scratch span model of `shape` (`LAYERSxHIDDENxHEADS`) over the synthetic task's
/// vocabulary, in a fresh directory named after `name`, saved to its `saved/`.
pub fn saved_span_model(name: &str, shape: &str) -> SavedSpanModel {
    let vocab = vocab_dir(name);
    let source = ModelSource::Scratch(ScratchSpec::parse(shape).unwrap());
    let model = SpanModel::new(load_model(&source, Some(&vocab), &Device::Cpu, 5).unwrap()).unwrap();
    let data = encode_examples(&synthetic_set(8, 4), &model.model.tokenizer, 64).unwrap();
    let refs: Vec<_> = data.iter().collect();
    let batch = make_batch(&refs, model.model.tokenizer.pad_id(), &Device::Cpu).unwrap();
    let logits = model.logits(&batch.ids, &batch.mask, false).unwrap();
    let dir = vocab.join("saved");
    let m = &model.model;
    save_checkpoint(&dir, &m.config, &m.tokenizer, &m.store, Some(&model.head_config())).unwrap();
    SavedSpanModel { vocab, dir, model, data, batch, logits }
}

/// The largest absolute difference between two tensors of one shape.
pub fn max_difference(a: &Tensor, b: &Tensor) -> f32 {
    (a - b).unwrap().abs().unwrap().max_all().unwrap().to_scalar().unwrap()
}
