//! Q42 "Unnecessary delete statement in function": `del x` as the very last
//! statement of a function deletes a local that is released anyway when the
//! function returns; it is noise.
//!
//! ```python
//! def render(rows):            # supporting fact: the function header
//!     text = format(rows)
//!     emit(text)
//!     del text                 # answer: the `del` statement
//! ```
//!
//! The `del` must be the function's last statement (looking through the
//! last branch of `if`/`else`, the body of `with`, and the `finally`, `else`
//! or body of `try`), not inside a loop, and the deleted target a plain name
//! (not `del x[i]` or `del x.a`). CodeQL also names the deleted variable,
//! but it lies inside the answer span, so the function header is the only
//! supporting fact; one result per `del` statement. Functions that call
//! `sys.exc_info()` are left out: deleting the traceback breaks a reference
//! cycle there.
//!
//! Negative form: `del name` statements in functions that are not the last
//! statement (or sit in a loop), which do release a value early.

use crate::syntax::{Field, Kind, SyntaxNode};
use tree_sitter::Node;

use crate::ast::{named_children, statements};
use crate::context::FileContext;
use crate::finding::{Polarity, RawFinding};
use crate::query::{Hops, Query, QueryMeta};
use crate::reachability::{clause_block, else_clause};

/// The query.
pub static QUERY: Query = Query {
    meta: QueryMeta {
        id: "unnecessary-delete",
        name: "Unnecessary delete statement in function",
        index: 42,
        hops: Hops::Single,
        description: "Using a 'delete' statement to delete a local variable is unnecessary, because the variable is deleted automatically when the function exits.",
        codeql: "python/ql/src/Statements/UnnecessaryDelete.ql",
    },
    find,
};

fn find(cx: &FileContext<'_>, polarity: Polarity) -> Vec<RawFinding> {
    let mut findings = Vec::new();
    for &delete in cx.nodes(Kind::DeleteStatement) {
        let Some(function) = cx.enclosing_function(delete) else { continue };
        let names: Vec<Node<'_>> = named_children(delete)
            .into_iter()
            .flat_map(|t| if t.py_kind() == Kind::ExpressionList { named_children(t) } else { vec![t] })
            .map(crate::ast::strip_parentheses)
            .filter(|t| t.py_kind() == Kind::Identifier)
            .collect();
        let positive = last_statement(function).is_some_and(|last| last.id() == delete.id())
            && !inside_loop(delete, function)
            && !calls_exc_info(cx, function);
        if positive != (polarity == Polarity::Positive) {
            continue;
        }
        if names.is_empty() {
            continue;
        }
        let function_name = crate::ast::field_text(cx.file(), function, Field::Name).unwrap_or_default();
        let deleted: Vec<&str> = names.iter().map(|n| cx.text(*n)).collect();
        let deleted = deleted.join(", ");
        let message = if positive {
            format!("Unnecessary deletion of local variable {deleted} in function {function_name}.")
        } else {
            format!("Deletion of local variable {deleted} before function {function_name} ends.")
        };
        // The deleted names lie inside the answer; the function is the fact.
        findings.push(RawFinding::answer(cx.location(delete), message).with_facts([cx.location(function)]));
    }
    findings
}

/// The statement a function ends with, looking into the last branch of
/// compound statements.
fn last_statement(function: Node<'_>) -> Option<Node<'_>> {
    let mut current = statements(function.field(Field::Body)?).last().copied()?;
    for _ in 0..10_000 {
        let inner = match current.py_kind() {
            Kind::IfStatement => {
                let last_clause = named_children(current)
                    .into_iter()
                    .rfind(|c| matches!(c.py_kind(), Kind::ElifClause | Kind::ElseClause));
                match last_clause {
                    Some(clause) => clause_block(clause),
                    None => current.field(Field::Consequence),
                }
            }
            Kind::WithStatement => current.field(Field::Body),
            Kind::TryStatement => {
                let finally = named_children(current).into_iter().find(|c| c.py_kind() == Kind::FinallyClause);
                finally
                    .and_then(clause_block)
                    .or_else(|| else_clause(current).and_then(clause_block))
                    .or_else(|| current.field(Field::Body))
            }
            _ => return Some(current),
        };
        current = statements(inner?).last().copied()?;
    }
    None
}

fn inside_loop(node: Node<'_>, function: Node<'_>) -> bool {
    let mut current = node.parent();
    while let Some(n) = current {
        if n.id() == function.id() {
            return false;
        }
        if matches!(n.py_kind(), Kind::ForStatement | Kind::WhileStatement) {
            return true;
        }
        current = n.parent();
    }
    false
}

fn calls_exc_info(cx: &FileContext<'_>, function: Node<'_>) -> bool {
    cx.nodes(Kind::Call).iter().any(|call| {
        crate::ast::contains(function, *call)
            && cx.enclosing_function(*call).is_some_and(|f| f.id() == function.id())
            && crate::ast::callee_text(cx.file(), *call).is_some_and(|c| c == "sys.exc_info" || c == "exc_info")
    })
}
