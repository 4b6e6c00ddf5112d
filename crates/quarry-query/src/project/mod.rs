//! The project model: the files of one run seen together. Module names come
//! from paths and packages ([`modules`]); each module has a small summary of
//! what other modules need ([`summary`]), built from its own tree on first
//! need and kept without the tree. Imported names resolve to their
//! definitions in other files (through re-exports and `import *`; cycles end
//! as unknown), classes get MROs across modules (C3 where all bases are
//! known), and names from outside the run stay unknown, so the queries treat
//! them as CodeQL treats a class whose hierarchy it failed to infer.
//!
//! The model is shared read-only by the workers of pass 2 ([`crate::run`]);
//! summaries fill in lazily, each at most once, and depend only on their own
//! file, so answers do not depend on the order files are analysed in.
//!
//! Each file is parsed once: a file analysed before any other file needs it
//! leaves its summary behind (read from the tree its analysis parsed), and a
//! file summarised before its own analysis keeps its tree for that analysis
//! ([`Project::parse_for_analysis`]), up to [`MAX_KEPT_TREES`] trees at a
//! time, so memory stays bounded by the files in flight, those kept trees
//! and the summaries.
//!
//! A file read from an overlay (an editor's unsaved buffer) keeps its last
//! tree across the projects that [`Project::edited`] makes, and its next
//! version is parsed incrementally from it ([`ParsedFile::reparse_within`]).

pub mod modules;
pub mod summary;

use std::cell::{OnceCell, RefCell};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use quarry_syntax::{
    Deadline, Language, LoadOptions, ParsedFile, SourceFile, SyntaxError, DEFAULT_MAX_DEPTH, DEFAULT_TIME_BUDGET,
};

pub use modules::{ModuleId, ModuleIndex};

use crate::signatures::Signature;
pub use summary::{
    BaseSummary, Binding, ClassSummary, ImportRef, InitRef, MemberSummary, MethodSummary, ModuleSummary,
};

/// A class of a module of the project, by module and index among the
/// module's classes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ExternalClass {
    /// The module defining it.
    pub module: ModuleId,
    /// Its index in the module's [`ModuleSummary::classes`].
    pub class: usize,
}

/// What a name resolves to across the project.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Resolved {
    /// A module of the project.
    Module(ModuleId),
    /// A class of a module of the project.
    Class(ExternalClass),
    /// A function defined at module level in that module.
    Function(ModuleId),
    /// Something outside the project, or computed.
    Unknown,
}

/// Longest chain of imports followed for one name.
const MAX_HOPS: usize = 64;

/// Most trees parsed for a summary and kept for their file's own analysis
/// at one time; a tree beyond this is dropped and its file parsed again
/// when its analysis comes.
pub const MAX_KEPT_TREES: usize = 128;

/// The project model of one run, cheap to clone and shared between threads.
#[derive(Clone)]
pub struct Project {
    inner: Arc<Inner>,
    /// Where the modules [`Project::resolve_attribute`] reaches as
    /// submodules are recorded, in the handles that
    /// [`Project::recording_attribute_modules`] makes (and their clones).
    reached: Option<Arc<Mutex<Vec<ModuleId>>>>,
}

struct Inner {
    modules: Arc<ModuleIndex>,
    summaries: Vec<OnceLock<Option<Arc<ModuleSummary>>>>,
    load: LoadOptions,
    /// Texts that stand for files of the project instead of what is on
    /// disk (an editor's unsaved buffers).
    overlays: HashMap<PathBuf, Arc<str>>,
    kept: Mutex<KeptTrees>,
    /// The last tree of each overlay file, shared with the projects that
    /// [`Project::edited`] makes from this one.
    last_overlay_trees: Arc<Mutex<HashMap<PathBuf, ParsedFile>>>,
    /// Files parsed to summarise them, and how many of those trees their
    /// own analysis took.
    summary_parses: AtomicUsize,
    trees_reused: AtomicUsize,
}

/// Trees parsed for a summary before their file's analysis began, and which
/// files' analyses have begun (their trees are no longer kept).
struct KeptTrees {
    started: Vec<bool>,
    trees: HashMap<ModuleId, ParsedFile>,
}

