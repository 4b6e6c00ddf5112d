//! What import statements and `__all__` say, read from the syntax alone:
//! the one reader of the names an import binds ([`import_bindings`]), the
//! modules it imports, `__all__`, and the qualified names of imported
//! callees. Shared by scopes, the unused-import analysis, the project's
//! module summaries and the import queries.

use std::collections::HashMap;

use crate::ast::named_children;
use crate::syntax::{Field, Kind, SyntaxNode};
use quarry_syntax::ParsedFile;
use tree_sitter::Node;

/// Whether the statement is in no function or class.
pub(crate) fn at_module_level(node: Node<'_>) -> bool {
    at_module_level_by(node, |n| n.parent())
}

/// [`at_module_level`], with the parents given by `parent` (a parent
/// index: tree-sitter's `Node::parent` searches from the root).
pub(crate) fn at_module_level_by<'t>(node: Node<'t>, parent: impl Fn(Node<'t>) -> Option<Node<'t>>) -> bool {
    let mut current = parent(node);
    while let Some(n) = current {
        if matches!(n.py_kind(), Kind::FunctionDefinition | Kind::ClassDefinition | Kind::Lambda) {
            return false;
        }
        current = parent(n);
    }
    true
}

/// Whether the statement sits under `if False:` or `if 0:`.
pub fn never_executed(file: &ParsedFile, node: Node<'_>) -> bool {
    never_executed_by(file, node, |n| n.parent())
}

/// [`never_executed`], with the parents given by `parent` (a parent index).
pub fn never_executed_by<'t>(file: &ParsedFile, node: Node<'t>, parent: impl Fn(Node<'t>) -> Option<Node<'t>>) -> bool {
    let mut current = parent(node);
    while let Some(n) = current {
        if n.py_kind() == Kind::IfStatement {
            let condition = n.field(Field::Condition).map(|c| file.node_text(c).trim());
            let consequence = n.field(Field::Consequence);
            let in_consequence =
                consequence.is_some_and(|c| c.start_byte() <= node.start_byte() && node.end_byte() <= c.end_byte());
            if in_consequence && matches!(condition, Some("False" | "0")) {
                return true;
            }
        }
        current = parent(n);
    }
    false
}

/// One name bound by an import statement, read by the one import reader
/// that scopes, unused imports and qualified-name resolution share.
#[derive(Debug, Clone)]
pub struct ImportBinding<'t> {
    /// The bound name (`a` for `import a.b`, `c` for `from m import b as c`).
    pub name: String,
    /// The identifier node that binds it.
    pub identifier: Node<'t>,
    /// What it stands for: `a` for `import a.b`, `a.b` for `import a.b as
    /// c`, `m.b` for `from m import b` (`.m.b` with the dots of a relative
    /// import).
    pub qualified: String,
    /// How many leading dots the module of a `from` import has (0: absolute).
    pub level: usize,
}

/// The names an import statement (`import`, `from ... import`, `from
/// __future__ import`) binds, in order; none for `from m import *`.
pub fn import_bindings<'t>(file: &ParsedFile, statement: Node<'t>) -> Vec<ImportBinding<'t>> {
    let dotted = |n: Node<'_>| file.node_text(n).split_whitespace().collect::<String>();
    let (from, level) = match statement.py_kind() {
        Kind::ImportStatement => (None, 0),
        Kind::FutureImportStatement => (Some("__future__".to_string()), 0),
        Kind::ImportFromStatement => match statement.field(Field::ModuleName) {
            Some(m) => {
                let text = dotted(m);
                let level = text.chars().take_while(|c| *c == '.').count();
                (Some(text), level)
            }
            None => return Vec::new(),
        },
        _ => return Vec::new(),
    };
    let module = statement.field(Field::ModuleName).map(|m| m.id());
    let mut bindings = Vec::new();
    for child in named_children(statement) {
        if Some(child.id()) == module {
            continue;
        }
        let (path, alias) = match child.py_kind() {
            Kind::AliasedImport => match (child.field(Field::Name), child.field(Field::Alias)) {
                (Some(name), Some(alias)) => (name, Some(alias)),
                _ => continue,
            },
            Kind::DottedName => (child, None),
            _ => continue,
        };
        let path_text = dotted(path);
        let full = match &from {
            Some(m) if m.ends_with('.') => format!("{m}{path_text}"),
            Some(m) => format!("{m}.{path_text}"),
            None => path_text.clone(),
        };
        let parts = named_children(path);
        let (identifier, qualified) = match (alias, &from) {
            (Some(alias), _) => (Some(alias), full),
            // `from m import b` binds `b`.
            (None, Some(_)) => (parts.last().copied(), full),
            // `import a.b` binds `a`, which stands for module `a`.
            (None, None) => (parts.first().copied(), path_text.split('.').next().unwrap_or_default().to_string()),
        };
        if let Some(identifier) = identifier {
            bindings.push(ImportBinding { name: file.node_text(identifier).to_string(), identifier, qualified, level });
        }
    }
    bindings
}

