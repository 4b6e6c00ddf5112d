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
//! these by points-to; here they are recognised by name, following the
//! file's `import subprocess as ...` and `from subprocess import ...`). The
//! whole statement, message included, is searched. CodeQL's message also
//! names the side-effecting expression; CodeQueries keeps no supporting
//! fact for this query, so neither does quarry. Negative form: assert
//! statements without any such side effect.

use quarry_syntax::walk::Preorder;
use tree_sitter::Node;

use crate::ast::{named_children, strip_parentheses};
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
const SUBPROCESS_FUNCTIONS: &[&str] = &["call", "check_call", "check_output"];

fn find(cx: &FileContext<'_>, polarity: Polarity) -> Vec<RawFinding> {
    let asserts = cx.nodes("assert_statement");
    if asserts.is_empty() {
        return Vec::new();
    }
    let subprocess_calls = subprocess_callees(cx);
    let mut findings = Vec::new();
    for &assert in asserts {
        let side_effect = Preorder::new(assert).any(|n| probable_side_effect(cx, n, &subprocess_calls));
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

fn probable_side_effect(cx: &FileContext<'_>, node: Node<'_>, subprocess_calls: &[String]) -> bool {
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
            SIDE_EFFECT_NAMES.contains(&name) || subprocess_calls.contains(&dotted)
        }
        _ => false,
    }
}

/// How the file can spell the side-effecting `subprocess` functions:
/// `subprocess.call`, `sp.call` after `import subprocess as sp`, `call`
/// after `from subprocess import call`.
fn subprocess_callees(cx: &FileContext<'_>) -> Vec<String> {
    let mut modules = vec!["subprocess".to_string()];
    let mut callees = Vec::new();
    for &statement in cx.nodes("import_statement") {
        for alias in named_children(statement).into_iter().filter(|n| n.kind() == "aliased_import") {
            let module = alias.child_by_field_name("name").map(|n| cx.text(n));
            if let (Some("subprocess"), Some(name)) = (module, alias.child_by_field_name("alias")) {
                modules.push(cx.text(name).to_string());
            }
        }
    }
    for &statement in cx.nodes("import_from_statement") {
        if statement.child_by_field_name("module_name").map(|m| cx.text(m)) != Some("subprocess") {
            continue;
        }
        let mut cursor = statement.walk();
        for imported in statement.children_by_field_name("name", &mut cursor) {
            let (name, bound) = match imported.kind() {
                "aliased_import" => (imported.child_by_field_name("name"), imported.child_by_field_name("alias")),
                _ => (Some(imported), Some(imported)),
            };
            if let (Some(name), Some(bound)) = (name, bound) {
                if SUBPROCESS_FUNCTIONS.contains(&cx.text(name)) {
                    callees.push(cx.text(bound).to_string());
                }
            }
        }
    }
    for module in modules {
        callees.extend(SUBPROCESS_FUNCTIONS.iter().map(|f| format!("{module}.{f}")));
    }
    callees
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
