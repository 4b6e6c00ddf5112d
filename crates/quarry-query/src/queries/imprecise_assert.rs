//! Q18 "Imprecise assert": `assertTrue(a == b)` or `assertFalse(a < b)`
//! fails with "False is not true", while the specific assertion
//! (`assertEqual`, `assertGreaterEqual`, ...) shows both values.
//!
//! ```python
//! def test_total(self):
//!     self.assertTrue(cart.total() == 30)    # answer: the call
//! ```
//!
//! As in CodeQL, the first positional argument must be a single comparison
//! (not a chain like `a < b < c`), and a call with a second positional
//! argument (a message) is left out. Negative form: the other calls of
//! `assertTrue` and `assertFalse` — with a message, or on something other
//! than a single comparison.

use tree_sitter::Node;

use crate::ast::{call_arguments, comparison_pairs, strip_parentheses};
use crate::context::FileContext;
use crate::finding::{Polarity, RawFinding};
use crate::registry::{Hops, Query, QueryMeta};

/// The query.
pub static QUERY: Query = Query {
    meta: QueryMeta {
        id: "imprecise-assert",
        name: "Imprecise assert",
        index: 18,
        hops: Hops::Single,
        description: "Using 'assertTrue' or 'assertFalse' rather than a more specific assertion can give uninformative failure messages.",
        codeql: "python/ql/src/Testing/ImpreciseAssert.ql",
    },
    find,
};

fn find(cx: &FileContext<'_>, polarity: Polarity) -> Vec<RawFinding> {
    let mut findings = Vec::new();
    for &call in cx.nodes("call") {
        let Some(function) = call.child_by_field_name("function").filter(|f| f.kind() == "attribute") else {
            continue;
        };
        let method = function.child_by_field_name("attribute").map(|a| cx.text(a)).unwrap_or_default();
        if method != "assertTrue" && method != "assertFalse" {
            continue;
        }
        let positional: Vec<Node<'_>> = call_arguments(call)
            .into_iter()
            .filter(|a| !matches!(a.kind(), "keyword_argument" | "dictionary_splat" | "comment"))
            .collect();
        let operator = positional.first().and_then(|&first| single_comparison_operator(cx, first));
        let imprecise = match &operator {
            Some(op) => positional.len() == 1 && better_name(method, op).is_some(),
            None => false,
        };
        if imprecise != (polarity == Polarity::Positive) {
            continue;
        }
        let message = match (&operator, polarity) {
            (Some(op), Polarity::Positive) => format!(
                "{method}(a {op} b) cannot provide an informative message. Using {}(a, b) instead will give more informative messages.",
                better_name(method, op).unwrap_or_default()
            ),
            _ => format!("This {method} call is not an assertion on a single comparison without a message."),
        };
        findings.push(RawFinding::answer(cx.location(call), message));
    }
    findings
}

/// The operator of an expression that is a comparison with exactly one operator.
fn single_comparison_operator(cx: &FileContext<'_>, argument: Node<'_>) -> Option<String> {
    let comparison = strip_parentheses(argument);
    if comparison.kind() != "comparison_operator" {
        return None;
    }
    let pairs = comparison_pairs(cx.file(), comparison);
    match pairs.as_slice() {
        [(_, op, _)] => Some(op.clone()),
        _ => None,
    }
}

/// The specific assertion that replaces `method` on a comparison with `op`.
fn better_name(method: &str, op: &str) -> Option<&'static str> {
    let (when_true, when_false) = match op {
        "==" => ("assertEqual", "assertNotEqual"),
        "!=" | "<>" => ("assertNotEqual", "assertEqual"),
        "<" => ("assertLess", "assertGreaterEqual"),
        "<=" => ("assertLessEqual", "assertGreater"),
        ">" => ("assertGreater", "assertLessEqual"),
        ">=" => ("assertGreaterEqual", "assertLess"),
        "in" => ("assertIn", "assertNotIn"),
        "not in" => ("assertNotIn", "assertIn"),
        "is" => ("assertIs", "assertIsNot"),
        "is not" => ("assertIsNot", "assertIs"),
        _ => return None,
    };
    Some(if method == "assertTrue" { when_true } else { when_false })
}