/// What the module's `__all__` says.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum AllNames {
    /// No `__all__`.
    Absent,
    /// A list or tuple of string literals (possibly extended with `+=`).
    Listed(Vec<String>),
    /// Something quarry cannot read: computed, or modified by calls.
    Opaque,
}

/// Reads `__all__` from module-level assignments, `+=` and calls on it.
pub fn all_names(file: &ParsedFile, assignments: &[Node<'_>], augmented: &[Node<'_>], calls: &[Node<'_>]) -> AllNames {
    let mut all = AllNames::Absent;
    let targets_all =
        |n: &Node<'_>| n.field(Field::Left).is_some_and(|l| file.node_text(l) == "__all__") && at_module_level(*n);
    let mut statements: Vec<Node<'_>> = assignments.iter().chain(augmented).copied().filter(targets_all).collect();
    statements.sort_by_key(|n| n.start_byte());
    for statement in statements {
        let listed = statement.field(Field::Right).and_then(|r| string_list(file, r));
        all = match (listed, all, statement.py_kind()) {
            (Some(names), AllNames::Listed(mut old), Kind::AugmentedAssignment) => {
                old.extend(names);
                AllNames::Listed(old)
            }
            (Some(names), _, Kind::Assignment) => AllNames::Listed(names),
            _ => AllNames::Opaque,
        };
    }
    let modified = calls.iter().any(|call| {
        call.field(Field::Function)
            .filter(|f| f.py_kind() == Kind::Attribute)
            .and_then(|f| f.field(Field::Object))
            .is_some_and(|o| file.node_text(o) == "__all__")
    });
    if modified && all != AllNames::Absent {
        all = AllNames::Opaque;
    }
    all
}

/// The values of a list or tuple of plain string literals.
fn string_list(file: &ParsedFile, node: Node<'_>) -> Option<Vec<String>> {
    if !matches!(node.py_kind(), Kind::List | Kind::Tuple) {
        return None;
    }
    named_children(node)
        .into_iter()
        .filter(|c| c.py_kind() != Kind::Comment)
        .map(|c| {
            let text = file.node_text(c);
            let trimmed = text.trim_start_matches(['u', 'U', 'b', 'B', 'r', 'R']);
            (c.py_kind() == Kind::String && trimmed.len() >= 2).then(|| trimmed[1..trimmed.len() - 1].to_string())
        })
        .collect()
}

/// The module names an import statement imports, with the node naming each:
/// `import a.b as c, d` gives `a.b` and `d`; `from m import x` gives `m`
/// (relative imports give nothing). `future_import_statement` gives `__future__`.
pub fn imported_modules<'t>(file: &ParsedFile, statement: Node<'t>) -> Vec<(String, Node<'t>)> {
    let dotted = |n: Node<'t>| file.node_text(n).split_whitespace().collect::<String>();
    match statement.py_kind() {
        Kind::ImportStatement => named_children(statement)
            .into_iter()
            .filter_map(|n| match n.py_kind() {
                Kind::DottedName => Some(n),
                Kind::AliasedImport => n.field(Field::Name),
                _ => None,
            })
            .map(|n| (dotted(n), n))
            .collect(),
        Kind::ImportFromStatement => statement
            .field(Field::ModuleName)
            .filter(|m| m.py_kind() == Kind::DottedName)
            .map(|m| vec![(dotted(m), m)])
            .unwrap_or_default(),
        _ => Vec::new(),
    }
}

/// Common third-party packages: usually not installed where the code is
/// analysed, so CodeQL cannot resolve them and reports nothing.
const THIRD_PARTY: &[&str] = &[
    "numpy",
    "scipy",
    "pylab",
    "matplotlib",
    "pandas",
    "sympy",
    "django",
    "flask",
    "werkzeug",
    "jinja2",
    "tornado",
    "twisted",
    "zope",
    "sqlalchemy",
    "PyQt4",
    "PyQt5",
    "PySide",
    "gtk",
    "gobject",
    "gi",
    "wx",
    "pygame",
    "pyglet",
    "OpenGL",
    "kivy",
    "fabric",
    "nose",
    "mock",
    "six",
    "lxml",
    "Crypto",
    "boto",
    "google",
    "cv2",
    "reportlab",
];

