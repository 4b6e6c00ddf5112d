//! A run of the queries over a project's files through the cache, as
//! [`crate::run::analyze_files_in`] does without it (same reports, same
//! order, same chunks).
//!
//! First every file is read and hashed, and the summaries of unchanged
//! files are taken from the cache. Then, chunk by chunk, a file whose
//! results entry exists is taken from it when the modules it imports
//! (directly or through other modules, as the project resolves imports)
//! hash as they did when it was analysed; a summary not in the
//! cache is read from its file for that check (its tree kept for the
//! file's own analysis). Other files are analysed, and their entries
//! written.
//!
//! The entry's imports hash covers every module the file imports,
//! directly or through other modules, itself included, each hashed with
//! what its imports are worth in this file set: its path, its dotted name,
//! its summary, every module name its imports write with the path of the
//! module it stands for ([`Project::import_resolution`]) and, for a
//! package, the paths of the modules below it (an attribute of an imported
//! package, `pkg.sub.Base`, may stand for them). So a file set which gives
//! a written name another meaning (a new module, a new `__init__.py`, a
//! wider common folder) or a package new submodules does not serve the
//! findings of the old one.
//!
//! A module the analysis reached only as an attribute of another
//! (`pkg.shapes.Base` after `import pkg`, where `pkg` binds no `shapes`;
//! [`Project::recording_attribute_modules`]) is no import: the entry names
//! those outside the file's import closure by path, and its hash covers
//! them and what they import, hashed alike. A lookup finds them by path
//! (a miss when one is gone) and hashes them with the rest, so an edit of
//! what `pkg/shapes.py` exports re-analyses the files that read it so, and
//! only those.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};

use quarry_syntax::{LoadOptions, SourceFile, SyntaxError};
use rayon::prelude::*;

use super::entry::CachedReport;
use super::{hash_parts, AnalysisCache, Kind};
use crate::project::{ModuleId, ModuleIndex, ModuleSummary, Project};
use crate::report::FileReport;
use crate::run::{analyze_one, RunOptions};

/// What a cached run did.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct CacheCounts {
    /// Files whose findings came from the cache.
    pub hits: usize,
    /// Files analysed.
    pub analysed: usize,
    /// Entries that could not be written.
    pub write_errors: usize,
}

/// The cache as a project's run sees it: every file's text hash on disk
/// (read once), the summaries of unchanged modules given to the project,
/// and each module's imports and hash, found once. Its methods
/// take the project, which may be a later one over the same files
/// ([`Project::edited`]) once [`CacheView::forget`] was told which module
/// changed; files read from an overlay are left to the analysis.
pub struct CacheView {
    cache: AnalysisCache,
    load: LoadOptions,
    /// The settings' part of every results key.
    settings: String,
    /// Each readable file's text hash (an unreadable one is analysed, to
    /// report why).
    text_hashes: HashMap<PathBuf, String>,
    /// Each module's imports and hash, found once ([`Seen`]).
    seen: Vec<OnceLock<Seen>>,
    /// Each package's submodules, found once.
    submodules: OnceLock<Vec<Vec<ModuleId>>>,
    /// Summary entries written or found in this run.
    summaries_stored: Mutex<HashSet<String>>,
    write_errors: Mutex<usize>,
}

