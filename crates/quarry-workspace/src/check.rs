//! From paths and options to a run's plan and its reported findings, the
//! steps `quarry query` and the Python API (`quarry_code.query`) share:
//! the configuration ([`settings_for`]), what runs and on which files
//! ([`Plan`], [`Plan::files`]) and, for callers that want the findings as
//! values rather than printed as they come, [`reported_findings`] (through
//! the analysis cache: [`reported_findings_cached`]). The command line's
//! spellings of options that are not settings resolve here too
//! ([`ConfigChoice::from_options`], [`polarities`], [`per_file_ignore_option`]).

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use quarry_syntax::corpus::source_files_excluding;
use quarry_syntax::exclude::{PathGlobs, DEFAULT_EXCLUDES};
use quarry_syntax::{Language, LoadOptions, SyntaxError, DEFAULT_MAX_FILE_BYTES};

use quarry_query::cache::run::{analyze_files_cached, CacheCounts};
use quarry_query::cache::AnalysisCache;
use quarry_query::project::Project;
use quarry_query::report::{FileReport, FindingRecord, WorkLimits};
use quarry_query::run::{analyze_files_in, RunOptions};
use quarry_query::{Polarity, Query};

use crate::config::{self, selected_queries, Settings};
use crate::triage::{PerFileIgnores, Policy, Status};

/// Which configuration file a run reads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ConfigChoice {
    /// The nearest `pyproject.toml` with `[tool.quarry]`, `quarry.toml` or
    /// `.quarry.toml` at or above an anchor path.
    Discover,
    /// This file (an error when it has no `[tool.quarry]` table).
    File(PathBuf),
    /// None (`--isolated`).
    Isolated,
}

impl ConfigChoice {
    /// The choice the options `--config FILE` and `--isolated` make
    /// (`--isolated` wins; neither: discovery).
    pub fn from_options(config: Option<&Path>, isolated: bool) -> ConfigChoice {
        match (config, isolated) {
            (_, true) => ConfigChoice::Isolated,
            (Some(path), false) => ConfigChoice::File(path.to_path_buf()),
            (None, false) => ConfigChoice::Discover,
        }
    }
}

/// The forms a run reports: the positive (the default), the negative
/// (`negative`), or both (`both`, which wins).
pub fn polarities(negative: bool, both: bool) -> &'static [Polarity] {
    if both {
        &[Polarity::Positive, Polarity::Negative]
    } else if negative {
        &[Polarity::Negative]
    } else {
        &[Polarity::Positive]
    }
}

/// One `per-file-ignores` entry as the command line writes it,
/// `PATTERN:ID[,ID]`, as the pattern and its query keys.
pub fn per_file_ignore_option(entry: &str) -> Result<(String, Vec<String>), String> {
    let (pattern, ids) =
        entry.rsplit_once(':').ok_or_else(|| format!("--per-file-ignores expects PATTERN:ID[,ID], not `{entry}`"))?;
    Ok((pattern.to_string(), ids.split(',').map(|s| s.trim().to_string()).collect()))
}

/// The run's settings (the configuration file's, overridden by `overrides`)
/// and the project root that patterns are relative to (the configuration's
/// folder, else the working directory). `anchor` is where discovery starts.
pub fn settings_for(choice: &ConfigChoice, anchor: &Path, overrides: Settings) -> Result<(Settings, PathBuf), String> {
    let file = match choice {
        ConfigChoice::Isolated => None,
        ConfigChoice::File(path) => {
            Some(config::load(path)?.ok_or_else(|| format!("{}: has no [tool.quarry] table", path.display()))?)
        }
        ConfigChoice::Discover => config::discover(anchor)?,
    };
    // The file's own settings are checked on their own first, so that an unknown query, a bad
    // glob or python-version in it is an error naming the file.
    if let Some(file) = &file {
        Plan::new(&file.settings, &file.root(), &[Polarity::Positive], None)
            .map_err(|e| format!("{}: {e}", file.path.display()))?;
    }
    let root = match &file {
        Some(file) => file.root(),
        None => std::env::current_dir().map_err(|e| format!("cannot read the working directory: {e}"))?,
    };
    let settings = file.map(|f| f.settings).unwrap_or_default().overridden_by(overrides);
    let start = (!matches!(choice, ConfigChoice::Isolated)).then_some(anchor);
    Ok((config::with_python_version(settings, start), root))
}