impl std::fmt::Debug for Project {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Project").field("modules", &self.inner.modules.len()).finish()
    }
}

impl Project {
    /// Pass 1: names the modules of the run's files. Summaries are read on
    /// first need, with the same load options.
    pub fn new(files: &[PathBuf], load: &LoadOptions) -> Project {
        Project::with_overlays(files, load, HashMap::new())
    }

    /// [`Project::new`] where the files named in `overlays` are read from
    /// the given text instead of the disk (an editor's unsaved buffers; a
    /// file deleted while open).
    pub fn with_overlays(files: &[PathBuf], load: &LoadOptions, overlays: HashMap<PathBuf, Arc<str>>) -> Project {
        let modules = Arc::new(ModuleIndex::build(files));
        let summaries = (0..modules.len()).map(|_| OnceLock::new()).collect();
        Project::assemble(modules, summaries, load, overlays, Arc::default())
    }

    fn assemble(
        modules: Arc<ModuleIndex>,
        summaries: Vec<OnceLock<Option<Arc<ModuleSummary>>>>,
        load: &LoadOptions,
        overlays: HashMap<PathBuf, Arc<str>>,
        last_overlay_trees: Arc<Mutex<HashMap<PathBuf, ParsedFile>>>,
    ) -> Project {
        let kept = Mutex::new(KeptTrees { started: vec![false; modules.len()], trees: HashMap::new() });
        let (summary_parses, trees_reused) = (AtomicUsize::new(0), AtomicUsize::new(0));
        let inner =
            Inner { modules, summaries, load: *load, overlays, kept, last_overlay_trees, summary_parses, trees_reused };
        Project { inner: Arc::new(inner), reached: None }
    }

    /// The same project after the text of `path` changed: `text` is its new
    /// unsaved text, `None` to read it from disk again. The summaries read so
    /// far are kept (shared, not copied) except that of `path`, which is read
    /// again on first need; the file set stays the same.
    pub fn edited(&self, path: &Path, text: Option<Arc<str>>) -> Project {
        let changed = self.module_of(path);
        let summaries = self
            .inner
            .summaries
            .iter()
            .enumerate()
            .map(|(module, summary)| (ModuleId::new(module), summary))
            .map(|(module, summary)| match summary.get() {
                Some(known) if Some(module) != changed => OnceLock::from(known.clone()),
                _ => OnceLock::new(),
            })
            .collect();
        let mut overlays = self.inner.overlays.clone();
        match text {
            Some(text) => {
                overlays.insert(path.to_path_buf(), text);
            }
            None => {
                overlays.remove(path);
                if let Ok(mut trees) = self.inner.last_overlay_trees.lock() {
                    trees.remove(path);
                }
            }
        }
        let trees = self.inner.last_overlay_trees.clone();
        Project::assemble(self.inner.modules.clone(), summaries, &self.inner.load, overlays, trees)
    }

    /// The same project with the files `added` after its own (its modules
    /// keep their ids) and `overlays` for its unsaved texts: the summaries
    /// read so far are kept (shared, not copied), since a summary depends
    /// on its own file only, except those of files whose overlay is not the
    /// one this project reads; the overlays' last trees are shared as by
    /// [`Project::edited`]. An editor's server adds a file it opens this
    /// way without reading the others' summaries again.
    pub fn with_files_added(&self, added: &[PathBuf], overlays: HashMap<PathBuf, Arc<str>>) -> Project {
        let modules = &self.inner.modules;
        let mut files: Vec<PathBuf> =
            (0..modules.len()).map(|m| modules.path(ModuleId::new(m)).to_path_buf()).collect();
        files.extend(added.iter().filter(|path| modules.of_path(path).is_none()).cloned());
        let same_text = |path: &Path| match (self.inner.overlays.get(path), overlays.get(path)) {
            (None, None) => true,
            (Some(old), Some(new)) => Arc::ptr_eq(old, new) || old == new,
            _ => false,
        };
        let summaries = (0..files.len())
            .map(|m| match self.inner.summaries.get(m).and_then(OnceLock::get) {
                Some(known) if same_text(&files[m]) => OnceLock::from(known.clone()),
                _ => OnceLock::new(),
            })
            .collect();
        let trees = self.inner.last_overlay_trees.clone();
        if let Ok(mut trees) = trees.lock() {
            trees.retain(|path, _| overlays.contains_key(path));
        }
        Project::assemble(Arc::new(ModuleIndex::build(&files)), summaries, &self.inner.load, overlays, trees)
    }

