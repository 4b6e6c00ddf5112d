//! Project configuration for `quarry query`, read from `quarry.toml` or the
//! `[tool.quarry]` table of `pyproject.toml`, as ruff reads `ruff.toml` and
//! `[tool.ruff]`.
//!
//! The file is found by walking up from the analysed path: in each folder
//! `quarry.toml` wins over `.quarry.toml`, which wins over a
//! `pyproject.toml` that has a `[tool.quarry]` table (one without it is
//! passed over). Relative patterns in the file are anchored at the file's
//! folder, the project root. Unknown keys are an error, so a typo does not
//! silently do nothing. Command-line options of the same names override.
//!
//! ```toml
//! [tool.quarry]
//! select = ["Q1", "py/test-equals-none", "unused-local-variable"]
//! ignore = ["F401"]
//! extend-exclude = ["generated"]
//! per-file-ignores = { "tests/*" = ["imprecise-assert"] }
//! python-version = "3.12"
//! max-file-bytes = 1000000
//! ```

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;

use quarry_query::registry::{all_queries, resolve_all, Query};

/// Names of configuration files, in order of precedence within a folder.
pub const CONFIG_FILES: &[&str] = &["quarry.toml", ".quarry.toml", "pyproject.toml"];

/// Settings from a configuration file or the command line. `None` leaves
/// the default.
#[derive(Debug, Clone, Default, Deserialize, PartialEq)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct Settings {
    /// Queries to run (ids, names, `Q` numbers, CodeQL ids, ruff codes).
    pub select: Option<Vec<String>>,
    /// Queries added to `select` (or to the default of all).
    pub extend_select: Option<Vec<String>>,
    /// Queries not to run.
    pub ignore: Option<Vec<String>>,
    /// Patterns of paths left out of directory walks; replaces the defaults.
    pub exclude: Option<Vec<String>>,
    /// Patterns left out in addition to `exclude`.
    pub extend_exclude: Option<Vec<String>>,
    /// Apply `exclude` to paths named explicitly too (and to
    /// `--stdin-filename`), for pre-commit hooks that pass every changed file.
    pub force_exclude: Option<bool>,
    /// Queries not reported for files matching a pattern.
    pub per_file_ignores: Option<BTreeMap<String, Vec<String>>>,
    /// The Python version the code targets (`3.12`, `py312`).
    pub python_version: Option<String>,
    /// Files larger than this are skipped.
    pub max_file_bytes: Option<u64>,
}

impl Settings {
    /// These settings with every value set in `other` taking precedence.
    pub fn overridden_by(self, other: Settings) -> Settings {
        Settings {
            select: other.select.or(self.select),
            extend_select: concat(self.extend_select, other.extend_select),
            ignore: other.ignore.or(self.ignore),
            exclude: other.exclude.or(self.exclude),
            extend_exclude: concat(self.extend_exclude, other.extend_exclude),
            force_exclude: other.force_exclude.or(self.force_exclude),
            per_file_ignores: other.per_file_ignores.or(self.per_file_ignores),
            python_version: other.python_version.or(self.python_version),
            max_file_bytes: other.max_file_bytes.or(self.max_file_bytes),
        }
    }
}

/// `extend-*` values add up: both lists, the file's first.
fn concat(first: Option<Vec<String>>, second: Option<Vec<String>>) -> Option<Vec<String>> {
    match (first, second) {
        (Some(mut a), Some(b)) => {
            a.extend(b);
            Some(a)
        }
        (a, b) => b.or(a),
    }
}

/// A configuration file and its settings.
#[derive(Debug, Clone)]
pub struct ConfigFile {
    /// The file.
    pub path: PathBuf,
    /// Its settings.
    pub settings: Settings,
}

impl ConfigFile {
    /// The project root: the file's folder.
    pub fn root(&self) -> PathBuf {
        let absolute = std::path::absolute(&self.path).unwrap_or_else(|_| self.path.clone());
        absolute.parent().map(Path::to_path_buf).unwrap_or_default()
    }
}

#[derive(Deserialize)]
struct Pyproject {
    tool: Option<Tools>,
}

#[derive(Deserialize)]
struct Tools {
    quarry: Option<toml::Value>,
}

