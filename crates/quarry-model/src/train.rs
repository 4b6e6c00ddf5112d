//! Fine-tuning a model with a task head ([`Trainable`]: the span and the relevance model):
//! AdamW, linear decay, gradient accumulation, validation every epoch, best-by-validation-loss
//! checkpoint, and resumable state.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::time::Instant;

use candle_core::Tensor;
use serde::{Deserialize, Serialize};

use crate::checkpoint::{save_checkpoint, save_checkpoint_with};
use crate::data::EncodedExample;
use crate::error::{ModelError, Result};
use crate::heads::HeadConfig;
use crate::loading::LoadedModel;
use crate::optim::{AdamW, AdamWConfig, LinearDecay};
use crate::params::sorted_vars;
use crate::rng::SeededRng;
use crate::span_model::SpanModel;

/// A model the training loop can fine-tune: an encoder with a task head.
pub trait Trainable {
    /// One encoded example.
    type Example;

    /// The encoder, tokenizer and parameter store (head parameters included).
    fn loaded(&self) -> &LoadedModel;

    /// The head description written into checkpoints.
    fn head_config(&self) -> HeadConfig;

    /// Mean loss of `batch` as a scalar tensor, with dropout when `train`.
    fn batch_loss(&self, batch: &[&Self::Example], train: bool) -> Result<Tensor>;

    /// Mean loss and metrics over `valid` in evaluation mode.
    fn validate(&self, valid: &[Self::Example], batch_size: usize) -> Result<Validation>;
}

/// What [`Trainable::validate`] reports.
#[derive(Debug, Clone, PartialEq)]
pub struct Validation {
    /// Mean validation loss; the best checkpoint is the one where it is lowest.
    pub loss: f64,
    /// The headline metric, a key of `metrics` (`exact_match` for spans, `accuracy` for
    /// relevance).
    pub metric_name: String,
    /// Every metric by name, as fractions.
    pub metrics: BTreeMap<String, f64>,
}

/// Training settings.
#[derive(Debug, Clone)]
pub struct TrainConfig {
    /// Passes over the training set.
    pub epochs: usize,
    /// Examples per forward pass.
    pub batch_size: usize,
    /// Forward passes per optimizer step.
    pub grad_accum: usize,
    /// Peak learning rate (decays linearly to zero).
    pub lr: f64,
    /// AdamW weight decay.
    pub weight_decay: f64,
    /// Seed of data order (dropout and initialization take the model's seed).
    pub seed: u64,
    /// Where `best/` and `last/` checkpoints go; nothing is written when `None`.
    pub out_dir: Option<PathBuf>,
    /// Continue from `out_dir/last` when it holds a training state.
    pub resume: bool,
}

impl Default for TrainConfig {
    fn default() -> Self {
        TrainConfig {
            epochs: 3,
            batch_size: 8,
            grad_accum: 1,
            lr: 5e-5,
            weight_decay: 0.01,
            seed: 0,
            out_dir: None,
            resume: false,
        }
    }
}

/// Summary of one epoch.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct EpochLog {
    /// 1-based epoch number.
    pub epoch: usize,
    /// Mean training loss.
    pub loss: f64,
    /// Mean validation loss.
    pub valid_loss: f64,
    /// The headline validation metric, a key of `metrics`. Missing in states written before
    /// there were several tasks, which were all span training: then `exact_match`.
    #[serde(default = "default_metric_name")]
    pub metric_name: String,
    /// Validation metrics by name, stored as fields of the log itself: `exact_match` (over all
    /// examples) for spans, as before there were several tasks; `accuracy`, `precision`,
    /// `recall` and `f1` (of the relevant class) for relevance.
    #[serde(flatten)]
    pub metrics: BTreeMap<String, f64>,
    /// Whether this epoch gave the best validation loss so far.
    pub best: bool,
    /// Wall-clock seconds of the epoch, validation included.
    pub seconds: f64,
}

fn default_metric_name() -> String {
    "exact_match".into()
}