    /// The modules of the project that `module`'s module-level imports
    /// (`import`, `from ... import`, `import *`) name: the imported module,
    /// the packages above it and, for `from m import name`, the submodule
    /// `m.name` when there is one. Its summary is read if need be.
    pub fn imports_of(&self, module: ModuleId) -> Vec<ModuleId> {
        let mut found: Vec<ModuleId> = self.import_resolution(module).into_iter().filter_map(|(_, t)| t).collect();
        found.sort_unstable();
        found.dedup();
        found.retain(|&m| m != module);
        found
    }

    /// Every module name `module`'s module-level imports write, with what
    /// it stands for in this project (`None`: nothing of the project;
    /// `module` itself when it imports itself), sorted: each dotted prefix
    /// of an imported module (with a relative import's dots) and, where the
    /// module is found, `m import name` for `from m import name` with the
    /// submodule it names, if any. Where the project changes its files,
    /// the names the module's imports write resolve as before exactly
    /// when this is equal (an attribute of an imported package, `pkg.sub`
    /// read after `import pkg`, is not one of them). Its summary is read
    /// if need be.
    pub fn import_resolution(&self, module: ModuleId) -> Vec<(String, Option<ModuleId>)> {
        let Some(summary) = self.summary(module) else { return Vec::new() };
        let imports = summary.names.values().filter_map(|b| match b {
            Binding::Import(import) => Some(import),
            _ => None,
        });
        let mut found = Vec::new();
        for import in imports.chain(&summary.star_imports) {
            let level = import.level();
            let dotted = &import.module[level..];
            let parts: Vec<&str> = dotted.split('.').filter(|p| !p.is_empty()).collect();
            for end in 0..=parts.len() {
                let prefix = format!("{}{}", &import.module[..level], parts[..end].join("."));
                if (end == 0 && level == 0) || prefix.is_empty() {
                    continue;
                }
                let target = self.module_target(module, &prefix);
                if let (Some(target), Some(name), true) = (target, import.name.as_deref(), end == parts.len()) {
                    found.push((format!("{prefix} import {name}"), self.inner.modules.submodule(target, name)));
                }
                found.push((prefix, target));
            }
        }
        found.sort_unstable();
        found.dedup();
        found
    }

    /// The modules.
    pub fn modules(&self) -> &ModuleIndex {
        &self.inner.modules
    }

    /// The module of a file of the run.
    pub fn module_of(&self, path: &Path) -> Option<ModuleId> {
        self.inner.modules.of_path(path)
    }

    /// The summary of a module, read from its file on first need; `None`
    /// when the file cannot be read, parsed in time or is too deep.
    pub fn summary(&self, module: ModuleId) -> Option<&ModuleSummary> {
        self.inner.summaries.get(module.index())?.get_or_init(|| self.read_summary(module).map(Arc::new)).as_deref()
    }

    /// Whether `path` is read from an overlay (an unsaved buffer) rather
    /// than from the disk.
    pub fn has_overlay(&self, path: &Path) -> bool {
        self.inner.overlays.contains_key(path)
    }

    /// Gives `module` its summary, read elsewhere (from the analysis
    /// cache) instead of from its file; no effect once it has one.
    pub fn provide_summary(&self, module: ModuleId, summary: ModuleSummary) {
        if let Some(slot) = self.inner.summaries.get(module.index()) {
            let _ = slot.set(Some(Arc::new(summary)));
        }
    }

    /// The summary of a module if it has been read already (never reads it).
    pub fn summary_if_read(&self, module: ModuleId) -> Option<&ModuleSummary> {
        self.inner.summaries.get(module.index())?.get()?.as_deref()
    }

