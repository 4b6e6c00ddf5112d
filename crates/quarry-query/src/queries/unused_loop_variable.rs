//! Q28 "Suspicious unused loop iteration variable": a `for` loop whose
//! iteration variable is never used in the loop body, which usually means
//! the body uses the wrong name.
//!
//! ```python
//! for item in items:         # answer: the loop header
//!     process(items[0])
//! ```
//!
//! As in CodeQL, loops are left out when the target is not a plain name, the
//! iterable is a call to `range`/`xrange` (also `list(range(...))`), the name
//! is conventionally unused (`_`, `dummy`, `unused_x`, `__x`), the body is a
//! lone `pass`, the body ends in `return` or `break` without any `continue`
//! (only one item is looked at), the body counts (`n += 1`, `n = n + 1`), or
//! the body is a single statement with a literal and no varying local (it
//! repeats something, e.g. `queue.put(None)`). Comprehensions are not
//! considered. Negative form: `for` loops over a plain name that the body
//! does use.

use crate::syntax::{Field, Kind, SyntaxNode};
use tree_sitter::Node;

use crate::ast::{call_arguments, callee_text, statements, strip_parentheses};
use crate::context::FileContext;
use crate::finding::{Polarity, RawFinding};
use crate::flow::name_acceptable_for_unused;
use crate::query::{Hops, Query, QueryMeta};

/// The query.
pub static QUERY: Query = Query {
    meta: QueryMeta {
        id: "unused-loop-variable",
        name: "Suspicious unused loop iteration variable",
        index: 28,
        hops: Hops::Single,
        description: "A loop iteration variable is unused, which suggests an error.",
        codeql: "python/ql/src/Variables/SuspiciousUnusedLoopIterationVariable.ql",
    },
    find,
};

fn find(cx: &FileContext<'_>, polarity: Polarity) -> Vec<RawFinding> {
    let mut findings = Vec::new();
    for &for_statement in cx.nodes(Kind::ForStatement) {
        let Some(target) = for_statement.field(Field::Left) else { continue };
        if target.py_kind() != Kind::Identifier {
            continue;
        }
        let Some(body) = for_statement.field(Field::Body) else { continue };
        let name = cx.text(target);
        let accesses = accesses_in(cx, body, name);
        let used = accesses.iter().any(|(_, deleted)| !deleted);
        let deleted = accesses.iter().any(|(_, deleted)| *deleted);
        // Only the positive form of an unused variable asks (the checks
        // are pure, so skipping them elsewhere changes no answer).
        let excluded = polarity == Polarity::Positive
            && !used
            && (name_acceptable_for_unused(name)
                || for_statement.field(Field::Right).is_some_and(|r| is_range_call(cx, r))
                || empty_loop(body)
                || one_item_only(cx, body)
                || counting_loop(cx, body)
                || implicit_repeat(cx, for_statement, body));
        match polarity {
            Polarity::Positive if !used && !deleted && !excluded => findings.push(RawFinding::answer(
                cx.location(for_statement),
                format!("For loop variable '{name}' is not used in the loop body."),
            )),
            Polarity::Positive if !used && deleted && !excluded => findings.push(RawFinding::answer(
                cx.location(for_statement),
                format!("For loop variable '{name}' is deleted, but not used, in the loop body."),
            )),
            Polarity::Negative if used => findings.push(RawFinding::answer(
                cx.location(for_statement),
                format!("For loop variable '{name}' is used in the loop body."),
            )),
            _ => {}
        }
    }
    findings
}

/// Occurrences of `name` as a variable in `body` (reads, writes and
/// deletions; attribute names and keyword names do not count), with
/// whether each is the target of a `del`.
fn accesses_in<'t>(cx: &FileContext<'t>, body: Node<'t>, name: &str) -> Vec<(Node<'t>, bool)> {
    let mut found = Vec::new();
    let tree = cx.syntax().parents();
    for (position, node) in tree.walk(body) {
        if node.py_kind() != Kind::Identifier || cx.text(node) != name {
            continue;
        }
        let Some(parent) = tree.parent_at(position) else { continue };
        let is_attribute_name =
            parent.py_kind() == Kind::Attribute && parent.field(Field::Attribute).is_some_and(|a| a.id() == node.id());
        let is_keyword =
            parent.py_kind() == Kind::KeywordArgument && parent.field(Field::Name).is_some_and(|a| a.id() == node.id());
        if is_attribute_name || is_keyword {
            continue;
        }
        let deleted = parent.py_kind() == Kind::DeleteStatement
            || (parent.py_kind() == Kind::ExpressionList
                && tree.parent_of_id(parent.id()).is_some_and(|p| p.py_kind() == Kind::DeleteStatement));
        found.push((node, deleted));
    }
    found
}

