//! Training a probe: Adam for a fixed number of epochs with early stopping on
//! validation accuracy, the L2 coefficient chosen on validation from a grid,
//! then test accuracy of the best model.

use serde::Serialize;

use crate::error::{ProbeError, Result};
use crate::probe::{Adam, Probe};
use crate::seeding::seeded;

/// Feature vectors and class indices of one split.
#[derive(Debug, Clone, Default)]
pub struct SplitData {
    /// One feature vector per sample.
    pub x: Vec<Vec<f32>>,
    /// One class index per sample.
    pub y: Vec<usize>,
}

/// Train, validation and test data of one probing run.
#[derive(Debug, Clone, Default)]
pub struct ProbeData {
    /// Training split.
    pub train: SplitData,
    /// Validation split (early stopping, L2 choice).
    pub valid: SplitData,
    /// Test split (reported accuracy).
    pub test: SplitData,
    /// Number of classes.
    pub classes: usize,
}

/// Hyper-parameters of probe training.
#[derive(Debug, Clone)]
pub struct TrainConfig {
    /// Maximum number of epochs.
    pub epochs: usize,
    /// Epochs without validation improvement before stopping.
    pub patience: usize,
    /// Mini-batch size.
    pub batch_size: usize,
    /// L2 coefficients tried; the best on validation is kept.
    pub l2_grid: Vec<f32>,
    /// Hidden width for an MLP probe; `None` for a linear probe.
    pub hidden: Option<usize>,
    /// Seed of initialisation and shuffling.
    pub seed: u64,
    /// Optimiser settings.
    pub adam: Adam,
    /// Standardise each feature with the training split's mean and standard
    /// deviation before training (Adam then converges in the epochs given
    /// even on encoder states with a few very large dimensions).
    pub standardize: bool,
}

impl Default for TrainConfig {
    fn default() -> TrainConfig {
        TrainConfig {
            epochs: 20,
            patience: 5,
            batch_size: 1,
            l2_grid: vec![1e-5, 1e-4, 1e-3, 1e-2],
            hidden: None,
            seed: 42,
            adam: Adam::default(),
            standardize: true,
        }
    }
}

/// What one probing run found.
#[derive(Debug, Clone, Serialize)]
pub struct ProbeOutcome {
    /// The chosen L2 coefficient.
    pub l2: f32,
    /// Epoch (1-based) of the best validation accuracy.
    pub best_epoch: usize,
    /// Validation accuracy of the kept model.
    pub valid_accuracy: f64,
    /// Test accuracy of the kept model.
    pub test_accuracy: f64,
    /// Predicted class of every test sample.
    pub test_predictions: Vec<usize>,
    /// Validation accuracy for each L2 coefficient tried.
    pub grid: Vec<(f32, f64)>,
}

/// Accuracy of `probe` on `data` (0 for an empty split).
pub fn accuracy(probe: &Probe, data: &SplitData) -> f64 {
    if data.y.is_empty() {
        return 0.0;
    }
    let correct = data.x.iter().zip(&data.y).filter(|(x, &y)| probe.predict(x) == y).count();
    correct as f64 / data.y.len() as f64
}

fn validate(data: &ProbeData) -> Result<usize> {
    let dim =
        data.train.x.first().map(Vec::len).ok_or_else(|| ProbeError::BadTrainingData("no training sample".into()))?;
    if data.valid.y.is_empty() {
        return Err(ProbeError::BadTrainingData("no validation sample".into()));
    }
    for split in [&data.train, &data.valid, &data.test] {
        if split.x.len() != split.y.len() {
            return Err(ProbeError::BadTrainingData("features and labels differ in number".into()));
        }
        if split.x.iter().any(|x| x.len() != dim) {
            return Err(ProbeError::BadTrainingData(format!("feature vectors differ in size (expected {dim})")));
        }
        if split.y.iter().any(|&y| y >= data.classes) {
            return Err(ProbeError::BadTrainingData("class index out of range".into()));
        }
        if split.x.iter().flatten().any(|v| !v.is_finite()) {
            return Err(ProbeError::BadTrainingData("a feature is NaN or infinite".into()));
        }
    }
    Ok(dim)
}