    /// How many module summaries have been read so far.
    pub fn summaries_read(&self) -> usize {
        self.inner.summaries.iter().filter(|s| s.get().is_some()).count()
    }

    /// How many files were parsed twice: once to summarise them, once more
    /// for their own analysis (their tree was not kept).
    pub fn second_parses(&self) -> usize {
        let parsed = self.inner.summary_parses.load(Ordering::Relaxed);
        let reused = self.inner.trees_reused.load(Ordering::Relaxed);
        // A kept tree whose analysis has not come yet is no second parse.
        let waiting = self.inner.kept.lock().map(|k| k.trees.len()).unwrap_or(0);
        parsed.saturating_sub(reused + waiting)
    }

    fn read_summary(&self, module: ModuleId) -> Option<ModuleSummary> {
        let path = self.inner.modules.path(module);
        let deadline = Deadline::new(Some(DEFAULT_TIME_BUDGET));
        let source = self.load(path, &self.inner.load).ok()?;
        let file = ParsedFile::parse_within(source, Language::Python, &deadline).ok()?;
        self.inner.summary_parses.fetch_add(1, Ordering::Relaxed);
        let summary = summarise(&file);
        if let Ok(mut kept) = self.inner.kept.lock() {
            if !kept.started[module.index()] && kept.trees.len() < MAX_KEPT_TREES {
                kept.trees.insert(module, file);
            }
        }
        summary
    }

    /// The parsed tree of `path` for its own analysis: the tree parsed
    /// earlier to summarise the file when it was kept, else the file loaded
    /// with `load` and parsed within `deadline` (incrementally from its last
    /// tree for an overlay). The analysis then calls
    /// [`Project::leave_summary`] once it knows the tree's depth.
    pub fn parse_for_analysis(
        &self,
        path: &Path,
        load: &LoadOptions,
        deadline: &Deadline,
    ) -> Result<ParsedFile, SyntaxError> {
        let module = self.module_of(path);
        let same_load = load.max_file_bytes == self.inner.load.max_file_bytes;
        if let (Some(module), Ok(mut kept)) = (module, self.inner.kept.lock()) {
            kept.started[module.index()] = true;
            if let Some(file) = kept.trees.remove(&module).filter(|_| same_load) {
                self.inner.trees_reused.fetch_add(1, Ordering::Relaxed);
                return Ok(file);
            }
        }
        let source = self.load(path, load)?;
        if !self.inner.overlays.contains_key(path) {
            return ParsedFile::parse_within(source, Language::Python, deadline);
        }
        let last = self.inner.last_overlay_trees.lock().ok().and_then(|trees| trees.get(path).cloned());
        let file = match last {
            Some(last) => ParsedFile::reparse_within(source, &last, deadline)?,
            None => ParsedFile::parse_within(source, Language::Python, deadline)?,
        };
        if let Ok(mut trees) = self.inner.last_overlay_trees.lock() {
            trees.insert(path.to_path_buf(), file.clone());
        }
        Ok(file)
    }

    /// The source of `path`: its overlay when it has one (within the size
    /// limit of `load`), else the file on disk.
    fn load(&self, path: &Path, load: &LoadOptions) -> Result<SourceFile, SyntaxError> {
        match self.inner.overlays.get(path) {
            Some(text) if text.len() as u64 > load.max_file_bytes => Err(SyntaxError::TooLarge {
                path: path.to_path_buf(),
                size: text.len() as u64,
                limit: load.max_file_bytes,
            }),
            Some(text) => Ok(SourceFile::from_text(path, text.to_string())),
            None => SourceFile::load(path, load),
        }
    }

