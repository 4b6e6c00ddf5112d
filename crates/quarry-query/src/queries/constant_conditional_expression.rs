//! Q39 "Constant in conditional expression or statement": an `if`, `elif`
//! or conditional expression whose test is a constant always takes the same
//! branch; the test is dead weight or hides a bug.
//!
//! ```python
//! if "verbose":           # answer: the test `"verbose"`
//!     log(message)
//! ```
//!
//! Constants follow CodeQL's `isConstant()` (no names, calls or the like);
//! the builtin `NotImplemented` counts too when the file does not bind it.
//! As in CodeQL, an `if` whose constant test makes its body or its `else`
//! unreachable is left to the unreachable-code query; CodeQL's extractor
//! prunes the branches of tests that are literally `True`, `False`, `None`,
//! a number or a string (not `not` of one), and those are the tests taken
//! to make a branch unreachable here. The answer is the test without enclosing parentheses; `while`
//! tests are not conditions for this query. Negative form: tests that look
//! like constants but are variables (a bare name or attribute such as
//! `DEBUG` or `settings.DEBUG`), and the constant tests left out because
//! they make code unreachable.

use crate::syntax::{Field, Kind, SyntaxNode};
use tree_sitter::Node;

use crate::ast::{is_constant_expression, named_children, strip_parentheses};
use crate::context::FileContext;
use crate::finding::{Polarity, RawFinding};
use crate::query::{Hops, Query, QueryMeta};

/// The query.
pub static QUERY: Query = Query {
    meta: QueryMeta {
        id: "constant-conditional-expression",
        name: "Constant in conditional expression or statement",
        index: 39,
        hops: Hops::Single,
        description: "The conditional is always true or always false",
        codeql: "python/ql/src/Statements/ConstantInConditional.ql",
    },
    find,
};

fn find(cx: &FileContext<'_>, polarity: Polarity) -> Vec<RawFinding> {
    let not_implemented_bound = cx.scopes().all().iter().any(|s| s.bindings.iter().any(|b| b.name == "NotImplemented"));
    let mut tests: Vec<(Node<'_>, Option<Node<'_>>)> = Vec::new();
    for kind in [Kind::IfStatement, Kind::ElifClause] {
        for &statement in cx.nodes(kind) {
            if let Some(test) = statement.field(Field::Condition) {
                tests.push((test, Some(statement)));
            }
        }
    }
    for &conditional in cx.nodes(Kind::ConditionalExpression) {
        let operands: Vec<Node<'_>> =
            named_children(conditional).into_iter().filter(|c| c.py_kind() != Kind::Comment).collect();
        if let Some(&test) = operands.get(1) {
            tests.push((test, None));
        }
    }
    let mut findings = Vec::new();
    for (test, statement) in tests {
        let bare = strip_parentheses(test);
        let constant = is_constant_expression(test)
            || (!not_implemented_bound && bare.py_kind() == Kind::Identifier && cx.text(bare) == "NotImplemented");
        let unreachable = statement.is_some_and(|s| makes_code_unreachable(cx, s, bare));
        let (answer, message) = match polarity {
            Polarity::Positive => (constant && !unreachable, "Testing a constant will always give the same result."),
            Polarity::Negative => {
                let variable_like = !constant && matches!(bare.py_kind(), Kind::Identifier | Kind::Attribute);
                ((constant && unreachable) || variable_like, "The test is not a constant.")
            }
        };
        if answer {
            findings.push(RawFinding::answer(cx.location(bare), message));
        }
    }
    findings.sort_by_key(|f| f.answers.first().map(|s| s.start_byte));
    findings
}

/// Whether the constant test of an `if` or `elif` makes its body (always
/// false) or what follows it (`elif`/`else`, always true) unreachable.
fn makes_code_unreachable(cx: &FileContext<'_>, statement: Node<'_>, test: Node<'_>) -> bool {
    let has_alternative = match statement.py_kind() {
        Kind::IfStatement => statement.field(Field::Alternative).is_some(),
        // An `elif` is followed by the next clause of its `if`, if any.
        _ => statement.next_named_sibling().is_some_and(|n| matches!(n.py_kind(), Kind::ElifClause | Kind::ElseClause)),
    };
    match evident_truth(cx, test) {
        Some(true) => has_alternative,
        Some(false) => true,
        None => false,
    }
}

/// The truth value of a test CodeQL's control flow decides statically: its
/// extractor knows `True`, `False`, `None`, numbers and plain strings.
fn evident_truth(cx: &FileContext<'_>, test: Node<'_>) -> Option<bool> {
    let test = strip_parentheses(test);
    match test.py_kind() {
        Kind::True => Some(true),
        Kind::False | Kind::None => Some(false),
        Kind::Integer | Kind::Float => {
            // A number is false exactly when every digit of its mantissa is zero.
            let text = cx.text(test).to_ascii_lowercase().replace('_', "");
            let text = text.trim_end_matches(['l', 'j']);
            let mantissa = match ["0x", "0o", "0b"].iter().find_map(|p| text.strip_prefix(p)) {
                Some(digits) => digits,
                None => text.split('e').next().unwrap_or_default(),
            };
            Some(mantissa.chars().any(|c| c.is_ascii_alphanumeric() && c != '0'))
        }
        Kind::String | Kind::ConcatenatedString => {
            let parts = if test.py_kind() == Kind::String { vec![test] } else { named_children(test) };
            let mut empty = true;
            for part in parts.into_iter().filter(|p| p.py_kind() == Kind::String) {
                for child in named_children(part) {
                    match child.py_kind() {
                        Kind::Interpolation => return None,
                        Kind::StringContent | Kind::EscapeSequence => empty = false,
                        _ => {}
                    }
                }
            }
            Some(!empty)
        }
        _ => None,
    }
}
