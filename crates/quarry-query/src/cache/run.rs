//! A run of the queries over a project's files through the cache, as
//! [`crate::run::analyze_files_in`] does without it (same reports, same
//! order, same chunks).
//!
//! First every file is read and hashed, and the summaries of unchanged
//! files are taken from the cache. Then, chunk by chunk, a file whose
//! results entry exists is taken from it when the summaries of the modules
//! it imports (directly or through other modules, as the project resolves
//! imports) hash as they did when it was analysed; a summary not in the
//! cache is read from its file for that check (its tree kept for the
//! file's own analysis). Other files are analysed, and their entries
//! written.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};

use quarry_syntax::{LoadOptions, SourceFile, SyntaxError};
use rayon::prelude::*;

use super::entry::CachedReport;
use super::{hash_parts, AnalysisCache, Kind};
use crate::project::{ModuleId, ModuleSummary, Project};
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
/// and each module's imports and summary hash, found once. Its methods
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
    /// Each module's summary hash.
    summary_hashes: Vec<OnceLock<String>>,
    /// Each module's imports.
    imports: Vec<OnceLock<Vec<ModuleId>>>,
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
                        let report = analyze_one(project, path, options);
                        if let Ok(report) = &report {
                            view.store(project, path, report);
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
            summary_hashes: (0..modules).map(|_| OnceLock::new()).collect(),
            imports: (0..modules).map(|_| OnceLock::new()).collect(),
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
        if let (Some(imports), Some(summary)) =
            (self.imports.get_mut(module.index()), self.summary_hashes.get_mut(module.index()))
        {
            imports.take();
            summary.take();
        }
    }

    /// How many entries could not be written so far.
    pub fn write_errors(&self) -> usize {
        self.write_errors.lock().map_or(0, |n| *n)
    }

    /// The report of `path` from the cache, when its entry exists, the
    /// modules it imports export what they did when it was analysed, and
    /// its text still hashes as when the view was made.
    pub fn report(&self, project: &Project, path: &Path) -> Option<FileReport> {
        let text_hash = self.text_hashes.get(path).filter(|_| !project.has_overlay(path))?;
        let entry: CachedReport = self.cache.read(Kind::Results, &self.results_key(path, text_hash))?;
        if entry.imports != self.imports_hash(project, path) {
            return None;
        }
        let source = SourceFile::load(path, &self.load).ok()?;
        if hash_parts(&[source.text().as_bytes()]) != *text_hash {
            return None;
        }
        entry.into_report(path, source.text().to_string())
    }

    /// Writes the entries of a file just analysed (when its text is still
    /// the one hashed when the view was made).
    pub fn store(&self, project: &Project, path: &Path, report: &FileReport) {
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
        let entry = CachedReport::of(report, self.imports_hash(project, path));
        failed += usize::from(self.cache.write(Kind::Results, &self.results_key(path, text_hash), &entry).is_err());
        if failed > 0 {
            if let Ok(mut errors) = self.write_errors.lock() {
                *errors += failed;
            }
        }
    }

    /// The hash of the paths and summaries of the modules `path` imports,
    /// directly or through other modules (its own summary included).
    fn imports_hash(&self, project: &Project, path: &Path) -> String {
        let Some(module) = project.module_of(path) else { return String::new() };
        let mut seen = HashSet::from([module]);
        let mut queue = vec![module];
        while let Some(m) = queue.pop() {
            for &imported in self.imports[m.index()].get_or_init(|| project.imports_of(m)) {
                if seen.insert(imported) {
                    queue.push(imported);
                }
            }
        }
        let mut modules: Vec<ModuleId> = seen.into_iter().collect();
        let modules_index = project.modules();
        modules.sort_by(|a, b| modules_index.path(*a).cmp(modules_index.path(*b)));
        let mut parts: Vec<Vec<u8>> = Vec::with_capacity(modules.len() * 2);
        for m in modules {
            parts.push(modules_index.path(m).as_os_str().as_encoded_bytes().to_vec());
            let summary = self.summary_hashes[m.index()].get_or_init(|| match project.summary(m) {
                Some(summary) => hash_parts(&[summary.stable_text().as_bytes()]),
                None => String::new(),
            });
            parts.push(summary.as_bytes().to_vec());
        }
        hash_parts(&parts.iter().map(Vec::as_slice).collect::<Vec<_>>())
    }
}

/// The key of a summary entry.
fn summary_key(text_hash: &str, max_file_bytes: u64) -> String {
    hash_parts(&[b"summary", text_hash.as_bytes(), &max_file_bytes.to_le_bytes()])
}
