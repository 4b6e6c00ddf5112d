//! A CodeQA build in shards (`quarry dataset codeqa --shard I/N`, then `quarry dataset
//! finalize OUT`), and the one-process build as shard 0 of 1 finalized at once.
//!
//! What decides a pair's place depends on nothing but the corpus-relative path of its
//! function's file, the function's line and the seed, so N shards give the rows of one
//! process for any N and any input order:
//! - a function's split is a stable hash of `path:line` (8:1:1, as the paper's split);
//! - a pair's id is `path:line:k` (its k-th pair);
//! - Yes/No balancing (paper, Section 4.4) keeps every "No" and as many "Yes" pairs, those
//!   of least stable hash of their id. The count of "No" pairs is the whole corpus's, so
//!   balancing waits for finalize, which reads every shard's candidates.
//!
//! A shard writes its candidate pairs (`OUT/.shards/codeqa-{I:05}-of-{N:05}.jsonl`) and
//! then its manifest (`OUT/manifests/codeqa-{I:05}-of-{N:05}.json`), each atomically; a
//! shard whose manifest holds the same settings and corpus is finished, and a rerun does
//! nothing. Finalize checks that the N manifests are present, once each, and agree, and
//! writes each shard's rows: the released parallel files (`{split}.code`, ...) for one
//! shard of JSON Lines, else the Hugging Face Hub layout
//! (`data/{language}/{split}-{I:05}-of-{N:05}.{parquet,jsonl}`) with a dataset card.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use arrow_schema::{DataType, Field, Schema, SchemaRef};
use quarry_stdx::rng::{stable_hash, stable_hash_bytes};
use quarry_stdx::AtomicFile;
use serde::{Deserialize, Serialize};

use super::dataset::{documented_functions_of, BuildOptions, BuildSummary, SPLITS};
use super::files::{split_path, SplitWriter, SUFFIXES};
use super::generate::{generate, CommentParser, Outcome};
use super::pair::Kind;
use crate::codequeries::split::{split_of, Ratios, Split};
use crate::error::DataError;
use crate::hub::{Format, Layout};
use crate::jsonl::{open_lines, stream_records};
use crate::records::RecordSink;
use crate::shard::{input_files, relative_path, set_problems, Found, Shard};
use crate::temporaries::remove_temporaries_beside;

/// The options that decide a CodeQA build's rows; every shard of one dataset has the same.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Settings {
    /// `python` or `java`.
    pub language: String,
    /// Seed of the split and the Yes/No choice.
    pub seed: u64,
    /// Most pairs per comment.
    pub max_pairs: usize,
    /// What parses the comments (a model directory's or a parses file's name).
    pub parser: String,
    /// Format of the dataset's files.
    pub format: Format,
    /// Milliseconds allowed per file (none: no limit); a manifest written before this field
    /// existed was built with the fixed default of 5 s.
    #[serde(default = "default_time_budget_ms")]
    pub time_budget_ms: Option<u64>,
}

/// The per-file budget of builds made before it could be chosen.
fn default_time_budget_ms() -> Option<u64> {
    Some(quarry_syntax::DEFAULT_TIME_BUDGET.as_millis() as u64)
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
    /// This shard's source files, relative to the corpus.
    pub inputs: Vec<String>,
    /// Size in bytes and stable hash of its candidate file.
    pub candidates_bytes: u64,
    /// Stable FNV-1a hash of the candidate file, hexadecimal.
    pub candidates_hash: String,
    /// Its counts before balancing (`files`, `functions`, `pairs`, `yes`, `no`, `parse_errors`).
    pub counts: BTreeMap<String, usize>,
    /// Files that could not be read or parsed, with the reason.
    pub bad_files: Vec<String>,
}

impl Manifest {
    /// Where shard `shard`'s manifest lives under `out`.
    pub fn path(out: &Path, shard: Shard) -> PathBuf {
        out.join("manifests").join(format!("{MANIFEST_PREFIX}{}.json", shard.suffix()))
    }

    fn read(path: &Path) -> Result<Manifest, DataError> {
        let bytes = std::fs::read(path).map_err(|e| DataError::io(path, e))?;
        serde_json::from_slice(&bytes)
            .map_err(|e| DataError::Invalid(format!("{}: not a CodeQA shard manifest: {e}", path.display())))
    }
}

/// The start of a CodeQA shard manifest's name.
const MANIFEST_PREFIX: &str = "codeqa-";

/// Whether `out` holds CodeQA shard manifests (what `quarry dataset finalize` dispatches on).
pub fn has_manifests(out: &Path) -> bool {
    crate::shard::has_manifests(out, MANIFEST_PREFIX)
}

