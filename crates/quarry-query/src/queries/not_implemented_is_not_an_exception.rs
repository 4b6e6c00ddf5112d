//! Q36 "NotImplemented is not an Exception": `NotImplemented` is a constant
//! for binary operators to return, not an exception class; raising it (or
//! calling it) fails with a `TypeError`. `NotImplementedError` was meant.
//!
//! ```python
//! def area(self):
//!     raise NotImplemented    # answer: `NotImplemented`
//! ```
//!
//! The answer is what is raised: the `NotImplemented` name, or the call
//! `NotImplemented(...)` (as CodeQL's own tests show). CodeQL asks points-to whether the name is the builtin; here it is
//! the builtin unless the file binds `NotImplemented` itself. Negative form:
//! the correct `raise NotImplementedError` / `raise NotImplementedError(...)`,
//! answered the same way.

use crate::syntax::{Field, Kind, SyntaxNode};
use tree_sitter::Node;

use crate::ast::strip_parentheses;
use crate::context::FileContext;
use crate::finding::{Polarity, RawFinding};
use crate::query::{Hops, Query, QueryMeta};

/// The query.
pub static QUERY: Query = Query {
    meta: QueryMeta {
        id: "not-implemented-is-not-an-exception",
        name: "NotImplemented is not an Exception",
        index: 36,
        hops: Hops::Single,
        description: "Using 'NotImplemented' as an exception will result in a type error.",
        codeql: "python/ql/src/Exceptions/NotImplementedIsNotAnException.ql",
    },
    find,
};

fn find(cx: &FileContext<'_>, polarity: Polarity) -> Vec<RawFinding> {
    let (wanted, message) = match polarity {
        Polarity::Positive => {
            ("NotImplemented", "NotImplemented is not an Exception. Did you mean NotImplementedError?")
        }
        Polarity::Negative => ("NotImplementedError", "NotImplementedError is an Exception."),
    };
    if cx.scopes().all().iter().any(|s| s.bindings.iter().any(|b| b.name == wanted)) {
        return Vec::new();
    }
    cx.nodes(Kind::RaiseStatement)
        .iter()
        .filter_map(|&raise| raised_name(raise))
        .filter(|&(name, _)| cx.text(name) == wanted)
        .map(|(_, raised)| RawFinding::answer(cx.location(raised), message))
        .collect()
}

/// The name a raise statement raises, with the raised expression:
/// `raise X` gives `X` twice, `raise X(...)` gives `X` and the call.
fn raised_name(raise: Node<'_>) -> Option<(Node<'_>, Node<'_>)> {
    let mut raised = raise.named_child(0).filter(|n| n.py_kind() != Kind::Comment)?;
    if raise.field(Field::Cause).is_some_and(|c| c.id() == raised.id()) {
        return None;
    }
    if raised.py_kind() == Kind::ExpressionList {
        raised = raised.named_child(0)?;
    }
    let raised = strip_parentheses(raised);
    let name = if raised.py_kind() == Kind::Call { strip_parentheses(raised.field(Field::Function)?) } else { raised };
    (name.py_kind() == Kind::Identifier).then_some((name, raised))
}
