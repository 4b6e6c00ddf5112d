//! Q52 "Unguarded next in generator": `next(it)` inside a generator with no
//! default and no `StopIteration` handler. When the iterator is exhausted,
//! the `StopIteration` silently ends the generator (before Python 3.7) or
//! becomes a `RuntimeError` (PEP 479), instead of being handled.
//!
//! ```python
//! def pairs(items):
//!     it = iter(items)
//!     for first in it:
//!         yield first, next(it)    # answer: the call
//! ```
//!
//! Follows UnguardedNextInGenerator.ql: the call is to the builtin `next`
//! (not rebound at module level or in the calling function; a method named
//! `next` does not shadow it) with one argument, in a function that
//! contains `yield`, not inside a comprehension, and not inside a `try`
//! with an `except StopIteration` handler (alone or in a tuple). `next(it)`
//! is also accepted when `it = iter(seq)` is guarded by a test of `seq`
//! (CodeQL's edge refinement): the assignment sits in the body of an
//! `if`/`while` whose condition mentions `seq`, so `seq` is not empty.
//! CodeQL's Python-version condition (before 3.5 only) is the query selection's
//! (`config::applies_to`): `quarry query` runs it only for code whose `python-version`
//! (or `requires-python`) is older; the engine itself does not look at versions.
//!
//! Negative form: the other calls of `next`: with a default, handled, or
//! outside generators.

use crate::syntax::{Field, Kind, SyntaxNode};
use tree_sitter::Node;

use crate::ast::{call_arguments, callee_text, named_children, strip_parentheses};
use crate::context::FileContext;
use crate::finding::{Polarity, RawFinding};
use crate::query::{Hops, Query, QueryMeta};
use crate::scopes::ScopeId;

/// The query.
pub static QUERY: Query = Query {
    meta: QueryMeta {
        id: "unguarded-next-in-generator",
        name: "Unguarded next in generator",
        index: 52,
        hops: Hops::Single,
        description: "Calling next() in a generator may cause unintended early termination of an iteration.",
        codeql: "python/ql/src/Exceptions/UnguardedNextInGenerator.ql",
    },
    find,
};

const COMPREHENSIONS: &[Kind] =
    &[Kind::ListComprehension, Kind::SetComprehension, Kind::DictionaryComprehension, Kind::GeneratorExpression];

fn find(cx: &FileContext<'_>, polarity: Polarity) -> Vec<RawFinding> {
    let scopes = cx.scopes();
    let binds_next =
        |scope: Option<ScopeId>| scope.is_some_and(|id| scopes.get(id).bindings.iter().any(|b| b.name == "next"));
    if binds_next(Some(ScopeId::MODULE)) {
        return Vec::new();
    }
    let mut findings = Vec::new();
    for &call in cx.nodes(Kind::Call) {
        if callee_text(cx.file(), call) != Some("next") {
            continue;
        }
        let function = cx.enclosing_function(call);
        if binds_next(function.and_then(|f| scopes.of_node(f.id()))) {
            continue;
        }
        let arguments = call_arguments(call);
        if arguments.is_empty() || in_comprehension(call) {
            continue;
        }
        let has_default = arguments.len() > 1
            || arguments.iter().any(|a| {
                a.py_kind() == Kind::KeywordArgument && a.field(Field::Name).is_some_and(|n| cx.text(n) == "default")
            });
        let in_generator = function.is_some_and(|f| is_generator(f)) && scope_is_function(call);
        let positive = in_generator
            && !has_default
            && !stop_iteration_handled(cx, call)
            && !iter_not_exhausted(cx, call, arguments[0]);
        match polarity {
            Polarity::Positive if positive => {
                findings.push(RawFinding::answer(cx.span(call), "Call to next() in a generator"))
            }
            Polarity::Negative if !positive => findings
                .push(RawFinding::answer(cx.span(call), "Call to next() that is guarded, or not in a generator")),
            _ => {}
        }
    }
    findings
}

fn in_comprehension(node: Node<'_>) -> bool {
    let mut current = node.parent();
    while let Some(n) = current {
        if COMPREHENSIONS.contains(&n.py_kind()) {
            return true;
        }
        if matches!(n.py_kind(), Kind::FunctionDefinition | Kind::Lambda | Kind::ClassDefinition) {
            return false;
        }
        current = n.parent();
    }
    false
}