    /// Leaves behind the summary of a file of the project parsed (with
    /// `load`) for its own analysis, when no file has needed it yet: read
    /// from this tree, so that no later need parses the file again. `depth`
    /// is the tree's depth as the analysis measured it (no summary of a
    /// tree deeper than [`DEFAULT_MAX_DEPTH`]). Call it before the file's
    /// queries run: they may ask for their own module's summary.
    pub fn leave_summary(&self, file: &ParsedFile, load: &LoadOptions, depth: usize) {
        let Some(module) = self.module_of(file.source().path()) else { return };
        if load.max_file_bytes != self.inner.load.max_file_bytes || self.inner.summaries[module.index()].get().is_some()
        {
            return;
        }
        self.inner.summaries[module.index()]
            .get_or_init(|| (depth <= DEFAULT_MAX_DEPTH).then(|| Arc::new(ModuleSummary::read(file))));
    }

    /// A class of the project.
    pub fn class(&self, class: ExternalClass) -> Option<&ClassSummary> {
        self.summary(class.module)?.classes.get(class.class)
    }

    /// What the module-level `name` of `module` stands for.
    pub fn resolve_name(&self, module: ModuleId, name: &str) -> Resolved {
        self.name_in(module, name, &mut Vec::new()).unwrap_or(Resolved::Unknown)
    }

    /// What an import written in `module` stands for.
    pub fn resolve_import(&self, module: ModuleId, import: &ImportRef) -> Resolved {
        self.import_target(module, import, &mut Vec::new())
    }

    /// The attribute `name` of what `target` stands for: a name of a module
    /// or one of its submodules; unknown for anything else. A submodule
    /// reached this way is recorded for [`Project::recording_attribute_modules`].
    pub fn resolve_attribute(&self, target: Resolved, name: &str) -> Resolved {
        match target {
            Resolved::Module(m) => self
                .name_in(m, name, &mut Vec::new())
                .or_else(|| {
                    let sub = self.inner.modules.submodule(m, name)?;
                    if let Some(Ok(mut reached)) = self.reached.as_ref().map(|r| r.lock()) {
                        reached.push(sub);
                    }
                    Some(Resolved::Module(sub))
                })
                .unwrap_or(Resolved::Unknown),
            _ => Resolved::Unknown,
        }
    }

    /// Runs `analysis` with a handle on this project that records the
    /// modules it reaches only as an attribute of a module, by
    /// [`Project::resolve_attribute`] (`pkg.shapes` read after `import pkg`,
    /// where no name of `pkg` binds `shapes`); returns what the analysis
    /// returned with those modules, sorted and without repeats. The modules
    /// a file's imports name do not cover them
    /// ([`Project::import_resolution`]), so the analysis cache and the
    /// editor's server keep them as the file's further dependencies.
    pub fn recording_attribute_modules<T>(&self, analysis: impl FnOnce(&Project) -> T) -> (T, Vec<ModuleId>) {
        let recorder = Arc::new(Mutex::new(Vec::new()));
        let handle = Project { inner: self.inner.clone(), reached: Some(recorder.clone()) };
        let result = analysis(&handle);
        drop(handle);
        let mut reached = recorder.lock().map(|mut r| std::mem::take(&mut *r)).unwrap_or_default();
        reached.sort_unstable();
        reached.dedup();
        (result, reached)
    }

    /// A dotted name (`Base`, `mod.Base`) read in `module`: its head as a
    /// module-level name, then attributes.
    pub fn resolve_dotted(&self, module: ModuleId, parts: &[String]) -> Resolved {
        let Some((head, rest)) = parts.split_first() else { return Resolved::Unknown };
        rest.iter().fold(self.resolve_name(module, head), |target, part| self.resolve_attribute(target, part))
    }

    /// Resolves `name` in `module`; `None` when the module does not bind it.
    fn name_in(&self, module: ModuleId, name: &str, visited: &mut Vec<(ModuleId, String)>) -> Option<Resolved> {
        if visited.len() >= MAX_HOPS || visited.iter().any(|(m, n)| *m == module && n == name) {
            return Some(Resolved::Unknown);
        }
        visited.push((module, name.to_string()));
        let Some(summary) = self.summary(module) else { return Some(Resolved::Unknown) };
        match summary.names.get(name) {
            Some(Binding::Class(i)) => Some(Resolved::Class(ExternalClass { module, class: *i })),
            Some(Binding::Function) => Some(Resolved::Function(module)),
            Some(Binding::Import(import)) => Some(self.import_target(module, import, visited)),
            Some(Binding::Other) => Some(Resolved::Unknown),
            None => {
                // `from m import *`, the last one first.
                for star in summary.star_imports.iter().rev() {
                    let Some(target) = self.module_target(module, &star.module) else {
                        return Some(Resolved::Unknown);
                    };
                    match self.summary(target).map(|s| s.exports(name)) {
                        Some(Some(false)) => continue,
                        Some(Some(true)) => {
                            if let Some(found) = self.name_in(target, name, visited) {
                                return Some(found);
                            }
                        }
                        _ => return Some(Resolved::Unknown),
                    }
                }
                None
            }
        }
    }

