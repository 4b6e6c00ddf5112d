//! Q30 "Unnecessary 'else' clause in loop": the `else` of a `for` or `while`
//! loop runs whenever the loop ends without `break`; with no `break` in the
//! body it always runs, so the clause is misleading.
//!
//! ```python
//! for item in items:      # answer: the loop header
//!     process(item)
//! else:
//!     finish()
//! ```
//!
//! As in CodeQL, a `break` anywhere inside the body counts, even one of a
//! nested loop. Negative form: loops with an `else` clause whose body does
//! contain a `break`.

use crate::syntax::{Field, Kind, SyntaxNode};
use quarry_syntax::walk::Preorder;

use crate::context::FileContext;
use crate::finding::{Polarity, RawFinding};
use crate::query::{Hops, Query, QueryMeta};

/// The query.
pub static QUERY: Query = Query {
    meta: QueryMeta {
        id: "unnecessary-else-clause-in-loop",
        name: "Unnecessary 'else' clause in loop",
        index: 30,
        hops: Hops::Single,
        description: "An 'else' clause in a 'for' or 'while' statement that does not contain a 'break' is redundant.",
        codeql: "python/ql/src/Statements/UnnecessaryElseClause.ql",
    },
    find,
};

fn find(cx: &FileContext<'_>, polarity: Polarity) -> Vec<RawFinding> {
    let mut findings = Vec::new();
    for kind in [Kind::ForStatement, Kind::WhileStatement] {
        for &loop_node in cx.nodes(kind) {
            if loop_node.field(Field::Alternative).is_none() {
                continue;
            }
            let Some(body) = loop_node.field(Field::Body) else { continue };
            let has_break = Preorder::new(body).any(|n| n.py_kind() == Kind::BreakStatement);
            if has_break == (polarity == Polarity::Negative) {
                let keyword = if kind == Kind::ForStatement { "for" } else { "while" };
                let message = match polarity {
                    Polarity::Positive => {
                        format!(
                            "This '{keyword}' statement has a redundant 'else' as no 'break' is present in the body."
                        )
                    }
                    Polarity::Negative => format!("This '{keyword}' statement has a 'break', so its 'else' is needed."),
                };
                findings.push(RawFinding::answer(cx.location(loop_node), message));
            }
        }
    }
    findings
}
