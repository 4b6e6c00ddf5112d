//! `quarry dataset codequeries`: the build of one shard, streaming and resumable.
//!
//! The corpus's files are sorted by relative path and partitioned by a stable hash of it
//! (`--shard I/N`, [`Shard`]); a shard processes its files in chunks, in parallel. Each
//! chunk's candidate rows (every example found, before negatives are sampled) go to a
//! chunk file written atomically under `OUT/.shards/`; a rerun skips chunks whose file
//! exists, so an interrupted shard resumes without duplicating rows, and a finished shard
//! (its manifest written last) is not run again. [`finalize`](super::finalize) then
//! samples negatives over every shard's candidates and writes the dataset. Memory does not
//! grow with the corpus: only one chunk's examples are held at a time.

use std::path::{Path, PathBuf};

use quarry_query::project::Project;
use quarry_query::report::analyze_parsed_in;
use quarry_query::{Polarity, Query};
use quarry_stdx::rng::{stable_hash, stable_hash_bytes};
use quarry_stdx::AtomicFile;
use quarry_syntax::{code_blocks, Deadline, Language, LoadOptions, ParsedFile, SourceFile, DEFAULT_MAX_DEPTH};
use rayon::prelude::*;

use super::candidates::{for_each_line, ShardLine, CUT};
pub use super::candidates::{BuildSummary, CutPositives, SETTINGS};
use super::examples::file_examples_within;
use super::labels::Subtokenizer;
use super::manifest::{Chunk, Manifest, Settings};
use super::schema::label;
use super::selection::Negatives;
use super::split::{split_of, Ratios, Split};
use crate::error::DataError;
use crate::hub::Format;
use crate::shard::{input_files, relative_path, Shard};
use crate::temporaries::remove_temporaries_of;

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
    /// Write `.jsonl.gz` instead of `.jsonl` (JSON Lines format).
    pub gzip: bool,
    /// The format of the dataset's files.
    pub format: Format,
    /// The part of the corpus this run builds (`--shard I/N`).
    pub shard: Shard,
    /// A file listing the corpus's files (relative to `corpus`), instead of a walk of it.
    pub files_from: Option<PathBuf>,
    /// Files per chunk (and per shard).
    pub chunk_size: usize,
    /// Files larger than this are skipped with an error.
    pub max_file_bytes: u64,
    /// Time allowed per file; a file that takes longer is skipped with an
    /// error. `None`: no limit (the output then depends on nothing but the
    /// input).
    pub time_budget: Option<std::time::Duration>,
}

/// Runs the whole build in one process: shard 0 of 1, then [`finalize`](super::finalize::finalize).
/// A rerun over the same files (same versions) and options does nothing and returns the
/// written dataset's summary (`unchanged`); one after a change rebuilds, resuming from the
/// chunks the change leaves valid. `progress(done, total)` is called after each chunk.
pub fn build(options: &BuildOptions, progress: &(dyn Fn(usize, usize) + Sync)) -> Result<BuildSummary, DataError> {
    if options.shard != Shard::default() {
        return Err(DataError::Invalid(format!(
            "build: shard {} is built with build_shard, then finalize",
            options.shard
        )));
    }
    // Another build's shards would only be refused once this one is done.
    if let Some((path, other)) = super::manifest::read_all(&options.out)?.into_iter().find(|(_, m)| m.shard.count != 1)
    {
        return Err(DataError::Invalid(format!(
            "{} holds shard {} of a build in {} shards ({}): finalize it with `quarry dataset finalize`, or \
             build into another --out",
            options.out.display(),
            other.shard,
            other.shard.count,
            path.display()
        )));
    }
    let shard = build_shard(options, progress)?;
    match super::finalize::finalize(&options.out)? {
        Some(mut summary) => {
            summary.resumed_chunks = shard.resumed_chunks;
            Ok(summary)
        }
        // Written already from the same manifest: the same files, versions and options.
        None => {
            let mut summary = super::finalize::written_summary(&options.out)?;
            summary.unchanged = true;
            Ok(summary)
        }
    }
}

/// What one shard did.
#[derive(Debug)]
pub struct ShardSummary {
    /// Its manifest.
    pub manifest: Manifest,
    /// Whether it was finished already (its manifest present with the same settings), so
    /// that nothing was done.
    pub already_done: bool,
    /// Chunks reused from an earlier, interrupted run.
    pub resumed_chunks: usize,
}

