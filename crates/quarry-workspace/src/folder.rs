//! A workspace folder's resolved configuration, as `quarry query` resolves
//! it for a run started in the folder: the nearest `quarry.toml`,
//! `.quarry.toml` or `pyproject.toml` with `[tool.quarry]` at or above the
//! folder; the queries it selects; excludes; per-file ignores; size and
//! time limits. The language server keeps one for its workspace.

use std::path::{Path, PathBuf};

use quarry_query::report::WorkLimits;
use quarry_query::{Polarity, Query};
use quarry_syntax::exclude::PathGlobs;
use quarry_syntax::LoadOptions;

use crate::check::Plan;
use crate::config::{self, Settings};
use crate::triage::PerFileIgnores;

/// Everything a language server needs from the configuration.
pub struct Resolved {
    /// The configuration file read, if any.
    pub file: Option<PathBuf>,
    /// The project root: the configuration file's folder, else the
    /// workspace folder (where the analysis cache goes).
    pub root: PathBuf,
    /// The selected queries, in registry order.
    pub queries: Vec<&'static Query>,
    /// How files are read (the size limit).
    pub load: LoadOptions,
    /// The per-file time budget and depth limit.
    pub limits: WorkLimits,
    /// Queries not reported for some files.
    pub per_file_ignores: PerFileIgnores,
    /// Paths left out of the workspace walk.
    pub exclude: PathGlobs,
}

impl Resolved {
    /// The configuration for `folder`: read from the nearest configuration
    /// file at or above it, or the defaults when there is none. An error
    /// names the file and the problem.
    pub fn discover(folder: &Path) -> Result<Resolved, String> {
        match config::discover(folder)? {
            Some(file) => {
                let root = file.root();
                Resolved::from_settings(Some(file.path), file.settings, &root, folder)
            }
            None => Resolved::from_settings(None, Settings::default(), folder, folder),
        }
    }

    /// The defaults (no configuration file), for when the file is bad.
    pub fn defaults(folder: &Path) -> Resolved {
        Resolved::from_settings(None, Settings::default(), folder, folder).expect("the default settings resolve")
    }

    /// Resolves `settings` as `quarry query` does (its python-version default
    /// and [`Plan::new`]), for the positive form with the default work limits.
    fn from_settings(
        file: Option<PathBuf>,
        settings: Settings,
        root: &Path,
        folder: &Path,
    ) -> Result<Resolved, String> {
        let named = |e: String| match &file {
            Some(path) if !e.contains(&path.display().to_string()) => format!("{}: {e}", path.display()),
            _ => e,
        };
        let settings = config::with_python_version(settings, Some(folder));
        let plan =
            Plan::new(&settings, root, &[Polarity::Positive], WorkLimits::default().time_budget).map_err(named)?;
        Ok(Resolved {
            queries: plan.queries,
            load: plan.load,
            limits: plan.limits,
            per_file_ignores: plan.per_file_ignores,
            exclude: plan.exclude,
            root: root.to_path_buf(),
            file,
        })
    }
}