/// Whether a path is a configuration file whose change calls for a reload.
pub fn is_config_file(path: &Path) -> bool {
    path.file_name().and_then(|n| n.to_str()).is_some_and(|name| CONFIG_FILES.contains(&name))
}

/// Reads a configuration file: `pyproject.toml` (its `[tool.quarry]`
/// table; `None` when it has none) or any other name as a quarry file.
pub fn load(path: &Path) -> Result<Option<ConfigFile>, String> {
    let text = quarry_stdx::read::read_text(path, quarry_stdx::read::MAX_TEXT_FILE_BYTES)
        .map_err(|e| format!("{}: cannot read: {}", path.display(), e.source))?;
    let invalid = |e: &dyn std::fmt::Display| format!("{}: invalid configuration: {e}", path.display());
    let settings: Settings = if path.file_name().is_some_and(|n| n == "pyproject.toml") {
        let pyproject: Pyproject = toml::from_str(&text).map_err(|e| invalid(&e))?;
        let Some(table) = pyproject.tool.and_then(|t| t.quarry) else { return Ok(None) };
        table.try_into().map_err(|e| invalid(&e))?
    } else {
        toml::from_str(&text).map_err(|e| invalid(&e))?
    };
    Ok(Some(ConfigFile { path: path.to_path_buf(), settings }))
}

/// The nearest configuration file at or above `start` (a file's folder is
/// searched first when `start` is a file).
pub fn discover(start: &Path) -> Result<Option<ConfigFile>, String> {
    let absolute = std::path::absolute(start).unwrap_or_else(|_| start.to_path_buf());
    let mut folder = if absolute.is_dir() { Some(absolute.as_path()) } else { absolute.parent() };
    while let Some(dir) = folder {
        for name in CONFIG_FILES {
            let candidate = dir.join(name);
            if candidate.is_file() {
                if let Some(config) = load(&candidate)? {
                    return Ok(Some(config));
                }
            }
        }
        folder = dir.parent();
    }
    Ok(None)
}

/// The queries `settings` select: `select` (default all) plus
/// `extend-select`, less `ignore`, less those that do not apply to
/// `python-version`, in registry order.
pub fn selected_queries(settings: &Settings) -> Result<Vec<&'static Query>, String> {
    let mut selected: Vec<&'static Query> = match &settings.select {
        None => all_queries(),
        Some(keys) => resolve_all(keys)?,
    };
    for query in resolve_all(settings.extend_select.as_deref().unwrap_or_default())? {
        if !selected.iter().any(|q| q.meta.id == query.meta.id) {
            selected.push(query);
        }
    }
    let ignored = resolve_all(settings.ignore.as_deref().unwrap_or_default())?;
    selected.retain(|q| !ignored.iter().any(|i| i.meta.id == q.meta.id));
    if let Some(version) = &settings.python_version {
        let version = PythonVersion::parse(version)?;
        selected.retain(|q| applies_to(q.meta.id, version));
    }
    selected.sort_by_key(|q| q.meta.index);
    Ok(selected)
}

/// The Python version assumed when neither `python-version` nor the project's
/// `requires-python` names one: a supported Python 3.
pub const ASSUMED_PYTHON_VERSION: &str = "3.10";

/// `settings` with `python-version` filled in when it is unset: the lowest version the
/// `requires-python` of the nearest `pyproject.toml` at or above `start` allows, else
/// [`ASSUMED_PYTHON_VERSION`] (also when `start` is `None`, for `--isolated`). Code is
/// thus judged as Python 3 unless the project says otherwise.
pub fn with_python_version(mut settings: Settings, start: Option<&Path>) -> Settings {
    if settings.python_version.is_none() {
        let required = start.and_then(requires_python);
        settings.python_version = Some(required.unwrap_or_else(|| ASSUMED_PYTHON_VERSION.to_string()));
    }
    settings
}

#[derive(Deserialize)]
struct ProjectTable {
    project: Option<RequiresPython>,
}

#[derive(Deserialize)]
#[serde(rename_all = "kebab-case")]
struct RequiresPython {
    requires_python: Option<String>,
}

