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

use std::collections::{HashMap, HashSet};

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
    let tree = cx.syntax().parents();
    // Each loop's scope and names, read once rather than once per loop around it.
    let facts: Vec<LoopFacts<'_>> =
        loops.iter().map(|&l| LoopFacts::new(cx, innermost_scope(tree, scopes, l), l)).collect();
    let reads = VariableReads::index(scopes, facts.iter().flat_map(|f| f.names.iter().map(move |&n| (f.scope, n))));
    let mut findings = Vec::new();
    for (position, (&outer, outer_facts)) in loops.iter().zip(&facts).enumerate() {
        let Some(body) = outer.field(Field::Body) else { continue };
        let scope = outer_facts.scope;
        // The loops are in source order, so those inside `outer` follow it
        // in one run: read that run, not every loop of the file.
        let nested = loops[position + 1..].iter().zip(&facts[position + 1..]);
        let nested = nested.take_while(|(l, _)| l.start_byte() < outer.end_byte());
        for (&inner, inner_facts) in nested.filter(|(&l, _)| contains(body, l)) {
            if inner_facts.scope != scope {
                continue;
            }
            let mut shared = outer_facts.names.iter().copied().filter(|n| inner_facts.binds(n));
            let first_shared = shared.clone().next();
            let used = shared.find(|name| reads.read_outside(scope, name, outer, inner));
            let message = match (polarity, used, first_shared) {
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

/// One `for` statement's scope and the names its target binds.
struct LoopFacts<'f> {
    /// The innermost scope holding the loop.
    scope: ScopeId,
    /// The names, in source order.
    names: Vec<&'f str>,
    /// The same names sorted, to test membership in a tuple target of any size.
    sorted: Vec<&'f str>,
}

impl<'f> LoopFacts<'f> {
    fn new(cx: &FileContext<'f>, scope: ScopeId, for_statement: Node<'_>) -> LoopFacts<'f> {
        let names: Vec<&'f str> = for_statement
            .field(Field::Left)
            .map(target_names)
            .unwrap_or_default()
            .into_iter()
            .map(|n| cx.text(n))
            .collect();
        let mut sorted = names.clone();
        sorted.sort_unstable();
        LoopFacts { scope, names, sorted }
    }

    /// Whether the loop binds `name`.
    fn binds(&self, name: &str) -> bool {
        self.sorted.binary_search(&name).is_ok()
    }
}

/// The reads of the loop variables, indexed once per file: each read of a
/// variable of a scope, in the scope itself or in a nested scope that does
/// not bind the name, as its byte range, sorted. Whether a pair of loops
/// reads the variable outside the inner one is then two counts, not a scan
/// of the scope's reads per pair (thousands of loops over `i` inside one
/// loop over `i` each rescanned every read of the scope).
struct VariableReads<'s> {
    by_variable: HashMap<(ScopeId, &'s str), Vec<(usize, usize)>>,
}

impl<'s> VariableReads<'s> {
    /// Indexes the reads of the given variables.
    fn index(scopes: &'s Scopes, variables: impl Iterator<Item = (ScopeId, &'s str)>) -> VariableReads<'s> {
        let mut by_variable: HashMap<(ScopeId, &'s str), Vec<(usize, usize)>> =
            variables.map(|variable| (variable, Vec::new())).collect();
        let names: HashSet<&str> = by_variable.keys().map(|&(_, name)| name).collect();
        for (id, scope) in ScopeId::enumerate(scopes.all()) {
            for read in scope.uses.iter().filter(|u| names.contains(u.name.as_str())) {
                let name = read.name.as_str();
                // A read is of its own scope's variable and, while the scopes
                // around it do not bind the name, of theirs.
                let mut current = Some(id);
                while let Some(at) = current {
                    if let Some(reads) = by_variable.get_mut(&(at, name)) {
                        reads.push((read.start_byte, read.span.end_byte));
                    }
                    let holder = scopes.get(at);
                    current = if holder.is_local(name) { None } else { holder.parent };
                }
            }
        }
        for reads in by_variable.values_mut() {
            reads.sort_unstable();
        }
        VariableReads { by_variable }
    }

    /// Whether `name` of `scope` is read inside `outer` but outside `inner`,
    /// a node inside `outer`.
    fn read_outside(&self, scope: ScopeId, name: &str, outer: Node<'_>, inner: Node<'_>) -> bool {
        self.by_variable.get(&(scope, name)).is_some_and(|reads| within(reads, outer) > within(reads, inner))
    }
}

/// How many of `reads` (sorted byte ranges of identifiers) lie within
/// `node`. An identifier is a leaf, so one that starts inside the node ends
/// inside it; only an empty one (a missing identifier) may start at its end.
fn within(reads: &[(usize, usize)], node: Node<'_>) -> usize {
    let (start, end) = (node.start_byte(), node.end_byte());
    reads.partition_point(|&read| read <= (end, end)) - reads.partition_point(|&read| read < (start, 0))
}
