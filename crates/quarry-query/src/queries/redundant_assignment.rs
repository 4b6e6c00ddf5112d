//! Q32 "Redundant assignment": a variable or attribute assigned to itself
//! (`x = x`, `self.size = self.size`). The assignment does nothing and
//! usually stands where a different value was meant (`self.size = size`).
//!
//! ```python
//! def resize(self, size):
//!     self.size = self.size     # answer: the assignment statement
//! ```
//!
//! Names must be the same variable, not a builtin, and defined before the
//! assignment in the same scope (CodeQL: not possibly undefined, which
//! protects `bytes = bytes` compatibility shims). Attributes must have the
//! same name on the same object; CodeQL needs points-to to know the object's
//! class, approximated here by objects rooted at `self`/`cls` in a method,
//! at an imported module, or at a name assigned an instance of a class of
//! the file (so a plain parameter `x.y = x.y` is not reported). Properties and classes that define
//! `__setattr__` (where assignment has effects) are left out, as are
//! statements on a line with a comment mentioning pyflakes.
//!
//! Negative form: assignments whose target and value end in the same name
//! but are not the same variable or attribute (`self.size = size`), and
//! self-assignments that the conditions above exempt.

use crate::syntax::{Field, Kind, SyntaxNode};
use tree_sitter::Node;

use crate::ast::{decorators, field_text, method_class, named_children, strip_parentheses};
use crate::builtins::is_builtin_name;
use crate::context::FileContext;
use crate::finding::{Polarity, RawFinding};
use crate::query::{Hops, Query, QueryMeta};

/// The query.
pub static QUERY: Query = Query {
    meta: QueryMeta {
        id: "redundant-assignment",
        name: "Redundant assignment",
        index: 32,
        hops: Hops::Single,
        description: "Assigning a variable to itself is useless and very likely indicates an error in the code.",
        codeql: "python/ql/src/Statements/RedundantAssignment.ql",
    },
    find,
};

fn find(cx: &FileContext<'_>, polarity: Polarity) -> Vec<RawFinding> {
    let mut findings = Vec::new();
    for &statement in cx.nodes(Kind::ExpressionStatement) {
        let Some(assignment) = statement.named_child(0).filter(|a| a.py_kind() == Kind::Assignment) else { continue };
        if assignment.field(Field::Type).is_some() {
            continue;
        }
        // `a = b = v` assigns `v` to every target.
        let mut targets = Vec::new();
        let mut value = Some(assignment);
        while let Some(v) = value.filter(|v| v.py_kind() == Kind::Assignment) {
            targets.extend(v.field(Field::Left));
            value = v.field(Field::Right);
        }
        let Some(value) = value.map(strip_parentheses) else { continue };
        let mut same_shape = false;
        let mut redundant = false;
        for target in targets {
            if last_name(cx, target).is_some() && last_name(cx, target) == last_name(cx, value) {
                same_shape = true;
                if same_value(cx, target, value, statement) {
                    redundant = true;
                }
            }
        }
        let redundant = redundant && !pyflakes_commented(cx, statement);
        match polarity {
            Polarity::Positive if redundant => findings
                .push(RawFinding::answer(cx.location(statement), "This assignment assigns a variable to itself.")),
            Polarity::Negative if same_shape && !redundant => findings.push(RawFinding::answer(
                cx.location(statement),
                "This assignment assigns a different value of the same name.",
            )),
            _ => {}
        }
    }
    findings
}

/// The final identifier of a name or attribute chain.
fn last_name<'f>(cx: &FileContext<'f>, node: Node<'_>) -> Option<&'f str> {
    match node.py_kind() {
        Kind::Identifier => Some(cx.text(node)),
        Kind::Attribute => node.field(Field::Attribute).map(|a| cx.text(a)),
        _ => None,
    }
}

fn same_value(cx: &FileContext<'_>, target: Node<'_>, value: Node<'_>, statement: Node<'_>) -> bool {
    match (target.py_kind(), value.py_kind()) {
        (Kind::Identifier, Kind::Identifier) => {
            let name = cx.text(target);
            name == cx.text(value) && !is_builtin_name(name) && defined_before(cx, name, statement)
        }
        (Kind::Attribute, Kind::Attribute) => {
            let (Some(t_object), Some(v_object)) = (target.field(Field::Object), value.field(Field::Object)) else {
                return false;
            };
            let (t_object, v_object) = (strip_parentheses(t_object), strip_parentheses(v_object));
            last_name(cx, target) == last_name(cx, value)
                && same_path(cx, t_object, v_object)
                && known_object(cx, t_object, statement)
                && !property_or_setattr(cx, t_object, last_name(cx, target).unwrap_or_default(), statement)
        }
        _ => false,
    }
}

/// Same name, or same attribute chain over the same name.
fn same_path(cx: &FileContext<'_>, a: Node<'_>, b: Node<'_>) -> bool {
    let (mut a, mut b) = (a, b);
    loop {
        match (a.py_kind(), b.py_kind()) {
            (Kind::Identifier, Kind::Identifier) => return cx.text(a) == cx.text(b),
            (Kind::Attribute, Kind::Attribute) => {
                if last_name(cx, a) != last_name(cx, b) {
                    return false;
                }
                match (a.field(Field::Object), b.field(Field::Object)) {
                    (Some(x), Some(y)) => (a, b) = (strip_parentheses(x), strip_parentheses(y)),
                    _ => return false,
                }
            }
            _ => return false,
        }
    }
}

