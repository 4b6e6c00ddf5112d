//! The manifest a shard of a CodeQueries build writes when it is done
//! (`OUT/manifests/shard-{I:05}-of-{N:05}.json`, atomically): its inputs, the candidate
//! files it wrote with their sizes and hashes, its counts, the quarry version and every
//! option that changes the rows. A shard whose manifest is present with the same
//! settings is finished, and a rerun does nothing; `finalize` checks that the N
//! manifests are all present and agree.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::candidates::CutPositives;
use crate::error::DataError;
use crate::hub::Format;
use crate::shard::Shard;

/// The options that decide a build's rows and files; every shard of one dataset has the same.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Settings {
    /// Query ids, in order, comma-separated.
    pub queries: String,
    /// Stable hash of the tokenizer's JSON (none: no sub-tokens or labels).
    pub tokenizer: Option<String>,
    /// Maximum sub-token length.
    pub max_len: usize,
    /// Split ratios train, valid, test.
    pub ratios: [f64; 3],
    /// Seed of the split and the samples.
    pub seed: u64,
    /// Training examples kept per query.
    pub budget: Option<usize>,
    /// Negatives kept per query and split (`paper`, `all` or a ratio).
    pub negatives: String,
    /// What happens to positives whose answers `max_len` cuts.
    pub cut_positives: CutPositives,
    /// Format of the dataset's files.
    pub format: Format,
    /// JSON Lines compressed.
    pub gzip: bool,
    /// Files larger than this are skipped.
    pub max_file_bytes: u64,
    /// Milliseconds allowed per file (none: no limit).
    pub time_budget_ms: Option<u64>,
}

/// One candidate file of a shard (under `OUT/.shards`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Chunk {
    /// Its file name.
    pub file: String,
    /// Its size in bytes.
    pub bytes: u64,
    /// Stable FNV-1a hash of its bytes, hexadecimal.
    pub hash: String,
}

/// What a finished shard built.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Manifest {
    /// The version of quarry that built it.
    pub quarry_version: String,
    /// Which shard.
    pub shard: Shard,
    /// The options that decide the rows.
    pub settings: Settings,
    /// Source files of the whole corpus (every shard).
    pub corpus_files: usize,
    /// Stable hash of the whole corpus's relative paths, sorted, hexadecimal.
    pub corpus_hash: String,
    /// This shard's source files, relative to the corpus, in build order.
    pub inputs: Vec<String>,
    /// Its candidate files, in order.
    pub chunks: Vec<Chunk>,
    /// Candidate rows per setting (before negatives are sampled), and `cut` positives.
    pub counts: BTreeMap<String, usize>,
    /// Files that could not be built, with the reason.
    pub failed_files: Vec<String>,
}

impl Manifest {
    /// Where the manifest of `shard` lives in the output directory `out`.
    pub fn path(out: &Path, shard: Shard) -> PathBuf {
        manifests_dir(out).join(format!("shard-{}.json", shard.suffix()))
    }

    /// Reads a manifest; an error names the file.
    pub fn read(path: &Path) -> Result<Manifest, DataError> {
        let bytes = std::fs::read(path).map_err(|e| DataError::io(path, e))?;
        serde_json::from_slice(&bytes)
            .map_err(|e| DataError::Invalid(format!("{}: not a shard manifest: {e}", path.display())))
    }

    /// Writes the manifest atomically.
    pub fn write(&self, out: &Path) -> Result<(), DataError> {
        let json = serde_json::to_vec_pretty(self).map_err(|e| DataError::Invalid(e.to_string()))?;
        Ok(quarry_stdx::atomic::write_atomically(&Manifest::path(out, self.shard), &json)?)
    }

    /// The reason this manifest cannot be finalized with `first`'s, if any.
    pub fn disagreement(&self, first: &Manifest) -> Option<String> {
        if self.quarry_version != first.quarry_version {
            Some(format!("quarry {} (the others: {})", self.quarry_version, first.quarry_version))
        } else if self.settings != first.settings {
            Some(format!(
                "other options: {} (the others: {})",
                serde_json::to_string(&self.settings).unwrap_or_default(),
                serde_json::to_string(&first.settings).unwrap_or_default()
            ))
        } else if self.corpus_hash != first.corpus_hash || self.corpus_files != first.corpus_files {
            Some(format!(
                "another corpus: {} files, hash {} (the others: {} files, hash {})",
                self.corpus_files, self.corpus_hash, first.corpus_files, first.corpus_hash
            ))
        } else {
            None
        }
    }
}

/// The folder of the manifests in an output directory.
pub fn manifests_dir(out: &Path) -> PathBuf {
    out.join("manifests")
}

/// Every `shard-*.json` manifest in `out`, sorted by file name.
pub fn read_all(out: &Path) -> Result<Vec<(PathBuf, Manifest)>, DataError> {
    let paths = crate::shard::manifest_files(out, "shard-")?;
    paths.into_iter().map(|p| Manifest::read(&p).map(|m| (p, m))).collect()
}
