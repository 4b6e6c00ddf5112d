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

use crate::syntax::{Field, Kind, SyntaxNode};
use tree_sitter::Node;

use crate::ast::{call_arguments, comparison_pairs, strip_parentheses, CmpOp};
use crate::context::FileContext;
use crate::finding::{Polarity, RawFinding};
use crate::query::{Hops, Query, QueryMeta};

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
    // `assertTrue`/`assertFalse` calls need the text `assert` in the file.
    if !cx.file().text().contains("assert") {
        return findings;
    }
    for &call in cx.nodes(Kind::Call) {
        let Some(function) = call.field(Field::Function).filter(|f| f.py_kind() == Kind::Attribute) else {
            continue;
        };
        let method = function.field(Field::Attribute).map(|a| cx.text(a)).unwrap_or_default();
        if method != "assertTrue" && method != "assertFalse" {
            continue;
        }
        let positional: Vec<Node<'_>> = call_arguments(call)
            .into_iter()
            .filter(|a| !matches!(a.py_kind(), Kind::KeywordArgument | Kind::DictionarySplat | Kind::Comment))
            .collect();
        let operator = positional.first().and_then(|&first| single_comparison_operator(first));
        let imprecise = match &operator {
            Some(op) => positional.len() == 1 && better_name(method, *op).is_some(),
            None => false,
        };
        if imprecise != (polarity == Polarity::Positive) {
            continue;
        }
        let message = match (&operator, polarity) {
            (Some(op), Polarity::Positive) => format!(
                "{method}(a {op} b) cannot provide an informative message. Using {}(a, b) instead will give more informative messages.",
                better_name(method, *op).unwrap_or_default()
            ),
            _ => format!("This {method} call is not an assertion on a single comparison without a message."),
        };
        findings.push(RawFinding::answer(cx.location(call), message));
    }
    findings
}

/// The operator of an expression that is a comparison with exactly one operator.
fn single_comparison_operator(argument: Node<'_>) -> Option<CmpOp> {
    let comparison = strip_parentheses(argument);
    if comparison.py_kind() != Kind::ComparisonOperator {
        return None;
    }
    let pairs = comparison_pairs(comparison);
    match pairs.as_slice() {
        [(_, op, _)] => Some(*op),
        _ => None,
    }
}

/// The specific assertion that replaces `method` on a comparison with `op`.
fn better_name(method: &str, op: CmpOp) -> Option<&'static str> {
    let (when_true, when_false) = match op {
        CmpOp::Eq => ("assertEqual", "assertNotEqual"),
        CmpOp::NotEq => ("assertNotEqual", "assertEqual"),
        CmpOp::Lt => ("assertLess", "assertGreaterEqual"),
        CmpOp::LtE => ("assertLessEqual", "assertGreater"),
        CmpOp::Gt => ("assertGreater", "assertLessEqual"),
        CmpOp::GtE => ("assertGreaterEqual", "assertLess"),
        CmpOp::In => ("assertIn", "assertNotIn"),
        CmpOp::NotIn => ("assertNotIn", "assertIn"),
        CmpOp::Is => ("assertIs", "assertIsNot"),
        CmpOp::IsNot => ("assertIsNot", "assertIs"),
    };
    Some(if method == "assertTrue" { when_true } else { when_false })
}