impl EpochLog {
    /// The value of the headline metric (NaN if the log lacks it).
    pub fn metric(&self) -> f64 {
        self.metrics.get(&self.metric_name).copied().unwrap_or(f64::NAN)
    }
}

/// Progress reported while training.
#[derive(Debug, Clone)]
pub enum TrainEvent {
    /// One forward/backward pass finished.
    Batch {
        /// 1-based epoch.
        epoch: usize,
        /// Batches done in this epoch.
        done: usize,
        /// Batches per epoch.
        total: usize,
        /// Loss of this batch.
        loss: f64,
    },
    /// An epoch finished and was validated.
    Epoch(EpochLog),
}

/// State saved in `last/` so that training can resume.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct TrainerState {
    /// Epochs completed.
    pub epochs_done: usize,
    /// Lowest validation loss so far.
    pub best_valid_loss: f64,
    /// Per-epoch logs so far.
    pub history: Vec<EpochLog>,
}

const STATE_FILE: &str = "trainer_state.json";
const OPTIMIZER_FILE: &str = "optimizer.safetensors";

/// Reads the trainer state of `out_dir/last`, if any.
pub fn read_state(out_dir: &Path) -> Result<Option<TrainerState>> {
    let path = out_dir.join("last").join(STATE_FILE);
    if !path.is_file() {
        return Ok(None);
    }
    let text = std::fs::read_to_string(&path).map_err(|e| ModelError::io(&path, e))?;
    serde_json::from_str(&text).map(Some).map_err(|e| ModelError::Json { path, message: e.to_string() })
}

fn add_grads(
    acc: &mut HashMap<String, Tensor>,
    vars: &[(String, candle_core::Var)],
    grads: &candle_core::backprop::GradStore,
) -> Result<()> {
    for (name, var) in vars {
        if let Some(g) = grads.get(var.as_tensor()) {
            // Detached: an accumulated gradient must not keep the step's graph alive.
            let g = g.detach();
            let sum = match acc.remove(name) {
                Some(prev) => (prev + g)?,
                None => g,
            };
            acc.insert(name.clone(), sum);
        }
    }
    Ok(())
}

/// Trains a span model; the same as [`fit`].
pub fn train_span(
    model: &SpanModel,
    train: &[EncodedExample],
    valid: &[EncodedExample],
    config: &TrainConfig,
    on_event: &mut dyn FnMut(&TrainEvent),
) -> Result<Vec<EpochLog>> {
    fit(model, train, valid, config, on_event)
}

