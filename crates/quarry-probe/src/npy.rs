//! Probe features as NumPy arrays, for probing in Python on the same features: one
//! `layer_NN.npy` per hidden state (`float32`, samples × dim), `labels.npy` (`int64`, the
//! probe's class indices), `splits.npy` (`uint8`: 0 train, 1 validation, 2 test) and
//! `meta.json` (task, class names in index order, split names, model, layers, shape). The
//! folder is written all at once ([`quarry_stdx::atomic::write_dir_atomically`]).
//!
//! ```python
//! import json, numpy as np
//! meta = json.load(open("DIR/meta.json"))
//! x, y, split = np.load("DIR/layer_06.npy"), np.load("DIR/labels.npy"), np.load("DIR/splits.npy")
//! x_train, y_train = x[split == 0], y[split == 0]
//! ```

use std::io::Write;
use std::path::Path;

use npyz::WriterBuilder;
use quarry_stdx::atomic::write_dir_atomically;
use quarry_stdx::IoError;

use crate::dataset::{Dataset, Split};
use crate::error::{ProbeError, Result};
use crate::experiment::class_list;
use crate::task::Task;

/// Writes `features` (`[layer][sample][dim]`, in `dataset`'s sample order) of `model` on
/// `task` into `dir` as NumPy arrays with their labels and splits; a file at `dir` is
/// refused, never replaced.
pub fn write_npy(dir: &Path, task: Task, dataset: &Dataset, model: &str, features: &[Vec<Vec<f32>>]) -> Result<()> {
    let rows = dataset.samples.len();
    let dim = features.first().and_then(|l| l.first()).map_or(0, Vec::len);
    if features.iter().any(|l| l.len() != rows || l.iter().any(|r| r.len() != dim)) {
        return Err(ProbeError::BadFeatures {
            path: dir.to_path_buf(),
            reason: format!("features are not {} layers × {rows} samples × {dim}", features.len()),
        });
    }
    let classes = class_list(task, dataset);
    let labels: Vec<i64> =
        dataset.samples.iter().map(|s| classes.iter().position(|c| *c == s.label).unwrap_or(0) as i64).collect();
    let splits: Vec<u8> = dataset
        .samples
        .iter()
        .map(|s| match s.split {
            Split::Train => 0,
            Split::Validation => 1,
            Split::Test => 2,
        })
        .collect();
    let meta = serde_json::json!({
        "task": task.code(),
        "model": model,
        "classes": classes,
        "splits": ["train", "validation", "test"],
        "layers": features.len(),
        "samples": rows,
        "dim": dim,
    });
    write_dir_atomically(dir, |tmp| -> Result<()> {
        for (layer, rows_of_layer) in features.iter().enumerate() {
            let data = rows_of_layer.iter().flatten().copied();
            write_array(&tmp.join(format!("layer_{layer:02}.npy")), &[rows as u64, dim as u64], data)?;
        }
        write_array(&tmp.join("labels.npy"), &[rows as u64], labels.iter().copied())?;
        write_array(&tmp.join("splits.npy"), &[rows as u64], splits.iter().copied())?;
        let path = tmp.join("meta.json");
        std::fs::write(&path, serde_json::to_vec_pretty(&meta).unwrap_or_default())
            .map_err(|e| IoError::new(&path, e))?;
        Ok(())
    })
}

fn write_array<T: npyz::Serialize + npyz::AutoSerialize>(
    path: &Path,
    shape: &[u64],
    data: impl Iterator<Item = T>,
) -> Result<()> {
    let io = |e: std::io::Error| ProbeError::from(IoError::new(path, e));
    let file = std::fs::File::create(path).map_err(io)?;
    let mut out = std::io::BufWriter::new(file);
    let mut writer = npyz::WriteOptions::new().default_dtype().shape(shape).writer(&mut out).begin_nd().map_err(io)?;
    writer.extend(data).map_err(io)?;
    writer.finish().map_err(io)?;
    out.flush().map_err(io)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_arrays_numpy_can_read() {
        let text = "tr\tA\ta b\nva\tB\tc\nte\tA\td e f\n";
        let dataset = Dataset::parse(text.as_bytes());
        let features = vec![vec![vec![0.5f32, 1.0], vec![2.0, 3.0], vec![4.0, 5.0]]; 2];
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("npy");
        write_npy(&out, Task::Len, &dataset, "m", &features).unwrap();
        let bytes = std::fs::read(out.join("layer_01.npy")).unwrap();
        let array = npyz::NpyFile::new(&bytes[..]).unwrap();
        assert_eq!(array.shape(), &[3, 2]);
        assert_eq!(array.into_vec::<f32>().unwrap(), vec![0.5, 1.0, 2.0, 3.0, 4.0, 5.0]);
        let (labels, splits) =
            (std::fs::read(out.join("labels.npy")).unwrap(), std::fs::read(out.join("splits.npy")).unwrap());
        let (labels, splits) = (npyz::NpyFile::new(&labels[..]).unwrap(), npyz::NpyFile::new(&splits[..]).unwrap());
        let meta: serde_json::Value = serde_json::from_slice(&std::fs::read(out.join("meta.json")).unwrap()).unwrap();
        let classes: Vec<String> = serde_json::from_value(meta["classes"].clone()).unwrap();
        let labels: Vec<String> =
            labels.into_vec::<i64>().unwrap().iter().map(|&i| classes[i as usize].clone()).collect();
        assert_eq!(labels, ["A", "B", "A"]);
        assert_eq!(splits.into_vec::<u8>().unwrap(), [0, 1, 2]);
        // Features that do not fit the dataset are refused, and nothing is written.
        let bad = dir.path().join("bad");
        assert!(write_npy(&bad, Task::Len, &dataset, "m", &[vec![vec![1.0]]]).is_err());
        assert!(!bad.exists());
    }
}
