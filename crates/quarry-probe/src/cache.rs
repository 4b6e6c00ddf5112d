//! The feature cache: one file per layer in a folder, so a rerun or another
//! probe reuses extracted features.
//!
//! File layout (`layer_NN.bin`): the 8 bytes `QPFEAT1\n`, a little-endian
//! `u32` header length, a JSON header `{"rows", "dim", "layer", "model",
//! "dataset"}`, then `rows × dim` little-endian `f32`, row-major. Files are
//! written to a temporary name and renamed, so a crash never leaves a
//! half-written layer behind; the layers of one extraction are written into a
//! temporary folder that is renamed into place once all are there
//! ([`FeatureCache::write_all`]), so a crash never leaves a folder holding only
//! some of them, which a rerun would take for the whole cache.

use std::path::{Path, PathBuf};

use quarry_stdx::atomic::{recover_dir, write_dir_atomically};
use quarry_stdx::rng::stable_hash_bytes;
use quarry_stdx::write_atomically;
use serde::{Deserialize, Serialize};

use crate::error::{ProbeError, Result};
use crate::input::InputRule;
use crate::task::Task;
use quarry_model::Precision;

const MAGIC: &[u8; 8] = b"QPFEAT1\n";

/// `name` with every character but ASCII letters, digits, `-` and `.` replaced by `_`, fit
/// for a file name.
pub fn file_safe(name: &str) -> String {
    name.chars().map(|c| if c.is_ascii_alphanumeric() || c == '-' || c == '.' { c } else { '_' }).collect()
}

/// Where the features of one model on one dataset file are cached, and the dataset's
/// identity written into their headers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CacheKey {
    /// `OUT/features/<model>/<task>_<input rule>_<content hash>_m<model fingerprint>/`,
    /// with `_<precision>` before the content hash for features not computed in f32
    /// (`bf16`, `f64`).
    pub dir: PathBuf,
    /// `<file name>#<content hash>`.
    pub dataset_id: String,
}

impl CacheKey {
    /// The cache of `model`'s features for `task` on the dataset file `path` holding
    /// `bytes`, its inputs built by `input`, computed in `precision`, under the output folder
    /// `out`; the content hash (FNV-1a) makes an edited file a new entry, and the model's
    /// `fingerprint` (`ModelSource::fingerprint`) a retrained or replaced model.
    pub fn new(
        out: &Path,
        (model, fingerprint): (&str, u64),
        task: Task,
        input: InputRule,
        precision: Precision,
        path: &Path,
        bytes: &[u8],
    ) -> CacheKey {
        let hash = stable_hash_bytes(bytes);
        let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        let computed = if precision == Precision::F32 { String::new() } else { format!("_{precision}") };
        let entry = format!("{task}_{}{computed}_{hash:016x}_m{fingerprint:016x}", input.name());
        CacheKey {
            dir: out.join("features").join(file_safe(model)).join(entry),
            dataset_id: format!("{name}#{hash:016x}"),
        }
    }
}

/// The JSON header of a layer file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LayerHeader {
    /// Number of samples.
    pub rows: usize,
    /// Feature size.
    pub dim: usize,
    /// Layer index.
    pub layer: usize,
    /// Model name or path.
    pub model: String,
    /// Identity of the dataset (file name and content hash).
    pub dataset: String,
}

/// A row-major `rows × dim` matrix.
#[derive(Debug, Clone, PartialEq)]
pub struct Matrix {
    /// Number of rows.
    pub rows: usize,
    /// Number of columns.
    pub dim: usize,
    /// `rows × dim` values.
    pub data: Vec<f32>,
}

impl Matrix {
    /// The matrix as one vector per row.
    pub fn into_rows(self) -> Vec<Vec<f32>> {
        if self.dim == 0 {
            return vec![Vec::new(); self.rows];
        }
        self.data.chunks(self.dim).map(<[f32]>::to_vec).collect()
    }
}

/// A cache folder of layer files.
#[derive(Debug, Clone)]
pub struct FeatureCache {
    dir: PathBuf,
}

impl FeatureCache {
    /// A cache in `dir` (created when the first layer is written).
    pub fn new(dir: impl Into<PathBuf>) -> FeatureCache {
        FeatureCache { dir: dir.into() }
    }

    /// The folder.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The file of one layer.
    pub fn layer_path(&self, layer: usize) -> PathBuf {
        self.dir.join(format!("layer_{layer:02}.bin"))
    }