/// One generated pair of a shard, before balancing.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct Candidate {
    id: String,
    split: String,
    /// The order of the pair's function inside its split (a stable hash of it).
    order: u64,
    code: String,
    code_original: String,
    question: String,
    answer: String,
    /// A Yes/No question (balanced by finalize).
    yesno: bool,
}

/// Builds the dataset in one process; `progress(done, total)` is called as comments are
/// processed.
pub fn build(
    options: &BuildOptions,
    parser: &mut dyn CommentParser,
    progress: &(dyn Fn(usize, usize) + Sync),
) -> Result<BuildSummary, DataError> {
    let manifest = Manifest::path(&options.out, Shard::default());
    // A one-process build always builds again (a finished shard would be skipped).
    match std::fs::remove_file(&manifest) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(DataError::io(&manifest, e)),
        _ => {}
    }
    build_shard(options, Shard::default(), parser, progress)?;
    finalize(&options.out)
}

/// What balancing reads of a candidate: not its code.
#[derive(Deserialize)]
struct YesNo {
    id: String,
    answer: String,
    yesno: bool,
}

/// What one shard run did.
#[derive(Debug, Clone)]
pub struct ShardRun {
    /// The shard's manifest.
    pub manifest: Manifest,
    /// True when the shard was finished already and nothing was done.
    pub already_done: bool,
}

fn candidates_path(out: &Path, shard: Shard) -> PathBuf {
    out.join(".shards").join(format!("codeqa-{}.jsonl", shard.suffix()))
}

fn split_name(split: Split) -> &'static str {
    match split {
        Split::Train => "train",
        Split::Valid => "dev",
        Split::Test => "test",
    }
}

/// Builds shard `shard` of the corpus: every documented function of its files, their
/// pairs with split and id, written as candidates, then the manifest.
pub fn build_shard(
    options: &BuildOptions,
    shard: Shard,
    parser: &mut dyn CommentParser,
    progress: &(dyn Fn(usize, usize) + Sync),
) -> Result<ShardRun, DataError> {
    let (files, walk_errors) = input_files(&options.corpus, options.language, options.files_from.as_deref())?;
    let relative: Vec<String> = files.iter().map(|p| relative_path(&options.corpus, p)).collect();
    let corpus_hash = format!("{:016x}", stable_hash(&relative.join("\n")));
    let settings = Settings {
        language: options.language.name().to_string(),
        seed: options.seed,
        max_pairs: options.max_pairs,
        parser: options.parser.clone(),
        format: options.format,
        time_budget_ms: options.time_budget.map(|d| d.as_millis() as u64),
    };
    let manifest_path = Manifest::path(&options.out, shard);
    if manifest_path.exists() {
        let manifest = Manifest::read(&manifest_path)?;
        if manifest.settings == settings
            && manifest.corpus_hash == corpus_hash
            && manifest.shard == shard
            && manifest.quarry_version == env!("CARGO_PKG_VERSION")
        {
            return Ok(ShardRun { manifest, already_done: true });
        }
    }
    let corpus_files = files.len();
    let own: Vec<(PathBuf, String)> = files.into_iter().zip(relative).filter(|(_, rel)| shard.owns(rel)).collect();
    let paths: Vec<PathBuf> = own.iter().map(|(p, _)| p.clone()).collect();
    let relative_of: HashMap<&Path, &str> = own.iter().map(|(p, r)| (p.as_path(), r.as_str())).collect();
    let found = documented_functions_of(&paths, options.language, options.time_budget);
    let mut counts: BTreeMap<String, usize> = BTreeMap::new();
    counts.insert("files".into(), paths.len());
    counts.insert("functions".into(), found.functions.len());
    let target = candidates_path(&options.out, shard);
    std::fs::create_dir_all(out_dir(&target)).map_err(|e| DataError::io(&target, e))?;
    remove_temporaries_beside(&target)?;
    let mut file = AtomicFile::create(&target)?;
    let batch = options.batch.max(1);
    let mut done = 0;
    for chunk in found.functions.chunks(batch) {
        let comments: Vec<&str> = chunk.iter().map(|(_, f)| f.comment.as_str()).collect();
        for ((path, function), outcome) in chunk.iter().zip(generate(&comments, parser, options.max_pairs)) {
            let pairs = match outcome {
                Outcome::Pairs(pairs) => pairs,
                Outcome::ParseError(_) => {
                    *counts.entry("parse_errors".into()).or_default() += 1;
                    continue;
                }
            };
            let key = format!("{}:{}", relative_of.get(path.as_path()).copied().unwrap_or_default(), function.line + 1);
            let split = split_name(split_of(&key, Ratios::default(), options.seed));
            let order = stable_hash(&format!("{}:order:{key}", options.seed));
            for (k, pair) in pairs.into_iter().enumerate() {
                let yesno = pair.kind == Kind::Yesno;
                *counts.entry("pairs".into()).or_default() += 1;
                if yesno {
                    *counts.entry(if pair.answer == "Yes" { "yes" } else { "no" }.into()).or_default() += 1;
                }
                file.write_json_line(&Candidate {
                    id: format!("{key}:{k}"),
                    split: split.to_string(),
                    order,
                    code: function.code.clone(),
                    code_original: function.code_original.clone(),
                    question: pair.question,
                    answer: pair.answer,
                    yesno,
                })?;
            }
        }
        done += chunk.len();
        progress(done, found.functions.len());
    }
    file.commit()?;
    let bytes = std::fs::read(&target).map_err(|e| DataError::io(&target, e))?;
    let mut bad_files = walk_errors;
    bad_files.extend(found.bad_files);
    let manifest = Manifest {
        quarry_version: env!("CARGO_PKG_VERSION").to_string(),
        shard,
        settings,
        corpus_files,
        corpus_hash,
        inputs: own.into_iter().map(|(_, r)| r).collect(),
        candidates_bytes: bytes.len() as u64,
        candidates_hash: format!("{:016x}", stable_hash_bytes(&bytes)),
        counts,
        bad_files,
    };
    let mut text = serde_json::to_vec_pretty(&manifest).map_err(|e| DataError::Invalid(e.to_string()))?;
    text.push(b'\n');
    std::fs::create_dir_all(out_dir(&manifest_path)).map_err(|e| DataError::io(&manifest_path, e))?;
    quarry_stdx::atomic::write_atomically(&manifest_path, &text)?;
    Ok(ShardRun { manifest, already_done: false })
}

