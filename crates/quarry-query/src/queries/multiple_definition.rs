//! Q19 "Variable defined multiple times": a value assigned to a variable is
//! overwritten before it is ever read, so the first assignment is useless
//! (or the second one was meant for another name).
//!
//! ```python
//! def load(path):
//!     data = read(path)      # answer: this `data`
//!     data = read(BACKUP)    # supporting fact: the redefinition
//!     return data
//! ```
//!
//! Follows MultiplyDefined.ql over quarry's definition–use flow: the
//! definition is an assignment target (plain or tuple element, not
//! augmented) or an undecorated `def`/`class` name, in any scope; no use
//! can read its value, and at least one definition overwrites it with no
//! definition in between; the supporting facts are those redefinitions. Assignments of a
//! simple literal (`0`, `None`, `True`, `""`, `[]`, `()`, `{}`) are
//! declarations, not mistakes, and conventionally unused names (`_`,
//! `dummy`, ...) are skipped. An element of a tuple target is reported only
//! if every name in the tuple is multiply defined.
//!
//! Negative form: definitions that are overwritten later but whose value is
//! read first.

use crate::syntax::{Field, Kind, SyntaxNode};
use tree_sitter::Node;

use crate::ast::strip_parentheses;
use crate::context::FileContext;
use crate::finding::{Polarity, RawFinding};
use crate::flow::{is_relevant, name_acceptable_for_unused, tuple_siblings, FlowDef, ScopeFlow};
use crate::query::{Hops, Query, QueryMeta};

/// The query.
pub static QUERY: Query = Query {
    meta: QueryMeta {
        id: "multiple-definition",
        name: "Variable defined multiple times",
        index: 19,
        hops: Hops::Single,
        description: "Assignment to a variable occurs multiple times without any intermediate use of that variable",
        codeql: "python/ql/src/Variables/MultiplyDefined.ql",
    },
    find,
};

fn find(cx: &FileContext<'_>, polarity: Polarity) -> Vec<RawFinding> {
    let mut findings = Vec::new();
    for flow in cx.flows() {
        for def in &flow.defs {
            if !is_relevant(def) || name_acceptable_for_unused(&def.name) || def.redefs.is_empty() {
                continue;
            }
            let redefs = def.redefs.iter().map(|&r| flow.defs[r].span);
            let positive = multiply_defined(flow, def)
                && tuple_siblings(def)
                    .iter()
                    .all(|sibling| flow.defs_of(*sibling).any(|other| multiply_defined(flow, other)))
                && !assigns_simple_literal(cx, def.node);
            match polarity {
                Polarity::Positive if positive => findings.push(
                    RawFinding::answer(
                        def.span,
                        format!(
                            "This assignment to '{}' is unnecessary as it is redefined before this value is used.",
                            def.name
                        ),
                    )
                    .with_facts(redefs),
                ),
                Polarity::Negative if !flow.is_unused(def) => findings.push(
                    RawFinding::answer(
                        def.span,
                        format!("This value of '{}' is used before it is redefined.", def.name),
                    )
                    .with_facts(redefs),
                ),
                _ => {}
            }
        }
    }
    findings
}

fn multiply_defined(flow: &ScopeFlow<'_>, def: &FlowDef<'_>) -> bool {
    is_relevant(def) && flow.is_unused(def) && !def.redefs.is_empty()
}

/// Whether the name is the direct target of an assignment of a simple
/// literal: `0`, `None`, `True`, `False`, `""`, `[]`, `()`, `{}`.
fn assigns_simple_literal(cx: &FileContext<'_>, name: Node<'_>) -> bool {
    let Some(assignment) = name.parent().filter(|p| p.py_kind() == Kind::Assignment) else { return false };
    if assignment.field(Field::Left).map(|l| l.id()) != Some(name.id()) {
        return false;
    }
    let Some(value) = assignment.field(Field::Right) else { return false };
    // `a = b = None` assigns the literal to both names.
    let mut value = value;
    while value.py_kind() == Kind::Assignment {
        match value.field(Field::Right) {
            Some(v) => value = v,
            None => return false,
        }
    }
    let value = if value.py_kind() == Kind::ParenthesizedExpression && value.named_child_count() == 0 {
        value
    } else {
        strip_parentheses(value)
    };
    let text = cx.text(value);
    match value.py_kind() {
        Kind::Integer => text == "0",
        Kind::None | Kind::True | Kind::False => true,
        Kind::List | Kind::Tuple | Kind::Dictionary => value.named_child_count() == 0,
        Kind::ParenthesizedExpression => value.named_child_count() == 0,
        Kind::String => {
            let body = text.trim_start_matches(|c: char| c.is_ascii_alphabetic());
            matches!(body, "''" | "\"\"" | "''''''" | "\"\"\"\"\"\"")
        }
        _ => false,
    }
}
