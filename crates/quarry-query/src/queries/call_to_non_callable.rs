//! Q8 "Non-callable called": a call whose callee can only be an object
//! that is not callable — a literal, or an instance of a class without
//! `__call__` — raises `TypeError`.
//!
//! ```python
//! limit = 10                # supporting fact: where the value comes from
//! limit()                   # answer: the call
//! ```
//!
//! The callee is a literal, or a name the module (or the calling function)
//! binds exactly once, by an assignment of a literal or of an instance of a
//! class of the file whose bases quarry can see and which has no
//! `__call__`; `NotImplemented()` outside `raise` counts too. As in CodeQL,
//! `None` is left out, and so are calls guarded by `hasattr(x, "__call__")`
//! or `callable(x)`. The
//! origin of the value and, for instances, the class are relevant.
//! Negative form: calls of names bound once to functions, classes or
//! instances of callable classes.

use crate::syntax::{Field, Kind, SyntaxNode};
use tree_sitter::Node;

use crate::classes::Lookup;
use crate::context::FileContext;
use crate::finding::{Polarity, RawFinding};
use crate::query::{Hops, Query, QueryMeta};
use crate::scopes::{BindingKind, Scope};

/// The query.
pub static QUERY: Query = Query {
    meta: QueryMeta {
        id: "call-to-non-callable",
        name: "Non-callable called",
        index: 8,
        hops: Hops::Multi,
        description: "A call to an object which is not a callable will raise a TypeError at runtime.",
        codeql: "python/ql/src/Expressions/NonCallableCalled.ql",
    },
    find,
};

/// What the callee evaluates to.
enum Origin<'f> {
    /// A literal of a non-callable type.
    Literal(Node<'f>),
    /// An instance of a class of the file, created by this call.
    Instance(Node<'f>, crate::classes::ClassId),
    /// A function, lambda or class definition, or an instance of a callable class.
    Callable(Node<'f>),
}

fn find(cx: &FileContext<'_>, polarity: Polarity) -> Vec<RawFinding> {
    let mut findings = Vec::new();
    for &call in cx.nodes(Kind::Call) {
        let Some(callee) = call.field(Field::Function) else { continue };
        let Some(origin) = origin(cx, callee) else { continue };
        if guarded(cx, call, callee) {
            continue;
        }
        let (callable, origin_node, class) = match origin {
            Origin::Literal(n) => (false, n, None),
            Origin::Instance(n, class) => {
                let callable = !matches!(cx.classes().lookup(class, "__call__"), Lookup::Missing);
                (callable, n, Some(class))
            }
            Origin::Callable(n) => (true, n, None),
        };
        if callable == (polarity == Polarity::Positive) {
            continue;
        }
        let message = if callable { "Call to a callable object." } else { "Call to a non-callable object." };
        let mut finding = RawFinding::answer(cx.location(call), message);
        if origin_node.id() != callee.id() {
            finding = finding.with_facts([cx.location(origin_node)]);
        }
        if let Some(class) = class {
            finding = finding.with_context([cx.location(cx.classes().get(class).node)]);
        }
        findings.push(finding);
    }
    findings
}

/// Whether the call sits under `if hasattr(callee, "__call__"):` or
/// `if callable(callee):`.
fn guarded(cx: &FileContext<'_>, call: Node<'_>, callee: Node<'_>) -> bool {
    let name = cx.text(callee);
    let parents = cx.syntax().parents();
    let mut current = parents.parent_of_id(call.id());
    while let Some(node) = current {
        if node.py_kind() == Kind::IfStatement {
            let condition: String =
                node.field(Field::Condition).map(|c| cx.text(c)).unwrap_or_default().split_whitespace().collect();
            let checks = [
                format!("hasattr({name},\"__call__\")"),
                format!("hasattr({name},'__call__')"),
                format!("callable({name})"),
            ];
            if checks.iter().any(|c| condition.contains(c.as_str())) {
                return true;
            }
        }
        current = parents.parent_of_id(node.id());
    }
    false
}

/// The value a callee refers to, when the file decides it.
fn origin<'f>(cx: &FileContext<'f>, callee: Node<'f>) -> Option<Origin<'f>> {
    let callee = crate::ast::strip_parentheses(callee);
    if let Some(origin) = value_origin(cx, callee) {
        return Some(origin);
    }
    if callee.py_kind() != Kind::Identifier {
        return None;
    }
    let name = cx.text(callee);
    if name == "NotImplemented" && !cx.scopes().get(crate::scopes::ScopeId::MODULE).binds(name) {
        let parents = cx.syntax().parents();
        let in_raise = parents
            .parent_of_id(callee.id())
            .and_then(|c| parents.parent(c))
            .is_some_and(|p| p.py_kind() == Kind::RaiseStatement);
        return (!in_raise).then_some(Origin::Literal(callee));
    }
    let scopes = cx.scopes();
    let function = cx.enclosing_function(callee);
    let scope: &Scope = match function.and_then(|f| scopes.of_node(f.id())) {
        Some(s) if scopes.get(s).is_local(name) => scopes.get(s),
        Some(s) if scopes.get(s).binds(name) => return None,
        _ => scopes.get(crate::scopes::ScopeId::MODULE),
    };
    let bindings: Vec<_> = scope.bindings_named(name).collect();
    let [binding] = bindings.as_slice() else { return None };
    match binding.kind {
        Some(BindingKind::Definition) => {
            let definition = cx
                .nodes(Kind::FunctionDefinition)
                .iter()
                .chain(cx.nodes(Kind::ClassDefinition))
                .find(|d| Some(d.id()) == binding.binder_id)?;
            Some(Origin::Callable(*definition))
        }
        Some(BindingKind::Assign) => {
            let assignment = cx.nodes(Kind::Assignment).iter().find(|a| Some(a.id()) == binding.binder_id)?;
            let left = assignment.field(Field::Left)?;
            if left.py_kind() != Kind::Identifier {
                return None;
            }
            value_origin(cx, assignment.field(Field::Right)?)
        }
        _ => None,
    }
}

/// The origin of an expression that is itself a literal, a lambda or an
/// instantiation of a class of the file.
fn value_origin<'f>(cx: &FileContext<'f>, value: Node<'f>) -> Option<Origin<'f>> {
    let value = crate::ast::strip_parentheses(value);
    match value.py_kind() {
        Kind::String
        | Kind::ConcatenatedString
        | Kind::Integer
        | Kind::Float
        | Kind::True
        | Kind::False
        | Kind::List
        | Kind::Dictionary
        | Kind::Set
        | Kind::Tuple
        | Kind::ListComprehension
        | Kind::DictionaryComprehension
        | Kind::SetComprehension => Some(Origin::Literal(value)),
        Kind::Lambda => Some(Origin::Callable(value)),
        Kind::Call => {
            let class = cx.calls().resolve_class_call(value)?;
            let classes = cx.classes();
            let metaclass = classes.get(class).metaclass.is_some() || classes.derives_from_builtin(class, "type");
            (classes.is_fully_known(class) && !metaclass).then_some(Origin::Instance(value, class))
        }
        _ => None,
    }
}
