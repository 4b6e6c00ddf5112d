//! Q33 "An assert statement has a side-effect": asserts are removed when
//! Python runs with `-O`, so a side effect inside one (a write, a `pop`, a
//! `yield`) happens only in unoptimised runs.
//!
//! ```python
//! assert queue.pop() == job       # answer: the assert statement
//! ```
//!
//! As in CodeQL, probable side effects are explicit `yield`/`yield from`
//! (not the implicit ones of comprehensions), calls of a function or method
//! named `print`, `write`, `append`, `pop`, `remove`, `discard`, `delete`,
//! `close`, `open` or `exit`, and calls of `subprocess.call`,
//! `subprocess.check_call` and `subprocess.check_output` (CodeQL resolves
//! these by points-to; here they are recognised by their dotted name). The
//! whole statement, message included, is searched. Negative form: assert
//! statements without any such side effect.

use quarry_syntax::walk::Preorder;
use tree_sitter::Node;

use crate::ast::strip_parentheses;
use crate::context::FileContext;
use crate::finding::{Polarity, RawFinding};
use crate::registry::{Hops, Query, QueryMeta};

/// The query.
pub static QUERY: Query = Query {
    meta: QueryMeta {
        id: "side-effect-in-assert",
        name: "An assert statement has a side-effect",
        index: 33,
        hops: Hops::Single,
        description: "Side-effects in assert statements result in differences between normal and optimized behavior.",
        codeql: "python/ql/src/Statements/SideEffectInAssert.ql",
    },
    find,
};

const SIDE_EFFECT_NAMES: &[&str] =
    &["print", "write", "append", "pop", "remove", "discard", "delete", "close", "open", "exit"];
const SIDE_EFFECT_CALLS: &[&str] = &["subprocess.call", "subprocess.check_call", "subprocess.check_output"];

fn find(cx: &FileContext<'_>, polarity: Polarity) -> Vec<RawFinding> {
    let mut findings = Vec::new();
    for &assert in cx.nodes("assert_statement") {
        let side_effect = Preorder::new(assert).any(|n| probable_side_effect(cx, n));
        if side_effect == (polarity == Polarity::Positive) {
            let message = match polarity {
                Polarity::Positive => "This 'assert' statement contains an expression which may have side effects.",
                Polarity::Negative => "This 'assert' statement has no side effects.",
            };
            findings.push(RawFinding::answer(cx.location(assert), message));
        }
    }
    findings
}

fn probable_side_effect(cx: &FileContext<'_>, node: Node<'_>) -> bool {
    match node.kind() {
        "yield" => !in_comprehension(node),
        "call" => {
            let Some(function) = node.child_by_field_name("function").map(strip_parentheses) else { return false };
            let name = match function.kind() {
                "identifier" => cx.text(function),
                "attribute" => function.child_by_field_name("attribute").map(|a| cx.text(a)).unwrap_or_default(),
                _ => "",
            };
            let dotted: String = cx.text(function).split_whitespace().collect();
            SIDE_EFFECT_NAMES.contains(&name) || SIDE_EFFECT_CALLS.contains(&dotted.as_str())
        }
        _ => false,
    }
}

fn in_comprehension(node: Node<'_>) -> bool {
    let mut current = node.parent();
    while let Some(n) = current {
        match n.kind() {
            "list_comprehension" | "set_comprehension" | "dictionary_comprehension" | "generator_expression" => {
                return true
            }
            "assert_statement" | "lambda" => return false,
            _ => current = n.parent(),
        }
    }
    false
}