/// Trains one probe with a fixed L2 coefficient; returns the best model on
/// validation, its epoch and validation accuracy. `on_epoch` is called after each epoch.
pub fn fit(
    data: &ProbeData,
    l2: f32,
    config: &TrainConfig,
    on_epoch: &mut dyn FnMut(usize),
) -> Result<(Probe, usize, f64)> {
    let dim = validate(data)?;
    let mut probe = Probe::new(dim, data.classes, config.hidden, config.seed);
    let mut rng = seeded(config.seed.wrapping_add(1));
    let mut order: Vec<usize> = (0..data.train.y.len()).collect();
    let mut best = (probe.clone(), 0usize, accuracy(&probe, &data.valid));
    let mut since_best = 0;
    let batch = config.batch_size.max(1);
    for epoch in 1..=config.epochs {
        rng.shuffle(&mut order);
        for chunk in order.chunks(batch) {
            let xs: Vec<&[f32]> = chunk.iter().map(|&i| data.train.x[i].as_slice()).collect();
            let ys: Vec<usize> = chunk.iter().map(|&i| data.train.y[i]).collect();
            probe.train_batch(&xs, &ys, &config.adam, l2);
        }
        on_epoch(epoch);
        let valid = accuracy(&probe, &data.valid);
        if valid > best.2 || best.1 == 0 {
            best = (probe.clone(), epoch, valid);
            since_best = 0;
        } else {
            since_best += 1;
            if since_best >= config.patience {
                break;
            }
        }
    }
    Ok(best)
}

/// Standardises every split with the training split's per-feature mean and
/// standard deviation (constant features are only centred).
pub fn standardized(data: &ProbeData) -> ProbeData {
    let dim = data.train.x.first().map(Vec::len).unwrap_or(0);
    let n = data.train.x.len().max(1) as f64;
    let mut mean = vec![0f64; dim];
    for x in &data.train.x {
        for (m, v) in mean.iter_mut().zip(x) {
            *m += f64::from(*v) / n;
        }
    }
    let mut var = vec![0f64; dim];
    for x in &data.train.x {
        for ((s, m), v) in var.iter_mut().zip(&mean).zip(x) {
            *s += (f64::from(*v) - m).powi(2) / n;
        }
    }
    let scale: Vec<f64> = var.iter().map(|v| if *v > 1e-12 { 1.0 / v.sqrt() } else { 1.0 }).collect();
    let apply = |split: &SplitData| SplitData {
        x: split
            .x
            .iter()
            .map(|x| x.iter().zip(&mean).zip(&scale).map(|((v, m), s)| ((f64::from(*v) - m) * s) as f32).collect())
            .collect(),
        y: split.y.clone(),
    };
    ProbeData { train: apply(&data.train), valid: apply(&data.valid), test: apply(&data.test), classes: data.classes }
}

/// Chooses L2 on validation, then reports the kept model's test accuracy.
pub fn run_probe(data: &ProbeData, config: &TrainConfig, on_epoch: &mut dyn FnMut(usize)) -> Result<ProbeOutcome> {
    validate(data)?;
    let scaled;
    let data = if config.standardize {
        scaled = standardized(data);
        &scaled
    } else {
        data
    };
    let grid = if config.l2_grid.is_empty() { vec![0.0] } else { config.l2_grid.clone() };
    let mut tried = Vec::new();
    let mut best: Option<(f32, Probe, usize, f64)> = None;
    for &l2 in &grid {
        let (probe, epoch, valid) = fit(data, l2, config, on_epoch)?;
        tried.push((l2, valid));
        if best.as_ref().is_none_or(|b| valid > b.3) {
            best = Some((l2, probe, epoch, valid));
        }
    }
    let (l2, probe, best_epoch, valid_accuracy) = best.expect("the grid is not empty");
    let test_predictions = data.test.x.iter().map(|x| probe.predict(x)).collect();
    Ok(ProbeOutcome {
        l2,
        best_epoch,
        valid_accuracy,
        test_accuracy: accuracy(&probe, &data.test),
        test_predictions,
        grid: tried,
    })
}

/// Chance accuracy (`1 / classes`) and the majority baseline (test accuracy of
/// always predicting the most frequent training class).
pub fn baselines(data: &ProbeData) -> (f64, f64) {
    let random = if data.classes == 0 { 0.0 } else { 1.0 / data.classes as f64 };
    let mut counts = vec![0usize; data.classes];
    for &y in &data.train.y {
        counts[y] += 1;
    }
    let majority_class = counts.iter().enumerate().max_by_key(|(i, c)| (**c, std::cmp::Reverse(*i))).map(|(i, _)| i);
    let majority = match majority_class {
        Some(class) if !data.test.y.is_empty() => {
            data.test.y.iter().filter(|&&y| y == class).count() as f64 / data.test.y.len() as f64
        }
        _ => 0.0,
    };
    (random, majority)
}
