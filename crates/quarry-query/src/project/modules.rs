//! Module names of the files of one run, from their paths and packages.
//!
//! A file's canonical name follows its regular packages: `a/b/c.py` is
//! `b.c` when `a/b/__init__.py` exists and `a/__init__.py` does not, and a
//! package's `__init__.py` is the package itself. Directories without
//! `__init__.py` between the topmost package and the run's common root
//! (namespace packages, `src/` layouts, plain folders) give each file
//! further names: `src/pkg/m.py` is `pkg.m` and also `src.pkg.m`. Relative
//! imports are resolved by directory, not by name, so they work inside
//! namespace packages too.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

quarry_stdx::typed_index! {
    /// Index of a module (a file of the run) in the [`ModuleIndex`].
    pub struct ModuleId;
}

/// The modules of a run: each file's names, and the files by name and path.
#[derive(Debug, Default)]
pub struct ModuleIndex {
    paths: Vec<PathBuf>,
    names: Vec<String>,
    packages: Vec<bool>,
    by_name: HashMap<String, Vec<ModuleId>>,
    by_path: HashMap<PathBuf, ModuleId>,
    aliases: HashMap<String, Vec<ModuleId>>,
}

impl ModuleIndex {
    /// Names every file. Whether a directory is a package is read from the
    /// file list first and from the disk otherwise (a single file given
    /// alone keeps its package context).
    pub fn build(files: &[PathBuf]) -> ModuleIndex {
        let listed: HashSet<&Path> = files.iter().map(PathBuf::as_path).collect();
        let mut package_dirs: HashMap<PathBuf, bool> = HashMap::new();
        let mut is_package_dir = |dir: &Path| -> bool {
            if let Some(&known) = package_dirs.get(dir) {
                return known;
            }
            let init = dir.join("__init__.py");
            let known = listed.contains(init.as_path()) || init.is_file();
            package_dirs.insert(dir.to_path_buf(), known);
            known
        };
        let root = common_root(files);
        let mut index = ModuleIndex::default();
        for (id, path) in ModuleId::enumerate(files) {
            let is_package = path.file_stem().is_some_and(|s| s == "__init__");
            let (canonical, above) = canonical_name(path, is_package, &mut is_package_dir);
            // Folders without `__init__.py` above the topmost package and
            // below the common root: namespace names.
            let mut alias = canonical.clone();
            let mut dir = above;
            while let (Some(d), Some(r)) = (dir.as_deref(), root.as_deref()) {
                if d == r || !d.starts_with(r) {
                    break;
                }
                match d.file_name().and_then(|n| n.to_str()) {
                    Some(name) if is_identifier_path(name) => {
                        alias = if alias.is_empty() { name.to_string() } else { format!("{name}.{alias}") };
                        index.aliases.entry(alias.clone()).or_default().push(id);
                    }
                    _ => break,
                }
                dir = d.parent().map(Path::to_path_buf);
            }
            index.by_name.entry(canonical.clone()).or_default().push(id);
            index.names.push(canonical);
            index.packages.push(is_package);
            index.paths.push(path.clone());
            index.by_path.insert(path.clone(), id);
        }
        index
    }

    /// How many modules there are.
    pub fn len(&self) -> usize {
        self.paths.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.paths.is_empty()
    }

    /// The file of a module.
    pub fn path(&self, id: ModuleId) -> &Path {
        &self.paths[id.index()]
    }

    /// The canonical dotted name of a module.
    pub fn name(&self, id: ModuleId) -> &str {
        &self.names[id.index()]
    }

    /// Whether the module is a package's `__init__.py`.
    pub fn is_package(&self, id: ModuleId) -> bool {
        self.packages[id.index()]
    }

    /// The module of a file of the run.
    pub fn of_path(&self, path: &Path) -> Option<ModuleId> {
        self.by_path.get(path).copied()
    }

    /// The module an absolute dotted name stands for, seen from the module
    /// `from`: a canonical name first, then a namespace name; among several
    /// files of that name, the one sharing the longest directory prefix with
    /// `from` (the same project of a mixed corpus); a tie is unknown.
    pub fn absolute(&self, name: &str, from: ModuleId) -> Option<ModuleId> {
        for table in [&self.by_name, &self.aliases] {
            if let Some(candidates) = table.get(name) {
                return self.nearest(candidates, from);
            }
        }
        None
    }

    fn nearest(&self, candidates: &[ModuleId], from: ModuleId) -> Option<ModuleId> {
        if let [only] = candidates {
            return Some(*only);
        }
        let here = self.paths.get(from.index())?;
        let shared = |id: &ModuleId| {
            here.components().zip(self.paths[id.index()].components()).take_while(|(a, b)| a == b).count()
        };
        let best = candidates.iter().map(shared).max()?;
        let winners: Vec<ModuleId> = candidates.iter().copied().filter(|c| shared(c) == best).collect();
        // A stub (`m.pyi`) beside its module (`m.py`) describes the same
        // module: the module's own file is the one that runs.
        let runtime: Vec<ModuleId> =
            winners.iter().copied().filter(|c| self.paths[c.index()].extension().is_none_or(|e| e != "pyi")).collect();
        match (winners.as_slice(), runtime.as_slice()) {
            ([only], _) | (_, [only]) => Some(*only),
            _ => None,
        }
    }