/// Runs the queries over `files` within `project` through `cache`, and
/// calls `each` with every file's report in the order of `files`, as
/// [`crate::run::analyze_files_in`] does. Returns what came from the cache.
pub fn analyze_files_cached<E>(
    project: &Project,
    files: &[PathBuf],
    options: &RunOptions,
    cache: &AnalysisCache,
    analyzed: &(dyn Fn(&Path) + Sync),
    mut each: impl FnMut(&Path, Result<FileReport, SyntaxError>) -> Result<(), E>,
) -> Result<CacheCounts, E> {
    let view = CacheView::new(project, files, options, cache);
    let mut counts = CacheCounts::default();
    for chunk in files.chunks(options.chunk.max(1)) {
        let reports: Vec<(bool, Result<FileReport, SyntaxError>)> = chunk
            .par_iter()
            .map(|path| {
                let outcome = match view.report(project, path) {
                    Some(report) => (true, Ok(report)),
                    None => {
                        let (report, reached) =
                            project.recording_attribute_modules(|project| analyze_one(project, path, options));
                        if let Ok(report) = &report {
                            view.store(project, path, report, &reached);
                        }
                        (false, report)
                    }
                };
                analyzed(path);
                outcome
            })
            .collect();
        for (path, (hit, report)) in chunk.iter().zip(reports) {
            *if hit { &mut counts.hits } else { &mut counts.analysed } += 1;
            each(path, report)?;
        }
    }
    counts.write_errors = view.write_errors();
    Ok(counts)
}

impl CacheView {
    /// Reads and hashes every file of `files` and gives `project` the
    /// summaries of unchanged ones from `cache`.
    pub fn new(project: &Project, files: &[PathBuf], options: &RunOptions, cache: &AnalysisCache) -> CacheView {
        let ids: Vec<&str> = options.queries.iter().map(|q| q.meta.id).collect();
        let forms: Vec<u8> = options.polarities.iter().map(|p| p.example_type()).collect();
        let settings = hash_parts(&[
            ids.join(",").as_bytes(),
            &forms,
            &options.load.max_file_bytes.to_le_bytes(),
            &(options.limits.max_depth as u64).to_le_bytes(),
        ]);
        let text_hashes: HashMap<PathBuf, String> = files
            .par_iter()
            // An overlay's text is not the file's: neither its summary nor
            // its findings are the cache's.
            .filter(|path| !project.has_overlay(path))
            .filter_map(|path| {
                let source = SourceFile::load(path, &options.load).ok()?;
                let text_hash = hash_parts(&[source.text().as_bytes()]);
                if let Some(module) = project.module_of(path) {
                    let key = summary_key(&text_hash, options.load.max_file_bytes);
                    if let Some(summary) = cache.read::<ModuleSummary>(Kind::Summary, &key) {
                        project.provide_summary(module, summary);
                    }
                }
                Some((path.clone(), text_hash))
            })
            .collect();
        let modules = project.modules().len();
        CacheView {
            cache: cache.clone(),
            load: options.load,
            settings,
            text_hashes,
            seen: (0..modules).map(|_| OnceLock::new()).collect(),
            submodules: OnceLock::new(),
            summaries_stored: Mutex::new(HashSet::new()),
            write_errors: Mutex::new(0),
        }
    }

    fn results_key(&self, path: &Path, text_hash: &str) -> String {
        hash_parts(&[self.settings.as_bytes(), path.as_os_str().as_encoded_bytes(), text_hash.as_bytes()])
    }

    /// Forgets what was found of `module` (its text changed, or it is now
    /// read from an overlay): its imports and summary are read again from
    /// the project passed next.
    pub fn forget(&mut self, module: ModuleId) {
        if let Some(seen) = self.seen.get_mut(module.index()) {
            seen.take();
        }
    }

    /// How many entries could not be written so far.
    pub fn write_errors(&self) -> usize {
        self.write_errors.lock().map_or(0, |n| *n)
    }

    /// The report of `path` from the cache, when its entry exists, the
    /// modules it imports (and those it reached as attributes) are what
    /// they were when it was analysed, and its text still hashes as when
    /// the view was made.
    pub fn report(&self, project: &Project, path: &Path) -> Option<FileReport> {
        self.lookup(project, path).map(|(report, _)| report)
    }