/// Everything resolved from the settings: what runs and on which files.
pub struct Plan {
    /// The selected queries, in registry order.
    pub queries: Vec<&'static Query>,
    /// Positive and/or negative forms.
    pub polarities: Vec<Polarity>,
    /// Bounds on the work per file.
    pub limits: WorkLimits,
    /// How files are read.
    pub load: LoadOptions,
    /// `per-file-ignores`.
    pub per_file_ignores: PerFileIgnores,
    /// `exclude` plus `extend-exclude`, relative to the root.
    pub exclude: PathGlobs,
    /// `force-exclude`: the excludes apply to named paths too.
    pub force_exclude: bool,
}

impl Plan {
    /// The plan for `settings` with the project root `root`, the forms
    /// `polarities` and a per-file time budget (`None`: no limit).
    pub fn new(
        settings: &Settings,
        root: &Path,
        polarities: &[Polarity],
        time_budget: Option<Duration>,
    ) -> Result<Plan, String> {
        let mut exclude: Vec<String> = match &settings.exclude {
            Some(patterns) => patterns.clone(),
            None => DEFAULT_EXCLUDES.iter().map(|s| s.to_string()).collect(),
        };
        exclude.extend(settings.extend_exclude.iter().flatten().cloned());
        let per_file_ignores = match &settings.per_file_ignores {
            Some(entries) => PerFileIgnores::new(root, entries)?,
            None => PerFileIgnores::none(),
        };
        Ok(Plan {
            queries: selected_queries(settings)?,
            polarities: polarities.to_vec(),
            limits: WorkLimits { time_budget, ..WorkLimits::default() },
            load: LoadOptions { max_file_bytes: settings.max_file_bytes.unwrap_or(DEFAULT_MAX_FILE_BYTES) },
            per_file_ignores,
            exclude: PathGlobs::new(root, &exclude)?,
            force_exclude: settings.force_exclude.unwrap_or(false),
        })
    }

    /// The Python files under `paths` (directories walked honouring
    /// `.gitignore` and the excludes; named files kept unless
    /// `force-exclude`), and the walk's errors as messages naming the path.
    pub fn files(&self, paths: &[PathBuf]) -> (Vec<PathBuf>, Vec<String>) {
        let (mut files, errors) = source_files_excluding(paths, Language::Python, &self.exclude);
        if self.force_exclude {
            files.retain(|file| !self.exclude.matches_within_root(file));
        }
        (files, errors)
    }

    /// The options of a run over files, analysing `chunk` files at a time.
    pub fn run_options(&self, chunk: usize) -> RunOptions {
        RunOptions {
            queries: self.queries.clone(),
            polarities: self.polarities.clone(),
            load: self.load,
            limits: self.limits,
            chunk,
        }
    }
}

/// What [`reported_findings`] found.
#[derive(Debug, Default)]
pub struct Reported {
    /// The reported findings, in the order `quarry query --format jsonl` prints them.
    pub findings: Vec<FindingRecord>,
    /// The path of each finding's file, in the order of `findings` (the finding's
    /// `file` is text, which cannot spell a name that is not UTF-8).
    pub finding_paths: Vec<PathBuf>,
    /// Paths that could not be walked (messages naming the path).
    pub walk_errors: Vec<String>,
    /// Files that could not be analysed, each error naming its file.
    pub failed: Vec<SyntaxError>,
    /// What came from the cache, when the run went through one.
    pub cache: Option<CacheCounts>,
}

/// The findings of a run over `paths` that are reported (after per-file
/// ignores and suppression comments; `honour_comments: false` is
/// `--ignore-noqa`), and what could not be read.
pub fn reported_findings(paths: &[PathBuf], plan: &Plan, honour_comments: bool) -> Reported {
    reported_findings_cached(paths, plan, honour_comments, None)
}

/// [`reported_findings`] through the analysis cache `cache` when given, as
/// `quarry query` runs (the same findings, unchanged files read from it).
pub fn reported_findings_cached(
    paths: &[PathBuf],
    plan: &Plan,
    honour_comments: bool,
    cache: Option<&AnalysisCache>,
) -> Reported {
    // A flag nobody sets: the run is never cancelled.
    let never = AtomicBool::new(false);
    reported_findings_in_chunks(paths, plan, honour_comments, cache, &never, CHUNK).unwrap_or_default()
}

/// A run stopped because its caller set the cancel flag.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cancelled;

