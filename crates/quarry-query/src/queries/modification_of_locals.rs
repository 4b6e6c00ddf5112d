//! Q50 "Modification of dictionary returned by locals()": writing to the
//! dictionary that `locals()` returns does not change local variables in a
//! function, so the write silently does nothing.
//!
//! ```python
//! def configure(**options):
//!     for key, value in options.items():
//!         locals()[key] = value      # answer: the subscript
//! ```
//!
//! Modifications are subscript assignments and deletions (`d[k] = v`,
//! `del d[k]`) and calls to `pop`, `popitem`, `update` and `clear`, on
//! `locals()` itself or on a name assigned `locals()` earlier in the same
//! scope (CodeQL follows this through points-to); the answer is the
//! subscript or the call.
//!
//! `locals()` must be the builtin and be called inside a function: at
//! module level it is the module's namespace, where writes take effect.
//!
//! Negative form: reads of the same dictionaries: subscript loads and calls
//! to non-modifying methods (`get`, `keys`, `items`, `values`, `copy`).

use crate::scopes::Resolution;
use std::collections::{HashMap, HashSet};

use crate::syntax::{Field, Kind, SyntaxNode};
use tree_sitter::Node;

use crate::ast::{call_arguments, callee_text, strip_parentheses};
use crate::context::FileContext;
use crate::finding::{Polarity, RawFinding};
use crate::query::{Hops, Query, QueryMeta};

/// The query.
pub static QUERY: Query = Query {
    meta: QueryMeta {
        id: "modification-of-locals",
        name: "Modification of dictionary returned by locals()",
        index: 50,
        hops: Hops::Single,
        description: "Modifications of the dictionary returned by locals() are not propagated to the local variables of a function.",
        codeql: "python/ql/src/Statements/ModificationOfLocals.ql",
    },
    find,
};

const MODIFYING: &[&str] = &["pop", "popitem", "update", "clear"];
const READING: &[&str] = &["get", "keys", "items", "values", "copy", "iteritems", "iterkeys", "itervalues", "has_key"];

fn find(cx: &FileContext<'_>, polarity: Polarity) -> Vec<RawFinding> {
    let mut findings = Vec::new();
    // No `locals()` call in a file whose text never says `locals`: no scan.
    if !cx.file().text().contains("locals") || !cx.nodes(Kind::Call).iter().any(|c| is_locals_call(cx, *c)) {
        return findings;
    }
    let message = match polarity {
        Polarity::Positive => "Modification of the locals() dictionary will have no effect on the local variables.",
        Polarity::Negative => "Read of the locals() dictionary.",
    };
    // The names ever assigned `locals()`, found once for the file.
    let assigned: HashSet<&str> = cx
        .nodes(Kind::Assignment)
        .iter()
        .filter_map(|a| {
            let left = a.field(Field::Left).filter(|l| l.py_kind() == Kind::Identifier)?;
            let right = a.field(Field::Right)?;
            is_locals_call(cx, strip_parentheses(right)).then(|| cx.text(left))
        })
        .collect();
    let assignments = assignments_to(cx, &assigned);
    for &subscript in cx.nodes(Kind::Subscript) {
        let Some(object) = subscript.field(Field::Value).map(strip_parentheses) else { continue };
        if !is_locals(cx, &assignments, object, subscript) {
            continue;
        }
        if is_store_or_delete(subscript) == (polarity == Polarity::Positive) {
            findings.push(RawFinding::answer(cx.span(subscript), message));
        }
    }
    for &call in cx.nodes(Kind::Call) {
        let Some(function) = call.field(Field::Function).filter(|f| f.py_kind() == Kind::Attribute) else {
            continue;
        };
        let Some(method) = function.field(Field::Attribute).map(|a| cx.text(a)) else { continue };
        let wanted = match polarity {
            Polarity::Positive => MODIFYING,
            Polarity::Negative => READING,
        };
        if !wanted.contains(&method) {
            continue;
        }
        let Some(object) = function.field(Field::Object).map(strip_parentheses) else { continue };
        if is_locals(cx, &assignments, object, call) {
            findings.push(RawFinding::answer(cx.span(call), message));
        }
    }
    findings
}

/// The assignments to a plain name, keyed by the name and the node id of
/// their enclosing scope, each list in source order.
type Assignments<'f> = HashMap<(&'f str, Option<usize>), Vec<Node<'f>>>;

/// Every assignment to one of the names in `assigned` (those the file ever
/// assigns `locals()` to), indexed once for the file.
fn assignments_to<'f>(cx: &FileContext<'f>, assigned: &HashSet<&str>) -> Assignments<'f> {
    let mut index: Assignments<'f> = HashMap::new();
    for &a in cx.nodes(Kind::Assignment) {
        let Some(left) = a.field(Field::Left).filter(|l| l.py_kind() == Kind::Identifier) else { continue };
        let name = cx.text(left);
        if assigned.contains(name) {
            let scope = cx.syntax().enclosing_scope(a).map(|s| s.id());
            index.entry((name, scope)).or_default().push(a);
        }
    }
    index
}

/// `locals()`, or a name assigned `locals()` before `at` in the same scope
/// (its latest assignment before `at`), looked up in `assignments`.
fn is_locals(cx: &FileContext<'_>, assignments: &Assignments<'_>, object: Node<'_>, at: Node<'_>) -> bool {
    if is_locals_call(cx, object) {
        return true;
    }
    if object.py_kind() != Kind::Identifier {
        return false;
    }
    let scope = cx.syntax().enclosing_scope(at).map(|s| s.id());
    let Some(candidates) = assignments.get(&(cx.text(object), scope)) else { return false };
    // Those starting before `at`, latest first; one that also ends after
    // `at` holds it (`d = d["k"]`) and is passed over.
    let before = candidates.partition_point(|a| a.start_byte() < at.start_byte());
    candidates[..before]
        .iter()
        .rev()
        .find(|a| a.end_byte() <= at.start_byte())
        .and_then(|a| a.field(Field::Right))
        .is_some_and(|v| is_locals_call(cx, strip_parentheses(v)))
}

/// A call of the builtin `locals()` inside a function: at module level (and
/// in a class body) `locals()` is the namespace itself, so writes to it work.
fn is_locals_call(cx: &FileContext<'_>, node: Node<'_>) -> bool {
    node.py_kind() == Kind::Call
        && callee_text(cx.file(), node) == Some("locals")
        && call_arguments(node).is_empty()
        && node.field(Field::Function).is_some_and(|f| cx.scopes().resolution(f.id()) == Some(Resolution::Builtin))
        && cx
            .syntax()
            .enclosing_scope(node)
            .is_some_and(|s| matches!(s.py_kind(), Kind::FunctionDefinition | Kind::Lambda))
}

/// Whether the subscript is written (assignment target, possibly inside a
/// tuple, or augmented assignment target) or deleted.
fn is_store_or_delete(subscript: Node<'_>) -> bool {
    let mut child = subscript;
    let mut current = subscript.parent();
    while let Some(n) = current {
        match n.py_kind() {
            Kind::Assignment | Kind::AugmentedAssignment => {
                return n.field(Field::Left).is_some_and(|l| l.id() == child.id());
            }
            Kind::DeleteStatement => return true,
            Kind::PatternList
            | Kind::TuplePattern
            | Kind::ListPattern
            | Kind::ExpressionList
            | Kind::Tuple
            | Kind::List
            | Kind::ParenthesizedExpression => {
                child = n;
                current = n.parent();
            }
            _ => return false,
        }
    }
    false
}