/// The modules compiled into CPython itself (`sys.builtin_module_names` of CPython 3.11 on
/// Linux): they have no source, so CodeQL has no `Module` for them and reports nothing
/// that needs one (a repeated `import sys`).
const BUILTIN_MODULES: &[&str] = &[
    "_abc",
    "_ast",
    "_codecs",
    "_collections",
    "_functools",
    "_imp",
    "_io",
    "_locale",
    "_operator",
    "_signal",
    "_sre",
    "_stat",
    "_string",
    "_symtable",
    "_thread",
    "_tokenize",
    "_tracemalloc",
    "_warnings",
    "_weakref",
    "atexit",
    "builtins",
    "errno",
    "faulthandler",
    "gc",
    "itertools",
    "marshal",
    "posix",
    "pwd",
    "sys",
    "time",
    "xxsubtype",
];

/// Whether `module` is compiled into the interpreter (`sys`, `time`, `gc`, ...), so that
/// it has no source for CodeQL to know it by.
pub fn is_builtin_module(module: &str) -> bool {
    BUILTIN_MODULES.contains(&module)
}

/// Whether a dotted module name belongs to a common third-party package
/// (`numpy`, `django.db`, `PyQt4.QtGui`, ...), which CodeQL usually cannot
/// resolve because it is not installed where the code is analysed.
pub fn is_common_third_party(module: &str) -> bool {
    THIRD_PARTY.contains(&module.split('.').next().unwrap_or_default())
}

/// What each imported name of the file stands for: `import os.path as p`
/// maps `p` to `os.path`, `import os.path` maps `os` to `os`, `from tempfile
/// import mktemp as m` maps `m` to `tempfile.mktemp`. Star imports and
/// relative imports are skipped. Imports anywhere in the file count.
pub fn import_aliases(file: &ParsedFile, imports: &[Node<'_>]) -> ImportAliases {
    // Collecting keeps the last binding of a name, as the last import wins.
    ImportAliases(
        imports
            .iter()
            .flat_map(|&statement| import_bindings(file, statement))
            .filter(|b| b.level == 0)
            .map(|b| (b.name, b.qualified))
            .collect(),
    )
}

/// What each imported name stands for (see [`import_aliases`]): the last
/// import binding a name wins.
#[derive(Debug, Clone, Default)]
pub struct ImportAliases(HashMap<String, String>);

/// The qualified name a dotted callee refers to through the file's imports
/// (`t.mktemp` with `import tempfile as t` is `tempfile.mktemp`), or `None`
/// when its first part is not an imported name.
pub fn resolve_imported(aliases: &ImportAliases, dotted: &str) -> Option<String> {
    let dotted: String = dotted.split_whitespace().collect();
    let (first, rest) = match dotted.split_once('.') {
        Some((first, rest)) => (first, Some(rest)),
        None => (dotted.as_str(), None),
    };
    let target = aliases.0.get(first)?;
    Some(match rest {
        Some(rest) => format!("{target}.{rest}"),
        None => target.clone(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use quarry_syntax::{Language, SourceFile};

    #[test]
    fn imports_resolve_through_aliases() {
        let source =
            "import os.path\nimport tempfile as t\nfrom tempfile import mktemp as m, mkstemp\nfrom . import x\n";
        let file = ParsedFile::parse(SourceFile::from_text("t.py", source), Language::Python).unwrap();
        let imports: Vec<Node<'_>> = quarry_syntax::walk::Preorder::new(file.root())
            .filter(|n| matches!(n.py_kind(), Kind::ImportStatement | Kind::ImportFromStatement))
            .collect();
        let aliases = import_aliases(&file, &imports);
        assert_eq!(resolve_imported(&aliases, "t.mktemp").as_deref(), Some("tempfile.mktemp"));
        assert_eq!(resolve_imported(&aliases, "m").as_deref(), Some("tempfile.mktemp"));
        assert_eq!(resolve_imported(&aliases, "mkstemp").as_deref(), Some("tempfile.mkstemp"));
        assert_eq!(resolve_imported(&aliases, "os.path.join").as_deref(), Some("os.path.join"));
        assert_eq!(resolve_imported(&aliases, "x"), None);
        assert_eq!(resolve_imported(&aliases, "tempfile.mktemp"), None);
    }
}
