//! Q47 "Special method has incorrect signature": a special method (`__eq__`,
//! `__len__`, `__exit__`, ...) defined with a number of parameters Python
//! will never call it with, so calling it fails or defaults are dead.
//!
//! ```python
//! class Box:
//!     def __eq__(self):           # answer: the method header
//!         return True
//! ```
//!
//! Follows SignatureSpecialMethods.ql: each special method has a required
//! positional count (`self` included: 1 for unary methods such as `__len__`,
//! 2 for binary ones such as `__add__`, 3 for `__setitem__`, 4 for
//! `__exit__`; `__pow__` and `__get__` take 2 or 3). A method is wrong when
//! it accepts too few positional arguments, requires too many, or has
//! defaults that can never be used; `__exit__(self, exc_type=None, exc=None, tb=None)`
//! is not blamed for its defaults (it is often called by hand with no arguments, and
//! current CodeQL no longer reports unused defaults). As in the CodeQL list, `__getattr__` and
//! `__getattribute__` are not checked. Only a function that is the class
//! attribute of its name is checked, as CodeQL does: decorated methods
//! (static and class methods included) and a `def` whose name the class body
//! binds again (`__del__ = __del__()`) are left out.
//! Lambdas and module-level functions bound to a special name in a class
//! body (`__sub__ = lambda self: ...`, `__add__ = f`) are checked too; the
//! answer is then the lambda or the function's header.
//!
//! Negative form: special methods from the same lists with a correct
//! signature.

use crate::syntax::{Field, Kind, SyntaxNode};
use tree_sitter::Node;

use crate::ast::{field_text, statements};
use crate::context::FileContext;
use crate::finding::{Polarity, RawFinding};
use crate::methods::ClassBody;
use crate::query::{Hops, Query, QueryMeta};
use crate::signatures::Signature;

/// The query.
pub static QUERY: Query = Query {
    meta: QueryMeta {
        id: "special-method-wrong-signature",
        name: "Special method has incorrect signature",
        index: 47,
        hops: Hops::Single,
        description: "Special method has incorrect signature",
        codeql: "python/ql/src/Functions/SignatureSpecialMethods.ql",
    },
    find,
};

const UNARY: &[&str] = &[
    "__del__",
    "__repr__",
    "__str__",
    "__hash__",
    "__bool__",
    "__nonzero__",
    "__unicode__",
    "__len__",
    "__iter__",
    "__reversed__",
    "__neg__",
    "__pos__",
    "__abs__",
    "__invert__",
    "__complex__",
    "__int__",
    "__float__",
    "__long__",
    "__oct__",
    "__hex__",
    "__index__",
    "__enter__",
];

const BINARY: &[&str] = &[
    "__lt__",
    "__le__",
    "__eq__",
    "__ne__",
    "__gt__",
    "__ge__",
    "__cmp__",
    "__rcmp__",
    "__delattr__",
    "__delete__",
    "__instancecheck__",
    "__subclasscheck__",
    "__getitem__",
    "__delitem__",
    "__contains__",
    "__add__",
    "__sub__",
    "__mul__",
    "__floordiv__",
    "__div__",
    "__truediv__",
    "__mod__",
    "__divmod__",
    "__lshift__",
    "__rshift__",
    "__and__",
    "__xor__",
    "__or__",
    "__radd__",
    "__rsub__",
    "__rmul__",
    "__rfloordiv__",
    "__rdiv__",
    "__rtruediv__",
    "__rmod__",
    "__rdivmod__",
    "__rpow__",
    "__rlshift__",
    "__rrshift__",
    "__rand__",
    "__rxor__",
    "__ror__",
    "__iadd__",
    "__isub__",
    "__imul__",
    "__ifloordiv__",
    "__idiv__",
    "__itruediv__",
    "__imod__",
    "__idivmod__",
    "__ipow__",
    "__ilshift__",
    "__irshift__",
    "__iand__",
    "__ixor__",
    "__ior__",
    "__coerce__",
];

const TERNARY: &[&str] = &["__setattr__", "__set__", "__setitem__", "__getslice__", "__delslice__"];

const QUATERNARY: &[&str] = &["__setslice__", "__exit__"];

fn required(name: &str) -> Option<usize> {
    [(UNARY, 1), (BINARY, 2), (TERNARY, 3), (QUATERNARY, 4)]
        .iter()
        .find(|(names, _)| names.contains(&name))
        .map(|(_, count)| *count)
}