    fn import_target(&self, module: ModuleId, import: &ImportRef, visited: &mut Vec<(ModuleId, String)>) -> Resolved {
        let Some(target) = self.module_target(module, &import.module) else { return Resolved::Unknown };
        match &import.name {
            None => Resolved::Module(target),
            Some(name) => self
                .name_in(target, name, visited)
                .or_else(|| self.inner.modules.submodule(target, name).map(Resolved::Module))
                .unwrap_or(Resolved::Unknown),
        }
    }

    /// The signature of the module-level function an import written in
    /// `module` stands for, through imports of single names (not `import
    /// *`); `None` for anything else, a function that cannot be judged by
    /// its signature, or a name from outside the project.
    pub fn imported_function(&self, module: ModuleId, import: &ImportRef) -> Option<&Signature> {
        let (mut module, mut import) = (module, import);
        for _ in 0..MAX_HOPS {
            let target = self.module_target(module, &import.module)?;
            let name = import.name.as_deref()?;
            let summary = self.summary(target)?;
            match summary.names.get(name)? {
                Binding::Function => return summary.functions.get(name),
                Binding::Import(next) => (module, import) = (target, next),
                _ => return None,
            }
        }
        None
    }

    /// The module of the project a module name written in `module` (with
    /// the leading dots of a relative import) stands for.
    pub fn module_target(&self, module: ModuleId, written: &str) -> Option<ModuleId> {
        let level = written.chars().take_while(|c| *c == '.').count();
        if level > 0 {
            self.inner.modules.relative(module, level, &written[level..])
        } else {
            self.inner.modules.absolute(written, module)
        }
    }
}

/// The summary of a parsed module; `None` when its tree is too deep.
fn summarise(file: &ParsedFile) -> Option<ModuleSummary> {
    file.check_depth(DEFAULT_MAX_DEPTH).ok()?;
    Some(ModuleSummary::read(file))
}

/// The project as one analysed file sees it: the model, the file's module
/// and what its module-level names are bound to.
#[derive(Debug, Clone)]
pub struct ProjectView {
    /// The model.
    pub project: Project,
    /// The analysed file's module.
    pub module: ModuleId,
}

impl ProjectView {
    /// The class a dotted name read at module level of the analysed file
    /// stands for, when its head is bound by one import there.
    pub fn class_named(&self, names: &HashMap<String, Binding>, dotted: &str) -> Option<ExternalClass> {
        let parts: Vec<String> = dotted.split('.').map(|p| p.trim().to_string()).collect();
        let Some(Binding::Import(import)) = names.get(&parts[0]) else { return None };
        let head = self.project.resolve_import(self.module, import);
        match parts[1..].iter().fold(head, |t, p| self.project.resolve_attribute(t, p)) {
            Resolved::Class(class) => Some(class),
            _ => None,
        }
    }
}

/// The analysed file as a module of the project: the [`ProjectView`], what
/// the file's module-level names are bound to (read on first use) and the
/// project classes that dotted names stand for (each resolved once).
pub struct ProjectFile<'f> {
    view: ProjectView,
    file: &'f ParsedFile,
    module_names: OnceCell<HashMap<String, Binding>>,
    imported_classes: RefCell<HashMap<String, Option<ExternalClass>>>,
}

