//! Probe training, control tasks, the feature cache and reports.

use std::path::Path;

use quarry_probe::cache::{FeatureCache, LayerHeader};
use quarry_probe::control::control_labels;
use quarry_probe::heatmap::Heatmap;
use quarry_probe::report::{merge_results, read_results, ResultRow};
use quarry_probe::seeding::seeded;
use quarry_probe::train::{baselines, run_probe, ProbeData, SplitData, TrainConfig};
use quarry_stdx::rng::SplitMix64;

/// Samples around `classes` well-separated centres in `dim` dimensions.
fn linear_data(classes: usize, dim: usize, per_class: usize, seed: u64) -> ProbeData {
    let mut rng = seeded(seed);
    let centres: Vec<Vec<f32>> =
        (0..classes).map(|_| (0..dim).map(|_| (rng.unit() as f32 - 0.5) * 6.0).collect()).collect();
    let mut make = |n: usize| {
        let mut split = SplitData::default();
        for i in 0..n * classes {
            let class = i % classes;
            split.x.push(centres[class].iter().map(|c| c + (rng.unit() as f32 - 0.5)).collect());
            split.y.push(class);
        }
        split
    };
    let (train, valid, test) = (make(per_class), make(per_class / 3), make(per_class / 3));
    ProbeData { train, valid, test, classes }
}

fn xor_data(seed: u64) -> ProbeData {
    let mut rng = seeded(seed);
    let mut make = |n: usize| {
        let mut split = SplitData::default();
        for _ in 0..n {
            let (a, b) = (rng.below(2), rng.below(2));
            let jitter = |r: &mut SplitMix64| (r.unit() as f32 - 0.5) * 0.4;
            split.x.push(vec![a as f32 * 2.0 - 1.0 + jitter(&mut rng), b as f32 * 2.0 - 1.0 + jitter(&mut rng)]);
            split.y.push(a ^ b);
        }
        split
    };
    let (train, valid, test) = (make(400), make(100), make(100));
    ProbeData { train, valid, test, classes: 2 }
}

#[test]
fn linear_probe_separates_linearly_separable_classes() {
    let data = linear_data(5, 32, 60, 3);
    let outcome = run_probe(&data, &TrainConfig::default(), &mut |_| {}).unwrap();
    assert!(outcome.test_accuracy >= 0.98, "accuracy {}", outcome.test_accuracy);
    assert!((1..=20).contains(&outcome.best_epoch));
    assert_eq!(outcome.grid.len(), 4);
    assert!(TrainConfig::default().l2_grid.contains(&outcome.l2));
    assert_eq!(outcome.test_predictions.len(), data.test.y.len());
}

#[test]
fn mlp_probe_solves_what_a_linear_probe_cannot() {
    let data = xor_data(5);
    let linear = run_probe(&data, &TrainConfig::default(), &mut |_| {}).unwrap();
    let mlp_config = TrainConfig { hidden: Some(16), ..TrainConfig::default() };
    let mlp = run_probe(&data, &mlp_config, &mut |_| {}).unwrap();
    assert!(linear.test_accuracy < 0.8, "linear {}", linear.test_accuracy);
    assert!(mlp.test_accuracy > 0.95, "mlp {}", mlp.test_accuracy);
}

#[test]
fn training_is_deterministic_and_stops_early() {
    let data = linear_data(3, 8, 30, 9);
    let config = TrainConfig { epochs: 50, patience: 2, l2_grid: vec![1e-4], ..TrainConfig::default() };
    let mut epochs = 0;
    let a = run_probe(&data, &config, &mut |_| epochs += 1).unwrap();
    let b = run_probe(&data, &config, &mut |_| {}).unwrap();
    assert_eq!(a.test_predictions, b.test_predictions);
    // Perfect validation accuracy is reached early and cannot improve.
    assert!(epochs < 50, "{epochs} epochs");
    assert!(epochs <= a.best_epoch + 2);
}

#[test]
fn bad_training_data_is_an_error_not_a_panic() {
    let mut data = linear_data(2, 4, 6, 1);
    data.train.x[0].push(1.0);
    assert!(run_probe(&data, &TrainConfig::default(), &mut |_| {}).is_err());
    let mut data = linear_data(2, 4, 6, 1);
    data.valid.x[0][0] = f32::NAN;
    assert!(run_probe(&data, &TrainConfig::default(), &mut |_| {}).is_err());
    let empty = ProbeData { classes: 2, ..ProbeData::default() };
    assert!(run_probe(&empty, &TrainConfig::default(), &mut |_| {}).is_err());
}

#[test]
fn baselines_are_chance_and_majority() {
    let mut data = linear_data(4, 2, 6, 1);
    data.train.y = vec![2; data.train.y.len()];
    let (random, majority) = baselines(&data);
    assert_eq!(random, 0.25);
    assert_eq!(majority, 0.25); // test classes are balanced
}

#[test]
fn control_labels_depend_only_on_the_type() {
    let types = ["if", "for", "if", "while", "for", "x"];
    let train = [0, 1, 2, 0, 1, 2];
    let a = control_labels(&types, &train, 3, 11);
    assert_eq!(a, control_labels(&types, &train, 3, 11));
    assert_eq!(a[0], a[2]);
    assert_eq!(a[1], a[4]);
    assert!(a.iter().all(|&c| c < 3));
    // Drawn from the training distribution: a class absent there never appears.
    let only_one = control_labels(&types, &[1, 1, 1], 3, 11);
    assert!(only_one.iter().all(|&c| c == 1));
}

