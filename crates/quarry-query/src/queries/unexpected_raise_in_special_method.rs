//! Q48 "Non-standard exception raised in special method": a special method
//! that always raises an exception other than the one Python's protocols
//! expect (`__getitem__` should raise `LookupError`s, `__getattr__`
//! `AttributeError`, arithmetic methods `ArithmeticError`s, comparisons
//! `TypeError`), or raises at all where it should not exist (`__hash__`,
//! conversions such as `__int__`). Callers such as `hasattr` or `in`
//! then misbehave.
//!
//! ```python
//! class Table:
//!     def __getitem__(self, key):      # answer: the method header
//!         raise ValueError(key)
//! ```
//!
//! Follows IncorrectRaiseInSpecialMethod.ql (Python 3 rules, so
//! `__nonzero__` and `__cmp__` are not checked): the method must never
//! return normally (its body cannot complete and has no `return`), every
//! `raise` in it must raise the same class (a bare `raise` makes the type
//! unknown), that class must be resolvable (a builtin exception or a class
//! of the file, whose bases are followed), must not be `StopIteration` or
//! `NotImplementedError`, and the method must not be decorated as abstract.
//! Exceptions raised by called functions are not considered.
//!
//! Negative form: special methods with a protocol rule that raise, but
//! acceptably (`NotImplementedError`, the expected type or a subclass), or
//! not always.

use crate::syntax::{Field, Kind, SyntaxNode};
use tree_sitter::Node;

use crate::ast::{callee_text, decorators, field_text, named_children, strip_parentheses};
use crate::context::FileContext;
use crate::finding::{Polarity, RawFinding};
use crate::query::{Hops, Query, QueryMeta};

/// The query.
pub static QUERY: Query = Query {
    meta: QueryMeta {
        id: "unexpected-raise-in-special-method",
        name: "Non-standard exception raised in special method",
        index: 48,
        hops: Hops::Single,
        description:
            "Raising a non-standard exception in a special method alters the expected interface of that method.",
        codeql: "python/ql/src/Functions/IncorrectRaiseInSpecialMethod.ql",
    },
    find,
};

const ATTRIBUTE: &[&str] = &["__getattribute__", "__getattr__", "__setattr__"];
const INDEXING: &[&str] = &["__getitem__", "__setitem__", "__delitem__"];
const ARITHMETIC: &[&str] = &[
    "__add__",
    "__sub__",
    "__div__",
    "__pos__",
    "__abs__",
    "__floordiv__",
    "__divmod__",
    "__lshift__",
    "__and__",
    "__or__",
    "__xor__",
    "__rshift__",
    "__pow__",
    "__mul__",
    "__neg__",
    "__radd__",
    "__rsub__",
    "__rdiv__",
    "__rfloordiv__",
    "__rlshift__",
    "__rand__",
    "__ror__",
    "__rxor__",
    "__rrshift__",
    "__rpow__",
    "__rmul__",
    "__truediv__",
    "__rtruediv__",
    "__iadd__",
    "__isub__",
    "__idiv__",
    "__ifloordiv__",
    "__ilshift__",
    "__iand__",
    "__ior__",
    "__ixor__",
    "__irshift__",
    "__ipow__",
    "__imul__",
    "__itruediv__",
];
const ORDERING: &[&str] = &["__lt__", "__le__", "__gt__", "__ge__"];
const CAST: &[&str] = &["__int__", "__float__", "__long__", "__trunc__", "__complex__"];

/// Builtin exception classes and their direct base.
const BUILTIN_EXCEPTIONS: &[(&str, &str)] = &[
    ("Exception", "BaseException"),
    ("StandardError", "Exception"),
    ("ArithmeticError", "Exception"),
    ("ZeroDivisionError", "ArithmeticError"),
    ("OverflowError", "ArithmeticError"),
    ("FloatingPointError", "ArithmeticError"),
    ("LookupError", "Exception"),
    ("IndexError", "LookupError"),
    ("KeyError", "LookupError"),
    ("AttributeError", "Exception"),
    ("TypeError", "Exception"),
    ("ValueError", "Exception"),
    ("UnicodeError", "ValueError"),
    ("UnicodeDecodeError", "UnicodeError"),
    ("UnicodeEncodeError", "UnicodeError"),
    ("RuntimeError", "Exception"),
    ("NotImplementedError", "RuntimeError"),
    ("RecursionError", "RuntimeError"),
    ("OSError", "Exception"),
    ("IOError", "OSError"),
    ("EnvironmentError", "OSError"),
    ("StopIteration", "Exception"),
    ("NameError", "Exception"),
    ("AssertionError", "Exception"),
    ("ImportError", "Exception"),
    ("ModuleNotFoundError", "ImportError"),
    ("BufferError", "Exception"),
    ("EOFError", "Exception"),
    ("MemoryError", "Exception"),
    ("ReferenceError", "Exception"),
    ("SystemError", "Exception"),
    ("Warning", "Exception"),
    ("KeyboardInterrupt", "BaseException"),
    ("SystemExit", "BaseException"),
    ("GeneratorExit", "BaseException"),
    ("BaseException", ""),
];

/// The exception a special method should raise, if its protocol has one.
fn preferred(name: &str) -> Option<&'static str> {
    if ATTRIBUTE.contains(&name) {
        Some("AttributeError")
    } else if INDEXING.contains(&name) {
        Some("LookupError")
    } else if ORDERING.contains(&name) || name == "__bool__" {
        Some("TypeError")
    } else if ARITHMETIC.contains(&name) {
        Some("ArithmeticError")
    } else {
        None
    }
}

