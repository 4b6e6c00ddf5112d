//! Q17 "Except block handles 'BaseException'": an `except:` or
//! `except BaseException:` handler that does not re-raise also swallows
//! `KeyboardInterrupt` and `SystemExit`.
//!
//! ```python
//! try:
//!     work()
//! except:          # answer: the handler header
//!     log("failed")
//! ```
//!
//! Negative form: handlers of the same shape that are fine — they name a
//! narrower exception type, or they re-raise.

use crate::syntax::{Kind, SyntaxNode};
use tree_sitter::Node;

use crate::ast::{named_children, statements};
use crate::context::FileContext;
use crate::finding::{Polarity, RawFinding};
use crate::query::{Hops, Query, QueryMeta};

/// The query.
pub static QUERY: Query = Query {
    meta: QueryMeta {
        id: "catching-base-exception",
        name: "Except block handles 'BaseException'",
        index: 17,
        hops: Hops::Single,
        description: "Handling 'BaseException' means that system exits and keyboard interrupts may be mis-handled.",
        codeql: "python/ql/src/Exceptions/CatchingBaseException.ql",
    },
    find,
};

fn find(cx: &FileContext<'_>, polarity: Polarity) -> Vec<RawFinding> {
    cx.nodes(Kind::ExceptClause)
        .iter()
        .filter(|&&clause| {
            let positive = catches_base_exception(cx, clause) && !reraises(clause);
            positive == (polarity == Polarity::Positive)
        })
        .map(|&clause| RawFinding::answer(cx.location(clause), "Except block directly handles BaseException."))
        .collect()
}

fn catches_base_exception(cx: &FileContext<'_>, clause: Node<'_>) -> bool {
    let handled =
        named_children(clause).into_iter().find(|c| c.py_kind() != Kind::Block && c.py_kind() != Kind::Comment);
    match handled {
        None => true,
        Some(expr) => {
            let expr = if expr.py_kind() == Kind::AsPattern { expr.named_child(0).unwrap_or(expr) } else { expr };
            matches!(cx.text(expr).trim(), "BaseException" | "builtins.BaseException" | "exceptions.BaseException")
        }
    }
}

/// Whether the handler body ends by raising (so the exception is not swallowed).
fn reraises(clause: Node<'_>) -> bool {
    let Some(body) = named_children(clause).into_iter().find(|c| c.py_kind() == Kind::Block) else {
        return false;
    };
    statements(body).last().is_some_and(|last| last.py_kind() == Kind::RaiseStatement)
}
