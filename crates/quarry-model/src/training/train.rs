//! Fine-tuning a model with a task head ([`Trainable`]: the span and the relevance model):
//! AdamW, linear warm-up and decay, gradient accumulation, validation every epoch,
//! best-by-validation-loss checkpoint, and exactly resumable state (at epoch ends and every N
//! steps), written atomically.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::time::Instant;

use candle_core::Tensor;
use serde::{Deserialize, Serialize};

use crate::checkpoint::{recover_dir, write_dir_atomically};
use crate::error::{ModelError, Result};
use crate::nn::heads::HeadConfig;
use crate::nn::params::{sorted_vars, ParamStore};
use crate::nn::rng::SeededRng;
use crate::training::optim::{AdamW, AdamWConfig, LinearDecay};

/// A model the training loop can fine-tune: an encoder with a task head.
pub trait Trainable {
    /// One encoded example.
    type Example;

    /// Every parameter that trains (head parameters included); its generator drives dropout.
    fn store(&self) -> &ParamStore;

    /// The head description written into checkpoints.
    fn head_config(&self) -> HeadConfig;

    /// Writes the model as a checkpoint directory that loads again (`dir` exists).
    fn save(&self, dir: &Path) -> Result<()>;

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
    /// Peak learning rate (reached after the warm-up, then decayed linearly to zero).
    pub lr: f64,
    /// Optimizer steps of linear warm-up from zero to `lr` (0: start at the peak).
    pub warmup_steps: usize,
    /// AdamW weight decay.
    pub weight_decay: f64,
    /// Seed of data order (dropout and initialization take the model's seed).
    pub seed: u64,
    /// Where `best/` and `last/` checkpoints go; nothing is written when `None`.
    pub out_dir: Option<PathBuf>,
    /// Continue from `out_dir/last` when it holds a training state.
    pub resume: bool,
    /// Also write `last/` every this many optimizer steps within an epoch (besides every
    /// epoch's end), so that an interrupted run loses at most that many steps.
    pub checkpoint_every: Option<usize>,
    /// Stop, with `last/` written, once this many optimizer steps are done in all, as if the
    /// run were interrupted there: the schedule stays planned for all `epochs`, and a resumed
    /// run ends exactly where an uninterrupted one does.
    pub stop_after_steps: Option<usize>,
    /// The model the run starts from, as the user named it, kept in the training state so
    /// that a resumed run can say which model it continues.
    pub started_from: Option<String>,
}

impl Default for TrainConfig {
    fn default() -> Self {
        TrainConfig {
            epochs: 3,
            batch_size: 8,
            grad_accum: 1,
            lr: 5e-5,
            warmup_steps: 0,
            weight_decay: 0.01,
            seed: 0,
            out_dir: None,
            resume: false,
            checkpoint_every: None,
            stop_after_steps: None,
            started_from: None,
        }
    }
}

/// Summary of one epoch.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct EpochLog {
    /// 1-based epoch number.
    pub epoch: usize,
    /// Mean training loss.
    #[serde(with = "super::json_float")]
    pub loss: f64,
    /// Mean validation loss.
    #[serde(with = "super::json_float")]
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

/// One optimizer update, as [`TrainEvent::Step`] reports it.
#[derive(Debug, Clone)]
pub struct StepLog {
    /// 1-based number of the update in the whole run.
    pub step: usize,
    /// Updates of the whole run.
    pub total: usize,
    /// Learning rate the update used.
    pub lr: f64,
    /// Mean loss of the step's forward passes (before scaling for accumulation).
    pub loss: f64,
    /// L2 norm of the whole gradient the update used (all parameters, unclipped).
    pub grad_norm: f64,
    /// Indices into the training set of the step's examples, in batch order.
    pub examples: Vec<usize>,
}

/// Progress reported while training.
///
/// Match with a wildcard arm: variants may be added (`Step` was).
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
    /// An optimizer update was applied.
    Step(StepLog),
    /// An epoch finished and was validated.
    Epoch(EpochLog),
}

