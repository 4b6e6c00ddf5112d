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

use crate::syntax::{Field, Kind, SyntaxNode};
use quarry_syntax::walk::Preorder;
use tree_sitter::Node;

use crate::ast::{named_children, strip_parentheses};
use crate::context::FileContext;
use crate::finding::{Polarity, RawFinding};
use crate::query::{Hops, Query, QueryMeta};

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
    let asserts = cx.nodes(Kind::AssertStatement);
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
    match node.py_kind() {
        Kind::Yield => !in_comprehension(node),
        Kind::Call => {
            let Some(function) = node.field(Field::Function).map(strip_parentheses) else { return false };
            let name = match function.py_kind() {
                Kind::Identifier => cx.text(function),
                Kind::Attribute => function.field(Field::Attribute).map(|a| cx.text(a)).unwrap_or_default(),
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
    for &statement in cx.nodes(Kind::ImportStatement) {
        for alias in named_children(statement).into_iter().filter(|n| n.py_kind() == Kind::AliasedImport) {
            let module = alias.field(Field::Name).map(|n| cx.text(n));
            if let (Some("subprocess"), Some(name)) = (module, alias.field(Field::Alias)) {
                modules.push(cx.text(name).to_string());
            }
        }
    }
    for &statement in cx.nodes(Kind::ImportFromStatement) {
        if statement.field(Field::ModuleName).map(|m| cx.text(m)) != Some("subprocess") {
            continue;
        }
        let mut cursor = statement.walk();
        for imported in statement.children_by_field_name("name", &mut cursor) {
            let (name, bound) = match imported.py_kind() {
                Kind::AliasedImport => (imported.field(Field::Name), imported.field(Field::Alias)),
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
        match n.py_kind() {
            Kind::ListComprehension
            | Kind::SetComprehension
            | Kind::DictionaryComprehension
            | Kind::GeneratorExpression => return true,
            Kind::AssertStatement | Kind::Lambda => return false,
            _ => current = n.parent(),
        }
    }
    false
}
