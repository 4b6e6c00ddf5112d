//! INSPECT generation in shards (`quarry inspect generate --shard I/N`, then `quarry
//! dataset finalize OUT`). Reading and parsing the Java corpus is the costly part and is
//! split: a shard reads the files it owns (a stable hash of each file's name) and writes
//! their [`FilePart`]s (`OUT/.shards/inspect-{I:05}-of-{N:05}.jsonl`), then its manifest
//! (`OUT/manifests/inspect-{I:05}-of-{N:05}.json`), each atomically; a finished shard
//! reruns as a no-op. Sampling is global (a few thousand methods, balanced per class, over
//! the whole corpus), so finalize merges every shard's parts in file-name order
//! ([`merge`], the order of a one-process run) and generates every task: any N gives the
//! datasets of one process.

use std::path::{Path, PathBuf};

use quarry_data::jsonl::{open_lines, stream_records};
use quarry_data::shard::{set_problems, Found, Shard};
use quarry_stdx::rng::stable_hash_bytes;
use quarry_stdx::AtomicFile;
use serde::{Deserialize, Serialize};

use crate::corpus::{collect_parts, merge, Corpus, CorpusLimits, FilePart};
use crate::error::{ProbeError, Result};
use crate::generate::{generate, GenerateConfig, Generated};
use crate::hub::{write_generated, DatasetFormat};
use crate::labels::NptLabels;
use crate::task::Task;

/// What a generation writes; every shard of one dataset has the same.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Settings {
    /// Task codes, in order.
    pub tasks: Vec<String>,
    /// Samples per dataset.
    pub size: usize,
    /// Seed of every random choice.
    pub seed: u64,
    /// NPT labels.
    pub npt_labels: NptLabels,
    /// Format of the datasets.
    pub format: DatasetFormat,
    /// The corpus's file or folder name.
    pub corpus: String,
    /// Methods with more tokens are left out.
    pub max_method_tokens: usize,
    /// Files larger than this are left out.
    pub max_file_bytes: u64,
    /// Stable hash of the `--files-from` list, when the corpus's files come from one.
    #[serde(default)]
    pub files_from: Option<String>,
}

/// What a finished shard read.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Manifest {
    /// The version of quarry that built it.
    pub quarry_version: String,
    /// Which shard.
    pub shard: Shard,
    /// The options of the generation.
    pub settings: Settings,
    /// Files it read.
    pub files: usize,
    /// Methods it found (before repeats across shards are dropped).
    pub methods: usize,
    /// Stable FNV-1a hash of its parts file, hexadecimal.
    pub parts_hash: String,
    /// Errors of the walk.
    pub errors: Vec<String>,
}

impl Manifest {
    /// Where shard `shard`'s manifest lives under `out`.
    pub fn path(out: &Path, shard: Shard) -> PathBuf {
        out.join("manifests").join(format!("{MANIFEST_PREFIX}{}.json", shard.suffix()))
    }

    fn read(path: &Path) -> Result<Manifest> {
        let bytes = std::fs::read(path).map_err(|e| ProbeError::io(path, e))?;
        serde_json::from_slice(&bytes)
            .map_err(|e| ProbeError::Corpus(format!("{}: not an INSPECT shard manifest: {e}", path.display())))
    }
}

fn parts_path(out: &Path, shard: Shard) -> PathBuf {
    out.join(".shards").join(format!("inspect-{}.jsonl", shard.suffix()))
}

/// The start of an INSPECT shard manifest's name.
const MANIFEST_PREFIX: &str = "inspect-";

/// Whether `out` holds INSPECT shard manifests (what `quarry dataset finalize` dispatches on).
pub fn has_manifests(out: &Path) -> bool {
    quarry_data::shard::has_manifests(out, MANIFEST_PREFIX)
}

/// The limits `settings` record.
fn limits_of(settings: &Settings) -> CorpusLimits {
    CorpusLimits {
        max_method_tokens: settings.max_method_tokens,
        max_file_bytes: settings.max_file_bytes,
        ..CorpusLimits::default()
    }
}

/// Reads the files of `corpus` that `shard` owns and writes their parts and the manifest;
/// `.1` is true when the shard was finished already (nothing done).
pub fn build_shard(
    corpus: &Path,
    out: &Path,
    shard: Shard,
    settings: &Settings,
    files_from: Option<&Path>,
    on_file: &mut dyn FnMut(usize),
) -> Result<(Manifest, bool)> {
    let manifest_path = Manifest::path(out, shard);
    if manifest_path.exists() {
        let manifest = Manifest::read(&manifest_path)?;
        if &manifest.settings == settings && manifest.quarry_version == env!("CARGO_PKG_VERSION") {
            return Ok((manifest, true));
        }
    }
    let (parts, errors) = collect_parts(corpus, &limits_of(settings), shard, files_from, on_file)?;
    let target = parts_path(out, shard);
    for dir in [target.parent(), manifest_path.parent()].into_iter().flatten() {
        std::fs::create_dir_all(dir).map_err(|e| ProbeError::io(dir, e))?;
    }
    let mut file = AtomicFile::create(&target)?;
    for part in &parts {
        file.write_json_line(part)?;
    }
    file.commit()?;
    let bytes = std::fs::read(&target).map_err(|e| ProbeError::io(&target, e))?;
    let manifest = Manifest {
        quarry_version: env!("CARGO_PKG_VERSION").to_string(),
        shard,
        settings: settings.clone(),
        files: parts.len(),
        methods: parts.iter().map(|p| p.methods.len()).sum(),
        parts_hash: format!("{:016x}", stable_hash_bytes(&bytes)),
        errors,
    };
    let mut text = serde_json::to_vec_pretty(&manifest).map_err(|e| ProbeError::Corpus(e.to_string()))?;
    text.push(b'\n');
    quarry_stdx::write_atomically(&manifest_path, &text)?;
    Ok((manifest, false))
}

