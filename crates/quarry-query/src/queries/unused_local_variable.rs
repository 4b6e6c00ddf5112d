//! Q16 "Unused local variable": a value assigned to a local variable of a
//! function that is never read. Either the assignment is dead code or a
//! later read uses the wrong name.
//!
//! ```python
//! def area(width, height):
//!     scale = 2            # answer: `scale`, never read
//!     return width * height
//! ```
//!
//! A definition counts when it is the target of a plain assignment (also
//! inside a tuple, `a, b = ...`, in assignments, `for` and `with` targets)
//! or an undecorated nested `def`/`class` (as in CodeQL, augmented
//! assignments such as `n += 1` do not count), no use of the name
//! can read its value, and no later definition overwrites it (that case is
//! "Variable defined multiple times"). Names used by nested scopes or read
//! through `locals()`/`vars()`, names declared `nonlocal` elsewhere, names
//! with an annotation-only declaration (`x: int`), and conventionally unused
//! names (`_`, `dummy`, `unused_x`, `__x`) are left out. An element of a
//! tuple target is reported only if every name in the tuple is unused.
//!
//! Negative form: definitions of the same kinds whose value is read.

use crate::syntax::{Field, Kind, SyntaxNode};
use std::collections::HashSet;
use tree_sitter::Node;

use crate::context::FileContext;
use crate::finding::{Polarity, RawFinding};
use crate::flow::{is_relevant, name_acceptable_for_unused, tuple_siblings, FlowDef, ScopeFlow};
use crate::query::{Hops, Query, QueryMeta};
use crate::scopes::ScopeKind;

/// The query.
pub static QUERY: Query = Query {
    meta: QueryMeta {
        id: "unused-local-variable",
        name: "Unused local variable",
        index: 16,
        hops: Hops::Single,
        description: "Local variable is defined but not used",
        codeql: "python/ql/src/Variables/UnusedLocalVariable.ql",
    },
    find,
};

fn find(cx: &FileContext<'_>, polarity: Polarity) -> Vec<RawFinding> {
    let mut findings = Vec::new();
    // The file's annotations without a value (`x: int`), found once.
    let annotation_only: Vec<Node<'_>> =
        cx.nodes(Kind::Assignment).iter().copied().filter(|a| a.field(Field::Right).is_none()).collect();
    for flow in cx.flows() {
        if cx.scopes().get(flow.scope).kind != ScopeKind::Function {
            continue;
        }
        let annotated = annotation_only_names(cx, flow, &annotation_only);
        let candidate = |def: &FlowDef<'_>| {
            is_relevant(def) && !name_acceptable_for_unused(&def.name) && !annotated.contains(def.name.as_str())
        };
        let unused = |def: &FlowDef<'_>| candidate(def) && flow.is_unused(def) && def.redefs.is_empty();
        for def in &flow.defs {
            if !candidate(def) {
                continue;
            }
            let positive = unused(def) && tuple_siblings(def).iter().all(|sibling| flow.defs_of(*sibling).any(unused));
            match polarity {
                Polarity::Positive if positive => findings.push(RawFinding::answer(
                    def.span,
                    format!("The value assigned to local variable '{}' is never used.", def.name),
                )),
                Polarity::Negative if !flow.is_unused(def) => findings.push(RawFinding::answer(
                    def.span,
                    format!("The value assigned to local variable '{}' is used.", def.name),
                )),
                _ => {}
            }
        }
    }
    findings
}

/// Names declared by an annotation without a value (`x: int`) in the
/// scope, among the file's `annotation_only` assignments.
fn annotation_only_names<'a, 'f>(
    cx: &'a FileContext<'f>,
    flow: &ScopeFlow<'_>,
    annotation_only: &[Node<'f>],
) -> HashSet<&'a str> {
    let span = cx.scopes().get(flow.scope).span;
    annotation_only
        .iter()
        .filter(|a| a.start_byte() >= span.start_byte && a.end_byte() <= span.end_byte)
        .filter(|a| cx.enclosing_function(**a).is_some_and(|f| f.start_byte() == span.start_byte))
        .filter_map(|a| a.field(Field::Left).filter(|l| l.py_kind() == Kind::Identifier))
        .map(|l| cx.text(l))
        .collect()
}