/// [`reported_findings_cached`] that stops, with [`Cancelled`], once `cancel` is set (by
/// any thread): between the project's files, checked as each file's report is taken, so a
/// caller that gave up (a Ctrl-C in Python) does not leave the work running to its end.
pub fn reported_findings_cancellable(
    paths: &[PathBuf],
    plan: &Plan,
    honour_comments: bool,
    cache: Option<&AnalysisCache>,
    cancel: &AtomicBool,
) -> Result<Reported, Cancelled> {
    reported_findings_in_chunks(paths, plan, honour_comments, cache, cancel, CANCELLABLE_CHUNK)
}

/// The run of [`reported_findings_cancellable`], `chunk` files analysed in parallel at a time.
fn reported_findings_in_chunks(
    paths: &[PathBuf],
    plan: &Plan,
    honour_comments: bool,
    cache: Option<&AnalysisCache>,
    cancel: &AtomicBool,
    chunk: usize,
) -> Result<Reported, Cancelled> {
    let (files, walk_errors) = plan.files(paths);
    let mut policy = Policy {
        per_file_ignores: &plan.per_file_ignores,
        honour_comments,
        baseline: None,
        writer: None,
        queries: &plan.queries,
    };
    let mut out = Reported { walk_errors, ..Reported::default() };
    if cancel.load(Ordering::Relaxed) {
        return Err(Cancelled);
    }
    let project = Project::new(&files, &plan.load);
    let options = plan.run_options(chunk);
    let mut failed = Vec::new();
    let mut findings = Vec::new();
    let mut finding_paths = Vec::new();
    let each = |path: &Path, report: Result<FileReport, SyntaxError>| -> Result<(), Cancelled> {
        if cancel.load(Ordering::Relaxed) {
            return Err(Cancelled);
        }
        match report {
            Ok(report) => {
                let triaged = policy.triage(report);
                let reported = triaged.findings.into_iter().filter(|t| t.status == Status::Reported);
                findings.extend(reported.map(|t| t.finding));
                finding_paths.resize(findings.len(), path.to_path_buf());
            }
            Err(error) => failed.push(error),
        }
        Ok(())
    };
    let counts = match cache {
        Some(cache) => analyze_files_cached(&project, &files, &options, cache, &|_| {}, each).map(Some),
        None => analyze_files_in(&project, &files, &options, &|_| {}, each).map(|()| None),
    }?;
    out.findings = findings;
    out.finding_paths = finding_paths;
    out.failed = failed;
    out.cache = counts;
    Ok(out)
}

/// Files analysed in parallel at a time by [`reported_findings_cancellable`]: fewer than
/// [`CHUNK`], so that a cancelled run stops after a few files' work, enough to keep every
/// core busy.
const CANCELLABLE_CHUNK: usize = 32;

