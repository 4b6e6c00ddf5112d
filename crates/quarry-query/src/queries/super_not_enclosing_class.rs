//! Q31 "First argument to super() is not enclosing class": `super(Other,
//! self)` in a method of `Mine` skips or repeats classes of the method
//! resolution order, often after a class was renamed or code copied.
//!
//! ```python
//! class Dialog(Window):
//!     def __init__(self):
//!         super(Window, self).__init__()     # answer: the super call
//! ```
//!
//! As in CodeQL, the call must be in a method (directly, not in a nested
//! function, lambda or comprehension), call the builtin `super` (not rebound in the file),
//! and its first argument's local source must be a name other than the
//! class's. A name bound in the method itself (by assignment, a local
//! `class` statement, an import, ...) has another local source and is left
//! out; parameters and names from enclosing scopes are their own source. Negative form: `super` calls in methods
//! whose first argument is the enclosing class, or that have no arguments.

use crate::syntax::{Field, Kind, SyntaxNode};
use tree_sitter::Node;

use crate::ast::{call_arguments, field_text, strip_parentheses};

use crate::context::FileContext;
use crate::finding::{Polarity, RawFinding};
use crate::query::{Hops, Query, QueryMeta};
use crate::scopes::innermost_scope;
use crate::scopes::BindingKind;

/// The query.
pub static QUERY: Query = Query {
    meta: QueryMeta {
        id: "super-not-enclosing-class",
        name: "First argument to super() is not enclosing class",
        index: 31,
        hops: Hops::Single,
        description:
            "Calling super with something other than the enclosing class may cause incorrect object initialization.",
        codeql: "python/ql/src/Expressions/CallToSuperWrongClass.ql",
    },
    find,
};

fn find(cx: &FileContext<'_>, polarity: Polarity) -> Vec<RawFinding> {
    let scopes = cx.scopes();
    if scopes.all().iter().any(|s| s.bindings.iter().any(|b| b.name == "super")) {
        return Vec::new();
    }
    let mut findings = Vec::new();
    for &call in cx.nodes(Kind::Call) {
        let is_super =
            call.field(Field::Function).is_some_and(|f| f.py_kind() == Kind::Identifier && cx.text(f) == "super");
        if !is_super {
            continue;
        }
        let Some(function) = cx.enclosing_function(call) else { continue };
        // The call's own scope must be the method (not a comprehension in it).
        if scopes.get(innermost_scope(cx.syntax().parents(), scopes, call)).node_id != function.id() {
            continue;
        }
        let Some(class) = cx.syntax().method_class(function) else { continue };
        let class_name = field_text(cx.file(), class, Field::Name).unwrap_or_default();
        let first = call_arguments(call).into_iter().find(|a| a.py_kind() != Kind::Comment);
        let wrong = first.and_then(|arg| source_name(cx, arg)).filter(|&name| name != class_name);
        let message = match (polarity, wrong, first) {
            (Polarity::Positive, Some(_), _) => format!("First argument to super() should be {class_name}."),
            (Polarity::Negative, None, None) => "super() is called without arguments.".to_string(),
            (Polarity::Negative, None, Some(arg)) if source_name(cx, arg) == Some(class_name) => {
                format!("First argument to super() is the enclosing class {class_name}.")
            }
            _ => continue,
        };
        findings.push(RawFinding::answer(cx.location(call), message));
    }
    findings
}

/// The name that is the local source of an argument: the argument itself
/// when it is a parameter or a name not bound in the function's own scope.
fn source_name<'f>(cx: &FileContext<'f>, argument: Node<'_>) -> Option<&'f str> {
    let argument = strip_parentheses(argument);
    if argument.py_kind() != Kind::Identifier {
        return None;
    }
    let name = cx.text(argument);
    let scope = cx.scopes().get(innermost_scope(cx.syntax().parents(), cx.scopes(), argument));
    let assigned_locally = scope.bindings_named(name).any(|b| !matches!(b.kind, Some(BindingKind::Parameter)));
    (!assigned_locally).then_some(name)
}
