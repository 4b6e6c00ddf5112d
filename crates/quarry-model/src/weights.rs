//! Reading checkpoint tensors from `model.safetensors` or `pytorch_model.bin`,
//! with Hugging Face name variants mapped to the encoder's names.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use candle_core::{Device, Tensor};

use crate::error::{ModelError, Result};

/// Weight file names tried in a model directory, in order.
pub(crate) const WEIGHT_FILES: [&str; 2] = ["model.safetensors", "pytorch_model.bin"];

/// The index files of sharded checkpoints, which quarry does not read.
const SHARD_INDEXES: [&str; 2] = ["model.safetensors.index.json", "pytorch_model.bin.index.json"];

/// Finds the weight file of a model directory; a directory holding only a sharded checkpoint
/// is an error that says so.
pub(crate) fn find_weights(dir: &Path) -> Result<PathBuf> {
    if let Some(path) = WEIGHT_FILES.iter().map(|f| dir.join(f)).find(|p| p.is_file()) {
        return Ok(path);
    }
    if let Some(index) = SHARD_INDEXES.iter().map(|f| dir.join(f)).find(|p| p.is_file()) {
        return Err(ModelError::Weights {
            path: index,
            message: "a sharded checkpoint, which quarry does not read; save it as one file (transformers' \
                      save_pretrained with max_shard_size larger than the model)"
                .into(),
        });
    }
    Err(ModelError::MissingFile { dir: dir.to_path_buf(), what: "weights", looked_for: WEIGHT_FILES.join(", ") })
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

/// Reads every tensor of a safetensors or PyTorch pickle file onto the CPU, names normalized.
pub(crate) fn read_tensors(path: &Path) -> Result<HashMap<String, Tensor>> {
    let wrap = |e: candle_core::Error| ModelError::Weights { path: path.to_path_buf(), message: e.to_string() };
    let is_safetensors = path.extension().is_some_and(|e| e == "safetensors");
    let raw: Vec<(String, Tensor)> = if is_safetensors {
        candle_core::safetensors::load(path, &Device::Cpu).map_err(wrap)?.into_iter().collect()
    } else {
        candle_core::pickle::read_all(path).map_err(wrap)?
    };
    Ok(raw.into_iter().map(|(name, t)| (normalize_name(&name), t)).collect())
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

    /// A directory with only `model.safetensors.index.json` and its shards said "no weights
    /// found (looked for model.safetensors, pytorch_model.bin)".
    #[test]
    fn a_sharded_checkpoint_is_named_as_such() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("model.safetensors.index.json"), r#"{"weight_map": {}}"#).unwrap();
        let err = find_weights(dir.path()).unwrap_err().to_string();
        assert!(err.contains("model.safetensors.index.json") && err.contains("sharded"), "{err}");
    }
}