/// The lowest `major.minor` allowed by the `[project] requires-python` of the nearest
/// `pyproject.toml` at or above `start` that has one; `None` when none has one, or its
/// specifiers set no lower bound. A file that does not read or parse is passed over.
pub fn requires_python(start: &Path) -> Option<String> {
    let absolute = std::path::absolute(start).unwrap_or_else(|_| start.to_path_buf());
    let mut folder = if absolute.is_dir() { Some(absolute.as_path()) } else { absolute.parent() };
    while let Some(dir) = folder {
        let specifiers = std::fs::read_to_string(dir.join("pyproject.toml"))
            .ok()
            .and_then(|text| toml::from_str::<ProjectTable>(&text).ok())
            .and_then(|table| table.project?.requires_python);
        if let Some(specifiers) = specifiers {
            return lowest_allowed(&specifiers);
        }
        folder = dir.parent();
    }
    None
}

/// The lowest `major.minor` a PEP 440 specifier set such as `>=3.8, <4` or `~=3.9.1` allows
/// through its lower bounds (`>=`, `>`, `~=`, `==`, `===`); `None` without one. A bound
/// outside the Python 2 and 3 that quarry judges code as (`~=4.1`) is passed over.
fn lowest_allowed(specifiers: &str) -> Option<String> {
    specifiers
        .split(',')
        .filter_map(|clause| {
            let clause = clause.trim();
            let version = [">=", "~=", "===", "==", ">"].iter().find_map(|op| clause.strip_prefix(op))?;
            let mut parts = version.trim().split('.');
            let major: u8 = parts.next()?.trim().parse().ok()?;
            let minor: u8 = parts.next().and_then(|m| m.trim().parse().ok()).unwrap_or(0);
            (2..=3).contains(&major).then_some((major, minor))
        })
        .min()
        .map(|(major, minor)| format!("{major}.{minor}"))
}

/// A Python version `major.minor`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct PythonVersion {
    /// Major version.
    pub major: u8,
    /// Minor version.
    pub minor: u8,
}

impl PythonVersion {
    /// Parses `3.12`, `3`, or ruff's `py312` spelling.
    pub fn parse(text: &str) -> Result<PythonVersion, String> {
        let bad = || format!("invalid python-version `{text}` (expected e.g. `3.12` or `py312`)");
        let trimmed = text.trim();
        let (major, minor) = if let Some(digits) = trimmed.strip_prefix("py") {
            let (major, minor) = digits.split_at(digits.len().min(1));
            (major.parse().map_err(|_| bad())?, if minor.is_empty() { 0 } else { minor.parse().map_err(|_| bad())? })
        } else {
            let mut parts = trimmed.splitn(2, '.');
            let major = parts.next().unwrap_or_default().parse().map_err(|_| bad())?;
            let minor = parts.next().map(str::parse).transpose().map_err(|_| bad())?.unwrap_or(0);
            (major, minor)
        };
        if !(2..=3).contains(&major) {
            return Err(bad());
        }
        Ok(PythonVersion { major, minor })
    }
}

