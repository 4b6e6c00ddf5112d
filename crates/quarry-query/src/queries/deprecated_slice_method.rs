//! Q38 "Deprecated slice method": `__getslice__`, `__setslice__` and
//! `__delslice__` have been deprecated since Python 2.0 (and are ignored by
//! Python 3); slicing goes through `__getitem__` and friends with a `slice`.
//!
//! ```python
//! class Window:
//!     def __getslice__(self, i, j):   # answer: the method header
//!         return self.rows[i:j]
//! ```
//!
//! As in CodeQL, a method that overrides a slice method of a base class is
//! left out (it must exist while the base has it). CodeQL resolves bases by
//! points-to; here a base overrides when it is a builtin or standard-library
//! sequence that defines the slice methods in Python 2 (`list`, `str`,
//! `UserList`, ...) or a class of the same file that defines the method
//! itself or through its own bases. Negative form: the item methods
//! (`__getitem__`, `__setitem__`, `__delitem__`) that replace them, and
//! slice methods that override a base's.

use crate::syntax::{Field, Kind, SyntaxNode};
use tree_sitter::Node;

use crate::ast::{field_text, named_children};
use crate::context::FileContext;
use crate::finding::{Polarity, RawFinding};
use crate::query::{Hops, Query, QueryMeta};

/// The query.
pub static QUERY: Query = Query {
    meta: QueryMeta {
        id: "deprecated-slice-method",
        name: "Deprecated slice method",
        index: 38,
        hops: Hops::Single,
        description: "Defining special methods for slicing has been deprecated since Python 2.0.",
        codeql: "python/ql/src/Functions/DeprecatedSliceMethod.ql",
    },
    find,
};

const SLICE_METHODS: &[&str] = &["__getslice__", "__setslice__", "__delslice__"];
const ITEM_METHODS: &[&str] = &["__getitem__", "__setitem__", "__delitem__"];

/// Builtin and standard-library classes that define the slice methods in Python 2.
const SLICING_BASES: &[&str] =
    &["list", "tuple", "str", "unicode", "bytearray", "buffer", "UserList", "UserString", "MutableString"];

fn find(cx: &FileContext<'_>, polarity: Polarity) -> Vec<RawFinding> {
    let file = cx.file();
    let mut findings = Vec::new();
    for &function in cx.nodes(Kind::FunctionDefinition) {
        let Some(class) = cx.syntax().method_class(function) else { continue };
        let name = field_text(file, function, Field::Name).unwrap_or_default();
        let positive = SLICE_METHODS.contains(&name) && !overrides(cx, class, name);
        let negative = ITEM_METHODS.contains(&name) || (SLICE_METHODS.contains(&name) && overrides(cx, class, name));
        let message = match polarity {
            Polarity::Positive if positive => format!("{name} method has been deprecated since Python 2.0."),
            Polarity::Negative if negative => format!("{name} method is not a deprecated slice method definition."),
            _ => continue,
        };
        findings.push(RawFinding::answer(cx.location(function), message));
    }
    findings
}

/// Whether a base of `class` (transitively, within the file) defines `method`.
fn overrides(cx: &FileContext<'_>, class: Node<'_>, method: &str) -> bool {
    let mut pending = base_names(cx, class);
    let mut seen: Vec<String> = Vec::new();
    while let Some(base) = pending.pop() {
        if seen.contains(&base) {
            continue;
        }
        seen.push(base.clone());
        if SLICING_BASES.contains(&base.as_str()) {
            return true;
        }
        for &other in cx.nodes(Kind::ClassDefinition) {
            if field_text(cx.file(), other, Field::Name) != Some(base.as_str()) {
                continue;
            }
            if defines_method(cx, other, method) {
                return true;
            }
            pending.extend(base_names(cx, other));
        }
    }
    false
}

/// The last dotted component of each base class expression.
fn base_names(cx: &FileContext<'_>, class: Node<'_>) -> Vec<String> {
    class
        .field(Field::Superclasses)
        .map(named_children)
        .unwrap_or_default()
        .into_iter()
        .filter(|b| matches!(b.py_kind(), Kind::Identifier | Kind::Attribute))
        .map(|b| cx.text(b).rsplit('.').next().unwrap_or_default().trim().to_string())
        .collect()
}

fn defines_method(cx: &FileContext<'_>, class: Node<'_>, method: &str) -> bool {
    cx.nodes(Kind::FunctionDefinition).iter().any(|&f| {
        cx.syntax().method_class(f).is_some_and(|c| c.id() == class.id())
            && field_text(cx.file(), f, Field::Name) == Some(method)
    })
}