fn root_name<'f>(cx: &FileContext<'f>, mut node: Node<'_>) -> Option<&'f str> {
    while node.py_kind() == Kind::Attribute {
        node = strip_parentheses(node.field(Field::Object)?);
    }
    (node.py_kind() == Kind::Identifier).then(|| cx.text(node))
}

/// The scope (from [`crate::scopes`]) whose node holds `statement`.
fn scope_of<'a>(cx: &'a FileContext<'_>, statement: Node<'_>) -> Option<&'a crate::scopes::Scope> {
    let node = cx.syntax().enclosing_scope(statement)?;
    let scopes = cx.scopes();
    scopes.of_node(node.id()).map(|id| scopes.get(id))
}

/// Whether `name` is bound in the statement's scope before it (a parameter,
/// or a binding earlier in the source), and not declared global/nonlocal.
fn defined_before(cx: &FileContext<'_>, name: &str, statement: Node<'_>) -> bool {
    let Some(scope) = scope_of(cx, statement) else { return false };
    scope.is_local(name)
        && scope.bindings.iter().any(|b| {
            b.name == name
                && b.kind != Some(crate::scopes::BindingKind::Delete)
                && (b.kind == Some(crate::scopes::BindingKind::Parameter) || b.start_byte < statement.start_byte())
        })
}

/// Whether the class of the object is known, as points-to would know it:
/// `self`/`cls` in a method, a name imported in the file (a module), or a
/// name last assigned, earlier in the same scope, an instance of a class
/// defined in the file. Plain parameters are unknown.
fn known_object(cx: &FileContext<'_>, object: Node<'_>, statement: Node<'_>) -> bool {
    let Some(root) = root_name(cx, object) else { return false };
    let in_method = crate::ast::enclosing_function(statement).and_then(method_class).is_some();
    if in_method && (root == "self" || root == "cls") {
        return true;
    }
    let Some(scope) = scope_of(cx, statement) else { return false };
    let earlier = scope.bindings.iter().rfind(|b| b.name == root && b.start_byte < statement.start_byte());
    match earlier.map(|b| b.kind) {
        Some(Some(crate::scopes::BindingKind::Import)) => true,
        Some(Some(crate::scopes::BindingKind::Assign)) => instance_class(cx, root, statement).is_some(),
        _ => false,
    }
}

/// The class of the file whose instance `name` was last assigned, earlier
/// in the statement's scope (`s = Session()`), if that is what it holds.
fn instance_class<'t>(cx: &FileContext<'t>, name: &str, statement: Node<'_>) -> Option<Node<'t>> {
    let scope = scope_of(cx, statement)?;
    let binding = scope.bindings.iter().rfind(|b| b.name == name && b.start_byte < statement.start_byte())?;
    if binding.kind != Some(crate::scopes::BindingKind::Assign) {
        return None;
    }
    let assignment = cx
        .nodes(Kind::Assignment)
        .iter()
        .find(|a| a.field(Field::Left).is_some_and(|l| l.start_byte() == binding.start_byte))?;
    let value = assignment.field(Field::Right).map(strip_parentheses).filter(|v| v.py_kind() == Kind::Call)?;
    let callee = crate::ast::callee_text(cx.file(), value)?;
    cx.nodes(Kind::ClassDefinition).iter().copied().find(|c| field_text(cx.file(), *c, Field::Name) == Some(callee))
}

/// For `self.<attr>`, or `<name>.<attr>` on an instance of a class of the
/// file: whether that class defines `attr` as a property or defines
/// `__setattr__`.
fn property_or_setattr(cx: &FileContext<'_>, object: Node<'_>, attribute: &str, statement: Node<'_>) -> bool {
    if object.py_kind() != Kind::Identifier {
        return false;
    }
    let class = if cx.text(object) == "self" {
        crate::ast::enclosing_function(statement).and_then(method_class)
    } else {
        instance_class(cx, cx.text(object), statement)
    };
    let Some(class) = class else { return false };
    let Some(body) = class.field(Field::Body) else { return false };
    named_children(body).into_iter().any(|item| {
        let function = if item.py_kind() == Kind::DecoratedDefinition {
            item.field(Field::Definition).unwrap_or(item)
        } else {
            item
        };
        if function.py_kind() != Kind::FunctionDefinition {
            return false;
        }
        let name = field_text(cx.file(), function, Field::Name).unwrap_or_default();
        name == "__setattr__"
            || (name == attribute
                && decorators(cx.file(), function).iter().any(|d| *d == "property" || d.ends_with(".setter")))
    })
}

fn pyflakes_commented(cx: &FileContext<'_>, statement: Node<'_>) -> bool {
    let line = statement.start_position().row;
    cx.nodes(Kind::Comment)
        .iter()
        .any(|c| c.start_position().row == line && cx.text(*c).to_lowercase().contains("pyflakes"))
}