impl<'f> ProjectFile<'f> {
    /// The parsed file `file` seen as the module of `view`.
    pub fn new(file: &'f ParsedFile, view: ProjectView) -> ProjectFile<'f> {
        ProjectFile { view, file, module_names: OnceCell::new(), imported_classes: Default::default() }
    }

    /// The project with the file's module.
    pub fn view(&self) -> &ProjectView {
        &self.view
    }

    /// What each module-level name is bound to (computed on first use).
    pub fn module_names(&self) -> &HashMap<String, Binding> {
        self.module_names.get_or_init(|| summary::module_bindings(self.file))
    }

    /// The class of another module of the project that a dotted name read
    /// at module level stands for (its head bound by one import), resolved
    /// once per name and file.
    pub fn imported_class(&self, dotted: &str) -> Option<ExternalClass> {
        if let Some(known) = self.imported_classes.borrow().get(dotted) {
            return *known;
        }
        let class = self.view.class_named(self.module_names(), dotted);
        self.imported_classes.borrow_mut().insert(dotted.to_string(), class);
        class
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn added_files_keep_the_ids_and_the_summaries_of_unchanged_texts() {
        let temp = tempfile::tempdir().unwrap();
        let (a, b, helper) =
            (temp.path().join("ws/a.py"), temp.path().join("ws/b.py"), temp.path().join("x/helper.py"));
        for (path, text) in [(&a, "from helper import f\n"), (&b, "X = 1\n"), (&helper, "def f(x):\n    pass\n")] {
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        }
        let overlay = |text: &str| HashMap::from([(b.clone(), Arc::<str>::from(text))]);
        let project = Project::with_overlays(&[a.clone(), b.clone()], &LoadOptions::default(), overlay("X = 1\n"));
        let (ma, mb) = (ModuleId::new(0), ModuleId::new(1));
        assert!(project.imports_of(ma).is_empty());
        assert!(project.summary(mb).is_some());

        let grown = project.with_files_added(std::slice::from_ref(&helper), overlay("Y = 2\n"));
        assert_eq!([grown.module_of(&a), grown.module_of(&b)], [Some(ma), Some(mb)]);
        let added = grown.module_of(&helper).expect("a module of its own");
        assert_eq!(added, ModuleId::new(2));
        // a's summary is shared; b's overlay changed: read again, from the new text.
        assert!(std::ptr::eq(grown.summary_if_read(ma).unwrap(), project.summary_if_read(ma).unwrap()));
        assert!(grown.summary_if_read(mb).is_none());
        assert!(grown.summary(mb).unwrap().names.contains_key("Y"));
        assert_eq!(grown.imports_of(ma), [added]);
        // Adding a file the project has changes nothing.
        assert_eq!(grown.with_files_added(std::slice::from_ref(&a), overlay("Y = 2\n")).modules().len(), 3);
    }

    #[test]
    fn import_resolution_names_every_written_module_itself_included() {
        let temp = tempfile::tempdir().unwrap();
        let (init, m, helper) =
            (temp.path().join("pkg/__init__.py"), temp.path().join("pkg/m.py"), temp.path().join("pkg/helper.py"));
        std::fs::create_dir_all(temp.path().join("pkg")).unwrap();
        std::fs::write(&init, "").unwrap();
        std::fs::write(&m, "from pkg.m import *\nfrom . import helper\nimport os.path\n").unwrap();
        std::fs::write(&helper, "").unwrap();
        let project = Project::new(&[init, m.clone(), helper], &LoadOptions::default());
        let (pkg, module, helper) = (ModuleId::new(0), ModuleId::new(1), ModuleId::new(2));
        let resolution = project.import_resolution(module);
        let expected = [
            (".", Some(pkg)),
            (". import helper", Some(helper)),
            // `import os.path` binds `os`.
            ("os", None),
            ("pkg", Some(pkg)),
            ("pkg.m", Some(module)),
        ];
        let expected: Vec<(String, Option<ModuleId>)> = expected.iter().map(|(n, t)| (n.to_string(), *t)).collect();
        assert_eq!(resolution, expected);
        // `imports_of` leaves the module itself and what is outside out.
        assert_eq!(project.imports_of(module), [pkg, helper]);
    }
}
