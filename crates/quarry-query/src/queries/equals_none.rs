//! Q20 "Testing equality to None": `x == None` or `x != None` calls `__eq__`,
//! which may be overridden; `is None` is the reliable test.
//!
//! ```python
//! if value == None:   # answer: the comparison
//!     return default
//! ```
//!
//! Negative form: comparisons to `None` written with `is` or `is not`.

use crate::ast::{children, strip_parentheses};
use crate::context::FileContext;
use crate::finding::{Polarity, RawFinding};
use crate::query::{Hops, Query, QueryMeta};
use crate::syntax::{Kind, SyntaxNode};

/// The query.
pub static QUERY: Query = Query {
    meta: QueryMeta {
        id: "equals-none",
        name: "Testing equality to None",
        index: 20,
        hops: Hops::Single,
        description:
            "Testing whether an object is 'None' using the == operator is inefficient and potentially incorrect.",
        codeql: "python/ql/src/Expressions/EqualsNone.ql",
    },
    find,
};

fn find(cx: &FileContext<'_>, polarity: Polarity) -> Vec<RawFinding> {
    let wanted: &[&str] = match polarity {
        Polarity::Positive => &["==", "!="],
        Polarity::Negative => &["is", "is not"],
    };
    let mut findings = Vec::new();
    for &comparison in cx.nodes(Kind::ComparisonOperator) {
        let parts = children(comparison);
        // Operands and operators alternate: a op b op c.
        for (i, op) in parts.iter().enumerate().filter(|(_, n)| !n.is_named()) {
            let op_text = cx.text(*op).split_whitespace().collect::<Vec<_>>().join(" ");
            if !wanted.contains(&op_text.as_str()) {
                continue;
            }
            let left = i.checked_sub(1).and_then(|j| parts.get(j));
            let right = parts.get(i + 1);
            let is_none =
                |n: Option<&tree_sitter::Node<'_>>| n.is_some_and(|n| strip_parentheses(*n).py_kind() == Kind::None);
            if is_none(left) || is_none(right) {
                findings.push(RawFinding::answer(
                    cx.location(comparison),
                    "Testing for None should use the 'is' operator.",
                ));
                break;
            }
        }
    }
    findings
}