/// The N manifests in `out`, in shard order; an error names every missing, duplicated or
/// mismatched shard.
fn checked_manifests(out: &Path) -> Result<Vec<Manifest>> {
    let paths =
        quarry_data::shard::manifest_files(out, MANIFEST_PREFIX).map_err(|e| ProbeError::Corpus(e.to_string()))?;
    let manifests: Vec<(PathBuf, Manifest)> =
        paths.into_iter().map(|path| Manifest::read(&path).map(|m| (path, m))).collect::<Result<_>>()?;
    let Some((_, first)) = manifests.first() else {
        return Err(ProbeError::Corpus(format!("{}: no INSPECT shard manifest", out.join("manifests").display())));
    };
    let agrees = |m: &Manifest| m.settings == first.settings && m.quarry_version == first.quarry_version;
    let found: Vec<Found> = manifests
        .iter()
        .map(|(path, m)| Found {
            path: path.clone(),
            shard: m.shard,
            disagreement: (!agrees(m)).then(|| "other options or another quarry than the first shard".to_string()),
        })
        .collect();
    let problems = set_problems(&found, &|shard| Manifest::path(out, shard));
    if !problems.is_empty() {
        return Err(ProbeError::Corpus(format!("{}: {}", out.display(), problems.join("; "))));
    }
    Ok(manifests.into_iter().map(|(_, m)| m).collect())
}

/// What finalize wrote.
#[derive(Debug)]
pub struct Finalized {
    /// The merged corpus (its methods, identifiers, files and errors).
    pub corpus: Corpus,
    /// Each task's dataset and where it went.
    pub datasets: Vec<(Generated, PathBuf)>,
    /// Tasks that could not be generated, with the reason.
    pub failures: Vec<(Task, String)>,
}

/// Merges the parts of the N shards in `out` and writes every task's dataset; the parts
/// are removed once the datasets are in place.
pub fn finalize(out: &Path) -> Result<Finalized> {
    let manifests = checked_manifests(out)?;
    let settings = manifests[0].settings.clone();
    let mut parts: Vec<FilePart> = Vec::new();
    for manifest in &manifests {
        let path = parts_path(out, manifest.shard);
        let bytes = std::fs::read(&path).map_err(|e| ProbeError::io(&path, e))?;
        if format!("{:016x}", stable_hash_bytes(&bytes)) != manifest.parts_hash {
            return Err(ProbeError::Corpus(format!(
                "shard {}: {} changed since its manifest was written; remove {} and rerun the shard",
                manifest.shard,
                path.display(),
                Manifest::path(out, manifest.shard).display()
            )));
        }
        let lines = open_lines(&path).map_err(|e| ProbeError::Corpus(e.to_string()))?;
        for record in stream_records::<FilePart>(lines, &path) {
            let (line, parsed) = record.map_err(|e| ProbeError::Corpus(e.to_string()))?;
            parts.push(parsed.map_err(|e| ProbeError::Corpus(format!("{}:{line}: {e}", path.display())))?);
        }
    }
    let mut corpus = merge(parts);
    corpus.errors.splice(0..0, manifests.iter().flat_map(|m| m.errors.iter().cloned()));
    let config = GenerateConfig { size: settings.size, seed: settings.seed, npt_labels: settings.npt_labels };
    let mut finalized = Finalized { corpus: Corpus::default(), datasets: Vec::new(), failures: Vec::new() };
    for code in &settings.tasks {
        let task: Task = code.parse()?;
        match generate(task, &corpus, &config) {
            Ok(generated) => {
                let path = write_generated(out, task, settings.size, settings.format, &generated.samples)?;
                finalized.datasets.push((generated, path));
            }
            Err(e) => finalized.failures.push((task, e.to_string())),
        }
    }
    for manifest in &manifests {
        let path = parts_path(out, manifest.shard);
        std::fs::remove_file(&path).map_err(|e| ProbeError::io(&path, e))?;
    }
    // The parts' folder goes too once empty (another builder's files keep it).
    let _ = std::fs::remove_dir(out.join(".shards"));
    finalized.corpus = corpus;
    Ok(finalized)
}
