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

use tree_sitter::Node;

use crate::ast::{children, named_children, strip_parentheses};
use crate::context::FileContext;
use crate::finding::{Polarity, RawFinding};
use crate::registry::{Hops, Query, QueryMeta};

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
    for &list in cx.nodes("list") {
        let elements: Vec<Node<'_>> = named_children(list).into_iter().filter(|e| e.kind() != "comment").collect();
        let strings: Vec<Node<'_>> = elements.iter().copied().filter(|&e| string_constant(e)).collect();
        let is_answer = |e: Node<'_>| {
            e.kind() == "concatenated_string" && string_constant(e) && strings.iter().any(|other| other.id() != e.id())
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
        match node.kind() {
            "string" => {
                if children(node).iter().any(|c| c.kind() == "interpolation") {
                    return false;
                }
            }
            "concatenated_string" => pending.extend(named_children(node).into_iter().filter(|c| c.kind() != "comment")),
            "binary_operator" if node.child_by_field_name("operator").is_some_and(|o| o.kind() == "+") => {
                match (node.child_by_field_name("left"), node.child_by_field_name("right")) {
                    (Some(left), Some(right)) => pending.extend([left, right]),
                    _ => return false,
                }
            }
            _ => return false,
        }
    }
    true
}