/// The N manifests of the CodeQA shards in `out`, in shard order; an error names every
/// missing, duplicated or mismatched shard.
fn checked_manifests(out: &Path) -> Result<Vec<Manifest>, DataError> {
    let manifests: Vec<(PathBuf, Manifest)> = crate::shard::manifest_files(out, MANIFEST_PREFIX)?
        .into_iter()
        .map(|path| Manifest::read(&path).map(|m| (path, m)))
        .collect::<Result<_, _>>()?;
    let Some((_, first)) = manifests.first() else {
        return Err(DataError::Invalid(format!("{}: no CodeQA shard manifest", out.join("manifests").display())));
    };
    let disagreement = |m: &Manifest| {
        if m.settings != first.settings || m.quarry_version != first.quarry_version {
            Some("other options or another quarry than the first shard".to_string())
        } else {
            (m.corpus_hash != first.corpus_hash).then(|| "another corpus than the first shard".to_string())
        }
    };
    let found: Vec<Found> = manifests
        .iter()
        .map(|(path, m)| Found { path: path.clone(), shard: m.shard, disagreement: disagreement(m) })
        .collect();
    let problems = set_problems(&found, &|shard| Manifest::path(out, shard));
    if !problems.is_empty() {
        return Err(DataError::Invalid(format!("{}: {}", out.display(), problems.join("; "))));
    }
    Ok(manifests.into_iter().map(|(_, m)| m).collect())
}

/// The candidates of one shard, checked against its manifest.
fn read_candidates<T: serde::de::DeserializeOwned>(out: &Path, manifest: &Manifest) -> Result<Vec<T>, DataError> {
    let path = candidates_path(out, manifest.shard);
    let bytes = std::fs::read(&path).map_err(|e| DataError::io(&path, e))?;
    if format!("{:016x}", stable_hash_bytes(&bytes)) != manifest.candidates_hash {
        return Err(DataError::Invalid(format!(
            "shard {}: {} changed since its manifest was written; remove {} and rerun the shard",
            manifest.shard,
            path.display(),
            Manifest::path(out, manifest.shard).display()
        )));
    }
    let mut rows = Vec::new();
    for record in stream_records::<T>(open_lines(&path)?, &path) {
        let (line, parsed) = record?;
        rows.push(parsed.map_err(|e| DataError::BadRecord { path: path.clone(), line, message: e.to_string() })?);
    }
    Ok(rows)
}

/// The Parquet schema of a finished CodeQA record: the id and the released files' four fields.
fn schema() -> SchemaRef {
    let text = |name: &str| Field::new(name, DataType::Utf8, false);
    Arc::new(Schema::new(vec![text("id"), text("code"), text("code_original"), text("question"), text("answer")]))
}

