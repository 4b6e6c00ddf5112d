//! Q35 "Import of deprecated module": modules such as `md5`, `sha`, `sets`
//! or `rfc822` were deprecated (and later removed) in favour of `hashlib`,
//! builtin sets, `email` and others.
//!
//! ```python
//! import md5                  # answer: the module name `md5`
//! digest = md5.new(data).hexdigest()
//! ```
//!
//! The answer is the module name in the import, as CodeQL selects the
//! import expression. The deprecated modules, their versions and their
//! replacements are CodeQL's fixed list. As in CodeQL, an import inside an
//! `except ImportError:` handler (a fallback for old Pythons) is left out;
//! the handler must name `ImportError` itself (CodeQL asks points-to).
//! Negative form: imports of the replacement modules (`hashlib`, `email`,
//! `random`, `re`, `fcntl`), and deprecated modules imported as fallbacks.

use crate::syntax::{Kind, SyntaxNode};
use tree_sitter::Node;

use crate::ast::{contains, named_children};

use crate::context::FileContext;
use crate::finding::{Polarity, RawFinding};
use crate::import_statements::imported_modules;
use crate::query::{Hops, Query, QueryMeta};

/// The query.
pub static QUERY: Query = Query {
    meta: QueryMeta {
        id: "import-deprecated-module",
        name: "Import of deprecated module",
        index: 35,
        hops: Hops::Single,
        description: "Import of a deprecated module",
        codeql: "python/ql/src/Imports/DeprecatedModule.ql",
    },
    find,
};

/// A deprecated module, what replaces it, and the version deprecating it.
const DEPRECATED: &[(&str, &str, &str)] = &[
    ("posixfile", "fcntl", "1.5"),
    ("gopherlib", "", "2.5"),
    ("rgbimgmodule", "", "2.5"),
    ("pre", "re", "1.5"),
    ("whrandom", "random", "2.1"),
    ("rfc822", "email", "2.3"),
    ("mimetools", "email", "2.3"),
    ("MimeWriter", "email", "2.3"),
    ("mimify", "email", "2.3"),
    ("rotor", "", "2.4"),
    ("statcache", "", "2.2"),
    ("mpz", "a third party", "2.2"),
    ("xreadlines", "", "2.3"),
    ("multifile", "email", "2.5"),
    ("sets", "builtins", "2.6"),
    ("buildtools", "", "2.3"),
    ("cfmfile", "", "2.4"),
    ("macfs", "", "2.3"),
    ("md5", "hashlib", "2.5"),
    ("sha", "hashlib", "2.5"),
];

/// Modules that replace deprecated ones.
const REPLACEMENTS: &[&str] = &["fcntl", "re", "random", "email", "hashlib"];

fn find(cx: &FileContext<'_>, polarity: Polarity) -> Vec<RawFinding> {
    let file = cx.file();
    let mut findings = Vec::new();
    for kind in [Kind::ImportStatement, Kind::ImportFromStatement] {
        for &statement in cx.nodes(kind) {
            for (module, node) in imported_modules(file, statement) {
                let deprecated = DEPRECATED.iter().find(|(name, _, _)| *name == module);
                let fallback = in_import_error_handler(cx, statement);
                let message = match (polarity, deprecated) {
                    (Polarity::Positive, Some((name, instead, version))) if !fallback => {
                        let replacement =
                            if instead.is_empty() { String::new() } else { format!(" Use {instead} module instead.") };
                        format!("The {name} module was deprecated in version {version}.{replacement}")
                    }
                    (Polarity::Negative, Some((name, _, _))) if fallback => {
                        format!("The {name} module is imported only as a fallback.")
                    }
                    (Polarity::Negative, None)
                        if REPLACEMENTS.iter().any(|r| module == *r || module.starts_with(&format!("{r}."))) =>
                    {
                        format!("The {module} module is not deprecated.")
                    }
                    _ => continue,
                };
                findings.push(RawFinding::answer(cx.location(node), message));
            }
        }
    }
    findings
}

/// Whether `statement` is inside an `except ImportError` handler of the same scope.
fn in_import_error_handler(cx: &FileContext<'_>, statement: Node<'_>) -> bool {
    let scope = crate::ast::enclosing_function(statement).map(|f| f.id());
    cx.nodes(Kind::ExceptClause).iter().any(|&clause| {
        contains(clause, statement)
            && cx.enclosing_function(clause).map(|f| f.id()) == scope
            && named_children(clause)
                .into_iter()
                .find(|c| c.py_kind() != Kind::Block && c.py_kind() != Kind::Comment)
                .is_some_and(|handled| {
                    let handled = if handled.py_kind() == Kind::AsPattern {
                        handled.named_child(0).unwrap_or(handled)
                    } else {
                        handled
                    };
                    matches!(cx.text(handled), "ImportError" | "exceptions.ImportError" | "builtins.ImportError")
                })
    })
}