/// Features computed in another precision, or by another model (another fingerprint under
/// the same name), are another cache entry.
#[test]
fn the_cache_key_names_a_precision_other_than_f32_and_the_model() {
    use quarry_model::Precision;
    use quarry_probe::cache::CacheKey;
    use quarry_probe::input::InputRule;
    use quarry_probe::Task;
    let keyed = |p, fingerprint| {
        let model = ("m/x", fingerprint);
        CacheKey::new(Path::new("out"), model, Task::Len, InputRule::Inspect, p, Path::new("d/LEN.txt"), b"tr\t1\tx\n")
    };
    let key = |p| keyed(p, 7);
    let f32_dir = key(Precision::F32).dir;
    let entry = f32_dir.file_name().unwrap().to_str().unwrap().to_string();
    let expected = "LEN_inspect_".len() + 16 + "_m".len() + 16;
    assert!(entry.starts_with("LEN_inspect_") && entry.ends_with("_m0000000000000007"), "{entry}");
    assert_eq!(entry.len(), expected, "{entry}");
    assert_eq!(f32_dir.parent().unwrap(), Path::new("out/features/m_x"));
    let f64_entry = key(Precision::F64).dir.file_name().unwrap().to_str().unwrap().to_string();
    assert_eq!(f64_entry, entry.replace("inspect_", "inspect_f64_"));
    assert_ne!(key(Precision::Bf16).dir, f32_dir);
    assert_ne!(keyed(Precision::F32, 8).dir, f32_dir, "a retrained model reused the old features");
    assert_eq!(key(Precision::F32).dataset_id, key(Precision::F64).dataset_id);
}

#[test]
fn feature_cache_round_trips_and_rejects_bad_files() {
    let dir = std::env::temp_dir().join(format!("quarry-probe-cache-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let cache = FeatureCache::new(&dir);
    assert!(cache.layers().unwrap().is_empty());
    let header = LayerHeader { rows: 2, dim: 3, layer: 4, model: "m".into(), dataset: "d#1".into() };
    cache.write_layer(&header, &[1.0, 2.0, 3.0, 4.0, 5.0, -6.5]).unwrap();
    assert_eq!(cache.layers().unwrap(), [4]);
    assert_eq!(cache.read_header(4).unwrap(), header);
    let matrix = cache.read_layer(4).unwrap();
    assert_eq!(matrix.into_rows(), vec![vec![1.0, 2.0, 3.0], vec![4.0, 5.0, -6.5]]);
    // Only the layer file is left: the temporary file was renamed.
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 1);
    assert!(cache.write_layer(&header, &[1.0]).is_err());
    let path = cache.layer_path(4);
    let bytes = std::fs::read(&path).unwrap();
    std::fs::write(&path, &bytes[..bytes.len() - 2]).unwrap();
    assert!(cache.read_layer(4).unwrap_err().to_string().contains("bytes of data"));
    std::fs::write(&path, b"not a feature file").unwrap();
    assert!(cache.read_layer(4).unwrap_err().to_string().contains("magic"));
    let _ = std::fs::remove_dir_all(&dir);
}

fn row(task: &str, model: &str, layer: usize, accuracy: f64) -> ResultRow {
    ResultRow {
        task: task.into(),
        model: model.into(),
        probe: "linear".into(),
        layer,
        accuracy,
        valid_accuracy: accuracy,
        best_epoch: 3,
        l2: 0.001,
        control_accuracy: None,
        selectivity: None,
        random_baseline: 0.1,
        majority_baseline: 0.1,
    }
}

#[test]
fn results_csv_merges_runs() {
    let dir = std::env::temp_dir().join(format!("quarry-probe-csv-{}", std::process::id()));
    let path = dir.join("results.csv");
    let _ = std::fs::remove_dir_all(&dir);
    merge_results(&path, &[row("LEN", "a,b", 0, 0.5), row("LEN", "a,b", 1, 0.6)]).unwrap();
    let rows = merge_results(&path, &[row("LEN", "a,b", 1, 0.7), row("CSC", "a,b", 0, 0.2)]).unwrap();
    assert_eq!(rows.len(), 3);
    let read = read_results(&path).unwrap();
    assert_eq!(read, rows);
    assert_eq!(read.iter().find(|r| r.task == "LEN" && r.layer == 1).unwrap().accuracy, 0.7);
    assert_eq!(read[0].model, "a,b");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn heatmaps_hold_every_result() {
    let rows =
        vec![row("LEN", "m1", 0, 0.5), row("LEN", "m1", 1, 0.9), row("NPT", "m1", 0, 0.2), row("LEN", "m2", 0, 0.4)];
    let by_model = Heatmap::for_model(&rows, "m1", "linear");
    assert_eq!(by_model.columns, ["LEN", "NPT"]);
    assert_eq!(by_model.rows, ["layer 0", "layer 1"]);
    assert_eq!(by_model.values, vec![vec![Some(0.5), Some(0.2)], vec![Some(0.9), None]]);
    let by_task = Heatmap::for_task(&rows, "LEN", "linear");
    assert_eq!(by_task.rows, ["m1", "m2"]);
    assert_eq!(by_task.values[1], vec![Some(0.4), None]);
    let svg = by_model.to_svg();
    assert!(svg.starts_with("<svg") && svg.contains(">NPT<") && svg.contains(">90.0<"));
}

#[test]
fn confusion_heatmap_shows_row_fractions() {
    let mut confusion = quarry_probe::Confusion::new(vec!["A".into(), "B".into()]);
    confusion.add("A", "A");
    confusion.add("A", "B");
    confusion.add("A", "B");
    confusion.add("A", "A");
    let map = Heatmap::from_confusion(&confusion, "t");
    assert_eq!(map.values, vec![vec![Some(0.5), Some(0.5)], vec![None, None]]);
    assert_eq!(confusion.accuracy(), 0.5);
}
