//! Q45 "Modification of parameter with default": a parameter whose default
//! is a list or dict literal is mutated in the function. The default object
//! is created once, when the `def` runs, so mutations leak into later calls.
//!
//! ```python
//! def add(item, seen=[]):       # supporting fact: the parameter `seen`
//!     seen.append(item)         # answer: `seen`, the mutated value
//!     return seen
//! ```
//!
//! Sinks, as in CodeQL's data-flow configuration: the object of a call to
//! a list- or dict-modifying method (`append`, `extend`, `insert`, `remove`,
//! `pop`, `clear`, `sort`, `reverse`, `popitem`, `setdefault`, `update`), the
//! target of an augmented assignment, and the object of a subscript
//! assignment or deletion. Flow is approximated syntactically: the sink is
//! the parameter's own name in the function body, before any rebinding of
//! it, and not under `if param:` for an empty default (an empty default is
//! never truthy) or under `if not param:` for a non-empty one. Flow into
//! other functions (passing the default to a function that mutates its
//! argument) is not followed.
//!
//! Negative form: the same mutations of parameters whose default is not a
//! mutable literal (`None`, a tuple, a call, ...).

use crate::syntax::{Field, Kind, SyntaxNode};
use tree_sitter::Node;

use crate::ast::{named_children, strip_parentheses};
use crate::context::FileContext;
use crate::finding::{Polarity, RawFinding};
use crate::parameters::parameter_identifier;
use crate::registry::{Hops, Query, QueryMeta};

/// The query.
pub static QUERY: Query = Query {
    meta: QueryMeta {
        id: "modification-of-default-value",
        name: "Modification of parameter with default",
        index: 45,
        hops: Hops::Single,
        description: "Modifying the default value of a parameter can lead to unexpected results.",
        codeql: "python/ql/src/Functions/ModificationOfParameterWithDefault.ql",
    },
    find,
};

const MODIFYING_METHODS: &[&str] =
    &["append", "extend", "insert", "remove", "pop", "clear", "sort", "reverse", "popitem", "setdefault", "update"];

fn find(cx: &FileContext<'_>, polarity: Polarity) -> Vec<RawFinding> {
    let mut findings = Vec::new();
    for &function in cx.nodes(Kind::FunctionDefinition) {
        let Some(parameters) = function.field(Field::Parameters) else { continue };
        for parameter in named_children(parameters) {
            if !matches!(parameter.py_kind(), Kind::DefaultParameter | Kind::TypedDefaultParameter) {
                continue;
            }
            let (Some(name), Some(default)) =
                (parameter_identifier(parameter), parameter.field(Field::Value).map(strip_parentheses))
            else {
                continue;
            };
            let mutable = matches!(default.py_kind(), Kind::List | Kind::Dictionary);
            if mutable != (polarity == Polarity::Positive) {
                continue;
            }
            let non_empty = default.named_child_count() > 0;
            let param = cx.text(name);
            for sink in mutations(cx, function, param) {
                if mutable && guarded(cx, sink, function, param, non_empty) {
                    continue;
                }
                let message = if mutable {
                    "This expression mutates a default value.".to_string()
                } else {
                    format!("This expression mutates parameter '{param}', whose default is not mutable.")
                };
                findings.push(RawFinding::answer(cx.span(sink), message).with_facts([cx.span(name)]));
            }
        }
    }
    findings
}

/// References to `param` in the function's own scope that are mutated,
/// before the first rebinding of `param`.
fn mutations<'t>(cx: &FileContext<'t>, function: Node<'t>, param: &str) -> Vec<Node<'t>> {
    let Some(body) = function.field(Field::Body) else { return Vec::new() };
    let scopes = cx.scopes();
    let rebound_at = scopes
        .of_node(function.id())
        .map(|id| scopes.get(id))
        .and_then(|s| {
            s.bindings
                .iter()
                .filter(|b| b.name == param && b.kind != Some(crate::scopes::BindingKind::Parameter))
                .map(|b| b.start_byte)
                .min()
        })
        .unwrap_or(usize::MAX);
    let mut sinks = Vec::new();
    let mut walk = quarry_syntax::walk::Preorder::new(body);
    while let Some(node) = walk.next() {
        if matches!(node.py_kind(), Kind::FunctionDefinition | Kind::ClassDefinition | Kind::Lambda) {
            walk.skip_children();
            continue;
        }
        if node.py_kind() != Kind::Identifier || cx.text(node) != param || node.start_byte() > rebound_at {
            continue;
        }
        let Some(parent) = node.parent() else { continue };
        let is_object = |field: Field| parent.field(field).is_some_and(|o| o.id() == node.id());
        let mutated = match parent.py_kind() {
            Kind::AugmentedAssignment => is_object(Field::Left),
            Kind::Attribute => {
                is_object(Field::Object)
                    && parent.field(Field::Attribute).is_some_and(|a| MODIFYING_METHODS.contains(&cx.text(a)))
                    && parent.parent().is_some_and(|call| {
                        call.py_kind() == Kind::Call
                            && call.field(Field::Function).is_some_and(|f| f.id() == parent.id())
                    })
            }
            Kind::Subscript => {
                is_object(Field::Value)
                    && parent.parent().is_some_and(|p| match p.py_kind() {
                        Kind::Assignment | Kind::AugmentedAssignment => {
                            p.field(Field::Left).is_some_and(|l| l.id() == parent.id())
                        }
                        Kind::DeleteStatement => true,
                        Kind::ExpressionList => p.parent().is_some_and(|d| d.py_kind() == Kind::DeleteStatement),
                        _ => false,
                    })
            }
            _ => false,
        };
        if mutated {
            sinks.push(node);
        }
    }
    sinks
}

/// Whether the sink sits in the true branch of `if param:` (empty default)
/// or `if not param:` (non-empty default), where the default cannot be.
fn guarded(cx: &FileContext<'_>, sink: Node<'_>, function: Node<'_>, param: &str, non_empty: bool) -> bool {
    let mut child = sink;
    let mut current = sink.parent();
    while let Some(n) = current {
        if n.id() == function.id() {
            return false;
        }
        if matches!(n.py_kind(), Kind::IfStatement | Kind::ElifClause)
            && n.field(Field::Consequence).is_some_and(|c| c.id() == child.id())
        {
            if let Some(condition) = n.field(Field::Condition).map(strip_parentheses) {
                let text: String = cx.text(condition).split_whitespace().collect::<Vec<_>>().join(" ");
                let blocked = if non_empty { text == format!("not {param}") } else { text == param };
                if blocked {
                    return true;
                }
            }
        }
        child = n;
        current = n.parent();
    }
    false
}
