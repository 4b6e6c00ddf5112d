//! `quarry dataset finalize DIR`: the dataset from the candidates of every shard.
//!
//! The N shard manifests must all be present, once each, and agree (quarry version,
//! options, corpus, N); every problem is named. Negatives are then sampled per query and
//! split over all shards' candidates ([`select`], independent of N and of the order of the
//! input), and each shard's selected rows go to its own files
//! (`data/{setting}/{split}-{I:05}-of-{N:05}.parquet`, or JSON Lines), so the rows of N
//! shards are the rows of one. Last come the statistics (`stats.json`, `stats.txt`) and
//! the dataset card (`README.md`); the candidates are then removed.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use quarry_stdx::rng::stable_hash;
use quarry_stdx::AtomicFile;

use super::candidates::{for_each_line, BuildSummary, ShardLine, CUT, SETTINGS};
use super::columns::schema_of;
use super::manifest::{read_all, Manifest};
use super::selection::{select, Candidate, Negatives};
use super::split::Split;
use crate::error::DataError;
use crate::hub::Layout;
use crate::records::RecordSink;
use crate::shard::{set_problems, Found, Shard};
use crate::temporaries::remove_temporaries_of;

/// Writes the dataset of the shards built in `out`. `None`: it was written already from
/// the same manifests (a rerun does nothing).
pub fn finalize(out: &Path) -> Result<Option<BuildSummary>, DataError> {
    let manifests = checked_manifests(out)?;
    let fingerprint = fingerprint(&manifests);
    let stats_path = out.join("stats.json");
    if already_written(&stats_path, &fingerprint) {
        return Ok(None);
    }
    let first = &manifests[0];
    let settings = &first.settings;
    let negatives: Negatives = settings.negatives.parse().map_err(DataError::Invalid)?;
    let layout = Layout { format: settings.format, gzip: settings.gzip, shards: first.shard.count };
    let shards_dir = out.join(".shards");
    let chunks: Vec<Vec<PathBuf>> = manifests
        .iter()
        .map(|m| {
            m.chunks
                .iter()
                .map(|chunk| {
                    let path = shards_dir.join(&chunk.file);
                    match std::fs::metadata(&path) {
                        Ok(meta) if meta.len() == chunk.bytes => Ok(path),
                        _ => Err(DataError::Invalid(format!(
                            "shard {}: its candidate file {} is missing or changed; remove {} and rerun the shard",
                            m.shard,
                            path.display(),
                            Manifest::path(out, m.shard).display()
                        ))),
                    }
                })
                .collect()
        })
        .collect::<Result<_, _>>()?;
    let mut summary = BuildSummary { files: first.corpus_files, manifests: fingerprint, ..Default::default() };
    summary.failed_files = manifests.iter().flat_map(|m| m.failed_files.iter().cloned()).collect();
    summary.failed_files.sort();
    summary.failed_files.dedup();

    let all_chunks: Vec<PathBuf> = chunks.iter().flatten().cloned().collect();
    let mut candidates = Vec::new();
    for_each_line(&all_chunks, |line| {
        match line.setting.as_str() {
            "ideal" => candidates.push(Candidate {
                query: line.query,
                split: line.split,
                positive: line.positive,
                file: line.file,
            }),
            CUT => summary.stats.add_cut(&line.query, line.split, &line.record),
            _ => {}
        }
        Ok(())
    })?;
    let budget = settings.budget;
    let selection = select(&candidates, negatives, budget, settings.seed);
    drop(candidates);
    for ((query, split), count) in &selection.candidate_negatives {
        summary.stats.add_candidates(query, split, *count);
    }

    for name in ["stats.json", "stats.txt", "README.md"] {
        remove_temporaries_of(out, name)?;
    }
    for setting in SETTINGS {
        for split in Split::ALL {
            layout.remove_stale_files(out, setting, split.name())?;
        }
    }
    let mut ideal_index = 0;
    for (manifest, shard_chunks) in manifests.iter().zip(&chunks) {
        let mut outputs: HashMap<(&'static str, Split), (PathBuf, RecordSink, usize)> = HashMap::new();
        for setting in SETTINGS {
            for split in Split::ALL {
                let path = layout.data_file(out, setting, split.name(), manifest.shard);
                if let (Some(dir), Some(name)) = (path.parent(), path.file_name()) {
                    remove_temporaries_of(dir, &name.to_string_lossy())?;
                }
                let sink = RecordSink::create(&path, schema_of(setting))?;
                outputs.insert((setting, split), (path, sink, 0));
            }
        }
        for_each_line(shard_chunks, |line: ShardLine| {
            let keep = match line.setting.as_str() {
                "ideal" => {
                    ideal_index += 1;
                    selection.keep[ideal_index - 1]
                }
                "file_ideal" => line.positive || selection.keeps_file(&line.query, &line.file),
                "twostep" => selection.keeps_file(&line.query, &line.file),
                _ => false,
            };
            if !keep {
                return Ok(());
            }
            if line.setting == "ideal" {
                if let Ok(example) = serde_json::from_value::<super::schema::Example>(line.record.clone()) {
                    summary.stats.add(&example, line.split);
                }
            }
            let setting = SETTINGS.iter().find(|s| **s == line.setting);
            if let Some((_, sink, count)) = setting.and_then(|s| outputs.get_mut(&(*s, line.split))) {
                sink.push(line.record)?;
                *count += 1;
            }
            Ok(())
        })?;
        for setting in SETTINGS {
            for split in Split::ALL {
                let Some((path, sink, count)) = outputs.remove(&(setting, split)) else { continue };
                sink.commit()?;
                summary.bytes_written += std::fs::metadata(&path).map_err(|e| DataError::io(&path, e))?.len();
                *summary.written.entry(format!("{setting}_{}", split.name())).or_default() += count;
            }
        }
    }
    summary.bytes_per_file = summary.bytes_written as f64 / summary.files.max(1) as f64;

    let json = serde_json::to_vec_pretty(&summary).map_err(|e| DataError::Invalid(e.to_string()))?;
    let mut table = AtomicFile::create(&out.join("stats.txt"))?;
    table.write_all(summary.stats.render().as_bytes())?;
    table.commit()?;
    let splits: Vec<&str> = Split::ALL.iter().map(|s| s.name()).collect();
    let written = &summary.written;
    let has_rows = |setting: &str, split: &str| written.get(&format!("{setting}_{split}")).is_some_and(|n| *n > 0);
    let card = layout.dataset_card(&SETTINGS, &splits, &has_rows, &card_body(&summary, first));
    quarry_stdx::atomic::write_atomically(&out.join("README.md"), card.as_bytes())?;
    // stats.json last: its fingerprint marks the dataset as written.
    quarry_stdx::atomic::write_atomically(&stats_path, &json)?;
    match std::fs::remove_dir_all(&shards_dir) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => return Err(DataError::io(&shards_dir, e)),
    }
    Ok(Some(summary))
}

