//! `manifest.json` of a PyPI corpus: what was fetched, from where, under which licence,
//! and what failed; enough to fetch exactly the same files again.

use std::path::Path;

use serde::{Deserialize, Serialize};

use super::fetch::Release;
use crate::DataError;

/// The manifest's file name in the corpus folder.
pub const MANIFEST_FILE: &str = "manifest.json";

/// A corpus's manifest.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Manifest {
    /// Packages whose files are in the corpus, in the order fetched.
    pub packages: Vec<Package>,
    /// Requirements that could not be fetched or read, with why.
    pub failed: Vec<Failure>,
    /// Files written, over all packages.
    pub files_kept: usize,
    /// Files skipped because an earlier file (of any package) had the same contents.
    pub files_duplicate: usize,
    /// Bytes of the files written.
    pub bytes_kept: u64,
}

/// One package of the corpus; its files are under `NAME-VERSION/`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Package {
    /// The project's name as PyPI spells it.
    pub name: String,
    /// The release's version.
    pub version: String,
    /// The source distribution fetched.
    pub url: String,
    /// Its sha256, checked when it was fetched.
    pub sha256: String,
    /// Its licence, as the metadata states it.
    pub license: Option<String>,
    /// Python files written.
    pub files_kept: usize,
    /// Python files skipped as copies of files already in the corpus.
    pub files_duplicate: usize,
    /// Python files skipped as over the size limit.
    pub files_too_large: usize,
    /// Python entries skipped as links.
    pub links_skipped: usize,
    /// Bytes of the files written.
    pub bytes_kept: u64,
}

impl Package {
    /// The folder of the corpus holding this package's files.
    pub fn folder(&self) -> String {
        format!("{}-{}", self.name, self.version)
    }

    /// A package of `release` with no files yet.
    pub fn from_release(release: &Release) -> Package {
        Package {
            name: release.name.clone(),
            version: release.version.clone(),
            url: release.url.clone(),
            sha256: release.sha256.clone(),
            license: release.license.clone(),
            files_kept: 0,
            files_duplicate: 0,
            files_too_large: 0,
            links_skipped: 0,
            bytes_kept: 0,
        }
    }

    /// The release this entry was fetched from, to fetch it again.
    pub fn release(&self) -> Release {
        Release {
            name: self.name.clone(),
            version: self.version.clone(),
            url: self.url.clone(),
            sha256: self.sha256.clone(),
            license: self.license.clone(),
        }
    }
}

/// A requirement that failed.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Failure {
    /// The requirement as listed (`name` or `name==version`).
    pub requirement: String,
    /// Why it failed.
    pub reason: String,
}

/// Largest manifest read.
const MAX_MANIFEST_BYTES: u64 = 64 * 1024 * 1024;

/// Reads a manifest written by an earlier run.
pub fn read_manifest(path: &Path) -> Result<Manifest, DataError> {
    let text = quarry_stdx::read::read_text(path, MAX_MANIFEST_BYTES)?;
    serde_json::from_str(&text)
        .map_err(|e| DataError::Invalid(format!("{}: not a corpus manifest: {e}", path.display())))
}