    /// The module `from <dots><rest>` names inside module `from`
    /// (`level` dots), found by directory: `dir/rest.py` or
    /// `dir/rest/__init__.py`; an empty `rest` is the package itself.
    pub fn relative(&self, from: ModuleId, level: usize, rest: &str) -> Option<ModuleId> {
        let mut dir = self.paths.get(from.index())?.parent()?.to_path_buf();
        for _ in 1..level {
            dir = dir.parent()?.to_path_buf();
        }
        self.in_directory(&dir, rest)
    }

    /// The module `rest` (dotted, possibly empty) below directory `dir`.
    fn in_directory(&self, dir: &Path, rest: &str) -> Option<ModuleId> {
        let mut path = dir.to_path_buf();
        for part in rest.split('.').filter(|p| !p.is_empty()) {
            path.push(part);
        }
        let module = path.with_extension("py");
        if !rest.is_empty() {
            if let Some(id) = self.of_path(&module) {
                return Some(id);
            }
        }
        self.of_path(&path.join("__init__.py"))
    }

    /// The submodule `name` of a package module, if it is a file of the run.
    pub fn submodule(&self, package: ModuleId, name: &str) -> Option<ModuleId> {
        if !self.is_package(package) {
            return None;
        }
        let dir = self.paths[package.index()].parent()?;
        self.in_directory(dir, name)
    }
}

/// The canonical name: the file's stem (none for `__init__.py`) under its
/// chain of regular packages, and the folder above the topmost package.
fn canonical_name(
    path: &Path,
    is_package: bool,
    is_package_dir: &mut impl FnMut(&Path) -> bool,
) -> (String, Option<PathBuf>) {
    let stem = path.file_stem().and_then(|s| s.to_str()).unwrap_or_default();
    let mut parts: Vec<&str> = if is_package { Vec::new() } else { vec![stem] };
    let mut dir = path.parent();
    let mut first = true;
    while let Some(d) = dir {
        // The folder of an `__init__.py` is its own package.
        let package = (first && is_package) || is_package_dir(d);
        first = false;
        if !package {
            break;
        }
        match d.file_name().and_then(|n| n.to_str()) {
            Some(name) if is_identifier_path(name) => parts.push(name),
            _ => break,
        }
        dir = d.parent();
    }
    parts.reverse();
    (parts.join("."), dir.map(Path::to_path_buf))
}

/// Whether a folder name can be part of a dotted module name.
fn is_identifier_path(name: &str) -> bool {
    let mut chars = name.chars();
    chars.next().is_some_and(|c| c.is_alphabetic() || c == '_') && chars.all(|c| c.is_alphanumeric() || c == '_')
}

/// The deepest directory holding every file.
fn common_root(files: &[PathBuf]) -> Option<PathBuf> {
    let mut root: Option<PathBuf> = None;
    for file in files {
        let dir = file.parent()?;
        root = Some(match root {
            None => dir.to_path_buf(),
            Some(r) => r.components().zip(dir.components()).take_while(|(a, b)| a == b).map(|(a, _)| a).collect(),
        });
    }
    root
}

#[cfg(test)]
mod tests {
    use super::*;

    fn index(files: &[&str]) -> ModuleIndex {
        ModuleIndex::build(&files.iter().map(PathBuf::from).collect::<Vec<_>>())
    }

    #[test]
    fn packages_namespaces_and_relative_imports() {
        let ix = index(&[
            "/nonexistent/r/src/pkg/__init__.py",
            "/nonexistent/r/src/pkg/base.py",
            "/nonexistent/r/src/pkg/sub/__init__.py",
            "/nonexistent/r/src/pkg/sub/leaf.py",
            "/nonexistent/r/ns/mod.py",
            "/nonexistent/r/top.py",
        ]);
        let names: Vec<&str> = (0..ix.len()).map(|i| ix.name(ModuleId::new(i))).collect();
        assert_eq!(names, ["pkg", "pkg.base", "pkg.sub", "pkg.sub.leaf", "mod", "top"]);
        assert!(ix.is_package(ModuleId::new(0)) && !ix.is_package(ModuleId::new(1)));
        assert_eq!(ix.absolute("pkg.sub.leaf", ModuleId::new(5)), Some(ModuleId::new(3)));
        assert_eq!(ix.absolute("src.pkg.base", ModuleId::new(5)), Some(ModuleId::new(1)));
        assert_eq!(ix.absolute("ns.mod", ModuleId::new(5)), Some(ModuleId::new(4)));
        assert_eq!(ix.absolute("missing", ModuleId::new(5)), None);
        // `from ..base import X` in pkg/sub/leaf.py; `from . import leaf` in pkg/sub.
        assert_eq!(ix.relative(ModuleId::new(3), 2, "base"), Some(ModuleId::new(1)));
        assert_eq!(ix.relative(ModuleId::new(3), 1, ""), Some(ModuleId::new(2)));
        assert_eq!(ix.submodule(ModuleId::new(2), "leaf"), Some(ModuleId::new(3)));
        assert_eq!(ix.submodule(ModuleId::new(1), "leaf"), None);
    }

    #[test]
    fn same_name_in_two_projects_prefers_the_nearer() {
        let ix = index(&["/nonexistent/c/a/utils.py", "/nonexistent/c/a/main.py", "/nonexistent/c/b/utils.py"]);
        assert_eq!(ix.absolute("utils", ModuleId::new(1)), Some(ModuleId::new(0)));
        assert_eq!(ix.absolute("a.utils", ModuleId::new(1)), Some(ModuleId::new(0)));
    }
}
