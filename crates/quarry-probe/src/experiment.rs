//! One probing experiment: a dataset, per-layer features, a probe per layer,
//! baselines and (optionally) the control task.

use serde::Serialize;

use crate::cache::{FeatureCache, LayerHeader};
use crate::confusion::Confusion;
use crate::control::{control_labels, selectivity};
use crate::dataset::{Dataset, Split};
use crate::error::{ProbeError, Result};
use crate::features::LayerFeatures;
use crate::task::Task;
use crate::train::{baselines, run_probe, ProbeData, SplitData, TrainConfig};

/// Result of probing one layer.
#[derive(Debug, Clone, Serialize)]
pub struct LayerResult {
    /// Layer index.
    pub layer: usize,
    /// Test accuracy of the probe.
    pub accuracy: f64,
    /// Validation accuracy of the kept probe.
    pub valid_accuracy: f64,
    /// Epoch of the kept probe (1-based).
    pub best_epoch: usize,
    /// Chosen L2 coefficient.
    pub l2: f32,
    /// Test accuracy on the control task, when run.
    pub control_accuracy: Option<f64>,
    /// Accuracy minus control accuracy, when the control task was run.
    pub selectivity: Option<f64>,
    /// Test confusion matrix (rows: true class, columns: predicted).
    pub confusion: Confusion,
}

/// Results of probing every layer of one model on one task.
#[derive(Debug, Clone, Serialize)]
pub struct Experiment {
    /// The task.
    pub task: Task,
    /// The model's name.
    pub model: String,
    /// `linear` or `mlp`.
    pub probe: String,
    /// Chance accuracy.
    pub random_baseline: f64,
    /// Majority-class accuracy on the test split.
    pub majority_baseline: f64,
    /// Per-layer results.
    pub layers: Vec<LayerResult>,
}

/// The class list of a dataset: the task's classes present in it, in the
/// task's order, then any other label met.
pub fn class_list(task: Task, dataset: &Dataset) -> Vec<String> {
    let present = dataset.labels();
    let mut classes: Vec<String> = task.labels().into_iter().filter(|l| present.contains(l)).collect();
    let extra: Vec<String> = present.into_iter().filter(|l| !classes.contains(l)).collect();
    classes.extend(extra);
    classes
}

/// Splits features and labels into train, validation and test.
pub fn probe_data(dataset: &Dataset, features: &[Vec<f32>], labels: &[usize], classes: usize) -> ProbeData {
    let mut data = ProbeData { classes, ..ProbeData::default() };
    for ((sample, x), &y) in dataset.samples.iter().zip(features).zip(labels) {
        let split: &mut SplitData = match sample.split {
            Split::Train => &mut data.train,
            Split::Validation => &mut data.valid,
            Split::Test => &mut data.test,
        };
        split.x.push(x.clone());
        split.y.push(y);
    }
    data
}

/// Options of an experiment.
#[derive(Debug, Clone)]
pub struct ExperimentOptions {
    /// Probe training settings.
    pub train: TrainConfig,
    /// Layers to probe (`None`: all).
    pub layers: Option<Vec<usize>>,
    /// Also train on the control task.
    pub control: bool,
}

