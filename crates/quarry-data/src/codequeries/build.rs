//! `quarry dataset codequeries`: the whole build, streaming and resumable.
//!
//! Files are processed in sorted order, in chunks, in parallel. Each chunk's
//! examples go to a shard file written atomically under `OUT/.shards/`; a
//! rerun skips chunks whose shard exists, so an interrupted build resumes
//! without duplicating examples. Once every chunk is done, the shards are
//! streamed into one file per setting and split (optionally gzip), with the
//! limited-budget sample applied to the ideal training split, and the
//! statistics are written. Memory does not grow with the corpus: only one
//! chunk's examples are held at a time. The temporary files of a run killed
//! while writing are removed by the next.

use std::io::BufRead;
use std::path::{Path, PathBuf};

use quarry_query::project::Project;
use quarry_query::report::analyze_parsed_in;
use quarry_query::{Polarity, Query};
use quarry_stdx::rng::stable_hash;
use quarry_stdx::AtomicFile;
use quarry_syntax::corpus::source_files;
use quarry_syntax::{code_blocks, Deadline, Language, LoadOptions, ParsedFile, SourceFile, DEFAULT_MAX_DEPTH};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use super::examples::file_examples;
use super::labels::Subtokenizer;
use super::schema::label;
use super::selection::{select, Candidate, Negatives};
use super::split::{split_of, Ratios, Split};
use super::stats::DatasetStats;
use crate::error::DataError;
use crate::jsonl::open_lines;

/// The three settings written: ideal blocks, whole files, and relevance rows.
pub const SETTINGS: [&str; 3] = ["ideal", "file_ideal", "twostep"];

/// What to build.
pub struct BuildOptions {
    /// Corpus root (`.py` files found recursively, honouring `.gitignore`).
    pub corpus: PathBuf,
    /// Output directory.
    pub out: PathBuf,
    /// Queries to run, positive and negative.
    pub queries: Vec<&'static Query>,
    /// Tokenizer for subtokens and labels; none writes examples without them.
    pub tokenizer: Option<Subtokenizer>,
    /// Maximum subtoken length (pruning).
    pub max_len: usize,
    /// Split ratios.
    pub ratios: Ratios,
    /// Seed for the split and the budget sample.
    pub seed: u64,
    /// Keep at most this many ideal training examples per query, half
    /// positive and half negative.
    pub budget: Option<usize>,
    /// How many negative examples to keep per query and split.
    pub negatives: Negatives,
    /// What to do with a positive ideal example whose answer spans were all cut by
    /// `max_len`.
    pub cut_positives: CutPositives,
    /// Write `.jsonl.gz` instead of `.jsonl`.
    pub gzip: bool,
    /// Files per chunk (and per shard).
    pub chunk_size: usize,
    /// Files larger than this are skipped with an error.
    pub max_file_bytes: u64,
    /// Time allowed per file; a file that takes longer is skipped with an
    /// error. `None`: no limit (the output then depends on nothing but the
    /// input).
    pub time_budget: Option<std::time::Duration>,
}

/// What to do with a positive ideal example whose answer spans all lie beyond `max_len`
/// subtokens. The reference code keeps it (its training and evaluation truncate the labels,
/// so the example becomes a positive without answers, scored as an empty prediction);
/// quarry drops it by default and counts it, so that no such example is silent.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
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
#[derive(Debug, Default, Serialize)]
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
}

#[derive(Serialize, Deserialize)]
struct ShardLine {
    setting: String,
    split: Split,
    #[serde(default)]
    query: String,
    #[serde(default)]
    positive: bool,
    /// The source file, relative to the corpus.
    #[serde(default)]
    file: String,
    record: serde_json::Value,
}

/// The setting of a shard line that stands for a positive dropped because `max_len` cut
/// all its answer spans; its record holds the span counts.
const CUT: &str = "cut";