/// Trains `model` on `train`, validating on `valid` after every epoch, and returns the log of
/// every epoch (those of a resumed run included).
///
/// With `out_dir`, the checkpoint with the lowest validation loss is kept in `out_dir/best`
/// and the latest state (weights, optimizer, trainer state) in `out_dir/last`. With `resume`,
/// the model must have been loaded from `out_dir/last` and the optimizer state continues.
pub fn fit<M: Trainable + ?Sized>(
    model: &M,
    train: &[M::Example],
    valid: &[M::Example],
    config: &TrainConfig,
    on_event: &mut dyn FnMut(&TrainEvent),
) -> Result<Vec<EpochLog>> {
    if train.is_empty() || valid.is_empty() {
        return Err(ModelError::Data("training and validation sets must not be empty".into()));
    }
    if config.batch_size == 0 || config.grad_accum == 0 {
        return Err(ModelError::Data("batch size and gradient accumulation must be positive".into()));
    }
    let m = model.loaded();
    let vars = sorted_vars(m.store.vars());
    let mut opt = AdamW::new(
        vars.clone(),
        AdamWConfig { lr: config.lr, weight_decay: config.weight_decay, ..AdamWConfig::default() },
    )?;
    let batches_per_epoch = train.len().div_ceil(config.batch_size);
    let steps_per_epoch = batches_per_epoch.div_ceil(config.grad_accum);
    let schedule = LinearDecay { peak: config.lr, total_steps: steps_per_epoch * config.epochs };
    let mut state = TrainerState { epochs_done: 0, best_valid_loss: f64::INFINITY, history: Vec::new() };
    if config.resume {
        let out =
            config.out_dir.as_ref().ok_or_else(|| ModelError::Data("resuming needs an output directory".into()))?;
        if let Some(s) = read_state(out)? {
            opt.load(&out.join("last").join(OPTIMIZER_FILE))?;
            state = s;
        }
    }
    for epoch in state.epochs_done + 1..=config.epochs {
        let start = Instant::now();
        let order = SeededRng::new(config.seed.wrapping_add(epoch as u64)).permutation(train.len());
        let mut acc: HashMap<String, Tensor> = HashMap::new();
        let mut in_acc = 0;
        let mut loss_sum = 0.0;
        for (bi, idx) in order.chunks(config.batch_size).enumerate() {
            let batch: Vec<&M::Example> = idx.iter().map(|&i| &train[i]).collect();
            let loss = model.batch_loss(&batch, true)?;
            let value = loss.to_scalar::<f32>()? as f64;
            loss_sum += value;
            let grads = (loss / config.grad_accum as f64)?.backward()?;
            add_grads(&mut acc, &vars, &grads)?;
            in_acc += 1;
            if in_acc == config.grad_accum || bi + 1 == batches_per_epoch {
                let lr = schedule.lr(opt.steps_done());
                opt.step(&acc, lr)?;
                acc.clear();
                in_acc = 0;
            }
            on_event(&TrainEvent::Batch { epoch, done: bi + 1, total: batches_per_epoch, loss: value });
        }
        let eval = model.validate(valid, config.batch_size)?;
        let best = eval.loss < state.best_valid_loss;
        if best {
            state.best_valid_loss = eval.loss;
        }
        let log = EpochLog {
            epoch,
            loss: loss_sum / batches_per_epoch as f64,
            valid_loss: eval.loss,
            metric_name: eval.metric_name,
            metrics: eval.metrics,
            best,
            seconds: start.elapsed().as_secs_f64(),
        };
        state.epochs_done = epoch;
        state.history.push(log.clone());
        if let Some(out) = &config.out_dir {
            let head = model.head_config();
            if best {
                save_checkpoint(&out.join("best"), &m.config, &m.tokenizer, &m.store, Some(&head))?;
            }
            // Weights, optimizer and trainer state replace `last` together.
            save_checkpoint_with(&out.join("last"), &m.config, &m.tokenizer, &m.store, Some(&head), |staging| {
                opt.save(&staging.join(OPTIMIZER_FILE))?;
                let path = staging.join(STATE_FILE);
                let text = serde_json::to_string_pretty(&state)
                    .map_err(|e| ModelError::Json { path: path.clone(), message: e.to_string() })?;
                std::fs::write(&path, text).map_err(|e| ModelError::io(&path, e))
            })?;
        }
        on_event(&TrainEvent::Epoch(log));
    }
    Ok(state.history)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn epoch_logs_of_span_runs_keep_their_format() {
        // A state written before there were several tasks reads back as exact match.
        let old = r#"{"epoch":2,"loss":0.5,"valid_loss":0.25,"exact_match":0.75,"best":true,"seconds":1.5}"#;
        let log: EpochLog = serde_json::from_str(old).unwrap();
        assert_eq!(log.metric_name, "exact_match");
        assert_eq!(log.metric(), 0.75);
        let again = serde_json::to_value(&log).unwrap();
        assert_eq!(again["exact_match"], 0.75);
        assert_eq!(again["metric_name"], "exact_match");
        let relevance = EpochLog {
            metric_name: "accuracy".into(),
            metrics: [("accuracy".to_string(), 0.5), ("f1".to_string(), 0.25)].into_iter().collect(),
            ..log
        };
        let text = serde_json::to_string(&relevance).unwrap();
        let back: EpochLog = serde_json::from_str(&text).unwrap();
        assert_eq!(back.metrics, relevance.metrics);
        assert_eq!(back.metric(), 0.5);
    }
}
