//! Where a workspace keeps the analysis cache ([`quarry_query::cache`]):
//! `.quarry_cache/` beside the configuration (the project root), or the
//! folder `QUARRY_CACHE_DIR` names. `quarry query`, `quarry server` and the
//! Python API (when asked) open the same folder for the same project.

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
/// build of quarry. An error names the folder.
pub fn open(root: &Path) -> Result<AnalysisCache, String> {
    AnalysisCache::open(&location(root))
}
