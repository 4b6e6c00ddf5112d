//! Q34 "Nested loops with same variable": an inner `for` loop that reuses
//! the target variable of an enclosing `for` loop clobbers it, so the outer
//! loop's code after the inner loop sees the inner loop's last value.
//!
//! ```python
//! for row in table:               # supporting fact: the outer loop header
//!     for row in row.cells:       # answer: the inner loop header
//!         check(row)
//!     emit(row)
//! ```
//!
//! As in CodeQL, the inner loop must be in the outer loop's body (not its
//! `else`), both must bind the same variable of the same scope, and the
//! variable must be read somewhere in the outer loop outside the inner one
//! (reads in nested functions and comprehensions that do not rebind it
//! count). Negative form: nested `for` loops with different target
//! variables, and same-variable nests whose outer loop never reads the
//! variable outside the inner loop.

use crate::syntax::{Field, Kind, SyntaxNode};
use tree_sitter::Node;

use crate::ast::{contains, target_names};

use crate::context::FileContext;
use crate::finding::{Polarity, RawFinding};
use crate::query::{Hops, Query, QueryMeta};
use crate::scopes::innermost_scope;
use crate::scopes::{ScopeId, Scopes};

/// The query.
pub static QUERY: Query = Query {
    meta: QueryMeta {
        id: "nested-loops-with-same-variable",
        name: "Nested loops with same variable",
        index: 34,
        hops: Hops::Single,
        description: "Nested loops in which the target variable is the same for each loop make the behavior of the loops difficult to understand.",
        codeql: "python/ql/src/Statements/NestedLoopsSameVariable.ql",
    },
    find,
};

fn find(cx: &FileContext<'_>, polarity: Polarity) -> Vec<RawFinding> {
    let scopes = cx.scopes();
    let loops = cx.nodes(Kind::ForStatement);
    let mut findings = Vec::new();
    let tree = cx.syntax().parents();
    for (position, &outer) in loops.iter().enumerate() {
        let Some(body) = outer.field(Field::Body) else { continue };
        let scope = innermost_scope(tree, scopes, outer);
        let outer_names = loop_names(cx, outer);
        // The loops are in source order, so those inside `outer` follow it
        // in one run: read that run, not every loop of the file.
        let nested = loops[position + 1..].iter().take_while(|l| l.start_byte() < outer.end_byte());
        for &inner in nested.filter(|&&l| contains(body, l)) {
            if innermost_scope(tree, scopes, inner) != scope {
                continue;
            }
            let inner_names = loop_names(cx, inner);
            let shared: Vec<&str> = outer_names.iter().filter(|n| inner_names.contains(n)).copied().collect();
            let used: Vec<&str> =
                shared.iter().filter(|name| read_outside(scopes, scope, name, outer, inner)).copied().collect();
            let message = match (polarity, used.first(), shared.first()) {
                (Polarity::Positive, Some(name), _) => {
                    format!("Nested for statement uses loop variable '{name}' of enclosing for statement.")
                }
                (Polarity::Negative, None, Some(name)) => {
                    format!(
                        "Nested for statement reuses loop variable '{name}', which the enclosing loop does not read."
                    )
                }
                (Polarity::Negative, None, None) => {
                    "Nested for statement uses a loop variable different from the enclosing one.".to_string()
                }
                _ => continue,
            };
            findings.push(RawFinding::answer(cx.location(inner), message).with_facts([cx.location(outer)]));
        }
    }
    findings
}

/// The names a `for` statement's target binds.
fn loop_names<'f>(cx: &FileContext<'f>, for_statement: Node<'_>) -> Vec<&'f str> {
    for_statement.field(Field::Left).map(target_names).unwrap_or_default().into_iter().map(|n| cx.text(n)).collect()
}

/// Whether `name` of `scope` is read inside `outer` but outside `inner`,
/// in the scope itself or in nested scopes that do not bind it.
fn read_outside(scopes: &Scopes, scope: ScopeId, name: &str, outer: Node<'_>, inner: Node<'_>) -> bool {
    let mut pending = vec![scope];
    while let Some(id) = pending.pop() {
        let current = scopes.get(id);
        if id != scope && current.is_local(name) {
            continue;
        }
        // Positions first: they rule out most uses more cheaply than names.
        let read = current.uses.iter().any(|u| {
            outer.start_byte() <= u.start_byte
                && u.span.end_byte <= outer.end_byte()
                && !(inner.start_byte() <= u.start_byte && u.span.end_byte <= inner.end_byte())
                && u.name == name
        });
        if read {
            return true;
        }
        // Only the nested scopes inside `outer` can hold such a read.
        let inside = |child: &ScopeId| {
            let span = &scopes.get(*child).span;
            outer.start_byte() <= span.start_byte && span.end_byte <= outer.end_byte()
        };
        pending.extend(current.children.iter().copied().filter(inside));
    }
    false
}
