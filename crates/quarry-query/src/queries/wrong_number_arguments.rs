//! Q5 "Wrong number of arguments in a call": a call to a function or
//! method of the file passes more or fewer arguments than it accepts, a
//! `TypeError` at run time.
//!
//! ```python
//! def area(width, height):        # supporting fact
//!     return width * height
//! area(3)                         # answer: too few arguments
//! ```
//!
//! Calls are resolved inside the file: plain names bound only by a
//! module-level `def`, `self.m(...)`, `Class.m(...)` and `super().m(...)`;
//! a bound receiver counts as an argument. As in CodeQL: unpacking makes a
//! call too short or too long only where the count is still certain,
//! abstract methods (`@abstractmethod`, or raising `NotImplementedError`)
//! and `__new__` are left out, decorated functions other than static and
//! class methods are not judged, and a call that fits a method the callee
//! overrides is fine. Negative form: resolved calls whose arguments fit.

use crate::syntax::{Field, Kind, SyntaxNode};
use tree_sitter::Node;

use crate::calls::CallTarget;
use crate::class_syntax::MemberKind;
use crate::classes::Lookup;
use crate::context::FileContext;
use crate::finding::{Polarity, RawFinding};
use crate::query::{Hops, Query, QueryMeta};
use crate::signatures::{check_arity, Arity, CallShape, Signature};

/// The query.
pub static QUERY: Query = Query {
    meta: QueryMeta {
        id: "wrong-number-arguments",
        name: "Wrong number of arguments in a call",
        index: 5,
        hops: Hops::Multi,
        description:
            "Using too many or too few arguments in a call to a function will result in a TypeError at runtime.",
        codeql: "python/ql/src/Expressions/WrongNumberArgumentsInCall.ql",
    },
    find,
};

fn find(cx: &FileContext<'_>, polarity: Polarity) -> Vec<RawFinding> {
    let file = cx.file();
    let mut findings = Vec::new();
    for &call in cx.nodes(Kind::Call) {
        let Some(target) = cx.call_target(call) else {
            findings.extend(imported_call(cx, call, polarity));
            continue;
        };
        if !judged(cx, target.function) {
            continue;
        }
        let shape = CallShape::of(file, call);
        let arity = arity(cx, &target, target.function, &shape);
        let wrong = arity != Arity::Fits && !fits_overridden(cx, &target, &shape);
        if wrong != (polarity == Polarity::Positive) {
            continue;
        }
        let message = match arity {
            Arity::TooMany(limit) if wrong => format!("Call with too many arguments; should be no more than {limit}."),
            Arity::TooFew(limit) if wrong => format!("Call with too few arguments; should be no fewer than {limit}."),
            _ => "Call with a fitting number of arguments.".to_string(),
        };
        let facts = [cx.location(target.function)];
        let context =
            crate::relevance::linkage_of_nodes(cx, call_site_method(cx, call).unwrap_or(call), &[target.function]);
        findings.push(RawFinding::answer(cx.location(call), message).with_facts(facts).with_context(context));
    }
    findings
}

/// A call of a function imported from another module of the project,
/// judged by the function's summarised signature; the fact is the call's
/// callee (the definition lies in another file).
fn imported_call<'f>(cx: &FileContext<'f>, call: Node<'f>, polarity: Polarity) -> Option<RawFinding> {
    let signature = cx.calls().resolve_imported_call(call)?;
    let arity = check_arity(signature, &CallShape::of(cx.file(), call));
    if (arity != Arity::Fits) != (polarity == Polarity::Positive) {
        return None;
    }
    let message = match arity {
        Arity::TooMany(limit) => format!("Call with too many arguments; should be no more than {limit}."),
        Arity::TooFew(limit) => format!("Call with too few arguments; should be no fewer than {limit}."),
        Arity::Fits => "Call with a fitting number of arguments.".to_string(),
    };
    let callee = call.field(Field::Function)?;
    Some(RawFinding::answer(cx.location(call), message).with_facts([cx.location(callee)]))
}

fn arity(cx: &FileContext<'_>, target: &CallTarget<'_>, function: Node<'_>, shape: &CallShape) -> Arity {
    let signature = Signature::of(cx.file(), function);
    let signature = if target.bound { signature.bound() } else { signature };
    check_arity(&signature, shape)
}

/// Whether the callee overrides a method the call would fit.
fn fits_overridden(cx: &FileContext<'_>, target: &CallTarget<'_>, shape: &CallShape) -> bool {
    let Some(class) = target.class else { return false };
    let classes = cx.classes();
    let name = cx.text(target.function.field(Field::Name).unwrap_or(target.function));
    classes.local_supers(class).into_iter().any(|sup| match classes.lookup(sup, name) {
        Lookup::Local(_, m) if m.kind == MemberKind::Method => arity(cx, target, m.node, shape) == Arity::Fits,
        _ => false,
    })
}

/// Functions CodeQL judges: not abstract, not `__new__`, and not changed by
/// a decorator other than `staticmethod` and `classmethod`.
fn judged(cx: &FileContext<'_>, function: Node<'_>) -> bool {
    let file = cx.file();
    let name = function.field(Field::Name).map(|n| file.node_text(n));
    let decorated = cx.syntax().decorators(function);
    let abstract_body = crate::methods::raises_not_implemented(file, function);
    name != Some("__new__") && !abstract_body && decorated.iter().all(|d| *d == "staticmethod" || *d == "classmethod")
}

/// The method holding a call, for linking it to the callee's class.
fn call_site_method<'f>(cx: &FileContext<'f>, call: Node<'f>) -> Option<Node<'f>> {
    cx.enclosing_function(call).filter(|f| cx.syntax().method_class(*f).is_some())
}
