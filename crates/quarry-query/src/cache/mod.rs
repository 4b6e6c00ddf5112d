//! The analysis cache: a folder of content-addressed entries, so that a run over
//! files that did not change reads their findings instead of analysing them.
//!
//! - `summaries/<key>.json`: a module's summary ([`crate::project`]), keyed
//!   by the file's text and the size limit it was read with.
//! - `results/<key>.json`: a file's findings before triage ([`entry`]),
//!   keyed by its path, its text and the analysis settings (queries, forms,
//!   size and depth limits); the entry holds the hash of every module the
//!   file imports, directly or through other modules (each one's path,
//!   name and summary, what the module names its imports write stand for,
//!   and a package's submodules) and of every module its analysis reached
//!   as an attribute of another (`pkg.shapes` after `import pkg`) with
//!   those it imports, and counts only while those are what they were
//!   ([`run`]).
//!
//! Entries live under a folder named for quarry's version and build, and
//! the folders of other versions are removed when the cache is opened.
//! Entries are written atomically ([`quarry_stdx::atomic`]); an entry that
//! cannot be read or decoded is a miss and is written again. Suppressions,
//! per-file ignores and baselines apply after the cache, so changing them
//! re-analyses nothing. Where the folder is (`.quarry_cache/` beside the
//! configuration, or `QUARRY_CACHE_DIR`) is the workspace's choice
//! (quarry-workspace's `cache_dir`).

pub mod entry;
pub mod run;

use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

/// Changes when the entries' format or meaning changes.
const FORMAT: &str = "4";

/// The `CACHEDIR.TAG` that tells backup tools the folder is a cache.
const CACHEDIR_TAG: &str = "Signature: 8a477f597d28d172789f06886806bc55\n\
# This file is a cache directory tag created by quarry.\n\
# For information about cache directory tags see https://bford.info/cachedir/\n";

/// An opened cache folder for this version of quarry.
#[derive(Debug, Clone)]
pub struct AnalysisCache {
    entries: PathBuf,
}

/// The kinds of entry.
#[derive(Debug, Clone, Copy)]
pub enum Kind {
    /// A module summary.
    Summary,
    /// A file's findings.
    Results,
}

impl AnalysisCache {
    /// Opens (creating) the cache in `dir` for this build of quarry,
    /// removing the entries of other versions. An error names the folder.
    pub fn open(dir: &Path) -> Result<AnalysisCache, String> {
        let exe = std::env::current_exe().ok();
        AnalysisCache::open_version(dir, &version_of(exe.as_deref()))
    }

    /// [`AnalysisCache::open`] for the build of quarry that is the file
    /// `build` rather than the running executable: a library loaded into
    /// another program (the Python module in an interpreter).
    pub fn open_for_build(dir: &Path, build: &Path) -> Result<AnalysisCache, String> {
        AnalysisCache::open_version(dir, &version_of(Some(build)))
    }

    /// [`AnalysisCache::open`] with the version given (tests stand for
    /// another build with it).
    pub fn open_version(dir: &Path, version: &str) -> Result<AnalysisCache, String> {
        let problem = |e: std::io::Error| format!("cache folder {}: {e}", dir.display());
        std::fs::create_dir_all(dir).map_err(problem)?;
        let tag = dir.join("CACHEDIR.TAG");
        if !tag.is_file() {
            quarry_stdx::atomic::write_atomically(&tag, CACHEDIR_TAG.as_bytes()).map_err(|e| e.to_string())?;
        }
        let ignore = dir.join(".gitignore");
        if !ignore.is_file() {
            quarry_stdx::atomic::write_atomically(&ignore, b"# Created by quarry.\n*\n").map_err(|e| e.to_string())?;
        }
        let name = format!("v{version}");
        for old in std::fs::read_dir(dir).map_err(problem)?.flatten() {
            let old_name = old.file_name();
            let stale = old_name.to_str().is_some_and(|n| n.starts_with('v') && n != name);
            if stale && old.path().is_dir() {
                // Another process may be using it: what it cannot write is a miss.
                let _ = std::fs::remove_dir_all(old.path());
            }
        }
        let entries = dir.join(name);
        for kind in ["summaries", "results"] {
            std::fs::create_dir_all(entries.join(kind)).map_err(problem)?;
        }
        Ok(AnalysisCache { entries })
    }

    fn path(&self, kind: Kind, key: &str) -> PathBuf {
        let folder = match kind {
            Kind::Summary => "summaries",
            Kind::Results => "results",
        };
        self.entries.join(folder).join(format!("{key}.json"))
    }

    /// The entry `key` of `kind` decoded; `None` when it is missing,
    /// unreadable or does not decode (it is then written again).
    pub fn read<T: serde::de::DeserializeOwned>(&self, kind: Kind, key: &str) -> Option<T> {
        let bytes = std::fs::read(self.path(kind, key)).ok()?;
        serde_json::from_slice(&bytes).ok()
    }

    /// Writes the entry `key` of `kind` atomically. A cache that cannot be
    /// written costs the next run time, not this run its findings, so the
    /// error is only returned for the caller to mention once.
    pub fn write<T: serde::Serialize>(&self, kind: Kind, key: &str, value: &T) -> Result<(), String> {
        let bytes = serde_json::to_vec(value).map_err(|e| e.to_string())?;
        quarry_stdx::atomic::write_atomically(&self.path(kind, key), &bytes).map_err(|e| e.to_string())
    }
}

/// quarry's version and its build, the file `build` (its size and
/// modification time), so that a rebuilt quarry does not read the entries
/// of the build before it.
fn version_of(build: Option<&Path>) -> String {
    let build = build.and_then(|path| std::fs::metadata(path).ok()).map(|meta| {
        let modified = meta.modified().ok().and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok());
        hash_parts(&[&meta.len().to_le_bytes(), &modified.map_or(0, |d| d.as_nanos()).to_le_bytes()])
    });
    format!("{}-{FORMAT}-{}", env!("CARGO_PKG_VERSION"), build.map_or("unknown".into(), |b| b[..16].to_string()))
}

/// The hex SHA-256 of `parts`, each prefixed by its length (so that no two
/// different lists of parts hash alike).
pub fn hash_parts(parts: &[&[u8]]) -> String {
    let mut hasher = Sha256::new();
    for part in parts {
        hasher.update((part.len() as u64).to_le_bytes());
        hasher.update(part);
    }
    format!("{:x}", hasher.finalize())
}