/// Builds shard `options.shard` of the corpus: the candidate rows of its files (every
/// example, before negatives are sampled, which needs every shard) in chunk files under
/// `OUT/.shards/`, then its manifest. A rerun of a finished shard does nothing; a rerun of
/// an interrupted one resumes from its finished chunks. `progress(done, total)` counts
/// this shard's files.
pub fn build_shard(
    options: &BuildOptions,
    progress: &(dyn Fn(usize, usize) + Sync),
) -> Result<ShardSummary, DataError> {
    let corpus = std::slice::from_ref(&options.corpus);
    let (files, walk_errors) = input_files(corpus, Language::Python, options.files_from.as_deref())?;
    let relative: Vec<String> = files.iter().map(|p| relative_path(corpus, p)).collect();
    // Each file's path and version: an edited file makes the corpus another one.
    let stamps: Vec<String> = files.iter().map(|p| quarry_stdx::read::file_stamp(p).unwrap_or_default()).collect();
    let identities: Vec<String> = relative.iter().zip(&stamps).map(|(r, s)| format!("{r}\t{s}")).collect();
    let corpus_hash = format!("{:016x}", stable_hash(&identities.join("\n")));
    let settings = settings_of(options);
    let manifest_path = Manifest::path(&options.out, options.shard);
    if manifest_path.exists() {
        let manifest = Manifest::read(&manifest_path)?;
        if manifest.settings == settings
            && manifest.corpus_hash == corpus_hash
            && manifest.quarry_version == env!("CARGO_PKG_VERSION")
        {
            return Ok(ShardSummary { manifest, already_done: true, resumed_chunks: 0 });
        }
    }
    let shards_dir = options.out.join(".shards");
    std::fs::create_dir_all(&shards_dir).map_err(|e| DataError::io(&shards_dir, e))?;
    // The corpus is one project: imported classes resolve across its files, whichever
    // shard builds them (the project reads a file only when an import needs it).
    let project = Project::new(&files, &LoadOptions { max_file_bytes: options.max_file_bytes });
    let corpus_files = files.len();
    let own: Vec<(PathBuf, String, String)> = files
        .into_iter()
        .zip(relative)
        .zip(stamps)
        .filter(|((_, rel), _)| options.shard.owns(rel))
        .map(|((path, rel), stamp)| (path, rel, stamp))
        .collect();
    let chunks: Vec<&[(PathBuf, String, String)]> = own.chunks(options.chunk_size.max(1)).collect();
    // Every setting the candidate rows depend on keys a chunk, beside its files' versions.
    let settings_key = serde_json::to_string(&settings).map_err(|e| DataError::Invalid(e.to_string()))?;
    let mut manifest = Manifest {
        quarry_version: env!("CARGO_PKG_VERSION").to_string(),
        shard: options.shard,
        settings,
        corpus_files,
        corpus_hash,
        inputs: own.iter().map(|(_, rel, _)| rel.clone()).collect(),
        chunks: Vec::new(),
        counts: Default::default(),
        failed_files: walk_errors,
    };
    let mut resumed_chunks = 0;
    let mut done = 0;
    for chunk in &chunks {
        let key = chunk.iter().map(|(p, _, stamp)| format!("{}\t{stamp}", p.display())).collect::<Vec<_>>().join("\n");
        // v3: the whole settings and each file's version key a chunk.
        let fingerprint = format!("v3\n{key}\n{settings_key}");
        // Candidates are compressed unless the dataset is plain JSON Lines: a corpus's
        // candidates can be several gigabytes.
        let extension = if options.gzip || options.format == Format::Parquet { "jsonl.gz" } else { "jsonl" };
        let name = format!("{:016x}.{extension}", stable_hash(&fingerprint));
        let shard = shards_dir.join(&name);
        remove_temporaries_of(&shards_dir, &name)?;
        if shard.exists() {
            resumed_chunks += 1;
        } else {
            let paths: Vec<PathBuf> = chunk.iter().map(|(p, _, _)| p.clone()).collect();
            write_shard(options, &project, &paths, &shard)?;
        }
        let bytes = std::fs::read(&shard).map_err(|e| DataError::io(&shard, e))?;
        manifest.chunks.push(Chunk {
            file: name,
            bytes: bytes.len() as u64,
            hash: format!("{:016x}", stable_hash_bytes(&bytes)),
        });
        done += chunk.len();
        progress(done, own.len());
    }
    let chunk_paths: Vec<PathBuf> = manifest.chunks.iter().map(|c| shards_dir.join(&c.file)).collect();
    for_each_line(&chunk_paths, |line| {
        if line.setting == "error" {
            manifest.failed_files.push(line.record.as_str().unwrap_or_default().to_string());
        } else {
            *manifest.counts.entry(line.setting).or_default() += 1;
        }
        Ok(())
    })?;
    manifest.write(&options.out)?;
    Ok(ShardSummary { manifest, already_done: false, resumed_chunks })
}

/// The settings a shard's manifest records.
fn settings_of(options: &BuildOptions) -> Settings {
    let ratios = options.ratios;
    Settings {
        queries: query_ids(&options.queries),
        tokenizer: options.tokenizer.as_ref().map(|t| format!("{:016x}", t.fingerprint())),
        max_len: options.max_len,
        ratios: [ratios.train, ratios.valid, ratios.test],
        seed: options.seed,
        budget: options.budget,
        negatives: options.negatives.to_string(),
        cut_positives: options.cut_positives,
        format: options.format,
        gzip: options.gzip,
        max_file_bytes: options.max_file_bytes,
        time_budget_ms: options.time_budget.map(|d| d.as_millis() as u64),
    }
}

fn query_ids(queries: &[&'static Query]) -> String {
    queries.iter().map(|q| q.meta.id).collect::<Vec<_>>().join(",")
}

/// Processes one chunk of files and writes its candidate file atomically. Files are
/// analysed in parallel a few at a time and each window's lines are written
/// before the next starts, so memory holds only the files in flight, each as
/// compact JSON text.
fn write_shard(options: &BuildOptions, project: &Project, chunk: &[PathBuf], shard: &Path) -> Result<(), DataError> {
    let load = LoadOptions { max_file_bytes: options.max_file_bytes };
    let mut file = AtomicFile::create(shard)?;
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
                        record: message.into(),
                    })?;
                }
            }
        }
    }
    file.commit()?;
    Ok(())
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
    let relative = relative_path(std::slice::from_ref(&options.corpus), path);
    let split = split_of(&relative, options.ratios, options.seed);
    let mut examples = file_examples_within(&file, &blocks, &relative, &report.findings, &deadline, path)
        .map_err(|e| e.to_string())?;
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
