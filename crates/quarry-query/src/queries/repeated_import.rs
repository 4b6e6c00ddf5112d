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

use crate::syntax::{Field, Kind, SyntaxNode};
use tree_sitter::Node;

use crate::ast::{contains, named_children};

use crate::scopes::innermost_scope;

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
            module_scope: innermost_scope(scopes, s) == 0,
            type_checking: type_checking_only(cx, s),
        })
        .collect();
    let mut findings = Vec::new();
    for duplicate_import in &imports {
        let (duplicate, duplicate_aliases) = (&duplicate_import.statement, &duplicate_import.aliases);
        let mut originals = Vec::new();
        for original_import in &imports {
            let original = &original_import.statement;
            if original.id() == duplicate.id() || !original_import.module_scope || original_import.type_checking {
                continue;
            }
            let Some((module, _)) = duplicate_aliases.iter().find(|a| original_import.aliases.contains(a)) else {
                continue;
            };
            if !duplicate_import.module_scope || dominates(*original, *duplicate) {
                originals.push((*original, module.clone()));
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
fn type_checking_only(cx: &FileContext<'_>, statement: Node<'_>) -> bool {
    let mut current = statement;
    while let Some(parent) = current.parent() {
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
fn dominates(first: Node<'_>, second: Node<'_>) -> bool {
    first.start_byte() < second.start_byte() && first.parent().is_some_and(|list| contains(list, second))
}
