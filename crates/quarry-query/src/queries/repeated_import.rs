//! Q25 "Module is imported more than once": a second `import m` that binds
//! the same name again has no effect and only confuses.
//!
//! ```python
//! import json                 # supporting fact: the first import
//! import json                 # answer: the redundant import
//! ```
//!
//! As in CodeQL, both must be `import` statements of the same module bound
//! to the same name (`import a.b` binds `a`), the first must be in the
//! module's own scope, and the second either inside a function or class of
//! the module, or at module scope after the first on every path to it; a
//! first import under `if TYPE_CHECKING:` never runs and counts for none. That
//! dominance is approximated syntactically: the first import's statement
//! list holds the second, after it. CodeQL also needs the module itself in
//! its database; common third-party packages (`numpy`, `django`, ...)
//! usually are not, and modules compiled into the interpreter (`sys`,
//! `time`, ...) never are: both are left out. Negative form: `import` statements that
//! are not redundant repeats of another.

use std::collections::{HashMap, HashSet};

use crate::syntax::{Field, Kind, SyntaxNode};
use tree_sitter::Node;

use crate::ast::{contains, named_children};

use crate::scopes::Scopes;

use crate::context::FileContext;
use crate::finding::{Polarity, RawFinding};
use crate::import_statements::{is_builtin_module, is_common_third_party};
use crate::query::{Hops, Query, QueryMeta};

/// The query.
pub static QUERY: Query = Query {
    meta: QueryMeta {
        id: "repeated-import",
        name: "Module is imported more than once",
        index: 25,
        hops: Hops::Single,
        description: "Importing a module a second time has no effect and impairs readability",
        codeql: "python/ql/src/Imports/MultipleImports.ql",
    },
    find,
};

fn find(cx: &FileContext<'_>, polarity: Polarity) -> Vec<RawFinding> {
    let scopes = cx.scopes();
    let imports: Vec<ImportInfo<'_>> = cx
        .nodes(Kind::ImportStatement)
        .iter()
        .map(|&s| ImportInfo {
            statement: s,
            aliases: aliases(cx, s)
                .into_iter()
                .filter(|(module, _)| !is_common_third_party(module) && !is_builtin_module(module))
                .collect(),
            module_scope: in_module_scope(cx, scopes, s),
            type_checking: type_checking_only(cx, s),
        })
        .collect();
    // The imports that can be the first of a repeat, by what they bind: each
    // import is then compared with those sharing a binding, not with all.
    let mut by_alias: HashMap<&(String, String), Vec<usize>> = HashMap::new();
    for (index, import) in imports.iter().enumerate() {
        if import.module_scope && !import.type_checking {
            for alias in &import.aliases {
                let list = by_alias.entry(alias).or_default();
                if list.last() != Some(&index) {
                    list.push(index);
                }
            }
        }
    }
    let mut findings = Vec::new();
    for duplicate_import in &imports {
        let (duplicate, duplicate_aliases) = (&duplicate_import.statement, &duplicate_import.aliases);
        // For each earlier-or-later import sharing a binding, the first of
        // the duplicate's aliases it holds (the module the message names).
        let mut shared: Vec<(usize, usize)> = Vec::new();
        let mut seen: HashSet<usize> = HashSet::new();
        for (position, alias) in duplicate_aliases.iter().enumerate() {
            for &original in by_alias.get(alias).map(Vec::as_slice).unwrap_or_default() {
                if imports[original].statement.id() != duplicate.id() && seen.insert(original) {
                    shared.push((original, position));
                }
            }
        }
        shared.sort_unstable();
        let mut originals = Vec::new();
        for (original, position) in shared {
            let original = imports[original].statement;
            if !duplicate_import.module_scope || dominates(cx, original, *duplicate) {
                originals.push((original, duplicate_aliases[position].0.clone()));
            }
        }
        match polarity {
            Polarity::Positive => {
                for (original, module) in originals {
                    let line = cx.location(original).start.line + 1;
                    findings.push(
                        RawFinding::answer(
                            cx.location(*duplicate),
                            format!("This import of module {module} is redundant, as it was previously imported on line {line}."),
                        )
                        .with_facts([cx.location(original)]),
                    );
                }
            }
            Polarity::Negative if originals.is_empty() && !duplicate_aliases.is_empty() => {
                findings.push(RawFinding::answer(cx.location(*duplicate), "This import is not a repeat of another."));
            }
            Polarity::Negative => {}
        }
    }
    findings
}

/// An `import` statement, what it binds, and whether it is in the module's own scope.
struct ImportInfo<'t> {
    statement: Node<'t>,
    aliases: Vec<(String, String)>,
    module_scope: bool,
    /// Under `if TYPE_CHECKING:`: never runs.
    type_checking: bool,
}

/// Each imported module with the name it binds: `import a.b` gives
/// `("a.b", "a")`, `import a.b as c` gives `("a.b", "c")`.
fn aliases(cx: &FileContext<'_>, statement: Node<'_>) -> Vec<(String, String)> {
    named_children(statement)
        .into_iter()
        .filter_map(|n| {
            let (module, alias) = match n.py_kind() {
                Kind::DottedName => (n, None),
                Kind::AliasedImport => (n.field(Field::Name)?, n.field(Field::Alias)),
                _ => return None,
            };
            let module: String = cx.text(module).split_whitespace().collect();
            let bound = match alias {
                Some(alias) => cx.text(alias).to_string(),
                None => module.split('.').next().unwrap_or_default().to_string(),
            };
            Some((module, bound))
        })
        .collect()
}

/// Whether the statement sits in the body of an `if TYPE_CHECKING:` (or
/// `if typing.TYPE_CHECKING:`), which never runs: an import there makes no
/// later import redundant.
fn type_checking_only<'t>(cx: &FileContext<'t>, statement: Node<'t>) -> bool {
    let mut current = statement;
    while let Some(parent) = cx.syntax().parent(current) {
        if parent.py_kind() == Kind::IfStatement
            && parent.field(Field::Consequence).is_some_and(|c| c.id() == current.id())
            && parent.field(Field::Condition).is_some_and(|c| {
                let text = cx.text(c);
                text == "TYPE_CHECKING" || text.ends_with(".TYPE_CHECKING")
            })
        {
            return true;
        }
        current = parent;
    }
    false
}

/// Whether `first` runs on every path to `second`: `first` comes earlier
/// and its statement list contains `second`.
fn dominates<'t>(cx: &FileContext<'t>, first: Node<'t>, second: Node<'_>) -> bool {
    first.start_byte() < second.start_byte() && cx.syntax().parent(first).is_some_and(|list| contains(list, second))
}

/// Whether the statement is in the module's own scope: the innermost scope
/// holding it is the module's. An import statement holds no scope and no
/// other node spans exactly its bytes, so the innermost scope whose span
/// holds it is its nearest ancestor defining a scope; the parent index
/// finds it without a scan of every scope per import.
fn in_module_scope<'t>(cx: &FileContext<'t>, scopes: &Scopes, statement: Node<'t>) -> bool {
    let mut current = cx.syntax().parent(statement);
    while let Some(node) = current {
        if let Some(scope) = scopes.of_node(node.id()) {
            return scope == crate::scopes::ScopeId::MODULE;
        }
        current = cx.syntax().parent(node);
    }
    true
}
