//! Which modules import which, kept between edits: a module's imports are
//! read from its summary once and forgotten only when that summary changes
//! (or the file set does, with a new project; a file added to the project
//! changes only the imports of the modules whose imports now resolve
//! otherwise, [`ImportGraph::changed_by_added_files`]), so finding the
//! dependants of an edited module does not resolve every import of the
//! workspace again on each keystroke. A module that a file's last
//! analysis reached only as an attribute of another (`pkg.shapes` after
//! `import pkg`, [`Project::recording_attribute_modules`]) is a dependency
//! of that file alone, from that analysis until the next: the files that
//! import it record what their own analyses reach so.

use std::collections::HashSet;

use quarry_query::project::{ModuleId, Project};

/// The import graph of a project, filled in as it is needed.
#[derive(Default)]
pub struct ImportGraph {
    /// The modules each module imports, once read.
    imports: Vec<Option<Vec<ModuleId>>>,
    /// The modules each module's last analysis reached as attributes.
    reached: Vec<Vec<ModuleId>>,
}

impl ImportGraph {
    /// Forgets everything (a new project: the modules changed).
    pub fn clear(&mut self) {
        self.imports.clear();
        self.reached.clear();
    }

    /// Keeps the modules that `module`'s last analysis reached as
    /// attributes of other modules (its dependencies beyond its imports).
    pub fn reached_as_attributes(&mut self, module: ModuleId, reached: Vec<ModuleId>) {
        if self.reached.len() <= module.index() {
            if reached.is_empty() {
                return;
            }
            self.reached.resize(module.index() + 1, Vec::new());
        }
        self.reached[module.index()] = reached;
    }

    /// Forgets what `module` imports (its summary changed).
    pub fn forget(&mut self, module: ModuleId) {
        if let Some(imports) = self.imports.get_mut(module.index()) {
            *imports = None;
        }
    }

    /// The modules that import `module`, directly or through other modules
    /// (not `module` itself), and those whose last analysis reached one of
    /// these or `module` as an attribute of another module, in no
    /// particular order.
    pub fn dependants(&mut self, project: &Project, module: ModuleId) -> Vec<ModuleId> {
        self.dependants_of(project, &[module])
    }

    /// The modules that import one of `modules`, directly or through other
    /// modules, and those whose last analysis reached one of these or of
    /// `modules` as an attribute of another module (none of `modules`
    /// themselves), in no particular order.
    pub fn dependants_of(&mut self, project: &Project, modules: &[ModuleId]) -> Vec<ModuleId> {
        let count = project.modules().len();
        self.imports.resize(count, None);
        let mut importers: Vec<Vec<ModuleId>> = vec![Vec::new(); count];
        for (m, imports) in self.imports.iter_mut().enumerate() {
            let m = ModuleId::new(m);
            for &imported in imports.get_or_insert_with(|| project.imports_of(m)).iter() {
                importers[imported.index()].push(m);
            }
        }
        let mut readers: Vec<Vec<ModuleId>> = vec![Vec::new(); count];
        for (m, reached) in self.reached.iter().enumerate().take(count) {
            for &read in reached.iter().filter(|r| r.index() < count) {
                readers[read.index()].push(ModuleId::new(m));
            }
        }
        let mut seen = vec![false; count];
        let mut queue = Vec::new();
        for &module in modules.iter().filter(|m| m.index() < count) {
            seen[module.index()] = true;
            queue.push(module);
        }
        let mut found = Vec::new();
        while let Some(m) = queue.pop() {
            for &importer in &importers[m.index()] {
                if !std::mem::replace(&mut seen[importer.index()], true) {
                    queue.push(importer);
                    found.push(importer);
                }
            }
        }
        // Those that read one of these as an attribute; not followed further: a
        // file whose analysis goes through a reader's names to the module
        // records that module itself.
        let read: Vec<ModuleId> = modules.iter().chain(&found).copied().collect();
        for m in read {
            for &reader in readers.get(m.index()).into_iter().flatten() {
                if !std::mem::replace(&mut seen[reader.index()], true) {
                    found.push(reader);
                }
            }
        }
        found
    }

    /// After files were added to the project (`after` is `before` with more
    /// files, the same modules first): the modules of `before` that may be
    /// analysed differently in `after`, whose imports are kept as `after`
    /// resolves them. Those are the modules where a name their imports
    /// write stands for another module, or for one where there was none
    /// (a new module, a name a new `__init__.py` or a wider common folder
    /// gives, their own included: `from pkg.m import *` in `pkg/m.py`), those
    /// importing a package that a new module is a submodule of (read as
    /// the attribute `pkg.new`), and those whose own name changed.
    pub fn changed_by_added_files(&mut self, before: &Project, after: &Project) -> Vec<ModuleId> {
        let count = after.modules().len();
        self.imports.resize(count, None);
        let grown = grown_packages(before, after);
        let mut changed = Vec::new();
        for index in 0..before.modules().len().min(count) {
            let module = ModuleId::new(index);
            if before.modules().path(module) != after.modules().path(module) {
                // Not the same module: not a project `after` grew from.
                changed.push(module);
                continue;
            }
            let now = after.import_resolution(module);
            if before.summary_if_read(module).is_none() {
                // Read once, in `after`, and lent to `before`.
                if let Some(summary) = after.summary_if_read(module) {
                    before.provide_summary(module, summary.clone());
                }
            }
            let renamed = before.modules().name(module) != after.modules().name(module);
            let reaches_grown = now.iter().any(|(_, target)| target.is_some_and(|t| grown.contains(&t)));
            if renamed || reaches_grown || before.import_resolution(module) != now {
                changed.push(module);
            }
            self.imports[index] = Some(after.imports_of(module));
        }
        changed
    }
}

