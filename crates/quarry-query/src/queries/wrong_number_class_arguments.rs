//! Q14 "Wrong number of arguments in a class instantiation": a call that
//! creates an instance of a class of the file passes more or fewer
//! arguments than the class's `__init__` accepts, a `TypeError` at run time.
//!
//! ```python
//! class Point:
//!     def __init__(self, x, y): ...    # supporting fact
//! p = Point(1)                         # answer: too few arguments
//! ```
//!
//! As in CodeQL: too many when the `__init__` has no `*args` and the
//! positional arguments (with the elements of a literal `*` sequence, and
//! keyword arguments that match no keyword-only parameter when there is no
//! `**kwargs`) exceed its positional parameters; too few when, without any
//! unpacking, positional and keyword arguments are fewer than its required
//! parameters. Classes imported from other modules of the project are
//! checked against their summarised `__init__` (in another file, so no
//! supporting fact); classes with bases quarry cannot see are left out. The
//! `__init__` and its class's class-level block are relevant. Negative
//! form: instantiations whose arguments fit.

use crate::syntax::{Field, Kind, SyntaxNode};
use tree_sitter::Node;

use crate::ast::named_children;
use crate::calls::defining_class;
use crate::class_syntax::MemberKind;
use crate::classes::{ClassRef, Lookup};
use crate::context::FileContext;
use crate::finding::{Polarity, RawFinding};
use crate::query::{Hops, Query, QueryMeta};
use crate::signatures::{CallShape, Signature};

/// The query.
pub static QUERY: Query = Query {
    meta: QueryMeta {
        id: "wrong-number-class-arguments",
        name: "Wrong number of arguments in a class instantiation",
        index: 14,
        hops: Hops::Multi,
        description: "Using too many or too few arguments in a call to the `__init__` method of a class will result in a TypeError at runtime.",
        codeql: "python/ql/src/Classes/WrongNumberArgumentsInClassInstantiation.ql",
    },
    find,
};

fn find(cx: &FileContext<'_>, polarity: Polarity) -> Vec<RawFinding> {
    let file = cx.file();
    let classes = cx.classes();
    let mut findings = Vec::new();
    for &call in cx.nodes(Kind::Call) {
        let Some(class) = cx.calls().resolve_instantiation(call) else { continue };
        let mro = classes.mro_of(&class);
        if mro.iter().any(|c| matches!(c, ClassRef::Unknown(_))) {
            continue;
        }
        let (signature, init) = match classes.lookup_along(&mro, "__init__") {
            Lookup::Local(_, member) if member.kind == MemberKind::Method => {
                (Signature::of(file, member.node), Some(member.node))
            }
            Lookup::External(_, member) => match &member.method {
                Some(method) => (method.signature.clone(), None),
                None => continue,
            },
            _ => continue,
        };
        let shape = CallShape::of(file, call);
        let problem = arity_problem(cx, call, &signature, &shape);
        if problem.is_some() != (polarity == Polarity::Positive) {
            continue;
        }
        let message = match problem {
            Some((too, limit)) => format!("Call to __init__ with {too}; should be {limit}."),
            None => "Call to __init__ with a fitting number of arguments.".to_string(),
        };
        let Some(init) = init else {
            findings.push(RawFinding::answer(cx.location(call), message));
            continue;
        };
        let mut context = vec![cx.span(init)];
        if let Some(owner) = defining_class(classes, init) {
            context.push(cx.location(classes.get(owner).node));
        }
        findings
            .push(RawFinding::answer(cx.location(call), message).with_facts([cx.location(init)]).with_context(context));
    }
    findings
}

/// `Some(("too many arguments", "no more than N"))` and the like when the
/// call does not fit the `__init__` signature (the receiver not counted).
fn arity_problem<'f>(
    cx: &FileContext<'f>,
    call: Node<'f>,
    signature: &Signature,
    shape: &CallShape,
) -> Option<(&'static str, String)> {
    let unmatched_keywords = if signature.kwargs {
        0
    } else {
        shape.keywords.iter().filter(|k| !signature.keyword_only.iter().any(|(n, _)| n == *k)).count()
    };
    let max = signature.positional.len().checked_sub(1)?;
    let count = shape.positional + literal_star_elements(cx, call) + unmatched_keywords;
    if !signature.varargs && count > max {
        return Some(("too many arguments", format!("no more than {max}")));
    }
    let min = signature.min_positional().saturating_sub(1);
    if !shape.has_unpacking() && shape.positional + shape.keywords.len() < min {
        return Some(("too few arguments", format!("no fewer than {min}")));
    }
    None
}

/// Elements of `*` arguments that are literal tuples or lists, or names
/// bound once at module level to one.
fn literal_star_elements<'f>(cx: &FileContext<'f>, call: Node<'f>) -> usize {
    let Some(arguments) = call.field(Field::Arguments) else { return 0 };
    named_children(arguments)
        .into_iter()
        .filter(|a| a.py_kind() == Kind::ListSplat)
        .filter_map(|a| a.named_child(0))
        .map(|value| literal_sequence(cx, value).map_or(0, |s| named_children(s).len()))
        .sum()
}

fn literal_sequence<'f>(cx: &FileContext<'f>, value: Node<'f>) -> Option<Node<'f>> {
    let value = crate::ast::strip_parentheses(value);
    match value.py_kind() {
        Kind::Tuple | Kind::List => Some(value),
        Kind::Identifier => {
            let name = cx.text(value);
            let bindings: Vec<_> = cx.scopes().get(crate::scopes::ScopeId::MODULE).bindings_named(name).collect();
            let [binding] = bindings.as_slice() else { return None };
            let assignment = cx
                .nodes(Kind::Assignment)
                .iter()
                .find(|a| Some(a.id()) == binding.binder_id && a.start_byte() < value.start_byte())?;
            let right = assignment.field(Field::Right)?;
            matches!(right.py_kind(), Kind::Tuple | Kind::List).then_some(right)
        }
        _ => None,
    }
}