    /// Layer indices present, sorted (a folder whose replacement by
    /// [`write_all`](Self::write_all) was cut between its two renames is first put back).
    pub fn layers(&self) -> Result<Vec<usize>> {
        // Best effort: a read-only output folder must still be readable.
        let _ = recover_dir(&self.dir);
        let entries = match std::fs::read_dir(&self.dir) {
            Ok(entries) => entries,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(e) => return Err(ProbeError::io(&self.dir, e)),
        };
        let mut layers: Vec<usize> = entries
            .filter_map(|e| e.ok())
            .filter_map(|e| {
                let name = e.file_name().to_string_lossy().into_owned();
                name.strip_prefix("layer_")?.strip_suffix(".bin")?.parse().ok()
            })
            .collect();
        layers.sort_unstable();
        Ok(layers)
    }

    /// Writes one layer atomically.
    pub fn write_layer(&self, header: &LayerHeader, data: &[f32]) -> Result<()> {
        let path = self.layer_path(header.layer);
        if data.len() != header.rows * header.dim {
            return Err(ProbeError::BadFeatures { path, reason: "data size does not match rows × dim".into() });
        }
        let json = serde_json::to_vec(header)
            .map_err(|e| ProbeError::BadFeatures { path: path.clone(), reason: e.to_string() })?;
        let mut bytes = Vec::with_capacity(12 + json.len() + data.len() * 4);
        bytes.extend_from_slice(MAGIC);
        bytes.extend_from_slice(&(json.len() as u32).to_le_bytes());
        bytes.extend_from_slice(&json);
        for v in data {
            bytes.extend_from_slice(&v.to_le_bytes());
        }
        Ok(write_atomically(&path, &bytes)?)
    }

    /// Writes the whole folder at once: `fill` writes layers (with
    /// [`write_layer`](Self::write_layer)) into a fresh temporary cache beside this one,
    /// which takes this folder's place only when `fill` succeeds. A run stopped at any
    /// moment leaves either no cache or a complete one, never some of the layers.
    pub fn write_all(&self, fill: impl FnOnce(&FeatureCache) -> Result<()>) -> Result<()> {
        write_dir_atomically(&self.dir, |tmp| fill(&FeatureCache::new(tmp)))
    }

    /// Reads the header of one layer.
    pub fn read_header(&self, layer: usize) -> Result<LayerHeader> {
        let path = self.layer_path(layer);
        let bytes = quarry_stdx::read::read_bytes(&path, quarry_stdx::read::MAX_DATA_FILE_BYTES)
            .map_err(|e| ProbeError::io(&path, e.source))?;
        Ok(parse_layer(&path, &bytes)?.0)
    }

    /// Reads one layer.
    pub fn read_layer(&self, layer: usize) -> Result<Matrix> {
        let path = self.layer_path(layer);
        let bytes = quarry_stdx::read::read_bytes(&path, quarry_stdx::read::MAX_DATA_FILE_BYTES)
            .map_err(|e| ProbeError::io(&path, e.source))?;
        let (header, offset) = parse_layer(&path, &bytes)?;
        let data = bytes[offset..].chunks_exact(4).map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect();
        Ok(Matrix { rows: header.rows, dim: header.dim, data })
    }
}

fn parse_layer(path: &Path, bytes: &[u8]) -> Result<(LayerHeader, usize)> {
    let bad = |reason: &str| ProbeError::BadFeatures { path: path.to_path_buf(), reason: reason.to_string() };
    if bytes.len() < 12 || &bytes[..8] != MAGIC {
        return Err(bad("not a quarry feature file (bad magic)"));
    }
    let len = u32::from_le_bytes([bytes[8], bytes[9], bytes[10], bytes[11]]) as usize;
    let json = bytes.get(12..12 + len).ok_or_else(|| bad("truncated header"))?;
    let header: LayerHeader = serde_json::from_slice(json).map_err(|e| bad(&format!("bad header: {e}")))?;
    let expected =
        header.rows.checked_mul(header.dim).and_then(|n| n.checked_mul(4)).ok_or_else(|| bad("size overflow"))?;
    if bytes.len() - 12 - len != expected {
        return Err(bad(&format!("expected {expected} bytes of data, found {}", bytes.len() - 12 - len)));
    }
    Ok((header, 12 + len))
}