    /// [`CacheView::report`] with the modules outside the file's import
    /// closure that its analysis reached as attributes of other modules
    /// ([`Project::recording_attribute_modules`]), as the entry names them.
    pub fn lookup(&self, project: &Project, path: &Path) -> Option<(FileReport, Vec<ModuleId>)> {
        let text_hash = self.text_hashes.get(path).filter(|_| !project.has_overlay(path))?;
        let entry: CachedReport = self.cache.read(Kind::Results, &self.results_key(path, text_hash))?;
        // A module gone from the file set: the analysis would differ.
        let reached: Vec<ModuleId> =
            entry.attribute_modules.iter().map(|p| project.module_of(Path::new(p))).collect::<Option<_>>()?;
        if entry.imports != self.imports_hash(project, path, &reached).0 {
            return None;
        }
        let source = SourceFile::load(path, &self.load).ok()?;
        if hash_parts(&[source.text().as_bytes()]) != *text_hash {
            return None;
        }
        let report = entry.into_report(path, source.text().to_string())?;
        Some((report, reached))
    }

    /// Writes the entries of a file just analysed (when its text is still
    /// the one hashed when the view was made); `reached` are the modules
    /// its analysis reached as attributes of other modules
    /// ([`Project::recording_attribute_modules`]).
    pub fn store(&self, project: &Project, path: &Path, report: &FileReport, reached: &[ModuleId]) {
        let Some(text_hash) = self.text_hashes.get(path).filter(|_| !project.has_overlay(path)) else { return };
        if hash_parts(&[report.text.as_bytes()]) != *text_hash {
            return;
        }
        let mut failed = 0;
        if let Some(module) = project.module_of(path) {
            let key = summary_key(text_hash, self.load.max_file_bytes);
            let first = self.summaries_stored.lock().map(|mut stored| stored.insert(key.clone())).unwrap_or(false);
            if let (true, Some(summary)) = (first, project.summary(module)) {
                failed += usize::from(self.cache.write(Kind::Summary, &key, summary).is_err());
            }
        }
        let (imports, outside) = self.imports_hash(project, path, reached);
        let outside: Option<Vec<String>> =
            outside.iter().map(|&m| project.modules().path(m).to_str().map(str::to_string)).collect();
        // A path that is not Unicode cannot be named in the entry: the file is analysed each run.
        let Some(outside) = outside else { return };
        let entry = CachedReport::of(report, imports, outside);
        failed += usize::from(self.cache.write(Kind::Results, &self.results_key(path, text_hash), &entry).is_err());
        if failed > 0 {
            if let Ok(mut errors) = self.write_errors.lock() {
                *errors += failed;
            }
        }
    }

    /// The hash of the modules `path` imports, directly or through other
    /// modules (its own included), and of the modules `reached` and those
    /// they import, each hashed as [`Seen::of`] does; with the modules of
    /// `reached` outside the file's own closure.
    fn imports_hash(&self, project: &Project, path: &Path, reached: &[ModuleId]) -> (String, Vec<ModuleId>) {
        let Some(module) = project.module_of(path) else { return (String::new(), Vec::new()) };
        let submodules = self.submodules.get_or_init(|| submodules(project.modules()));
        let mut visited = HashSet::from([module]);
        let mut hashes: Vec<&str> = Vec::new();
        self.close_over(project, submodules, vec![module], &mut visited, &mut hashes);
        // The file's own closure is complete: then those of `reached` outside it.
        let outside: Vec<ModuleId> =
            reached.iter().copied().filter(|m| m.index() < self.seen.len() && !visited.contains(m)).collect();
        visited.extend(&outside);
        self.close_over(project, submodules, outside.clone(), &mut visited, &mut hashes);
        // Each module's hash holds its path: sorted, they name the set.
        hashes.sort_unstable();
        (hash_parts(&hashes.iter().map(|h| h.as_bytes()).collect::<Vec<_>>()), outside)
    }

