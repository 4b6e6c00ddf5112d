//! Q21 "Unreachable code": a statement that can never run because every
//! path before it returns, raises, breaks, continues or loops forever. Dead
//! code misleads readers and often hides a misplaced `return`.
//!
//! ```python
//! def parse(text):
//!     return json.loads(text)
//!     log("parsed")          # answer: unreachable statement
//! ```
//!
//! Uses quarry's reachability analysis (see [`crate::reachability`]): only
//! the first statement of each dead run is reported, and nothing inside or
//! after another unreachable statement. As in CodeQL, a statement that holds
//! the only `yield` of its function (`return; yield` marks a generator) is
//! not reported, nor are imports in modules that use type-hint comments.
//! Handlers of a `try` whose body cannot raise are reported by their first
//! `except` header (loads of Python 3 builtins, literals and plain
//! assignments cannot raise). CodeQL's pruning of branches on comparisons
//! it can decide through points-to is not modelled.
//!
//! Negative form: the statement right after a compound statement that
//! contains a `return`, `raise`, `break` or `continue` but can still
//! complete, so the statement is reachable.

use crate::syntax::{Kind, SyntaxNode};
use tree_sitter::Node;

use crate::context::FileContext;
use crate::finding::{Polarity, RawFinding};
use crate::query::{Hops, Query, QueryMeta};

/// The query.
pub static QUERY: Query = Query {
    meta: QueryMeta {
        id: "unreachable-statement",
        name: "Unreachable code",
        index: 21,
        hops: Hops::Single,
        description: "Code is unreachable",
        codeql: "python/ql/src/Statements/UnreachableCode.ql",
    },
    find,
};

fn find(cx: &FileContext<'_>, polarity: Polarity) -> Vec<RawFinding> {
    let reach = cx.reachability();
    match polarity {
        Polarity::Positive => {
            let type_hints =
                cx.nodes(Kind::Comment).iter().any(|c| cx.text(*c).trim_start_matches('#').trim().starts_with("type:"));
            reach
                .unreachable(cx.syntax())
                .into_iter()
                .filter(|s| !unique_yield(cx, *s))
                .filter(|s| !(type_hints && is_module_import(*s)))
                .map(|s| RawFinding::answer(cx.location(s), "Unreachable statement."))
                .collect()
        }
        Polarity::Negative => {
            let mut findings = Vec::new();
            for kind in
                [Kind::IfStatement, Kind::ForStatement, Kind::WhileStatement, Kind::TryStatement, Kind::WithStatement]
            {
                for &statement in cx.nodes(kind) {
                    let parent = cx.syntax().parent(statement);
                    if !crate::reachability::is_statement_in(statement, parent) || !reach.completes(statement) {
                        continue;
                    }
                    if !contains_jump(statement) {
                        continue;
                    }
                    let mut next = statement.next_named_sibling();
                    while let Some(n) = next.filter(|n| n.py_kind() == Kind::Comment) {
                        next = n.next_named_sibling();
                    }
                    if let Some(next) = next {
                        findings.push(RawFinding::answer(cx.location(next), "Reachable statement."));
                    }
                }
            }
            findings
        }
    }
}

/// Whether the statement holds a jump (`return`, `raise`, `break`,
/// `continue`) of its own function.
fn contains_jump(statement: Node<'_>) -> bool {
    let mut walk = quarry_syntax::walk::Preorder::new(statement);
    while let Some(n) = walk.next() {
        match n.py_kind() {
            Kind::FunctionDefinition | Kind::ClassDefinition | Kind::Lambda => walk.skip_children(),
            Kind::ReturnStatement | Kind::RaiseStatement | Kind::BreakStatement | Kind::ContinueStatement => {
                return true
            }
            _ => {}
        }
    }
    false
}

/// Whether the statement holds the only `yield` of its function.
fn unique_yield(cx: &FileContext<'_>, statement: Node<'_>) -> bool {
    let Some(function) = crate::ast::enclosing_function(statement) else { return false };
    let in_scope = |y: &Node<'_>| {
        let mut current = y.parent();
        while let Some(n) = current {
            match n.py_kind() {
                Kind::FunctionDefinition => return n.id() == function.id(),
                Kind::Lambda | Kind::ClassDefinition => return false,
                _ => current = n.parent(),
            }
        }
        false
    };
    let yields: Vec<&Node<'_>> = cx.nodes(Kind::Yield).iter().filter(|y| in_scope(y)).collect();
    yields.len() == 1
        && yields.iter().all(|y| y.start_byte() >= statement.start_byte() && y.end_byte() <= statement.end_byte())
}

fn is_module_import(statement: Node<'_>) -> bool {
    matches!(statement.py_kind(), Kind::ImportStatement | Kind::ImportFromStatement)
        && crate::ast::enclosing_function(statement).is_none()
}
