//! Path patterns for leaving files out of a walk (`exclude`) or applying
//! settings to some files (`per-file-ignores`), matched as ruff matches
//! them: a pattern is a glob tried against the file's name alone and,
//! joined to the project root, against its whole path. So `venv` leaves out
//! every folder named `venv`, `*_pb2.py` every generated file, and
//! `tests/data/*.py` those files under the root's `tests/data`.

use std::path::{Path, PathBuf};

use globset::{Glob, GlobSet, GlobSetBuilder};

/// Folders left out of every walk unless `exclude` is set: ruff's defaults
/// (virtual environments, caches, VCS and build output).
pub const DEFAULT_EXCLUDES: &[&str] = &[
    ".bzr",
    ".direnv",
    ".eggs",
    ".git",
    ".git-rewrite",
    ".hg",
    ".ipynb_checkpoints",
    ".mypy_cache",
    ".nox",
    ".pants.d",
    ".pyenv",
    ".pytest_cache",
    ".pytype",
    ".ruff_cache",
    ".svn",
    ".tox",
    ".venv",
    ".vscode",
    "__pypackages__",
    "_build",
    "buck-out",
    "build",
    "dist",
    "node_modules",
    "site-packages",
    "venv",
];

/// A compiled set of path patterns relative to a root.
#[derive(Debug, Clone)]
pub struct PathGlobs {
    root: PathBuf,
    names: GlobSet,
    paths: GlobSet,
    patterns: Vec<String>,
}

impl PathGlobs {
    /// Compiles `patterns`, anchoring path patterns at `root`.
    pub fn new<S: AsRef<str>>(root: &Path, patterns: &[S]) -> Result<PathGlobs, String> {
        let root = absolute(root);
        let mut names = GlobSetBuilder::new();
        let mut paths = GlobSetBuilder::new();
        for pattern in patterns {
            let pattern = pattern.as_ref();
            let glob = |text: &str| Glob::new(text).map_err(|e| format!("invalid pattern `{pattern}`: {e}"));
            names.add(glob(pattern)?);
            let joined = root.join(pattern.trim_start_matches("./"));
            paths.add(glob(&joined.to_string_lossy())?);
        }
        let build = |set: GlobSetBuilder| set.build().map_err(|e| format!("invalid patterns: {e}"));
        Ok(PathGlobs {
            root,
            names: build(names)?,
            paths: build(paths)?,
            patterns: patterns.iter().map(|p| p.as_ref().to_string()).collect(),
        })
    }

    /// Patterns that match nothing.
    pub fn none() -> PathGlobs {
        PathGlobs { root: PathBuf::new(), names: GlobSet::empty(), paths: GlobSet::empty(), patterns: Vec::new() }
    }

    /// The patterns as given.
    pub fn patterns(&self) -> &[String] {
        &self.patterns
    }

    /// Whether a pattern matches `path` (its name, or its whole path).
    pub fn matches(&self, path: &Path) -> bool {
        if self.patterns.is_empty() {
            return false;
        }
        path.file_name().is_some_and(|name| self.names.is_match(name)) || self.paths.is_match(absolute(path))
    }
}

impl PathGlobs {
    /// Whether `path` or a folder above it matches, looking no higher than
    /// the root (ruff's `force-exclude` for paths named explicitly).
    pub fn matches_within_root(&self, path: &Path) -> bool {
        let path = absolute(path);
        path.ancestors().take_while(|p| p.starts_with(&self.root) && *p != self.root).any(|p| self.matches(p))
    }
}

/// `path` made absolute against the working directory, without touching the
/// file system (links are not resolved, as in ruff).
fn absolute(path: &Path) -> PathBuf {
    let absolute = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    // Drop `.` components so `./a/b.py` and `a/b.py` match the same patterns.
    absolute.components().filter(|c| !matches!(c, std::path::Component::CurDir)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_anchored_paths() {
        let root = Path::new("/project");
        let globs = PathGlobs::new(root, &["venv", "*_pb2.py", "tests/data/*.py"]).unwrap();
        assert!(globs.matches(Path::new("/project/sub/venv")));
        assert!(globs.matches(Path::new("/project/api_pb2.py")));
        assert!(globs.matches(Path::new("/project/tests/data/x.py")));
        assert!(!globs.matches(Path::new("/project/src/tests/data/x.py")));
        assert!(!globs.matches(Path::new("/project/venv2")));
        assert!(!PathGlobs::none().matches(Path::new("/project/venv")));
        assert!(globs.matches_within_root(Path::new("/project/sub/venv/lib/x.py")));
        assert!(!globs.matches_within_root(Path::new("/project/sub/lib/x.py")));
        let under_venv = PathGlobs::new(Path::new("/venv/project"), &["venv"]).unwrap();
        assert!(
            !under_venv.matches_within_root(Path::new("/venv/project/x.py")),
            "folders above the root do not count"
        );
        assert!(PathGlobs::new(root, &["a[b"]).unwrap_err().contains("a[b"));
        let defaults = PathGlobs::new(root, DEFAULT_EXCLUDES).unwrap();
        assert!(defaults.matches(Path::new("/project/.venv")));
        assert!(defaults.matches(Path::new("/project/node_modules")));
        assert!(!defaults.matches(Path::new("/project/src")));
    }
}