/// State saved in `last/` so that training can resume.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct TrainerState {
    /// Epochs completed.
    pub epochs_done: usize,
    /// Lowest validation loss so far (infinite before the first validation).
    #[serde(with = "super::json_float")]
    pub best_valid_loss: f64,
    /// Per-epoch logs so far.
    pub history: Vec<EpochLog>,
    /// Forward passes of the unfinished epoch `epochs_done + 1` already done (0 at an epoch
    /// boundary); a resumed run skips them in the epoch's data order.
    #[serde(default)]
    pub batches_done: usize,
    /// Sum of the losses of those passes, for the epoch's mean.
    #[serde(default, with = "super::json_float")]
    pub epoch_loss_sum: f64,
    /// Optimizer updates of the whole run planned when training started (0: unknown).
    #[serde(default)]
    pub total_steps: usize,
    /// The dropout generator's state when the state was written.
    #[serde(default)]
    pub rng_state: Option<[u64; 4]>,
    /// The model the run started from ([`TrainConfig::started_from`]), if it was said.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub started_from: Option<String>,
}

const STATE_FILE: &str = "trainer_state.json";
const OPTIMIZER_FILE: &str = "optimizer.safetensors";

/// Reads the trainer state of `out_dir/last`, if any (finishing an interrupted replacement
/// of `last/` first).
pub fn read_state(out_dir: &Path) -> Result<Option<TrainerState>> {
    let last = out_dir.join("last");
    recover_dir(&last)?;
    let path = last.join(STATE_FILE);
    if !path.is_file() {
        return Ok(None);
    }
    let text = quarry_stdx::read::read_text(&path, quarry_stdx::read::MAX_TEXT_FILE_BYTES)
        .map_err(|e| ModelError::io(&path, e.source))?;
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

/// Optimizer updates of a whole run of `config` over `train_len` examples, the length the
/// learning-rate schedule is planned for.
pub fn planned_steps(train_len: usize, config: &TrainConfig) -> usize {
    train_len.div_ceil(config.batch_size.max(1)).div_ceil(config.grad_accum.max(1)) * config.epochs
}

/// Writes `out/last` (weights, optimizer, trainer state) in one atomic replacement.
fn save_last<M: Trainable + ?Sized>(model: &M, out: &Path, opt: &AdamW, state: &TrainerState) -> Result<()> {
    write_dir_atomically(&out.join("last"), |dir| {
        model.save(dir)?;
        opt.save(&dir.join(OPTIMIZER_FILE))?;
        let path = dir.join(STATE_FILE);
        let text = serde_json::to_string_pretty(state)
            .map_err(|e| ModelError::Json { path: path.clone(), message: e.to_string() })?;
        std::fs::write(&path, text).map_err(|e| ModelError::io(&path, e))
    })
}

/// Trains `model` on `train`, validating on `valid` after every epoch, and returns the log of
/// every epoch (those of a resumed run included).
///
/// With `out_dir`, the checkpoint with the lowest validation loss is kept in `out_dir/best`
/// and the latest state (weights, optimizer moments and step, data position, dropout
/// generator) in `out_dir/last`, each replaced atomically. With `resume`, the model must have
/// been loaded from `out_dir/last`; the run then continues exactly where it stopped, and with
/// the same settings ends byte-identical to a run that was never interrupted.
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
    if config.epochs == 0 || config.batch_size == 0 || config.grad_accum == 0 || config.checkpoint_every == Some(0) {
        return Err(ModelError::Data(
            "epochs, batch size, gradient accumulation and checkpoint interval must be positive".into(),
        ));
    }
    // An output folder that cannot be made fails now, not after the first epoch.
    if let Some(out) = &config.out_dir {
        std::fs::create_dir_all(out).map_err(|e| ModelError::io(out, e))?;
    }
    let store = model.store();
    let rng = store.rng();
    let vars = sorted_vars(store.vars());
    let mut opt = AdamW::new(
        vars.clone(),
        AdamWConfig { lr: config.lr, weight_decay: config.weight_decay, ..AdamWConfig::default() },
    )?;
    let batches_per_epoch = train.len().div_ceil(config.batch_size);
    let total_steps = planned_steps(train.len(), config);
    let schedule = LinearDecay { peak: config.lr, total_steps, warmup_steps: config.warmup_steps };
    let mut state = TrainerState {
        epochs_done: 0,
        best_valid_loss: f64::INFINITY,
        history: Vec::new(),
        batches_done: 0,
        epoch_loss_sum: 0.0,
        total_steps,
        rng_state: None,
        started_from: config.started_from.clone(),
    };
    if config.resume {
        let out =
            config.out_dir.as_ref().ok_or_else(|| ModelError::Data("resuming needs an output directory".into()))?;
        if let Some(s) = read_state(out)? {
            opt.load(&out.join("last").join(OPTIMIZER_FILE))?;
            if let Some(r) = s.rng_state {
                rng.set_state(r);
            }
            state = TrainerState { total_steps, ..s };
        }
    }
    let out_dir = config.out_dir.as_deref();
    for epoch in state.epochs_done + 1..=config.epochs {
        let start = Instant::now();
        let order = SeededRng::new(config.seed.wrapping_add(epoch as u64)).permutation(train.len());
        let mut acc: HashMap<String, Tensor> = HashMap::new();
        let mut in_acc = 0;
        let mut step_loss = 0.0;
        let mut step_examples = Vec::new();
        let first = std::mem::take(&mut state.batches_done);
        let mut loss_sum = std::mem::take(&mut state.epoch_loss_sum);
        for (bi, idx) in order.chunks(config.batch_size).enumerate().skip(first) {
            let batch: Vec<&M::Example> = idx.iter().map(|&i| &train[i]).collect();
            let loss = model.batch_loss(&batch, true)?;
            let value = loss.to_scalar::<f32>()? as f64;
            loss_sum += value;
            step_loss += value;
            step_examples.extend_from_slice(idx);
            let grads = (loss / config.grad_accum as f64)?.backward()?;
            add_grads(&mut acc, &vars, &grads)?;
            drop(grads);
            in_acc += 1;
            on_event(&TrainEvent::Batch { epoch, done: bi + 1, total: batches_per_epoch, loss: value });
            if in_acc == config.grad_accum || bi + 1 == batches_per_epoch {
                let lr = schedule.lr(opt.steps_done());
                let norm = opt.step_with_norm(&acc, lr)?;
                acc.clear();
                on_event(&TrainEvent::Step(StepLog {
                    step: opt.steps_done(),
                    total: total_steps,
                    lr,
                    loss: step_loss / in_acc as f64,
                    grad_norm: norm,
                    examples: std::mem::take(&mut step_examples),
                }));
                in_acc = 0;
                step_loss = 0.0;
                let stop = config.stop_after_steps.is_some_and(|n| opt.steps_done() >= n);
                let due = config.checkpoint_every.is_some_and(|n| opt.steps_done() % n == 0);
                if (stop || due) && bi + 1 < batches_per_epoch {
                    if let Some(out) = out_dir {
                        state.batches_done = bi + 1;
                        state.epoch_loss_sum = loss_sum;
                        state.rng_state = Some(rng.state());
                        save_last(model, out, &opt, &state)?;
                        state.batches_done = 0;
                        state.epoch_loss_sum = 0.0;
                    }
                    if stop {
                        return Ok(state.history);
                    }
                }
            }
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
        state.rng_state = Some(rng.state());
        if let Some(out) = out_dir {
            if best {
                write_dir_atomically(&out.join("best"), |dir| model.save(dir))?;
            }
            save_last(model, out, &opt, &state)?;
        }
        on_event(&TrainEvent::Epoch(log));
        if config.stop_after_steps.is_some_and(|n| opt.steps_done() >= n) {
            break;
        }
    }
    Ok(state.history)
}

/// Which checkpoints a finished run keeps in its output directory.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Keep {
    /// `best/` only: the resumable `last/` (weights, optimizer moments, trainer state) is
    /// removed once training has ended, so the run cannot be resumed.
    Best,
    /// `last/` only: `best/` is removed (evaluate `last/`).
    Last,
    /// Both (the default).
    #[default]
    All,
}

impl std::str::FromStr for Keep {
    type Err = String;

    /// Parses `best`, `last` or `all`.
    fn from_str(text: &str) -> std::result::Result<Keep, String> {
        match text {
            "best" => Ok(Keep::Best),
            "last" => Ok(Keep::Last),
            "all" => Ok(Keep::All),
            _ => Err(format!("keep `{text}`: expected `best`, `last` or `all`")),
        }
    }
}

/// Removes the checkpoints of a finished run in `out_dir` that `keep` does not keep.
pub fn keep_checkpoints(out_dir: &Path, keep: Keep) -> Result<()> {
    let remove = match keep {
        Keep::Best => "last",
        Keep::Last => "best",
        Keep::All => return Ok(()),
    };
    let dir = out_dir.join(remove);
    match std::fs::remove_dir_all(&dir) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(ModelError::io(&dir, e)),
        _ => Ok(()),
    }
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
