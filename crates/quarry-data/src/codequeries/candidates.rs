//! The candidate rows a shard writes and finalize reads: every example of a shard's files
//! before negatives are sampled (which needs every shard), with what selection must know of
//! each, and what a build reports.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use super::split::Split;
use super::stats::DatasetStats;
use crate::error::DataError;
use crate::jsonl::{open_lines, stream_records};

/// The three settings written: ideal blocks, whole files, and relevance rows.
pub const SETTINGS: [&str; 3] = ["ideal", "file_ideal", "twostep"];

/// What to do with a positive ideal example whose answer spans all lie beyond `max_len`
/// subtokens. The reference code keeps it (its training and evaluation truncate the labels,
/// so the example becomes a positive without answers, scored as an empty prediction);
/// quarry drops it by default and counts it, so that no such example is silent.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CutPositives {
    /// Leave it out of the ideal setting and count it in the statistics.
    #[default]
    Drop,
    /// Keep it, as the reference code does; it is counted all the same.
    Keep,
}

impl std::str::FromStr for CutPositives {
    type Err = String;

    /// Parses `drop` or `keep`.
    fn from_str(text: &str) -> Result<CutPositives, String> {
        match text {
            "drop" => Ok(CutPositives::Drop),
            "keep" => Ok(CutPositives::Keep),
            _ => Err(format!("cut positives `{text}`: expected `drop` or `keep`")),
        }
    }
}

/// What a build did.
#[derive(Debug, Default, Serialize, Deserialize)]
pub struct BuildSummary {
    /// Python files found.
    pub files: usize,
    /// Files that could not be loaded (reported, skipped).
    pub failed_files: Vec<String>,
    /// Chunks reused from an earlier, interrupted run.
    pub resumed_chunks: usize,
    /// Examples written per setting and split.
    pub written: std::collections::BTreeMap<String, usize>,
    /// Bytes of the example files written (all settings and splits).
    pub bytes_written: u64,
    /// `bytes_written` per Python file found.
    pub bytes_per_file: f64,
    /// Statistics of the ideal setting.
    pub stats: DatasetStats,
    /// Stable hash of the shard manifests the dataset was written from.
    pub manifests: String,
    /// The dataset was written already from the same files and options: nothing was done.
    #[serde(skip)]
    pub unchanged: bool,
}

/// One candidate row of a chunk file: a record with what selection needs to know of it.
#[derive(Serialize, Deserialize)]
pub(super) struct ShardLine {
    pub(super) setting: String,
    pub(super) split: Split,
    #[serde(default)]
    pub(super) query: String,
    #[serde(default)]
    pub(super) positive: bool,
    /// The source file, relative to the corpus.
    #[serde(default)]
    pub(super) file: String,
    pub(super) record: serde_json::Value,
}

/// The setting of a shard line that stands for a positive dropped because `max_len` cut
/// all its answer spans; its record holds the span counts.
pub(super) const CUT: &str = "cut";

/// Calls `visit` with every line of the candidate files `shards`, in order.
pub(super) fn for_each_line(
    shards: &[PathBuf],
    mut visit: impl FnMut(ShardLine) -> Result<(), DataError>,
) -> Result<(), DataError> {
    for shard in shards {
        for item in stream_records::<ShardLine>(open_lines(shard)?, shard) {
            let (line, parsed) = item?;
            let parsed =
                parsed.map_err(|e| DataError::BadRecord { path: shard.clone(), line, message: e.to_string() })?;
            visit(parsed)?;
        }
    }
    Ok(())
}