/// The problem with a special method's signature, and whether the message
/// shows the parameter counts.
fn problem(name: &str, a: &Signature) -> Option<(String, bool)> {
    let min = a.min_positional();
    let max = a.max_positional().unwrap_or(usize::MAX);
    match name {
        "__pow__" => {
            if max < 2 {
                Some(("Too few parameters".into(), true))
            } else if min > 3 {
                Some(("Too many parameters".into(), true))
            } else if min < 2 {
                Some((format!("{} default value(s) will never be used", 2 - min), false))
            } else if min == 3 {
                Some(("Third parameter to __pow__ should have a default value".into(), false))
            } else {
                None
            }
        }
        "__get__" => {
            if max < 3 {
                Some(("Too few parameters".into(), true))
            } else if min > 3 {
                Some(("Too many parameters".into(), true))
            } else if min < 2 && !a.varargs {
                Some((format!("{} default value(s) will never be used", 2 - min), false))
            } else {
                None
            }
        }
        _ => {
            let required = required(name)?;
            if required > max {
                Some(("Too few parameters".into(), true))
            } else if required < min {
                Some(("Too many parameters".into(), true))
            } else if min < required && !a.varargs && name != "__exit__" {
                Some((format!("{} default values(s) will never be used", required - min), false))
            } else {
                None
            }
        }
    }
}

fn find(cx: &FileContext<'_>, polarity: Polarity) -> Vec<RawFinding> {
    let file = cx.file();
    let mut findings = Vec::new();
    let mut bodies: std::collections::HashMap<usize, ClassBody<'_>> = std::collections::HashMap::new();
    for &function in cx.nodes(Kind::FunctionDefinition) {
        let Some(class) = cx.syntax().method_class(function) else { continue };
        let name = field_text(file, function, Field::Name).unwrap_or_default();
        let body = bodies.entry(class.id()).or_insert_with(|| ClassBody::of(cx.syntax(), class));
        if !body.is_class_attribute(cx.syntax(), function) {
            continue;
        }
        check(cx, polarity, name, function, class, &mut findings);
    }
    // `__add__ = lambda self: ...` and `__add__ = some_function` in a class body.
    let module_functions = module_functions(cx);
    for &class in cx.nodes(Kind::ClassDefinition) {
        let Some(body) = class.field(Field::Body) else { continue };
        for statement in statements(body) {
            let Some(assignment) = statement.named_child(0).filter(|a| a.py_kind() == Kind::Assignment) else {
                continue;
            };
            let (Some(left), Some(right)) = (assignment.field(Field::Left), assignment.field(Field::Right)) else {
                continue;
            };
            if left.py_kind() != Kind::Identifier {
                continue;
            }
            let function = match right.py_kind() {
                Kind::Lambda => Some(right),
                Kind::Identifier => module_functions.get(cx.text(right)).copied(),
                _ => None,
            };
            if let Some(function) = function {
                check(cx, polarity, cx.text(left), function, class, &mut findings);
            }
        }
    }
    if polarity == Polarity::Negative {
        // A function bound to several special names is wrong if any binding is.
        let wrong: std::collections::HashSet<_> =
            find(cx, Polarity::Positive).into_iter().flat_map(|f| f.answers).collect();
        findings.retain(|f| !f.answers.iter().any(|a| wrong.contains(a)));
    }
    findings
}

/// The undecorated functions defined at module level, by name (the first
/// of each name), indexed once so that a class body of many assignments
/// costs no scan of every function per assignment.
fn module_functions<'t>(cx: &FileContext<'t>) -> std::collections::HashMap<&'t str, Node<'t>> {
    let mut functions = std::collections::HashMap::new();
    for &function in cx.nodes(Kind::FunctionDefinition) {
        if cx.syntax().parent(function).is_none_or(|p| p.py_kind() != Kind::Module) {
            continue;
        }
        if let Some(name) = field_text(cx.file(), function, Field::Name) {
            functions.entry(name).or_insert(function);
        }
    }
    functions
}

/// Checks one function (or lambda) bound to special method `name` in `class`.
fn check(
    cx: &FileContext<'_>,
    polarity: Polarity,
    name: &str,
    function: Node<'_>,
    class: Node<'_>,
    findings: &mut Vec<RawFinding>,
) {
    if required(name).is_none() && name != "__pow__" && name != "__get__" {
        return;
    }
    let a = Signature::of(cx.file(), function);
    let class_name = field_text(cx.file(), class, Field::Name).unwrap_or_default();
    match (polarity, problem(name, &a)) {
        (Polarity::Positive, Some((message, show_counts))) => {
            let sizes = if show_counts {
                let has = match a.min_positional() {
                    0 => "no parameters".to_string(),
                    1 => "1 parameter".to_string(),
                    n => format!("{n} parameters"),
                };
                let should = match required(name) {
                    Some(n) => n.to_string(),
                    None => "2 or 3".to_string(),
                };
                format!(", which has {has}, but should have {should}")
            } else {
                String::new()
            };
            findings.push(RawFinding::answer(
                cx.location(function),
                format!("{message} for special method {name}{sizes}, in class {class_name}."),
            ));
        }
        (Polarity::Negative, None) => findings.push(RawFinding::answer(
            cx.location(function),
            format!("Special method {name} has a correct signature, in class {class_name}."),
        )),
        _ => {}
    }
}