/// The packages of `after` that gained a submodule over `before`, directly
/// or below other packages: those whose folder holds a new module through
/// a chain of packages (`pkg` and `pkg.sub` for a new `pkg/sub/new.py`).
fn grown_packages(before: &Project, after: &Project) -> HashSet<ModuleId> {
    let mut grown = HashSet::new();
    for added in before.modules().len()..after.modules().len() {
        let added = ModuleId::new(added);
        let mut folder = after.modules().path(added).parent();
        while let Some(dir) = folder {
            match after.module_of(&dir.join("__init__.py")) {
                // A new `__init__.py` is its folder's package.
                Some(package) if package == added => {}
                Some(package) => {
                    grown.insert(package);
                }
                None => break,
            }
            folder = dir.parent();
        }
    }
    grown
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    #[test]
    fn an_added_module_changes_its_importers_only() {
        let temp = tempfile::tempdir().unwrap();
        let (ws, elsewhere) = (temp.path().join("ws"), temp.path().join("elsewhere"));
        std::fs::create_dir_all(&ws).unwrap();
        std::fs::create_dir_all(&elsewhere).unwrap();
        let write = |path: PathBuf, text: &str| {
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(&path, text).unwrap();
            path
        };
        let importer = write(ws.join("a.py"), "from helper import area\n");
        let through = write(ws.join("b.py"), "import a\n");
        let other = write(ws.join("c.py"), "import os\n");
        // Its own name `ws.me` exists once the files' common folder is above `ws`.
        let itself = write(ws.join("me.py"), "from ws.me import *\n");
        let helper = write(elsewhere.join("helper.py"), "def area(w, h):\n    return w * h\n");
        let files = vec![importer, through, other, itself];
        let before = Project::new(&files, &Default::default());
        let mut grown = files.clone();
        grown.push(helper);
        let after = Project::new(&grown, &Default::default());
        let mut graph = ImportGraph::default();
        let changed = graph.changed_by_added_files(&before, &after);
        assert_eq!(changed, [ModuleId::new(0), ModuleId::new(3)]);
        assert_eq!(graph.dependants_of(&after, &changed), [ModuleId::new(1)]);
        let mut of_helper = graph.dependants(&after, ModuleId::new(4));
        of_helper.sort();
        assert_eq!(of_helper, [ModuleId::new(0), ModuleId::new(1)]);
        // A new `__init__.py` renames the modules of its folder (`m` becomes `pkg.m`).
        let module = write(ws.join("pkg/m.py"), "import os\n");
        let before = Project::new(std::slice::from_ref(&module), &Default::default());
        let after = Project::new(&[module, ws.join("pkg/__init__.py")], &Default::default());
        assert_eq!(after.modules().name(ModuleId::new(0)), "pkg.m");
        assert_eq!(ImportGraph::default().changed_by_added_files(&before, &after), [ModuleId::new(0)]);
        // A new submodule of a package: its importers may read it as an attribute (`lib.shapes`).
        let files = vec![
            write(ws.join("lib/__init__.py"), ""),
            write(ws.join("user.py"), "import lib\n"),
            write(ws.join("aside.py"), "import os\n"),
        ];
        let before = Project::new(&files, &Default::default());
        let after = Project::new(&[files, vec![ws.join("lib/shapes.py")]].concat(), &Default::default());
        assert_eq!(ImportGraph::default().changed_by_added_files(&before, &after), [ModuleId::new(1)]);
        // `user.py` read `lib.shapes` as an attribute: it depends on it, until its next analysis.
        let (user, shapes) = (ModuleId::new(1), ModuleId::new(3));
        let mut graph = ImportGraph::default();
        assert!(graph.dependants(&after, shapes).is_empty());
        graph.reached_as_attributes(user, vec![shapes]);
        assert_eq!(graph.dependants(&after, shapes), [user]);
        graph.reached_as_attributes(user, Vec::new());
        assert!(graph.dependants(&after, shapes).is_empty());
    }

    #[test]
    fn a_module_read_as_an_attribute_has_its_readers_as_dependants_and_not_their_importers() {
        let temp = tempfile::tempdir().unwrap();
        let ws = temp.path().join("ws");
        let files: Vec<PathBuf> = [
            ("lib/__init__.py", ""),
            ("lib/shapes.py", "from .base import Base\n"),
            ("lib/base.py", "class Base:\n    pass\n"),
            ("user.py", "import lib\n"),
            ("main.py", "import user\n"),
        ]
        .iter()
        .map(|(path, text)| {
            let path = ws.join(path);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(&path, text).unwrap();
            path
        })
        .collect();
        let project = Project::new(&files, &Default::default());
        let (shapes, base, user) = (ModuleId::new(1), ModuleId::new(2), ModuleId::new(3));
        let mut graph = ImportGraph::default();
        graph.reached_as_attributes(user, vec![shapes]);
        // main.py imports user.py, whose summary does not change with shapes.py:
        // an analysis of main.py reading `lib.shapes` through it would record it itself.
        assert_eq!(graph.dependants(&project, shapes), [user]);
        // base.py is what shapes.py imports: user.py reads it through `lib.shapes`.
        let mut of_base = graph.dependants(&project, base);
        of_base.sort();
        assert_eq!(of_base, [shapes, user]);
    }
}