/// Probes every requested layer. `features[layer][sample]`; `on_progress`
/// receives (layer position, layers, epochs done in this layer).
pub fn run_experiment(
    task: Task,
    model: &str,
    dataset: &Dataset,
    features: &[Vec<Vec<f32>>],
    options: &ExperimentOptions,
    on_progress: &mut dyn FnMut(usize, usize, usize),
) -> Result<Experiment> {
    let classes = class_list(task, dataset);
    let labels: Vec<usize> =
        dataset.samples.iter().map(|s| classes.iter().position(|c| *c == s.label).unwrap_or(0)).collect();
    let layers: Vec<usize> = match &options.layers {
        Some(layers) => layers.clone(),
        None => (0..features.len()).collect(),
    };
    if let Some(bad) = layers.iter().find(|&&l| l >= features.len()) {
        return Err(ProbeError::BadTrainingData(format!("layer {bad} requested, {} available", features.len())));
    }
    let control = if options.control {
        let types: Vec<&str> = dataset.samples.iter().map(|s| s.text.as_str()).collect();
        let train: Vec<usize> =
            dataset.samples.iter().zip(&labels).filter(|(s, _)| s.split == Split::Train).map(|(_, &y)| y).collect();
        Some(control_labels(&types, &train, classes.len(), options.train.seed))
    } else {
        None
    };
    let mut results = Vec::new();
    let mut baseline = (0.0, 0.0);
    for (position, &layer) in layers.iter().enumerate() {
        let data = probe_data(dataset, &features[layer], &labels, classes.len());
        baseline = baselines(&data);
        let mut epochs = 0;
        let outcome = run_probe(&data, &options.train, &mut |_| {
            epochs += 1;
            on_progress(position, layers.len(), epochs);
        })?;
        let mut confusion = Confusion::new(classes.clone());
        for (&truth, &predicted) in data.test.y.iter().zip(&outcome.test_predictions) {
            confusion.add(&classes[truth], &classes[predicted]);
        }
        let control_accuracy = match &control {
            Some(control) => {
                let control_data = probe_data(dataset, &features[layer], control, classes.len());
                Some(run_probe(&control_data, &options.train, &mut |_| {})?.test_accuracy)
            }
            None => None,
        };
        results.push(LayerResult {
            layer,
            accuracy: outcome.test_accuracy,
            valid_accuracy: outcome.valid_accuracy,
            best_epoch: outcome.best_epoch,
            l2: outcome.l2,
            control_accuracy,
            selectivity: control_accuracy.map(|c| selectivity(outcome.test_accuracy, c)),
            confusion,
        });
    }
    Ok(Experiment {
        task,
        model: model.to_string(),
        probe: if options.train.hidden.is_some() { "mlp".into() } else { "linear".into() },
        random_baseline: baseline.0,
        majority_baseline: baseline.1,
        layers: results,
    })
}

/// Samples per call to the encoder during extraction.
pub const EXTRACTION_CHUNK: usize = 32;

/// Features for `dataset` from `cache`, extracting them with `encoder` (and
/// caching every layer) when the cache is empty. The encoder is prepared with the
/// whole dataset, then extraction goes in chunks of [`EXTRACTION_CHUNK`] samples;
/// `on_progress(done, total)` follows it.
pub fn cached_or_extract(
    cache: &FeatureCache,
    encoder: Option<&mut dyn LayerFeatures>,
    dataset: &Dataset,
    model: &str,
    dataset_id: &str,
    on_progress: &mut dyn FnMut(usize, usize),
) -> Result<Vec<Vec<Vec<f32>>>> {
    if !cache.layers()?.is_empty() {
        let mut source = crate::features::CachedFeatures::open(cache.clone())?;
        return source.features(&dataset.samples);
    }
    let Some(encoder) = encoder else {
        return Err(ProbeError::BadFeatures {
            path: cache.dir().to_path_buf(),
            reason: "no cached features and no encoder to extract them".into(),
        });
    };
    let total = dataset.samples.len();
    encoder.prepare(&dataset.samples)?;
    let mut features: Vec<Vec<Vec<f32>>> = vec![Vec::with_capacity(total); encoder.layers()];
    for chunk in dataset.samples.chunks(EXTRACTION_CHUNK) {
        let part = encoder.features(chunk)?;
        if part.len() != features.len() || part.iter().any(|rows| rows.len() != chunk.len()) {
            return Err(ProbeError::BadFeatures {
                path: cache.dir().to_path_buf(),
                reason: format!(
                    "the encoder returned a shape other than {} layers x {} samples",
                    features.len(),
                    chunk.len()
                ),
            });
        }
        for (layer, rows) in part.into_iter().enumerate() {
            features[layer].extend(rows);
        }
        on_progress(features.first().map(Vec::len).unwrap_or(total), total);
    }
    // All layers appear together: a cache holding only the first few would be trusted by a
    // rerun, which would then probe those layers only.
    cache.write_all(|partial| {
        for (layer, rows) in features.iter().enumerate() {
            let dim = rows.first().map(Vec::len).unwrap_or(0);
            if rows.iter().any(|r| r.len() != dim) {
                return Err(ProbeError::BadFeatures {
                    path: cache.layer_path(layer),
                    reason: "feature vectors of one layer differ in size".into(),
                });
            }
            let header =
                LayerHeader { rows: rows.len(), dim, layer, model: model.to_string(), dataset: dataset_id.to_string() };
            let data: Vec<f32> = rows.iter().flatten().copied().collect();
            partial.write_layer(&header, &data)?;
        }
        Ok(())
    })?;
    Ok(features)
}
