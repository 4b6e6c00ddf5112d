//! Q40 "Comparison of identical values": comparing a variable with itself
//! (`x == x`, `a.b < a.b`) is always the same, except for NaN, where
//! `math.isnan` says what is meant.
//!
//! ```python
//! if value != value:      # answer: the comparison
//!     value = 0.0
//! ```
//!
//! As in CodeQL, a pair of neighbouring operands matches when both are the
//! same name, or the same attribute of the same name. A comparison whose
//! left operand is a name in a method of a class that also sets
//! `self.<name>` is left out (likely a missing `self.`). Negative form:
//! comparisons of two names or two simple attributes that differ, and the
//! left-out missing-`self` comparisons.

use crate::syntax::{Field, Kind, SyntaxNode};
use tree_sitter::Node;

use crate::ast::{comparison_pairs, method_class, strip_parentheses};
use crate::context::FileContext;
use crate::finding::{Polarity, RawFinding};
use crate::query::{Hops, Query, QueryMeta};

/// The query.
pub static QUERY: Query = Query {
    meta: QueryMeta {
        id: "comparison-of-identical-expressions",
        name: "Comparison of identical values",
        index: 40,
        hops: Hops::Single,
        description: "Comparison of identical values, the intent of which is unclear.",
        codeql: "python/ql/src/Expressions/CompareIdenticalValues.ql",
    },
    find,
};

fn find(cx: &FileContext<'_>, polarity: Polarity) -> Vec<RawFinding> {
    let mut findings = Vec::new();
    for &comparison in cx.nodes(Kind::ComparisonOperator) {
        let pairs = comparison_pairs(comparison);
        let identical = pairs.iter().any(|(l, _, r)| same_variable(cx, *l, *r));
        let missing_self = identical && pairs.iter().any(|(l, _, _)| maybe_missing_self(cx, *l));
        let (answer, message) = match polarity {
            Polarity::Positive => (
                identical && !missing_self,
                "Comparison of identical values; use cmath.isnan() if testing for not-a-number.",
            ),
            Polarity::Negative => {
                let similar = pairs.iter().any(|(l, _, r)| {
                    let (l, r) = (strip_parentheses(*l), strip_parentheses(*r));
                    (l.py_kind() == Kind::Identifier && r.py_kind() == Kind::Identifier)
                        || (simple_attribute(l).is_some() && simple_attribute(r).is_some())
                });
                ((identical && missing_self) || (!identical && similar), "Compared values are not identical.")
            }
        };
        if answer {
            findings.push(RawFinding::answer(cx.location(comparison), message));
        }
    }
    findings
}

/// Whether two operands are the same name, or the same attribute of the same name.
fn same_variable(cx: &FileContext<'_>, left: Node<'_>, right: Node<'_>) -> bool {
    let (left, right) = (strip_parentheses(left), strip_parentheses(right));
    if left.py_kind() == Kind::Identifier && right.py_kind() == Kind::Identifier {
        return cx.text(left) == cx.text(right);
    }
    match (simple_attribute(left), simple_attribute(right)) {
        (Some((lo, la)), Some((ro, ra))) => cx.text(lo) == cx.text(ro) && cx.text(la) == cx.text(ra),
        _ => false,
    }
}

/// For `name.attr`, the object name and the attribute name.
fn simple_attribute(node: Node<'_>) -> Option<(Node<'_>, Node<'_>)> {
    if node.py_kind() != Kind::Attribute {
        return None;
    }
    let object = strip_parentheses(node.field(Field::Object)?);
    let attribute = node.field(Field::Attribute)?;
    (object.py_kind() == Kind::Identifier).then_some((object, attribute))
}

/// Whether `left` is a name inside a method whose class assigns `self.<name>`.
fn maybe_missing_self(cx: &FileContext<'_>, left: Node<'_>) -> bool {
    let left = strip_parentheses(left);
    if left.py_kind() != Kind::Identifier {
        return false;
    }
    let Some(class) = crate::ast::enclosing_function(left).and_then(method_class) else { return false };
    let name = cx.text(left);
    cx.nodes(Kind::Attribute).iter().any(|&attribute| {
        crate::ast::contains(class, attribute)
            && attribute.field(Field::Object).is_some_and(|o| cx.text(o) == "self")
            && attribute.field(Field::Attribute).is_some_and(|a| cx.text(a) == name)
            && cx.enclosing_function(attribute).and_then(method_class).is_some_and(|c| c.id() == class.id())
    })
}
