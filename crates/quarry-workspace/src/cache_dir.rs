//! Where a workspace keeps the analysis cache ([`quarry_query::cache`]):
//! `.quarry_cache/` beside the configuration (the project root), or the
//! folder `QUARRY_CACHE_DIR` names. `quarry query` (unless `--no-cache`),
//! `quarry server` and the Python API (when asked: `cache=True`) open the
//! same folder for the same project.
//!
//! Entries live under a folder named for the build that wrote them, and a
//! build removes the others' folders: the Python module (a library in the
//! interpreter, so its build is its own file, [`open_for_build`]) and the
//! `quarry` binary share the folder but not its entries, so alternating
//! the two analyses again. The Python API leaves the cache off by default:
//! a library call does not write into the caller's project unasked.

use std::path::{Path, PathBuf};

use quarry_query::cache::AnalysisCache;

/// The cache folder's name beside the configuration.
pub const CACHE_DIR_NAME: &str = ".quarry_cache";

/// The environment variable naming the cache folder instead.
pub const CACHE_DIR_ENV: &str = "QUARRY_CACHE_DIR";

/// The cache folder for a project rooted at `root`: `QUARRY_CACHE_DIR`
/// when set (relative to the working directory), else
/// `root/.quarry_cache`.
pub fn location(root: &Path) -> PathBuf {
    match std::env::var_os(CACHE_DIR_ENV).filter(|v| !v.is_empty()) {
        Some(dir) => PathBuf::from(dir),
        None => root.join(CACHE_DIR_NAME),
    }
}

/// Opens (creating) the cache of the project rooted at `root`, for this
/// build of quarry (the running executable). An error names the folder.
pub fn open(root: &Path) -> Result<AnalysisCache, String> {
    AnalysisCache::open(&location(root))
}

/// [`open`] for the build of quarry that is the file `build`: a library
/// loaded into another program, such as the Python module.
pub fn open_for_build(root: &Path, build: &Path) -> Result<AnalysisCache, String> {
    AnalysisCache::open_for_build(&location(root), build)
}
