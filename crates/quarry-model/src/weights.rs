//! Reading checkpoint tensors from `model.safetensors` or `pytorch_model.bin`, whole or
//! sharded, with Hugging Face name variants mapped to the encoder's names.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use candle_core::{Device, Tensor};

use crate::error::{ModelError, Result};
use crate::sharded::{is_shard_index, read_sharded, SHARD_INDEXES};

/// Weight file names tried in a model directory, in order.
pub(crate) const WEIGHT_FILES: [&str; 2] = ["model.safetensors", "pytorch_model.bin"];

/// Finds the weights of a model directory: a single weight file, else a sharded
/// checkpoint's index file (which [`read_tensors`] reads through).
pub(crate) fn find_weights(dir: &Path) -> Result<PathBuf> {
    let candidates = || WEIGHT_FILES.iter().chain(SHARD_INDEXES.iter());
    candidates().map(|f| dir.join(f)).find(|p| p.is_file()).ok_or_else(|| ModelError::MissingFile {
        dir: dir.to_path_buf(),
        what: "weights",
        looked_for: candidates().copied().collect::<Vec<_>>().join(", "),
    })
}

/// Maps a checkpoint tensor name to the encoder's naming: drops a `bert.`, `roberta.` or
/// `model.` (BART's `*ForConditionalGeneration`) model prefix and renames old-style
/// layer-norm `gamma`/`beta` to `weight`/`bias`.
pub(crate) fn normalize_name(name: &str) -> String {
    let name = ["bert.", "roberta.", "model."].iter().find_map(|p| name.strip_prefix(p)).unwrap_or(name);
    if let Some(base) = name.strip_suffix(".gamma") {
        format!("{base}.weight")
    } else if let Some(base) = name.strip_suffix(".beta") {
        format!("{base}.bias")
    } else {
        name.to_string()
    }
}

/// Reads every tensor of a safetensors or PyTorch pickle file, or of the shards a sharded
/// checkpoint's index names, onto the CPU, names normalized.
pub(crate) fn read_tensors(path: &Path) -> Result<HashMap<String, Tensor>> {
    let raw = if is_shard_index(path) { read_sharded(path, read_file)? } else { read_file(path)? };
    Ok(raw.into_iter().map(|(name, t)| (normalize_name(&name), t)).collect())
}

/// Every tensor of one safetensors or PyTorch pickle file, names as stored.
fn read_file(path: &Path) -> Result<Vec<(String, Tensor)>> {
    let wrap = |e: candle_core::Error| ModelError::Weights { path: path.to_path_buf(), message: e.to_string() };
    if path.extension().is_some_and(|e| e == "safetensors") {
        Ok(candle_core::safetensors::load(path, &Device::Cpu).map_err(wrap)?.into_iter().collect())
    } else {
        candle_core::pickle::read_all(path).map_err(wrap)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalizes_hf_names() {
        assert_eq!(normalize_name("bert.embeddings.LayerNorm.gamma"), "embeddings.LayerNorm.weight");
        assert_eq!(
            normalize_name("roberta.encoder.layer.0.output.LayerNorm.beta"),
            "encoder.layer.0.output.LayerNorm.bias"
        );
        assert_eq!(
            normalize_name("encoder.layer.1.attention.self.query.weight"),
            "encoder.layer.1.attention.self.query.weight"
        );
        assert_eq!(normalize_name("classifier.weight"), "classifier.weight");
        assert_eq!(normalize_name("model.encoder.layers.0.fc1.weight"), "encoder.layers.0.fc1.weight");
    }

    #[test]
    fn missing_weights_are_a_clear_error() {
        let dir = std::env::temp_dir().join("quarry-model-no-weights");
        std::fs::create_dir_all(&dir).unwrap();
        let err = find_weights(&dir).unwrap_err().to_string();
        assert!(err.contains("model.safetensors"), "{err}");
    }
}
