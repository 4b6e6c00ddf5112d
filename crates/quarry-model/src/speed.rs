//! How fast an encoder runs on a device: forward throughput and the time of one fine-tuning
//! step (forward, backward and AdamW) of the span model on a synthetic batch of fixed
//! shape, with the first step's loss and gradient norm, so that another framework given the
//! same weights and batch can be checked against it. What `quarry bench encoder` runs.

use std::collections::HashMap;
use std::time::Instant;

use candle_core::{Device, Tensor};
use quarry_stdx::rng::SplitMix64;
use serde::Serialize;

use crate::error::Result;
use crate::evaluation::spans::Label;
use crate::nn::params::sorted_vars;
use crate::training::optim::{AdamW, AdamWConfig};
use crate::SpanModel;

/// The shape and length of a measurement.
#[derive(Debug, Clone, Serialize)]
pub struct SpeedConfig {
    /// Sequences per batch.
    pub batch_size: usize,
    /// Tokens per sequence (no padding).
    pub seq_len: usize,
    /// Untimed passes first (kernel compilation, allocator warm-up).
    pub warmup: usize,
    /// Timed passes.
    pub steps: usize,
    /// Seed of the synthetic batch.
    pub seed: u64,
    /// AdamW learning rate of the training steps.
    pub lr: f64,
}

/// A batch of token ids and span labels, the same on every device and in every framework.
#[derive(Debug, Clone, Serialize)]
pub struct SyntheticBatch {
    /// `[batch][seq]` ids: the first token of the vocabulary's special range is never drawn.
    pub ids: Vec<Vec<u32>>,
    /// `[batch][seq]` label indices (B, I, O, F).
    pub labels: Vec<Vec<u32>>,
}

impl SyntheticBatch {
    /// Ids drawn uniformly from `[first_id, vocab)` and uniform labels, from `config.seed`.
    pub fn new(config: &SpeedConfig, first_id: u32, vocab: usize) -> Self {
        let mut rng = SplitMix64::new(config.seed);
        let span = (vocab as u64).saturating_sub(first_id as u64).max(1);
        let mut draw = |n: u64| (rng.next_u64() % n) as u32;
        let ids =
            (0..config.batch_size).map(|_| (0..config.seq_len).map(|_| first_id + draw(span)).collect()).collect();
        let classes = Label::ALL.len() as u64;
        let labels = (0..config.batch_size).map(|_| (0..config.seq_len).map(|_| draw(classes)).collect()).collect();
        SyntheticBatch { ids, labels }
    }

    fn tensors(&self, device: &Device) -> Result<(Tensor, Tensor, Tensor)> {
        let ids = Tensor::new(self.ids.clone(), device)?;
        let mask = ids.ones_like()?;
        let flat: Vec<i64> = self.labels.iter().flatten().map(|&l| l as i64).collect();
        let n = flat.len();
        Ok((ids, mask, Tensor::from_vec(flat, n, device)?))
    }
}

/// What a measurement found.
#[derive(Debug, Clone, Serialize)]
pub struct SpeedReport {
    /// Inference passes per second times tokens per pass.
    pub forward_tokens_per_s: f64,
    /// Mean milliseconds of one inference pass.
    pub forward_ms: f64,
    /// Mean milliseconds the host spends issuing one inference pass, before it waits for the
    /// device: near `forward_ms` when launching kernels, not running them, bounds the pass.
    pub forward_host_ms: f64,
    /// Mean milliseconds of one training step (forward, backward, AdamW).
    pub step_ms: f64,
    /// Mean milliseconds the host spends issuing a training step's forward pass.
    pub step_forward_host_ms: f64,
    /// Mean milliseconds the host spends issuing its backward pass (the loss's `backward`).
    pub step_backward_host_ms: f64,
    /// Loss of the first training step, before any update.
    pub first_loss: f64,
    /// L2 norm of all gradients of the first training step.
    pub first_grad_norm: f64,
    /// The loss of every training step, warm-up included, in order.
    pub losses: Vec<f64>,
}