fn no_need_to_raise(name: &str) -> Option<&'static str> {
    if name == "__hash__" {
        Some("use __hash__ = None instead")
    } else if CAST.contains(&name) {
        Some("there is no need to implement the method at all.")
    } else {
        None
    }
}

fn find(cx: &FileContext<'_>, polarity: Polarity) -> Vec<RawFinding> {
    let file = cx.file();
    let mut findings = Vec::new();
    for &function in cx.nodes(Kind::FunctionDefinition) {
        if cx.syntax().method_class(function).is_none() {
            continue;
        }
        let name = field_text(file, function, Field::Name).unwrap_or_default();
        if !(name.len() > 4 && name.starts_with("__") && name.ends_with("__")) {
            continue;
        }
        let has_rule = preferred(name).is_some() || no_need_to_raise(name).is_some();
        if !has_rule || is_abstract(cx, function) {
            continue;
        }
        let raises = raise_statements(function);
        if raises.is_empty() {
            continue;
        }
        let raised = always_raises(cx, function, &raises);
        let message = raised.as_ref().and_then(|class| {
            let ancestry = supertypes(cx, class);
            if class == "NotImplementedError" || class == "StopIteration" || ancestry.is_empty() {
                return None;
            }
            if let Some(message) = no_need_to_raise(name) {
                return Some(message.to_string());
            }
            let preferred = preferred(name)?;
            let type_error_ok = name == "__copy__"
                || name == "__deepcopy__"
                || name == "__call__"
                || INDEXING.contains(&name)
                || ATTRIBUTE.contains(&name);
            let correct =
                ancestry.iter().any(|c| c == preferred) || (type_error_ok && ancestry.iter().any(|c| c == "TypeError"));
            (!correct).then(|| format!("raise {preferred} instead"))
        });
        match (polarity, message) {
            (Polarity::Positive, Some(message)) => findings.push(RawFinding::answer(
                cx.location(function),
                format!("Function always raises {}; {message}", raised.unwrap_or_default()),
            )),
            (Polarity::Negative, None) if raised.as_ref().is_none_or(|c| !supertypes(cx, c).is_empty()) => findings
                .push(RawFinding::answer(
                    cx.location(function),
                    format!("Special method {name} raises an expected exception, or not always."),
                )),
            _ => {}
        }
    }
    findings
}

fn is_abstract(cx: &FileContext<'_>, function: Node<'_>) -> bool {
    decorators(cx.file(), function)
        .iter()
        .any(|d| d.chars().all(|c| c.is_alphanumeric() || c == '_') && d.contains("abstract"))
}

/// The `raise` statements of the function itself (not of nested scopes).
fn raise_statements(function: Node<'_>) -> Vec<Node<'_>> {
    let mut raises = Vec::new();
    let Some(body) = function.field(Field::Body) else { return raises };
    let mut walk = quarry_syntax::walk::Preorder::new(body);
    while let Some(n) = walk.next() {
        match n.py_kind() {
            Kind::FunctionDefinition | Kind::ClassDefinition | Kind::Lambda => walk.skip_children(),
            Kind::RaiseStatement => raises.push(n),
            _ => {}
        }
    }
    raises
}

/// The single class the function raises when it can never return normally.
fn always_raises(cx: &FileContext<'_>, function: Node<'_>, raises: &[Node<'_>]) -> Option<String> {
    let body = function.field(Field::Body)?;
    if cx.reachability().block_completes(body) {
        return None;
    }
    let mut walk = quarry_syntax::walk::Preorder::new(body);
    while let Some(n) = walk.next() {
        match n.py_kind() {
            Kind::FunctionDefinition | Kind::ClassDefinition | Kind::Lambda => walk.skip_children(),
            Kind::ReturnStatement | Kind::Yield => return None,
            _ => {}
        }
    }
    let mut class: Option<String> = None;
    for raise in raises {
        let raised = named_children(*raise).into_iter().find(|c| c.py_kind() != Kind::Comment)?;
        let raised = strip_parentheses(raised);
        let raised =
            if raised.py_kind() == Kind::ExpressionList { strip_parentheses(raised.named_child(0)?) } else { raised };
        let name = match raised.py_kind() {
            Kind::Call => callee_text(cx.file(), raised)?,
            Kind::Identifier | Kind::Attribute => cx.text(raised),
            _ => return None,
        };
        match &class {
            Some(existing) if existing != name => return None,
            _ => class = Some(name.to_string()),
        }
    }
    class
}

/// The class and its ancestors, by name, for builtin exceptions and classes
/// defined in the file; empty when the class is unknown.
fn supertypes(cx: &FileContext<'_>, class: &str) -> Vec<String> {
    let mut result: Vec<String> = Vec::new();
    let mut frontier = vec![class.to_string()];
    while let Some(current) = frontier.pop() {
        if result.contains(&current) || result.len() > 64 {
            continue;
        }
        if let Some((_, base)) = BUILTIN_EXCEPTIONS.iter().find(|(c, _)| *c == current) {
            result.push(current.clone());
            if !base.is_empty() {
                frontier.push(base.to_string());
            }
            continue;
        }
        let defined = cx
            .nodes(Kind::ClassDefinition)
            .iter()
            .find(|c| field_text(cx.file(), **c, Field::Name) == Some(current.as_str()));
        if let Some(definition) = defined {
            result.push(current.clone());
            if let Some(bases) = definition.field(Field::Superclasses) {
                for base in named_children(bases) {
                    if matches!(base.py_kind(), Kind::Identifier | Kind::Attribute) {
                        let text = cx.text(base);
                        frontier.push(text.rsplit('.').next().unwrap_or(text).to_string());
                    }
                }
            }
        }
    }
    result
}
