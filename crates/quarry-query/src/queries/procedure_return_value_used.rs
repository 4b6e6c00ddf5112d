//! Q3 "Use of the return value of a procedure": the result of a call to a
//! function that never returns a value (always `None`) is used, which
//! means nothing and usually hides a mistake.
//!
//! ```python
//! def log(message):             # supporting fact: returns nothing
//!     print(message)
//! result = log("started")       # answer: the call
//! ```
//!
//! As in CodeQL: the callee resolves inside the file to a procedure (no
//! `return` statement, no `yield`, and it can finish normally); the
//! result is used when the call sits inside another call, an attribute or
//! a subscript, or in a statement other than an expression statement —
//! except as the value of the only `return` of its function. Modules using
//! `mox` are left out, and so are calls of `@abstractmethod`s and method
//! calls whose method a subclass overrides with one returning a value. The callee and the classes linking it are relevant.
//! Negative form: calls of procedures whose result is discarded.

use std::collections::HashMap;

use crate::syntax::{Field, Kind, SyntaxNode};
use tree_sitter::Node;

use crate::context::FileContext;
use crate::finding::{Polarity, RawFinding};
use crate::methods::only_raises;
use crate::query::{Hops, Query, QueryMeta};

/// The query.
pub static QUERY: Query = Query {
    meta: QueryMeta {
        id: "procedure-return-value-used",
        name: "Use of the return value of a procedure",
        index: 3,
        hops: Hops::Multi,
        description: "The return value of a procedure (a function that does not return a value) is used. This is confusing to the reader as the value (None) has no meaning.",
        codeql: "python/ql/src/Functions/UseImplicitNoneReturnValue.ql",
    },
    find,
};

fn find(cx: &FileContext<'_>, polarity: Polarity) -> Vec<RawFinding> {
    if cx.nodes(Kind::Identifier).iter().any(|i| cx.text(*i) == "mox") {
        return Vec::new();
    }
    let mut findings = Vec::new();
    // Whether a target is a procedure call worth judging, once per target
    // (a file calls the same function many times).
    let mut judged: HashMap<(usize, Option<crate::classes::ClassId>, bool), bool> = HashMap::new();
    for &call in cx.nodes(Kind::Call) {
        let Some(target) = cx.call_target(call) else { continue };
        let key = (target.function.id(), target.class, target.bound);
        let procedure = *judged.entry(key).or_insert_with(|| {
            is_procedure(cx, target.function)
                && !is_abstract(cx, target.function)
                && !overridden_by_function(cx, &target)
        });
        if !procedure {
            continue;
        }
        let used = is_used(cx, call);
        if used != (polarity == Polarity::Positive) {
            continue;
        }
        let message = if used {
            "The result of the call is used even though it is always None."
        } else {
            "The result of a procedure call is discarded."
        };
        let site = cx.enclosing_function(call).unwrap_or(call);
        findings.push(
            RawFinding::answer(cx.location(call), message)
                .with_facts([cx.location(target.function)])
                .with_context(crate::relevance::linkage_of_nodes(cx, site, &[target.function])),
        );
    }
    findings
}

/// Whether a method called through its receiver may run an override, in a
/// subclass of the file, that is no procedure: then the call may return a value.
fn overridden_by_function(cx: &FileContext<'_>, target: &crate::calls::CallTarget<'_>) -> bool {
    let (Some(class), true) = (target.class, target.bound) else { return false };
    let classes = cx.classes();
    let name = target.function.field(Field::Name).map(|n| cx.text(n)).unwrap_or_default();
    classes
        .ids()
        .filter(|&sub| sub != class && classes.is_subclass(sub, class))
        .filter_map(|sub| classes.get(sub).method(name))
        .any(|m| !is_procedure(cx, m))
}

/// Whether the function is an `@abstractmethod`: its body is a placeholder,
/// and a call runs an implementation quarry may not see (a subclass in
/// another file, or one whose generic base `Base[T]` it does not follow).
fn is_abstract(cx: &FileContext<'_>, function: Node<'_>) -> bool {
    cx.syntax().decorators(function).iter().any(|d| d.ends_with("abstractmethod"))
}

/// A procedure as CodeQL defines it: no `return` statement at all, no
/// `yield`, and it does not always raise.
fn is_procedure<'f>(cx: &FileContext<'f>, function: Node<'f>) -> bool {
    let nodes = cx.own_nodes(function);
    let returns_value = nodes.iter().any(|n| n.py_kind() == Kind::ReturnStatement);
    let generator = nodes.iter().any(|n| matches!(n.py_kind(), Kind::Yield | Kind::Await));
    let is_async = crate::ast::children(function).first().is_some_and(|c| c.py_kind() == Kind::KwAsync);
    !returns_value && !generator && !is_async && !only_raises(function)
}

/// CodeQL's `is_used`: the call is an operand of a call, attribute or
/// subscript, or sits in a statement other than an expression statement
/// (the value of its function's only `return` excepted).
fn is_used<'f>(cx: &FileContext<'f>, call: Node<'f>) -> bool {
    let mut current = cx.syntax().parent(call);
    while let Some(node) = current {
        match node.py_kind() {
            Kind::Call | Kind::Attribute | Kind::Subscript => return true,
            Kind::ExpressionStatement => return false,
            Kind::ReturnStatement => {
                let function = cx.enclosing_function(node);
                let returns = function
                    .map_or(1, |f| cx.own_nodes(f).iter().filter(|n| n.py_kind() == Kind::ReturnStatement).count());
                return returns != 1;
            }
            Kind::Lambda => return false,
            kind if kind.is_statement() || kind.is_clause() || kind == Kind::Assignment => return true,
            _ => {}
        }
        current = cx.syntax().parent(node);
    }
    false
}
