//! Q23 "Unnecessary pass": a `pass` statement in a statement list that has
//! other statements does nothing and only adds noise.
//!
//! ```python
//! def close(self):
//!     self.handle.close()
//!     pass                # answer: the `pass`
//! ```
//!
//! As in CodeQL, a `pass` next to a docstring alone is needed (a body of
//! only a docstring is valid, but the pair is a common idiom) and is left
//! out: a list of two statements counts only when the first is not the
//! docstring of a module, class or function. Negative form: `pass`
//! statements that are needed — the only statement of their list, or the
//! one statement after a docstring.

use crate::syntax::{Kind, SyntaxNode};
use tree_sitter::Node;

use crate::ast::statements;
use crate::context::FileContext;
use crate::finding::{Polarity, RawFinding};
use crate::query::{Hops, Query, QueryMeta};

/// The query.
pub static QUERY: Query = Query {
    meta: QueryMeta {
        id: "unnecessary-pass",
        name: "Unnecessary pass",
        index: 23,
        hops: Hops::Single,
        description: "Unnecessary 'pass' statement",
        codeql: "python/ql/src/Statements/UnnecessaryPass.ql",
    },
    find,
};

fn find(cx: &FileContext<'_>, polarity: Polarity) -> Vec<RawFinding> {
    let mut findings = Vec::new();
    for &pass in cx.nodes(Kind::PassStatement) {
        let Some(list) = pass.parent().filter(|p| matches!(p.py_kind(), Kind::Block | Kind::Module)) else { continue };
        let items = statements(list);
        let unnecessary = match items.len() {
            0 | 1 => false,
            2 => !has_docstring(list, &items),
            _ => true,
        };
        if unnecessary == (polarity == Polarity::Positive) {
            let message = match polarity {
                Polarity::Positive => "Unnecessary 'pass' statement.",
                Polarity::Negative => "This 'pass' statement is needed.",
            };
            findings.push(RawFinding::answer(cx.location(pass), message));
        }
    }
    findings
}

/// Whether a statement list is the body of a module, class or function and
/// starts with a string (its docstring).
fn has_docstring(list: Node<'_>, items: &[Node<'_>]) -> bool {
    let is_scope_body = list.py_kind() == Kind::Module
        || list.parent().is_some_and(|p| matches!(p.py_kind(), Kind::FunctionDefinition | Kind::ClassDefinition));
    is_scope_body
        && items.first().is_some_and(|first| {
            first.py_kind() == Kind::ExpressionStatement
                && first.named_child_count() == 1
                && first.named_child(0).is_some_and(|e| matches!(e.py_kind(), Kind::String | Kind::ConcatenatedString))
        })
}
