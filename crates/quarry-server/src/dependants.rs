//! Which modules import which, kept between edits: a module's imports are
//! read from its summary once and forgotten only when that summary changes
//! (or the file set does, with a new project), so finding the dependants
//! of an edited module does not resolve every import of the workspace
//! again on each keystroke.

use quarry_query::project::{ModuleId, Project};

/// The import graph of a project, filled in as it is needed.
#[derive(Default)]
pub struct ImportGraph {
    /// The modules each module imports, once read.
    imports: Vec<Option<Vec<ModuleId>>>,
}

impl ImportGraph {
    /// Forgets everything (a new project: the modules changed).
    pub fn clear(&mut self) {
        self.imports.clear();
    }

    /// Forgets what `module` imports (its summary changed).
    pub fn forget(&mut self, module: ModuleId) {
        if let Some(imports) = self.imports.get_mut(module.index()) {
            *imports = None;
        }
    }

    /// The modules that import `module`, directly or through other modules
    /// (not `module` itself), in no particular order.
    pub fn dependants(&mut self, project: &Project, module: ModuleId) -> Vec<ModuleId> {
        let modules = project.modules().len();
        self.imports.resize(modules, None);
        let mut importers: Vec<Vec<ModuleId>> = vec![Vec::new(); modules];
        for (m, imports) in self.imports.iter_mut().enumerate() {
            let m = ModuleId::new(m);
            for &imported in imports.get_or_insert_with(|| project.imports_of(m)).iter() {
                importers[imported.index()].push(m);
            }
        }
        let mut seen = vec![false; modules];
        let (mut queue, mut found) = (vec![module], Vec::new());
        seen[module.index()] = true;
        while let Some(m) = queue.pop() {
            for &importer in &importers[m.index()] {
                if !std::mem::replace(&mut seen[importer.index()], true) {
                    queue.push(importer);
                    found.push(importer);
                }
            }
        }
        found
    }
}