/// Files analysed in parallel at a time: output stays deterministic and
/// memory bounded on large corpora.
pub const CHUNK: usize = 256;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn findings_of_a_file_honour_the_configuration_and_suppressions() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("quarry.toml"), "select = [\"unused-import\"]\n").unwrap();
        let file = dir.path().join("a.py");
        std::fs::write(&file, "import os\nimport sys  # noqa\n").unwrap();
        let (settings, root) = settings_for(&ConfigChoice::Discover, &file, Settings::default()).unwrap();
        assert_eq!(root, std::path::absolute(dir.path()).unwrap());
        let plan = Plan::new(&settings, &root, &[Polarity::Positive], None).unwrap();
        assert_eq!(plan.queries.len(), 1);
        let reported = reported_findings(std::slice::from_ref(&file), &plan, true);
        assert!(reported.failed.is_empty() && reported.walk_errors.is_empty(), "{reported:?}");
        let spans: Vec<&str> = reported.findings.iter().map(|f| f.answer_spans[0].span.as_str()).collect();
        assert_eq!(spans, ["import os"]);
        assert_eq!(reported_findings(&[file], &plan, false).findings.len(), 2);
    }

    #[test]
    fn a_cancelled_run_stops_and_an_uncancelled_one_reports_everything() {
        let dir = tempfile::tempdir().unwrap();
        for i in 0..40 {
            std::fs::write(dir.path().join(format!("m{i}.py")), "import os\n").unwrap();
        }
        let paths = [dir.path().to_path_buf()];
        let (settings, root) = settings_for(&ConfigChoice::Discover, dir.path(), Settings::default()).unwrap();
        let plan = Plan::new(&settings, &root, &[Polarity::Positive], None).unwrap();
        let cancel = AtomicBool::new(false);
        let whole = reported_findings_cancellable(&paths, &plan, true, None, &cancel).unwrap();
        let unused = whole.findings.iter().filter(|f| f.query == "Unused import").count();
        assert_eq!(unused, 40);
        assert_eq!(whole.findings.len(), reported_findings(&paths, &plan, true).findings.len());
        cancel.store(true, Ordering::Relaxed);
        assert_eq!(reported_findings_cancellable(&paths, &plan, true, None, &cancel).unwrap_err(), Cancelled);
    }

    #[test]
    fn what_is_wrong_in_a_configuration_file_names_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let config = dir.path().join("quarry.toml");
        for (text, problem) in [
            ("select = [\"bogus\"]\n", "unknown query `bogus`"),
            ("exclude = [\"[\"]\n", "["),
            ("python-version = \"4.0\"\n", "invalid python-version `4.0`"),
            ("[per-file-ignores]\n\"*.py\" = [\"nope\"]\n", "nope"),
        ] {
            std::fs::write(&config, text).unwrap();
            let error = settings_for(&ConfigChoice::Discover, dir.path(), Settings::default()).unwrap_err();
            assert!(error.starts_with(&format!("{}: ", config.display())) && error.contains(problem), "{error}");
        }
        // An unknown query given on the command line is not the file's.
        std::fs::write(&config, "").unwrap();
        let overrides = Settings { select: Some(vec!["bogus".into()]), ..Settings::default() };
        let (settings, root) = settings_for(&ConfigChoice::Discover, dir.path(), overrides).unwrap();
        let error = Plan::new(&settings, &root, &[Polarity::Positive], None).err().unwrap();
        assert!(!error.contains("quarry.toml"), "{error}");
    }

    #[test]
    fn a_cached_run_reports_what_an_uncached_one_does() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("quarry.toml"), "").unwrap();
        std::fs::write(dir.path().join("a.py"), "import os\nimport sys  # noqa\n").unwrap();
        std::fs::write(dir.path().join("b.py"), "from a import os\nx = os == None\n").unwrap();
        let (settings, root) = settings_for(&ConfigChoice::Discover, dir.path(), Settings::default()).unwrap();
        let plan = Plan::new(&settings, &root, &[Polarity::Positive], None).unwrap();
        let cache = AnalysisCache::open(&dir.path().join("cache")).unwrap();
        let paths = [dir.path().to_path_buf()];
        let json = |r: &Reported| serde_json::to_string(&r.findings).unwrap();
        let plain = reported_findings(&paths, &plan, true);
        assert!(!plain.findings.is_empty() && plain.cache.is_none());
        let first = reported_findings_cached(&paths, &plan, true, Some(&cache));
        let second = reported_findings_cached(&paths, &plan, true, Some(&cache));
        assert_eq!(json(&first), json(&plain));
        assert_eq!(json(&second), json(&plain));
        assert_eq!(first.cache, Some(CacheCounts { hits: 0, analysed: 2, write_errors: 0 }));
        assert_eq!(second.cache, Some(CacheCounts { hits: 2, analysed: 0, write_errors: 0 }));
    }

    #[test]
    fn command_line_options_resolve_as_quarry_query_reads_them() {
        let (pattern, ids) = per_file_ignore_option("tests/*:Q1, F401").unwrap();
        assert_eq!((pattern.as_str(), ids), ("tests/*", vec!["Q1".to_string(), "F401".to_string()]));
        assert_eq!(per_file_ignore_option("C:/x.py:Q1").unwrap().0, "C:/x.py");
        assert!(per_file_ignore_option("tests").unwrap_err().contains("`tests`"));
        assert_eq!(polarities(false, false), [Polarity::Positive]);
        assert_eq!(polarities(true, false), [Polarity::Negative]);
        assert_eq!(polarities(true, true), [Polarity::Positive, Polarity::Negative]);
        let file = Path::new("q.toml");
        assert_eq!(ConfigChoice::from_options(Some(file), true), ConfigChoice::Isolated);
        assert_eq!(ConfigChoice::from_options(Some(file), false), ConfigChoice::File(file.into()));
        assert_eq!(ConfigChoice::from_options(None, false), ConfigChoice::Discover);
    }

    #[test]
    fn a_missing_configuration_file_is_an_error_naming_it() {
        let error =
            settings_for(&ConfigChoice::File("nowhere/quarry.toml".into()), Path::new("."), Settings::default())
                .unwrap_err();
        assert!(error.contains("nowhere/quarry.toml"), "{error}");
    }
}