/// Writes the dataset of the CodeQA shards built in `out` (see the module doc) and
/// returns its summary; the candidates are removed once the files are in place.
pub fn finalize(out: &Path) -> Result<BuildSummary, DataError> {
    let manifests = checked_manifests(out)?;
    let settings = manifests[0].settings.clone();
    let shards = manifests[0].shard.count;
    // Balancing over every shard: every No, and as many Yes pairs, those of least hash.
    let (mut yes, mut no) = (Vec::new(), 0usize);
    for manifest in &manifests {
        for row in read_candidates::<YesNo>(out, manifest)?.into_iter().filter(|r| r.yesno) {
            if row.answer == "Yes" {
                yes.push((stable_hash(&format!("{}:yes:{}", settings.seed, row.id)), row.id));
            } else {
                no += 1;
            }
        }
    }
    let yes_generated = yes.len();
    yes.sort_unstable();
    let kept: HashSet<String> = yes.into_iter().take(no).map(|(_, id)| id).collect();
    let layout = Layout { format: settings.format, gzip: false, shards };
    let mut summary = BuildSummary { yes: yes_generated, no, ..BuildSummary::default() };
    for split in SPLITS {
        layout.remove_stale_files(out, &settings.language, split)?;
    }
    for manifest in &manifests {
        let counts = |key: &str| manifest.counts.get(key).copied().unwrap_or(0);
        summary.files += counts("files");
        summary.functions += counts("functions");
        summary.parse_errors += counts("parse_errors");
        summary.pairs_generated += counts("pairs");
        summary.bad_files.extend(manifest.bad_files.iter().cloned());
        let mut rows: Vec<Candidate> = read_candidates::<Candidate>(out, manifest)?
            .into_iter()
            .filter(|r| !(r.yesno && r.answer == "Yes") || kept.contains(&r.id))
            .collect();
        rows.sort_by(|a, b| (a.order, &a.id).cmp(&(b.order, &b.id)));
        for (k, split) in SPLITS.iter().enumerate() {
            let in_split = rows.iter().filter(|r| r.split == *split);
            summary.split_sizes[k] += write_split(out, layout, &settings.language, split, manifest.shard, in_split)?;
        }
    }
    if layout.is_hub() {
        let body = format!(
            "# CodeQA-format dataset\n\nQuestion–answer pairs generated by `quarry dataset codeqa` from the {} \
             comments of {} source files, in {shards} shard(s); fields `id` (`path:line:k`), `code`, \
             `code_original`, `question`, `answer`.\n",
            settings.language, manifests[0].corpus_files
        );
        let sizes = summary.split_sizes;
        let has_rows = |_: &str, split: &str| SPLITS.iter().position(|s| *s == split).is_some_and(|k| sizes[k] > 0);
        let card = layout.dataset_card(&[settings.language.as_str()], &SPLITS, &has_rows, &body);
        remove_temporaries_beside(&out.join("README.md"))?;
        quarry_stdx::atomic::write_atomically(&out.join("README.md"), card.as_bytes())?;
    }
    for manifest in &manifests {
        let path = candidates_path(out, manifest.shard);
        std::fs::remove_file(&path).map_err(|e| DataError::io(&path, e))?;
    }
    // The candidates' folder goes too once empty (another builder's files keep it).
    let _ = std::fs::remove_dir(out.join(".shards"));
    Ok(summary)
}

/// Writes one shard's rows of `split`; returns how many.
fn write_split<'r>(
    out: &Path,
    layout: Layout,
    language: &str,
    split: &str,
    shard: Shard,
    rows: impl Iterator<Item = &'r Candidate>,
) -> Result<usize, DataError> {
    let mut written = 0;
    if !layout.is_hub() {
        for suffix in SUFFIXES {
            remove_temporaries_beside(&split_path(out, split, suffix))?;
        }
        let mut writer = SplitWriter::create(out, split)?;
        for r in rows {
            writer.write(&r.code, &r.code_original, &r.question, &r.answer)?;
            written += 1;
        }
        writer.finish()?;
        return Ok(written);
    }
    let path = layout.data_file(out, language, split, shard);
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(|e| DataError::io(dir, e))?;
    }
    remove_temporaries_beside(&path)?;
    let mut sink = RecordSink::create(&path, schema())?;
    for r in rows {
        sink.push(serde_json::json!({
            "id": r.id, "code": r.code, "code_original": r.code_original, "question": r.question, "answer": r.answer,
        }))?;
        written += 1;
    }
    sink.commit()?;
    Ok(written)
}

/// The folder holding `path`.
fn out_dir(path: &Path) -> &Path {
    path.parent().unwrap_or(Path::new("."))
}
