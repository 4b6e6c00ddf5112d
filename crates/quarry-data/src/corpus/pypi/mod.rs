//! A Python corpus from the source distributions of PyPI packages (`quarry corpus pypi`):
//! each package's sdist is fetched from PyPI's JSON API, checked against the sha256 PyPI
//! gives, and its Python files written under `OUT/NAME-VERSION/`, each file's contents once
//! across the whole corpus. `OUT/manifest.json` records every package's name, version,
//! sdist URL, sha256, licence and file counts, and what failed; a manifest given back in
//! place of the package list fetches exactly the same archives again.

pub mod fetch;
pub mod manifest;
pub mod requirements;

use std::collections::HashSet;
use std::path::Path;

use quarry_stdx::IoResultExt;
use sha2::{Digest, Sha256};

use crate::corpus::archive::{extract_python, ArchiveKind, Limits};
use crate::DataError;
use fetch::{resolve, Fetch, Release};
use manifest::{Failure, Manifest, Package, MANIFEST_FILE};
use requirements::{is_project_name, is_version, Requirement};

/// What to fetch: requirements to look up, or releases already pinned by a manifest.
pub enum Wanted {
    /// Look each up in the JSON API.
    Requirements(Vec<Requirement>),
    /// Fetch exactly these (from an earlier manifest).
    Releases(Vec<Release>),
}

/// Settings of a corpus build.
#[derive(Clone, Debug)]
pub struct Options {
    /// The JSON API's base URL ([`fetch::PYPI_JSON_API`]).
    pub api: String,
    /// Limits on what is read from each archive.
    pub limits: Limits,
    /// Largest archive downloaded.
    pub max_archive_bytes: u64,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            api: fetch::PYPI_JSON_API.to_string(),
            limits: Limits::default(),
            max_archive_bytes: 512 * 1024 * 1024,
        }
    }
}

/// What happened to one package, for progress reports.
pub enum Event<'a> {
    /// Its files were written.
    Done(&'a Package),
    /// It failed.
    Failed(&'a Failure),
}

/// Builds the corpus in `out`, replacing it whole once every package has been tried; the
/// manifest is returned. Packages that fail are reported through `progress` and recorded,
/// and the run goes on; when none succeeds, `out` is left as it was and the error lists why.
pub fn build_corpus(
    out: &Path,
    wanted: Wanted,
    fetch: &dyn Fetch,
    options: &Options,
    progress: &mut dyn FnMut(Event),
) -> Result<Manifest, DataError> {
    let jobs: Vec<(String, Option<Release>, Option<Requirement>)> = match wanted {
        Wanted::Requirements(list) => list.into_iter().map(|r| (r.to_string(), None, Some(r))).collect(),
        Wanted::Releases(list) => {
            list.into_iter().map(|r| (format!("{}=={}", r.name, r.version), Some(r), None)).collect()
        }
    };
    if jobs.is_empty() {
        return Err(DataError::Invalid("no package to fetch".into()));
    }
    let mut manifest = Manifest::default();
    quarry_stdx::atomic::write_dir_atomically(out, |dir| {
        let mut seen = HashSet::new();
        let mut folders = HashSet::new();
        for (label, release, requirement) in jobs {
            let release = match (release, requirement) {
                (Some(release), _) => Ok(release),
                (None, Some(requirement)) => resolve(fetch, &options.api, &requirement),
                (None, None) => unreachable!("every job has a release or a requirement"),
            };
            let result = release.and_then(|release| {
                if !folders.insert(format!("{}-{}", release.name, release.version).to_ascii_lowercase()) {
                    return Err(format!("{} {} is already in the corpus", release.name, release.version));
                }
                add_package(dir, &release, fetch, options, &mut seen)
            });
            match result {
                Ok(Ok(package)) => {
                    progress(Event::Done(&package));
                    manifest.files_kept += package.files_kept;
                    manifest.files_duplicate += package.files_duplicate;
                    manifest.bytes_kept += package.bytes_kept;
                    manifest.packages.push(package);
                }
                Ok(Err(io)) => return Err(DataError::from(io)),
                Err(reason) => {
                    let failure = Failure { requirement: label, reason };
                    progress(Event::Failed(&failure));
                    manifest.failed.push(failure);
                }
            }
        }
        if let (true, Some(first)) = (manifest.packages.is_empty(), manifest.failed.first()) {
            return Err(DataError::Invalid(format!(
                "none of the {} packages could be added to the corpus (first: {}: {})",
                manifest.failed.len(),
                first.requirement,
                first.reason
            )));
        }
        let mut text = serde_json::to_string_pretty(&manifest).expect("a manifest serialises");
        text.push('\n');
        quarry_stdx::write_atomically(&dir.join(MANIFEST_FILE), text.as_bytes())?;
        Ok(())
    })?;
    Ok(manifest)
}

/// Fetches, checks and extracts one release into `dir`, skipping files whose contents are
/// in `seen`. The outer error is the package's failure; the inner one a failure to write,
/// which ends the run.
fn add_package(
    dir: &Path,
    release: &Release,
    fetch: &dyn Fetch,
    options: &Options,
    seen: &mut HashSet<[u8; 32]>,
) -> Result<Result<Package, quarry_stdx::IoError>, String> {
    if !is_project_name(&release.name) || !is_version(&release.version) {
        return Err(format!("unusable name or version {:?} {:?}", release.name, release.version));
    }
    if !release.url.starts_with("https://") {
        return Err(format!("{}: not an https URL", release.url));
    }
    let file_name = release.url.rsplit('/').next().unwrap_or_default();
    let kind = ArchiveKind::of(file_name).ok_or_else(|| format!("{file_name} is neither .tar.gz nor .zip"))?;
    let bytes = fetch.get(&release.url, options.max_archive_bytes)?;
    let digest = format!("{:x}", Sha256::digest(&bytes));
    if digest != release.sha256 {
        return Err(format!("{}: sha256 {digest}, but {} was expected", release.url, release.sha256));
    }
    let extracted = extract_python(kind, &bytes, options.limits).map_err(|e| format!("{file_name}: {e}"))?;
    let mut package = Package {
        files_duplicate: extracted.repeated,
        files_too_large: extracted.too_large,
        links_skipped: extracted.links,
        ..Package::from_release(release)
    };
    let root = dir.join(package.folder());
    for file in extracted.files {
        if !seen.insert(Sha256::digest(&file.bytes).into()) {
            package.files_duplicate += 1;
            continue;
        }
        let path = root.join(&file.path);
        if let Some(parent) = path.parent() {
            if let Err(e) = std::fs::create_dir_all(parent).with_path(parent) {
                return Ok(Err(e));
            }
        }
        if let Err(e) = std::fs::write(&path, &file.bytes).with_path(&path) {
            return Ok(Err(e));
        }
        package.files_kept += 1;
        package.bytes_kept += file.bytes.len() as u64;
    }
    Ok(Ok(package))
}