/// Whether query `id` reports a real problem in code for `version`. The
/// one version-bound query is `unguarded-next-in-generator`: since PEP 479
/// (Python 3.5 opt-in, default from 3.7) a `StopIteration` escaping a
/// generator is turned into a `RuntimeError`, and CodeQL reports it only for
/// versions before 3.5.
pub fn applies_to(id: &str, version: PythonVersion) -> bool {
    match id {
        "unguarded-next-in-generator" => version < PythonVersion { major: 3, minor: 5 },
        _ => true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_python_version_comes_from_requires_python_else_python_3_is_assumed() {
        assert_eq!(lowest_allowed(">=3.8, <4").as_deref(), Some("3.8"));
        assert_eq!(lowest_allowed("~=3.9.1").as_deref(), Some("3.9"));
        assert_eq!(lowest_allowed(">2.7, !=3.0.*, !=3.1.*").as_deref(), Some("2.7"));
        assert_eq!(lowest_allowed("==3.*").as_deref(), Some("3.0"));
        assert_eq!(lowest_allowed("<4"), None);
        assert_eq!(lowest_allowed("~=4.1"), None, "a Python quarry does not know is passed over");
        let dir = tempfile::tempdir().unwrap();
        let sub = dir.path().join("pkg");
        std::fs::create_dir_all(&sub).unwrap();
        let version = |start: Option<&Path>| with_python_version(Settings::default(), start).python_version.unwrap();
        assert_eq!(version(Some(&sub)), ASSUMED_PYTHON_VERSION);
        assert_eq!(version(None), ASSUMED_PYTHON_VERSION);
        std::fs::write(dir.path().join("pyproject.toml"), "[project]\nname = \"p\"\nrequires-python = \">=2.7\"\n")
            .unwrap();
        assert_eq!(version(Some(&sub.join("m.py"))), "2.7");
        let set = Settings { python_version: Some("3.12".into()), ..Settings::default() };
        assert_eq!(with_python_version(set, Some(&sub)).python_version.as_deref(), Some("3.12"));
        // Python 3 code: the generator query does not run; Python 2 code: it does.
        let runs = |version: &str| {
            let settings = Settings { python_version: Some(version.into()), ..Settings::default() };
            selected_queries(&settings).unwrap().iter().any(|q| q.meta.id == "unguarded-next-in-generator")
        };
        assert!(!runs(ASSUMED_PYTHON_VERSION) && runs("2.7"));
    }

    #[test]
    fn a_query_named_twice_is_selected_once() {
        let keys = |k: &[&str]| Some(k.iter().map(|s| s.to_string()).collect::<Vec<_>>());
        let settings = Settings {
            select: keys(&["Q20", "equals-none", "E711", "py/test-equals-none", "Q1"]),
            extend_select: keys(&["E711"]),
            ..Settings::default()
        };
        let ids: Vec<&str> = selected_queries(&settings).unwrap().iter().map(|q| q.meta.id).collect();
        assert_eq!(ids, ["unused-import", "equals-none"]);
        let resolved = resolve_all(&["E711".into(), "Q1".into(), "equals-none".into()]).unwrap();
        assert_eq!(resolved.iter().map(|q| q.meta.id).collect::<Vec<_>>(), ["equals-none", "unused-import"]);
        let unknown = resolve_all(&["Q20".into(), "nope".into()]).err().unwrap_or_default();
        assert!(unknown.contains("unknown query `nope`"), "{unknown}");
    }

    #[test]
    fn pyproject_without_the_table_is_passed_over() {
        let dir = tempfile::tempdir().unwrap();
        let sub = dir.path().join("pkg/sub");
        std::fs::create_dir_all(&sub).unwrap();
        std::fs::write(dir.path().join("quarry.toml"), "select = [\"Q1\"]\n").unwrap();
        std::fs::write(dir.path().join("pkg/pyproject.toml"), "[tool.ruff]\nline-length = 80\n").unwrap();
        let found = discover(&sub).unwrap().unwrap();
        assert_eq!(found.path, dir.path().join("quarry.toml"));
        assert_eq!(found.settings.select, Some(vec!["Q1".to_string()]));
        std::fs::write(dir.path().join("pkg/pyproject.toml"), "[tool.quarry]\nignore = [\"F401\"]\n").unwrap();
        let found = discover(&sub.join("x.py")).unwrap().unwrap();
        assert_eq!(found.path, dir.path().join("pkg/pyproject.toml"));
        std::fs::write(dir.path().join("pkg/pyproject.toml"), "[tool.quarry]\nselct = []\n").unwrap();
        let error = discover(&sub).unwrap_err();
        assert!(error.contains("pyproject.toml") && error.contains("selct"), "{error}");
    }

    #[test]
    fn selection_and_versions() {
        let settings = Settings {
            select: Some(vec!["Q1".into(), "py/test-equals-none".into(), "unguarded-next-in-generator".into()]),
            ignore: Some(vec!["F401".into()]),
            python_version: Some("3.12".into()),
            ..Settings::default()
        };
        let ids: Vec<_> = selected_queries(&settings).unwrap().iter().map(|q| q.meta.id).collect();
        assert_eq!(ids, ["equals-none"]);
        assert_eq!(PythonVersion::parse("py27").unwrap(), PythonVersion { major: 2, minor: 7 });
        assert_eq!(PythonVersion::parse("py312").unwrap(), PythonVersion { major: 3, minor: 12 });
        assert!(PythonVersion::parse("3.x").is_err());
        let old = Settings { python_version: Some("2.7".into()), ..Settings::default() };
        assert_eq!(selected_queries(&old).unwrap().len(), all_queries().len());
        let bad = Settings { ignore: Some(vec!["nope".into()]), ..Settings::default() };
        assert!(selected_queries(&bad).err().unwrap().contains("nope"));
    }
}