/// Runs the build. `progress(done, total)` is called after each chunk.
pub fn build(options: &BuildOptions, progress: &(dyn Fn(usize, usize) + Sync)) -> Result<BuildSummary, DataError> {
    let (files, walk_errors) = source_files(std::slice::from_ref(&options.corpus), Language::Python);
    let mut summary = BuildSummary { files: files.len(), failed_files: walk_errors, ..Default::default() };
    let shards_dir = options.out.join(".shards");
    std::fs::create_dir_all(&shards_dir).map_err(|e| DataError::io(&shards_dir, e))?;
    remove_stale_temporaries(options, &shards_dir)?;
    let chunks: Vec<&[PathBuf]> = files.chunks(options.chunk_size.max(1)).collect();
    // The corpus is one project: imported classes resolve across its files.
    let project = Project::new(&files, &LoadOptions { max_file_bytes: options.max_file_bytes });
    let mut shard_paths = Vec::new();
    let mut done = 0;
    for chunk in &chunks {
        let key = chunk.iter().map(|p| p.display().to_string()).collect::<Vec<_>>().join("\n");
        // v2: shard lines name their file; cut positives are lines of their own.
        let fingerprint = format!(
            "v2\n{key}\n{}\n{}\n{}\n{:?}",
            options.max_len,
            options.seed,
            query_ids(&options.queries),
            options.cut_positives
        );
        // Shards are compressed like the outputs: a corpus's shards can be several gigabytes.
        let extension = if options.gzip { "jsonl.gz" } else { "jsonl" };
        let shard = shards_dir.join(format!("{:016x}.{extension}", stable_hash(&fingerprint)));
        if shard.exists() {
            summary.resumed_chunks += 1;
        } else {
            let failures = write_shard(options, &project, chunk, &shard)?;
            summary.failed_files.extend(failures);
        }
        shard_paths.push(shard);
        done += chunk.len();
        progress(done, files.len());
    }
    if summary.resumed_chunks > 0 {
        // Failures of resumed chunks were recorded in their shards.
        summary.failed_files.extend(read_failures(&shard_paths)?);
        summary.failed_files.sort();
        summary.failed_files.dedup();
    }
    merge(options, &shard_paths, &mut summary)?;
    let stats_path = options.out.join("stats.json");
    let mut stats_file = AtomicFile::create(&stats_path)?;
    let json = serde_json::to_vec_pretty(&summary).map_err(|e| DataError::Invalid(e.to_string()))?;
    stats_file.write_all(&json)?;
    stats_file.commit()?;
    let mut table = AtomicFile::create(&options.out.join("stats.txt"))?;
    table.write_all(summary.stats.render().as_bytes())?;
    table.commit()?;
    std::fs::remove_dir_all(&shards_dir).map_err(|e| DataError::io(&shards_dir, e))?;
    Ok(summary)
}

/// Removes the temporary files a killed earlier run left behind (an
/// [`AtomicFile`] is written as `.NAME.TAG.tmp` beside its target and removed
/// when dropped, which a killed process never does): those of this build's
/// outputs in the output folder, and every one in the shard folder, which is
/// the build's own. A rerun would otherwise keep them beside its outputs for
/// good. One build writes to an output folder at a time.
fn remove_stale_temporaries(options: &BuildOptions, shards_dir: &Path) -> Result<(), DataError> {
    let extension = if options.gzip { "jsonl.gz" } else { "jsonl" };
    let mut outputs: Vec<String> = vec!["stats.json".into(), "stats.txt".into()];
    for setting in SETTINGS {
        for split in Split::ALL {
            outputs.push(format!("{setting}_{}.{extension}", split.name()));
        }
    }
    let is_temporary_of = |name: &str, target: &str| {
        name.strip_prefix('.')
            .and_then(|rest| rest.strip_prefix(target))
            .is_some_and(|tag| tag.starts_with('.') && tag.ends_with(".tmp"))
    };
    for (dir, own) in [(options.out.as_path(), false), (shards_dir, true)] {
        let entries = std::fs::read_dir(dir).map_err(|e| DataError::io(dir, e))?;
        for entry in entries {
            let entry = entry.map_err(|e| DataError::io(dir, e))?;
            let name = entry.file_name().to_string_lossy().into_owned();
            let stale = if own {
                name.starts_with('.') && name.ends_with(".tmp")
            } else {
                outputs.iter().any(|target| is_temporary_of(&name, target))
            };
            if stale && entry.file_type().is_ok_and(|t| t.is_file()) {
                std::fs::remove_file(entry.path()).map_err(|e| DataError::io(entry.path(), e))?;
            }
        }
    }
    Ok(())
}

