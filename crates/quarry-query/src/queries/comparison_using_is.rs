//! Q6 "Comparison using is when operands support `__eq__`": `x is "text"`
//! or `x is not 1000` compares identities where the values support
//! equality; whether two equal literals are the same object is an accident
//! of the interpreter.
//!
//! ```python
//! if status is "done":      # answer: the comparison
//!     finish()
//! ```
//!
//! As in CodeQL: an operand of `is` or `is not` is a string, number, list,
//! dict or tuple literal, except values CPython interns (the empty string,
//! one-character strings, integers from -5 to 256, the empty tuple). As the
//! query CodeQueries was built from did through points-to, a fresh instance
//! of a class of the file whose `__eq__` (its own or inherited, not
//! `object`'s, not an identity test) defines equality counts too; its class
//! and `__eq__` are then relevant.
//! Negative form: `is` comparisons whose operands are not such literals
//! (`x is None`, `a is b`).

use crate::syntax::{Field, Kind, SyntaxNode};
use tree_sitter::Node;

use crate::ast::{comparison_pairs, named_children, strip_parentheses, CmpOp};
use crate::class_syntax::MemberKind;
use crate::classes::Lookup;
use crate::context::FileContext;
use crate::finding::{Polarity, RawFinding};
use crate::query::{Hops, Query, QueryMeta};

/// The query.
pub static QUERY: Query = Query {
    meta: QueryMeta {
        id: "comparison-using-is",
        name: "Comparison using is when operands support `__eq__`",
        index: 6,
        hops: Hops::Multi,
        description: "Comparison using `is` when equivalence is not the same as identity",
        codeql: "python/ql/src/Expressions/IncorrectComparisonUsingIs.ql",
    },
    find,
};

fn find(cx: &FileContext<'_>, polarity: Polarity) -> Vec<RawFinding> {
    let mut findings = Vec::new();
    for &comparison in cx.nodes(Kind::ComparisonOperator) {
        let operands = named_children(comparison);
        let pairs = comparison_pairs(comparison);
        let operator = match pairs.as_slice() {
            [(_, op @ (CmpOp::Is | CmpOp::IsNot), _)] if operands.len() == 2 => *op,
            _ => continue,
        };
        let instances: Vec<Vec<quarry_syntax::Span>> =
            operands.iter().filter_map(|o| instance_with_equality(cx, *o)).collect();
        let wrong = !instances.is_empty() || operands.iter().any(|o| uninterned_literal(cx, *o));
        if wrong != (polarity == Polarity::Positive) {
            continue;
        }
        let (op, alt) = if operator == CmpOp::IsNot { ("is not", "!=") } else { ("is", "==") };
        let message = if wrong {
            format!("Values compared using '{op}' when equivalence is not the same as identity. Use '{alt}' instead.")
        } else {
            format!("Values compared using '{op}' where identity is meant.")
        };
        findings.push(RawFinding::answer(cx.location(comparison), message).with_context(instances.concat()));
    }
    findings
}

/// A literal whose identity is not guaranteed: strings, numbers, lists,
/// dicts and tuples other than the values CPython interns.
fn uninterned_literal(cx: &FileContext<'_>, node: Node<'_>) -> bool {
    let node = strip_parentheses(node);
    match node.py_kind() {
        Kind::String | Kind::ConcatenatedString => !interned_string(cx.text(node)),
        Kind::Integer => cx.text(node).replace('_', "").parse::<i64>().map_or(true, |v| !(-5..=256).contains(&v)),
        Kind::UnaryOperator => {
            let text: String = cx.text(node).split_whitespace().collect();
            node.field(Field::Argument).is_some_and(|a| a.py_kind() == Kind::Integer || a.py_kind() == Kind::Float)
                && text.parse::<i64>().map_or(true, |v| !(-5..=256).contains(&v))
        }
        Kind::Float | Kind::List | Kind::Dictionary => true,
        Kind::Tuple => named_children(node).into_iter().any(|c| c.py_kind() != Kind::Comment),
        _ => false,
    }
}

/// For a fresh instance of a class of the file whose `__eq__` is its own
/// (or a builtin's other than `object`'s) and does not compare identities,
/// the spans of the class header and of that `__eq__`.
fn instance_with_equality<'f>(cx: &FileContext<'f>, node: Node<'f>) -> Option<Vec<quarry_syntax::Span>> {
    let node = strip_parentheses(node);
    if node.py_kind() != Kind::Call {
        return None;
    }
    let class = cx.calls().resolve_class_call(node)?;
    let classes = cx.classes();
    if !classes.is_fully_known(class) {
        return None;
    }
    let header = cx.location(classes.get(class).node);
    match classes.lookup(class, "__eq__") {
        Lookup::Local(_, member)
            if member.kind == MemberKind::Method && !crate::methods::is_identity_eq(cx.file(), member.node) =>
        {
            Some(vec![header, cx.span(member.node)])
        }
        Lookup::Builtin(owner) if owner != "object" => Some(vec![header]),
        _ => None,
    }
}

/// The empty string and one-character strings (Latin-1) are interned.
fn interned_string(text: &str) -> bool {
    let Some(start) = text.find(['\'', '"']) else { return false };
    let body = &text[start..];
    let quote = if body.starts_with("\"\"\"") || body.starts_with("'''") { 3 } else { 1 };
    if body.len() < 2 * quote {
        return false;
    }
    let inner = &body[quote..body.len() - quote];
    let mut chars = inner.chars();
    match (chars.next(), chars.next()) {
        (None, _) => true,
        (Some(c), None) => (c as u32) <= 0xff,
        _ => false,
    }
}
