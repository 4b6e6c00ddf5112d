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

use tree_sitter::Node;

use crate::ast::{children, named_children, strip_parentheses};
use crate::classes::{Lookup, MemberKind};
use crate::context::FileContext;
use crate::finding::{Polarity, RawFinding};
use crate::registry::{Hops, Query, QueryMeta};

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
    for &comparison in cx.nodes("comparison_operator") {
        let operands = named_children(comparison);
        let operators: Vec<String> =
            children(comparison).into_iter().filter(|c| !c.is_named()).map(|c| c.kind().to_string()).collect();
        // `a is b` or `a is not b` (tree-sitter gives `is not` as one token or as `is`, `not`).
        let is_comparison = operands.len() == 2 && matches!(operators.join(" ").as_str(), "is" | "is not");
        if !is_comparison {
            continue;
        }
        let instances: Vec<Vec<quarry_syntax::Span>> =
            operands.iter().filter_map(|o| instance_with_equality(cx, *o)).collect();
        let wrong = !instances.is_empty() || operands.iter().any(|o| uninterned_literal(cx, *o));
        if wrong != (polarity == Polarity::Positive) {
            continue;
        }
        let (op, alt) = if operators.len() > 1 || operators[0] != "is" { ("is not", "!=") } else { ("is", "==") };
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
    match node.kind() {
        "string" | "concatenated_string" => !interned_string(cx.text(node)),
        "integer" => cx.text(node).replace('_', "").parse::<i64>().map_or(true, |v| !(-5..=256).contains(&v)),
        "unary_operator" => {
            let text: String = cx.text(node).split_whitespace().collect();
            node.child_by_field_name("argument").is_some_and(|a| a.kind() == "integer" || a.kind() == "float")
                && text.parse::<i64>().map_or(true, |v| !(-5..=256).contains(&v))
        }
        "float" | "list" | "dictionary" => true,
        "tuple" => named_children(node).into_iter().any(|c| c.kind() != "comment"),
        _ => false,
    }
}

/// For a fresh instance of a class of the file whose `__eq__` is its own
/// (or a builtin's other than `object`'s) and does not compare identities,
/// the spans of the class header and of that `__eq__`.
fn instance_with_equality<'f>(cx: &FileContext<'f>, node: Node<'f>) -> Option<Vec<quarry_syntax::Span>> {
    let node = strip_parentheses(node);
    if node.kind() != "call" {
        return None;
    }
    let class = crate::calls::resolve_class_call(cx, node)?;
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
