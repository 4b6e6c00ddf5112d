//! Sharded checkpoints, as transformers' `save_pretrained` writes a model larger than its
//! `max_shard_size`: `model.safetensors.index.json` (or `pytorch_model.bin.index.json`) maps
//! every tensor name to the shard file beside it that holds it.

use std::collections::{BTreeSet, HashMap};
use std::path::Path;

use candle_core::Tensor;
use serde::Deserialize;

use crate::error::{ModelError, Result};

/// The index files of sharded checkpoints, in the order they are tried.
pub(crate) const SHARD_INDEXES: [&str; 2] = ["model.safetensors.index.json", "pytorch_model.bin.index.json"];

/// The part of an index file quarry reads.
#[derive(Deserialize)]
struct ShardIndex {
    /// Tensor name to the shard file holding it.
    weight_map: HashMap<String, String>,
}

/// Whether `path` names a sharded checkpoint's index file.
pub(crate) fn is_shard_index(path: &Path) -> bool {
    path.file_name().and_then(|n| n.to_str()).is_some_and(|n| n.ends_with(".index.json"))
}

/// The index `index` read: tensor name to shard file, each shard a plain file name (beside
/// the index); an unreadable or malformed index, an empty one and a shard named by a path are
/// errors naming it.
fn read_index(index: &Path) -> Result<HashMap<String, String>> {
    let bad = |message: String| ModelError::Weights { path: index.to_path_buf(), message };
    let text = std::fs::read_to_string(index).map_err(|e| bad(e.to_string()))?;
    let parsed: ShardIndex =
        serde_json::from_str(&text).map_err(|e| bad(format!("not a sharded checkpoint's index: {e}")))?;
    if parsed.weight_map.is_empty() {
        return Err(bad("its weight_map names no tensor".into()));
    }
    if let Some(shard) =
        parsed.weight_map.values().find(|shard| Path::new(shard).file_name().and_then(|n| n.to_str()) != Some(shard))
    {
        return Err(bad(format!("shard {shard:?} is not a file name beside the index")));
    }
    Ok(parsed.weight_map)
}

/// The shard files the index `index` names, sorted, each once.
pub(crate) fn shard_files(index: &Path) -> Result<Vec<String>> {
    let map = read_index(index)?;
    let files: BTreeSet<String> = map.into_values().collect();
    Ok(files.into_iter().collect())
}

/// Every tensor of the sharded checkpoint whose index is `index`, read shard by shard with
/// `read_file` (names as the shards hold them). A missing shard and a tensor the index
/// places in a shard that lacks it are errors naming the shard.
pub(crate) fn read_sharded(
    index: &Path,
    read_file: impl Fn(&Path) -> Result<Vec<(String, Tensor)>>,
) -> Result<Vec<(String, Tensor)>> {
    let map = read_index(index)?;
    let shards: BTreeSet<&str> = map.values().map(String::as_str).collect();
    let dir = index.parent().unwrap_or(Path::new("."));
    let mut tensors = Vec::new();
    for shard in shards {
        let path = dir.join(shard);
        let bad = |message: String| ModelError::Weights { path: path.clone(), message };
        if !path.is_file() {
            return Err(bad(format!("missing: {} names it", index.display())));
        }
        let read = read_file(&path)?;
        let held: BTreeSet<&str> = read.iter().map(|(name, _)| name.as_str()).collect();
        if let Some(name) = map.iter().find(|(name, file)| file.as_str() == shard && !held.contains(name.as_str())) {
            return Err(bad(format!("lacks tensor {:?}, which {} places in it", name.0, index.display())));
        }
        tensors.extend(read);
    }
    Ok(tensors)
}