/// Whether the innermost scope of the node is a function (not a lambda).
fn scope_is_function(node: Node<'_>) -> bool {
    crate::ast::enclosing_scope(node).is_some_and(|s| s.py_kind() == Kind::FunctionDefinition)
}

/// Whether the function itself (not a nested scope) contains `yield`.
fn is_generator(function: Node<'_>) -> bool {
    let Some(body) = function.field(Field::Body) else { return false };
    let mut walk = quarry_syntax::walk::Preorder::new(body);
    while let Some(n) = walk.next() {
        match n.py_kind() {
            Kind::FunctionDefinition | Kind::ClassDefinition | Kind::Lambda => walk.skip_children(),
            k if COMPREHENSIONS.contains(&k) => walk.skip_children(),
            Kind::Yield => return true,
            _ => {}
        }
    }
    false
}

/// Whether a `try` of the same function holding the call has an
/// `except StopIteration` handler.
fn stop_iteration_handled(cx: &FileContext<'_>, call: Node<'_>) -> bool {
    let mut current = call.parent();
    while let Some(n) = current {
        if matches!(n.py_kind(), Kind::FunctionDefinition | Kind::ClassDefinition | Kind::Lambda) {
            return false;
        }
        if n.py_kind() == Kind::TryStatement {
            let handled = named_children(n).into_iter().filter(|c| c.py_kind() == Kind::ExceptClause).any(|clause| {
                named_children(clause)
                    .into_iter()
                    .find(|c| c.py_kind() != Kind::Block && c.py_kind() != Kind::Comment)
                    .is_some_and(|t| {
                        let t = if t.py_kind() == Kind::AsPattern { t.named_child(0).unwrap_or(t) } else { t };
                        let t = strip_parentheses(t);
                        // A tuple of handled types counts when it names StopIteration.
                        let types = if t.py_kind() == Kind::Tuple { named_children(t) } else { vec![t] };
                        types.iter().any(|t| matches!(cx.text(*t).trim(), "StopIteration" | "builtins.StopIteration"))
                    })
            });
            if handled {
                return true;
            }
        }
        current = n.parent();
    }
    false
}

/// `next(it)` where `it = iter(seq)` in the same scope and the call is in
/// the body of an `if`/`while` whose condition mentions `seq`.
fn iter_not_exhausted(cx: &FileContext<'_>, call: Node<'_>, argument: Node<'_>) -> bool {
    let argument = strip_parentheses(argument);
    if argument.py_kind() != Kind::Identifier {
        return false;
    }
    let name = cx.text(argument);
    let scope = cx.syntax().enclosing_scope(call).map(|s| s.id());
    let Some(assignment) = cx
        .nodes(Kind::Assignment)
        .iter()
        .filter(|a| a.end_byte() <= call.start_byte())
        .filter(|a| cx.syntax().enclosing_scope(**a).map(|s| s.id()) == scope)
        .rfind(|a| a.field(Field::Left).is_some_and(|l| l.py_kind() == Kind::Identifier && cx.text(l) == name))
        .copied()
    else {
        return false;
    };
    let Some(sequence) = assignment
        .field(Field::Right)
        .map(strip_parentheses)
        .filter(|v| v.py_kind() == Kind::Call && callee_text(cx.file(), *v) == Some("iter"))
        .and_then(|v| call_arguments(v).first().copied())
        .map(strip_parentheses)
        .filter(|s| s.py_kind() == Kind::Identifier)
    else {
        return false;
    };
    let sequence = cx.text(sequence);
    let mut child = assignment;
    let mut current = assignment.parent();
    while let Some(n) = current {
        if matches!(n.py_kind(), Kind::FunctionDefinition | Kind::ClassDefinition | Kind::Lambda) {
            return false;
        }
        let guarded_body = match n.py_kind() {
            Kind::IfStatement | Kind::ElifClause => n.field(Field::Consequence),
            Kind::WhileStatement => n.field(Field::Body),
            _ => None,
        };
        if guarded_body.is_some_and(|b| b.id() == child.id()) {
            let mentions = n.field(Field::Condition).is_some_and(|c| {
                quarry_syntax::walk::Preorder::new(c).any(|i| i.py_kind() == Kind::Identifier && cx.text(i) == sequence)
            });
            if mentions {
                return true;
            }
        }
        child = n;
        current = n.parent();
    }
    false
}