/// `range(...)`, `xrange(...)`, `list(range(...))`.
fn is_range_call(cx: &FileContext<'_>, iterable: Node<'_>) -> bool {
    let mut node = strip_parentheses(iterable);
    for _ in 0..8 {
        if node.py_kind() != Kind::Call {
            return false;
        }
        match callee_text(cx.file(), node) {
            Some("range" | "xrange") => return true,
            Some("list") => match call_arguments(node).first() {
                Some(arg) => node = strip_parentheses(*arg),
                None => return false,
            },
            _ => return false,
        }
    }
    false
}

fn empty_loop(body: Node<'_>) -> bool {
    let items = statements(body);
    items.len() == 1 && items[0].py_kind() == Kind::PassStatement
}

fn one_item_only(cx: &FileContext<'_>, body: Node<'_>) -> bool {
    let has_continue = cx.syntax().parents().walk(body).any(|(_, n)| n.py_kind() == Kind::ContinueStatement);
    !has_continue
        && statements(body).last().is_some_and(|s| matches!(s.py_kind(), Kind::ReturnStatement | Kind::BreakStatement))
}

/// A body statement `x += <int>` or `x = x + <int>`.
fn counting_loop(cx: &FileContext<'_>, body: Node<'_>) -> bool {
    statements(body).iter().any(|statement| {
        let Some(expression) = statement.named_child(0).filter(|_| statement.py_kind() == Kind::ExpressionStatement)
        else {
            return false;
        };
        let right = expression.field(Field::Right).map(strip_parentheses);
        match expression.py_kind() {
            Kind::AugmentedAssignment => right.is_some_and(|r| r.py_kind() == Kind::Integer),
            Kind::Assignment => {
                let Some(left) = expression.field(Field::Left).filter(|l| l.py_kind() == Kind::Identifier) else {
                    return false;
                };
                right.is_some_and(|r| {
                    r.py_kind() == Kind::BinaryOperator
                        && r.field(Field::Operator).is_some_and(|o| cx.text(o) == "+")
                        && r.field(Field::Left)
                            .is_some_and(|l| l.py_kind() == Kind::Identifier && cx.text(l) == cx.text(left))
                        && r.field(Field::Right).is_some_and(|v| v.py_kind() == Kind::Integer)
                })
            }
            _ => false,
        }
    })
}

/// A single-statement body holding a literal and no use of a local that
/// varies (defined more than once, or inside a loop).
fn implicit_repeat(cx: &FileContext<'_>, for_statement: Node<'_>, body: Node<'_>) -> bool {
    let items = statements(body);
    if items.len() != 1 {
        return false;
    }
    let tree = cx.syntax().parents();
    let literal = tree.walk(items[0]).any(|(_, n)| {
        matches!(n.py_kind(), Kind::Integer | Kind::Float | Kind::String | Kind::None | Kind::True | Kind::False)
    });
    if !literal {
        return false;
    }
    let Some(function) = crate::ast::enclosing_function(for_statement) else { return true };
    let scopes = cx.scopes();
    let Some(scope) = scopes.of_node(function.id()).map(|s| scopes.get(s)) else { return true };
    let loops: Vec<(usize, usize)> = cx
        .nodes(Kind::ForStatement)
        .iter()
        .chain(cx.nodes(Kind::WhileStatement))
        .filter(|l| crate::ast::contains(function, **l))
        .map(|l| (l.start_byte(), l.end_byte()))
        .collect();
    let varying = |name: &str| {
        if !scope.is_local(name) {
            return false;
        }
        let bindings: Vec<_> = scope.bindings_named(name).collect();
        bindings.len() > 1
            || bindings.iter().any(|b| loops.iter().any(|&(start, end)| start <= b.start_byte && b.start_byte < end))
    };
    !tree.walk(body).any(|(_, n)| n.py_kind() == Kind::Identifier && varying(cx.text(n)))
}
