//! Q26 "Comparison of constants": comparing two constants always gives the
//! same result; it is a mistake or an obscure way to write `True`/`False`.
//!
//! ```python
//! DEBUG = 1 == 0          # answer: `1 == 0`
//! ```
//!
//! Each pair of neighbouring operands counts, so `0 < 1 < x` is reported.
//! Constants follow CodeQL's `isConstant()`: expressions without names,
//! calls, comprehensions or yields (`True`, `False` and `None` are literals,
//! as in Python 3). A comparison that is the test of an `assert` is left
//! out, as CodeQL does. Negative form: comparisons of a constant with a
//! non-constant operand, and constant comparisons tested by `assert`.

use crate::syntax::{Kind, SyntaxNode};
use tree_sitter::Node;

use crate::ast::{comparison_pairs, is_constant_expression, strip_parentheses};
use crate::context::FileContext;
use crate::finding::{Polarity, RawFinding};
use crate::query::{Hops, Query, QueryMeta};

/// The query.
pub static QUERY: Query = Query {
    meta: QueryMeta {
        id: "comparison-of-constants",
        name: "Comparison of constants",
        index: 26,
        hops: Hops::Single,
        description: "Comparison of constants is always constant, but is harder to read than a simple constant.",
        codeql: "python/ql/src/Expressions/CompareConstants.ql",
    },
    find,
};

fn find(cx: &FileContext<'_>, polarity: Polarity) -> Vec<RawFinding> {
    let mut findings = Vec::new();
    for &comparison in cx.nodes(Kind::ComparisonOperator) {
        let pairs = comparison_pairs(comparison);
        let constant_pair = pairs.iter().any(|(l, _, r)| is_constant_expression(*l) && is_constant_expression(*r));
        let asserted = is_assert_test(comparison);
        let (answer, message) = match polarity {
            Polarity::Positive => {
                (constant_pair && !asserted, "Comparison of constants; use 'True' or 'False' instead.")
            }
            Polarity::Negative => {
                let mixed = pairs.iter().any(|(l, _, r)| is_constant_expression(*l) != is_constant_expression(*r));
                ((constant_pair && asserted) || (!constant_pair && mixed), "Comparison is not between two constants.")
            }
        };
        if answer {
            findings.push(RawFinding::answer(cx.location(comparison), message));
        }
    }
    findings
}

/// Whether a comparison is the test of an `assert` (parentheses aside).
fn is_assert_test(comparison: Node<'_>) -> bool {
    let mut node = comparison;
    while let Some(parent) = node.parent().filter(|p| p.py_kind() == Kind::ParenthesizedExpression) {
        node = parent;
    }
    node.parent().is_some_and(|p| {
        p.py_kind() == Kind::AssertStatement
            && p.named_child(0).is_some_and(|t| strip_parentheses(t).id() == comparison.id())
    })
}