    /// Adds to `hashes` the hash of every module of `queue` and of those they
    /// import, directly or not, that `visited` does not hold yet (the modules
    /// of `queue` already in it).
    fn close_over<'a>(
        &'a self,
        project: &Project,
        submodules: &[Vec<ModuleId>],
        mut queue: Vec<ModuleId>,
        visited: &mut HashSet<ModuleId>,
        hashes: &mut Vec<&'a str>,
    ) {
        while let Some(m) = queue.pop() {
            let seen = self.seen[m.index()].get_or_init(|| Seen::of(project, m, submodules));
            hashes.push(&seen.hash);
            for &imported in &seen.imports {
                if visited.insert(imported) {
                    queue.push(imported);
                }
            }
        }
    }
}

/// A module as the files that import it depend on it.
struct Seen {
    /// The modules its imports resolve to (itself left out).
    imports: Vec<ModuleId>,
    /// The hash of its path, its dotted name, its summary, each module name
    /// its imports write with the path of the module it stands for in this
    /// file set, and for a package the paths of the modules below it, its
    /// submodules and theirs (what `pkg.sub.leaf` may stand for after
    /// `import pkg`). Paths, not ids: ids are not stable across runs.
    hash: String,
}

impl Seen {
    /// `module` in `project`, its imports resolved once; `submodules` as
    /// [`submodules`] finds them.
    fn of(project: &Project, module: ModuleId, submodules: &[Vec<ModuleId>]) -> Seen {
        let modules = project.modules();
        let path_of = |m: ModuleId| modules.path(m).as_os_str().as_encoded_bytes();
        let summary = match project.summary(module) {
            Some(summary) => hash_parts(&[summary.stable_text().as_bytes()]),
            None => String::new(),
        };
        let resolution = project.import_resolution(module);
        let mut parts: Vec<&[u8]> = vec![path_of(module), modules.name(module).as_bytes(), summary.as_bytes()];
        for (written, target) in &resolution {
            parts.push(written.as_bytes());
            // A module's path is never empty: empty stands for none.
            parts.push(target.map_or(&[][..], path_of));
        }
        let mut below: Vec<&[u8]> = Vec::new();
        let mut stack: Vec<ModuleId> = submodules[module.index()].clone();
        while let Some(sub) = stack.pop() {
            below.push(path_of(sub));
            stack.extend(&submodules[sub.index()]);
        }
        below.sort_unstable();
        if !below.is_empty() {
            parts.push(b"submodules");
            parts.extend(below);
        }
        let hash = hash_parts(&parts);
        let mut imports: Vec<ModuleId> =
            resolution.into_iter().filter_map(|(_, target)| target).filter(|&t| t != module).collect();
        imports.sort_unstable();
        imports.dedup();
        Seen { imports, hash }
    }
}

/// Each module's submodules as [`ModuleIndex::submodule`] finds them
/// (`dir/name.py`, else `dir/name/__init__.py`, below the package
/// `dir/__init__.py`); none for a module that is no package.
fn submodules(modules: &ModuleIndex) -> Vec<Vec<ModuleId>> {
    let mut below = vec![Vec::new(); modules.len()];
    for index in 0..modules.len() {
        let module = ModuleId::new(index);
        let path = modules.path(module);
        let (dir, name) = if modules.is_package(module) {
            let folder = path.parent();
            (folder.and_then(Path::parent), folder.and_then(Path::file_name))
        } else {
            (path.parent(), path.file_stem())
        };
        let (Some(dir), Some(name)) = (dir, name.and_then(|n| n.to_str())) else { continue };
        for init in ["__init__.py", "__init__.pyi"] {
            let Some(package) = modules.of_path(&dir.join(init)) else { continue };
            if package != module && modules.submodule(package, name) == Some(module) {
                below[package.index()].push(module);
            }
        }
    }
    below
}

/// The key of a summary entry.
fn summary_key(text_hash: &str, max_file_bytes: u64) -> String {
    hash_parts(&[b"summary", text_hash.as_bytes(), &max_file_bytes.to_le_bytes()])
}