fn query_ids(queries: &[&'static Query]) -> String {
    queries.iter().map(|q| q.meta.id).collect::<Vec<_>>().join(",")
}

fn relative_path(corpus: &Path, path: &Path) -> String {
    path.strip_prefix(corpus).unwrap_or(path).display().to_string()
}

/// Processes one chunk of files and writes its shard atomically. Files are
/// analysed in parallel a few at a time and each window's lines are written
/// before the next starts, so memory holds only the files in flight, each as
/// compact JSON text.
fn write_shard(
    options: &BuildOptions,
    project: &Project,
    chunk: &[PathBuf],
    shard: &Path,
) -> Result<Vec<String>, DataError> {
    let load = LoadOptions { max_file_bytes: options.max_file_bytes };
    let mut file = AtomicFile::create(shard)?;
    let mut failures = Vec::new();
    let window = rayon::current_num_threads().max(1) * 2;
    for files in chunk.chunks(window) {
        let results: Vec<Result<Vec<u8>, String>> =
            files.par_iter().map(|path| process_file(options, project, path, &load)).collect();
        for result in results {
            match result {
                Ok(lines) => file.write_all(&lines)?,
                Err(message) => {
                    file.write_json_line(&ShardLine {
                        setting: "error".into(),
                        split: Split::Train,
                        query: String::new(),
                        positive: false,
                        file: String::new(),
                        record: message.clone().into(),
                    })?;
                    failures.push(message);
                }
            }
        }
    }
    file.commit()?;
    Ok(failures)
}

/// The shard lines of one file, as JSON Lines text.
fn process_file(options: &BuildOptions, project: &Project, path: &Path, load: &LoadOptions) -> Result<Vec<u8>, String> {
    let deadline = Deadline::new(options.time_budget);
    let source = SourceFile::load(path, load).map_err(|e| e.to_string())?;
    let file = ParsedFile::parse_within(source, Language::Python, &deadline).map_err(|e| e.to_string())?;
    let queries = options.queries.clone();
    let (project, within) = (project.clone(), deadline.clone());
    let (file, report) = deadline
        .run_bounded(path, "running queries", move || {
            let polarities = [Polarity::Positive, Polarity::Negative];
            let report = analyze_parsed_in(&project, &file, &queries, &polarities, DEFAULT_MAX_DEPTH, &within)?;
            Ok((file, report))
        })
        .map_err(|e| e.to_string())?;
    let blocks = code_blocks(&file);
    let relative = relative_path(&options.corpus, path);
    let split = split_of(&relative, options.ratios, options.seed);
    let mut examples = file_examples(&file, &blocks, &relative, &report.findings);
    drop(report);
    let mut lines = Vec::new();
    let mut cache = super::labels::TokenCache::default();
    let mut push = |line: ShardLine| -> Result<(), String> {
        serde_json::to_writer(&mut lines, &line).map_err(|e| format!("{}: {e}", path.display()))?;
        lines.push(b'\n');
        Ok(())
    };
    let to_value = |v: &dyn erased::Record| v.to_value();
    for (setting, list) in [("ideal", &mut examples.ideal), ("file_ideal", &mut examples.file_level)] {
        for example in list.iter_mut() {
            if let Some(tokenizer) = &options.tokenizer {
                tokenizer
                    .label_example_cached(example, options.max_len, &mut cache)
                    .map_err(|e| format!("{}: {e}", path.display()))?;
            }
            if setting == "ideal" && options.tokenizer.is_some() && answers_all_cut(example) {
                let dropped = options.cut_positives == CutPositives::Drop;
                push(ShardLine {
                    setting: CUT.into(),
                    split,
                    query: example.query_name.clone(),
                    positive: true,
                    file: relative.clone(),
                    record: serde_json::json!({
                        "answer_spans": example.answer_spans.len(),
                        "fact_spans": example.supporting_fact_spans.len(),
                        "dropped": dropped,
                    }),
                })?;
                if dropped {
                    continue;
                }
            }
            push(ShardLine {
                setting: setting.into(),
                split,
                query: example.query_name.clone(),
                positive: example.example_type == 1,
                file: relative.clone(),
                record: to_value(example),
            })?;
        }
        list.clear();
        list.shrink_to_fit();
    }
    for row in &mut examples.relevance {
        if let Some(tokenizer) = &options.tokenizer {
            tokenizer.tokenize_row(row, options.max_len, &mut cache).map_err(|e| format!("{}: {e}", path.display()))?;
        }
        push(ShardLine {
            setting: "twostep".into(),
            split,
            query: row.query_name.clone(),
            positive: row.relevance_label == 1,
            file: relative.clone(),
            record: to_value(row),
        })?;
    }
    Ok(lines)
}

/// Whether `example` is a positive whose labels, pruned to the maximum length, hold no
/// answer span any more (a `B` label starts every answer span).
fn answers_all_cut(example: &super::schema::Example) -> bool {
    example.example_type == 1
        && !example.answer_spans.is_empty()
        && !example.label_sequence.is_empty()
        && !example.label_sequence.contains(&label::B)
}

/// Serialisation of the record types behind one trait object.
mod erased {
    /// A record that becomes a JSON value.
    pub trait Record {
        /// The record as JSON.
        fn to_value(&self) -> serde_json::Value;
    }

    impl<T: serde::Serialize> Record for T {
        fn to_value(&self) -> serde_json::Value {
            serde_json::to_value(self).unwrap_or(serde_json::Value::Null)
        }
    }
}

fn for_each_line(
    shards: &[PathBuf],
    mut visit: impl FnMut(ShardLine) -> Result<(), DataError>,
) -> Result<(), DataError> {
    for shard in shards {
        let reader = open_lines(shard)?;
        for (number, line) in reader.lines().enumerate() {
            let line = line.map_err(|e| DataError::io(shard, e))?;
            let parsed: ShardLine = serde_json::from_str(&line).map_err(|e| DataError::BadRecord {
                path: shard.clone(),
                line: number + 1,
                message: e.to_string(),
            })?;
            visit(parsed)?;
        }
    }
    Ok(())
}

fn read_failures(shards: &[PathBuf]) -> Result<Vec<String>, DataError> {
    let mut failures = Vec::new();
    for_each_line(shards, |line| {
        if line.setting == "error" {
            failures.push(line.record.as_str().unwrap_or_default().to_string());
        }
        Ok(())
    })?;
    Ok(failures)
}

/// Writes the selected examples of every shard into one file per setting and split, and
/// counts them. A first pass reads who is where (query, split, polarity, file) and the cut
/// positives; [`select`] decides; a second pass writes.
fn merge(options: &BuildOptions, shards: &[PathBuf], summary: &mut BuildSummary) -> Result<(), DataError> {
    let mut candidates = Vec::new();
    for_each_line(shards, |line| {
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
    let selection = select(&candidates, options.negatives, options.budget, options.seed);
    drop(candidates);
    for ((query, split), count) in &selection.candidate_negatives {
        summary.stats.add_candidates(query, split, *count);
    }
    let extension = if options.gzip { "jsonl.gz" } else { "jsonl" };
    let mut outputs = Vec::new();
    for setting in SETTINGS {
        for split in Split::ALL {
            let path = options.out.join(format!("{setting}_{}.{extension}", split.name()));
            outputs.push(((setting, split), path.clone(), AtomicFile::create(&path)?, 0usize));
        }
    }
    let mut ideal_index = 0;
    for_each_line(shards, |line| {
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
        if let Some((_, _, file, count)) =
            outputs.iter_mut().find(|((setting, split), _, _, _)| *setting == line.setting && *split == line.split)
        {
            file.write_json_line(&line.record)?;
            *count += 1;
        }
        Ok(())
    })?;
    for ((setting, split), path, file, count) in outputs {
        file.commit()?;
        summary.bytes_written += std::fs::metadata(&path).map_err(|e| DataError::io(&path, e))?.len();
        summary.written.insert(format!("{setting}_{}", split.name()), count);
    }
    summary.bytes_per_file = summary.bytes_written as f64 / summary.files.max(1) as f64;
    Ok(())
}