/// Times `model` on `batch`: `warmup + steps` inference passes, then `warmup + steps`
/// training steps from the model's current weights (which the steps change).
pub fn measure(model: &SpanModel, batch: &SyntheticBatch, config: &SpeedConfig) -> Result<SpeedReport> {
    let device = model.model.encoder.device().clone();
    let (ids, mask, labels) = batch.tensors(&device)?;
    let tokens = (config.batch_size * config.seq_len) as f64;
    // (wall seconds, seconds before waiting for the device)
    let forward = |n: usize| -> Result<(f64, f64)> {
        let start = Instant::now();
        for _ in 0..n {
            drop(model.logits(&ids, &mask, false)?);
        }
        let issued = start.elapsed().as_secs_f64();
        device.synchronize()?;
        Ok((start.elapsed().as_secs_f64(), issued))
    };
    forward(config.warmup)?;
    let (forward_s, forward_host_s) = forward(config.steps.max(1))?;

    let vars = sorted_vars(model.model.store.vars());
    let mut opt = AdamW::new(vars.clone(), AdamWConfig { lr: config.lr, ..AdamWConfig::default() })?;
    let mut losses = Vec::new();
    let mut first_grad_norm = f64::NAN;
    let (mut step_s, mut forward_host_s_sum, mut backward_host_s) = (0.0, 0.0, 0.0);
    for step in 0..config.warmup + config.steps.max(1) {
        let start = Instant::now();
        let loss = model.loss(&ids, &mask, &labels, true)?;
        let forward_issued = start.elapsed().as_secs_f64();
        let grads = loss.backward()?;
        let backward_issued = start.elapsed().as_secs_f64();
        let named: HashMap<String, Tensor> = vars
            .iter()
            .filter_map(|(name, var)| grads.get(var.as_tensor()).map(|g| (name.clone(), g.clone())))
            .collect();
        drop(grads);
        let norm = opt.step_with_norm(&named, config.lr)?;
        losses.push(loss.to_scalar::<f32>()? as f64);
        device.synchronize()?;
        if step == 0 {
            first_grad_norm = norm;
        }
        if step >= config.warmup {
            step_s += start.elapsed().as_secs_f64();
            forward_host_s_sum += forward_issued;
            backward_host_s += backward_issued - forward_issued;
        }
    }
    let timed = config.steps.max(1) as f64;
    Ok(SpeedReport {
        forward_tokens_per_s: tokens * timed / forward_s,
        forward_ms: forward_s * 1e3 / timed,
        forward_host_ms: forward_host_s * 1e3 / timed,
        step_ms: step_s * 1e3 / timed,
        step_forward_host_ms: forward_host_s_sum * 1e3 / timed,
        step_backward_host_ms: backward_host_s * 1e3 / timed,
        first_loss: losses[0],
        first_grad_norm,
        losses,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{load_model_in, ModelSource, Precision};

    fn tiny(precision: Precision) -> SpanModel {
        let dir = tempfile::tempdir().unwrap();
        let specials = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"].map(String::from);
        let vocab: Vec<String> = specials.into_iter().chain((0..60).map(|i| format!("w{i}"))).collect();
        std::fs::write(dir.path().join("vocab.txt"), vocab.join("\n")).unwrap();
        let source = ModelSource::parse("scratch:2x32x4").unwrap();
        let model = load_model_in(&source, Some(dir.path()), &Device::Cpu, 7, precision).unwrap();
        SpanModel::new(model).unwrap()
    }

    fn config() -> SpeedConfig {
        SpeedConfig { batch_size: 2, seq_len: 12, warmup: 1, steps: 2, seed: 3, lr: 1e-3 }
    }

    #[test]
    fn measures_and_trains_on_a_reproducible_batch() {
        let model = tiny(Precision::F32);
        let batch = SyntheticBatch::new(&config(), 5, model.model.config.vocab_size);
        assert_eq!(batch.ids, SyntheticBatch::new(&config(), 5, model.model.config.vocab_size).ids);
        assert!(batch.ids.iter().flatten().all(|&id| (5..65).contains(&id)));
        let report = measure(&model, &batch, &config()).unwrap();
        assert_eq!(report.losses.len(), 3);
        // Four labels drawn uniformly: a fresh head starts near ln 4.
        assert!((report.first_loss - 4f64.ln()).abs() < 0.3, "{}", report.first_loss);
        assert!(report.first_grad_norm > 0.0 && report.first_grad_norm.is_finite());
        assert!(report.losses[2] < report.losses[0], "training lowers the loss: {:?}", report.losses);
        assert!(report.forward_tokens_per_s > 0.0 && report.step_ms > 0.0);
        assert!(report.forward_host_ms <= report.forward_ms);
        assert!(report.step_forward_host_ms + report.step_backward_host_ms <= report.step_ms);
    }

    #[test]
    fn bf16_autocast_trains_close_to_f32_with_f32_gradients() {
        let batch = SyntheticBatch::new(&config(), 5, 65);
        let f32_report = measure(&tiny(Precision::F32), &batch, &config()).unwrap();
        let model = tiny(Precision::Bf16);
        let bf16_report = measure(&model, &batch, &config()).unwrap();
        let rel = (bf16_report.first_loss - f32_report.first_loss).abs() / f32_report.first_loss;
        assert!(rel < 2e-2, "bf16 loss {} vs f32 {}", bf16_report.first_loss, f32_report.first_loss);
        let rel = (bf16_report.first_grad_norm - f32_report.first_grad_norm).abs() / f32_report.first_grad_norm;
        assert!(rel < 5e-2, "bf16 grad norm {} vs f32 {}", bf16_report.first_grad_norm, f32_report.first_grad_norm);
        // Master weights stay f32.
        for (name, var) in sorted_vars(model.model.store.vars()) {
            assert_eq!(var.dtype(), candle_core::DType::F32, "{name}");
        }
        assert!(bf16_report.losses[2] < bf16_report.losses[0], "{:?}", bf16_report.losses);
    }
}