/// The manifests of `out` in shard order, once it is sure that they are all there, once
/// each, and agree; otherwise an error naming every missing, duplicated or mismatched shard.
fn checked_manifests(out: &Path) -> Result<Vec<Manifest>, DataError> {
    let found = read_all(out)?;
    let Some((_, first)) = found.first() else {
        return Err(DataError::Invalid(format!(
            "{}: no shard manifests (build the shards first with `quarry dataset codequeries --shard I/N`)",
            super::manifest::manifests_dir(out).display()
        )));
    };
    let manifests: Vec<Found> = found
        .iter()
        .map(|(path, m)| Found { path: path.clone(), shard: m.shard, disagreement: m.disagreement(first) })
        .collect();
    let mut problems = set_problems(&manifests, &|shard| Manifest::path(out, shard));
    if problems.is_empty() {
        let mut owner: HashMap<&str, Shard> = HashMap::new();
        for (_, manifest) in &found {
            for input in &manifest.inputs {
                if let Some(other) = owner.insert(input, manifest.shard) {
                    problems.push(format!("{input} is in shard {other} and in shard {}", manifest.shard));
                }
            }
        }
    }
    if !problems.is_empty() {
        return Err(DataError::Invalid(format!("cannot finalize {}:\n  {}", out.display(), problems.join("\n  "))));
    }
    let mut manifests: Vec<Manifest> = found.into_iter().map(|(_, m)| m).collect();
    manifests.sort_by_key(|m| m.shard.index);
    Ok(manifests)
}

/// A stable hash of the manifests: what `stats.json` records of the shards it was written from.
fn fingerprint(manifests: &[Manifest]) -> String {
    let text: Vec<String> = manifests.iter().map(|m| serde_json::to_string(m).unwrap_or_default()).collect();
    format!("{:016x}", stable_hash(&text.join("\n")))
}

/// The summary of the dataset written in `out`, read back from its `stats.json`.
pub fn written_summary(out: &Path) -> Result<BuildSummary, DataError> {
    let path = out.join("stats.json");
    let text = quarry_stdx::read::read_text(&path, quarry_stdx::read::MAX_TEXT_FILE_BYTES)
        .map_err(|e| DataError::io(&path, e.source))?;
    serde_json::from_str(&text).map_err(|e| DataError::Invalid(format!("{}: {e}", path.display())))
}

/// Whether `stats` holds `fingerprint`: the dataset was written from these manifests.
fn already_written(stats: &Path, fingerprint: &str) -> bool {
    std::fs::read(stats)
        .ok()
        .and_then(|bytes| serde_json::from_slice::<serde_json::Value>(&bytes).ok())
        .is_some_and(|v| v.get("manifests").and_then(|m| m.as_str()) == Some(fingerprint))
}

/// The Markdown of the dataset card after its YAML header.
fn card_body(summary: &BuildSummary, manifest: &Manifest) -> String {
    let mut body = String::from(
        "# CodeQueries examples built by quarry\n\n\
         Examples in the schema of the CodeQueries dataset (Sahu et al.), built with \
         `quarry dataset codequeries`: `ideal` (the blocks each answer needs), `file_ideal` (whole \
         files) and `twostep` (one row per block, for the relevance classifier).\n\n\
         | config | train | valid | test |\n|---|---:|---:|---:|\n",
    );
    for setting in SETTINGS {
        let counts: Vec<String> = Split::ALL
            .iter()
            .map(|split| summary.written.get(&format!("{setting}_{}", split.name())).copied().unwrap_or(0).to_string())
            .collect();
        body.push_str(&format!("| {setting} | {} |\n", counts.join(" | ")));
    }
    body.push_str(&format!(
        "\n{} source files in {} shard(s), quarry {}. Options:\n\n```json\n{}\n```\n",
        summary.files,
        manifest.shard.count,
        manifest.quarry_version,
        serde_json::to_string_pretty(&manifest.settings).unwrap_or_default()
    ));
    body
}
