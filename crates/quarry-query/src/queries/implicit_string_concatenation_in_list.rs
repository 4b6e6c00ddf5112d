//! Q27 "Implicit string concatenation in a list": two string literals side
//! by side are joined into one, so a missing comma in a list of strings
//! silently merges two elements.
//!
//! ```python
//! COLUMNS = [
//!     "name",
//!     "email"         # answer: `"email"\n    "phone"` (one element)
//!     "phone",
//! ]
//! ```
//!
//! As in CodeQL, the implicitly concatenated string must be an element of a
//! list display that has at least one other string element (a literal, or
//! literals joined by `+`), and it must not be parenthesized (parentheses
//! show the concatenation is meant). Formatted strings are not string
//! constants. Negative form: in lists with at least two string elements,
//! the string elements that are not unparenthesized implicit
//! concatenations, one finding per list.

use crate::syntax::{Field, Kind, SyntaxNode};
use tree_sitter::Node;

use crate::ast::{children, named_children, strip_parentheses};
use crate::context::FileContext;
use crate::finding::{Polarity, RawFinding};
use crate::query::{Hops, Query, QueryMeta};

/// The query.
pub static QUERY: Query = Query {
    meta: QueryMeta {
        id: "implicit-string-concatenation-in-list",
        name: "Implicit string concatenation in a list",
        index: 27,
        hops: Hops::Single,
        description: "Omitting a comma between strings causes implicit concatenation which is confusing in a list.",
        codeql: "python/ql/src/Expressions/UnintentionalImplicitStringConcatenation.ql",
    },
    find,
};

fn find(cx: &FileContext<'_>, polarity: Polarity) -> Vec<RawFinding> {
    let mut findings = Vec::new();
    for &list in cx.nodes(Kind::List) {
        let elements: Vec<Node<'_>> =
            named_children(list).into_iter().filter(|e| e.py_kind() != Kind::Comment).collect();
        let strings: Vec<Node<'_>> = elements.iter().copied().filter(|&e| string_constant(e)).collect();
        let is_answer = |e: Node<'_>| {
            e.py_kind() == Kind::ConcatenatedString
                && string_constant(e)
                && strings.iter().any(|other| other.id() != e.id())
        };
        match polarity {
            Polarity::Positive => {
                for &element in elements.iter().filter(|&&e| is_answer(e)) {
                    findings.push(RawFinding::answer(
                        cx.location(element),
                        "Implicit string concatenation. Maybe missing a comma?",
                    ));
                }
            }
            Polarity::Negative => {
                let plausible: Vec<Node<'_>> = strings.iter().copied().filter(|&s| !is_answer(s)).collect();
                if strings.len() >= 2 && !plausible.is_empty() {
                    findings.push(RawFinding::new(
                        plausible.iter().map(|&s| cx.location(s)).collect(),
                        Vec::new(),
                        "String elements are separated by commas.",
                    ));
                }
            }
        }
    }
    findings
}

/// A string constant: a literal without interpolations (possibly implicitly
/// concatenated or parenthesized), or string constants joined by `+`.
fn string_constant(node: Node<'_>) -> bool {
    let mut pending = vec![node];
    while let Some(node) = pending.pop() {
        let node = strip_parentheses(node);
        match node.py_kind() {
            Kind::String => {
                if children(node).iter().any(|c| c.py_kind() == Kind::Interpolation) {
                    return false;
                }
            }
            Kind::ConcatenatedString => {
                pending.extend(named_children(node).into_iter().filter(|c| c.py_kind() != Kind::Comment))
            }
            Kind::BinaryOperator if node.field(Field::Operator).is_some_and(|o| o.py_kind() == Kind::Plus) => {
                match (node.field(Field::Left), node.field(Field::Right)) {
                    (Some(left), Some(right)) => pending.extend([left, right]),
                    _ => return false,
                }
            }
            _ => return false,
        }
    }
    true
}
