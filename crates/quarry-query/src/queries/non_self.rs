//! Q22 "First parameter of a method is not named 'self'": PEP 8 asks that an
//! instance method's first parameter be `self`; anything else is confusing
//! and often a forgotten `@staticmethod`.
//!
//! ```python
//! class Point:
//!     def norm(this):     # answer: the method header
//!         return abs(this.x)
//! ```
//!
//! Static methods, class methods, implicit class methods (`__new__`,
//! `__init_subclass__`, `__class_getitem__`) and methods of metaclasses are
//! left out. Negative form: instance methods whose first parameter is `self`.

use crate::ast::{decorators, field_text, method_class};
use crate::context::FileContext;
use crate::finding::{Polarity, RawFinding};
use crate::parameters::parameter_names;
use crate::registry::{Hops, Query, QueryMeta};
use crate::syntax::{Field, Kind, SyntaxNode};

/// The query.
pub static QUERY: Query = Query {
    meta: QueryMeta {
        id: "non-self",
        name: "First parameter of a method is not named 'self'",
        index: 22,
        hops: Hops::Single,
        description: "Using an alternative name for the first parameter of an instance method makes code more difficult to read; PEP8 states that the first parameter to instance methods should be 'self'.",
        codeql: "python/ql/src/Functions/NonSelf.ql",
    },
    find,
};

const IMPLICIT_CLASS_METHODS: &[&str] = &["__new__", "__init_subclass__", "__class_getitem__", "__prepare__"];

fn find(cx: &FileContext<'_>, polarity: Polarity) -> Vec<RawFinding> {
    let file = cx.file();
    let mut findings = Vec::new();
    for &function in cx.nodes(Kind::FunctionDefinition) {
        let Some(class) = method_class(function) else { continue };
        let name = field_text(file, function, Field::Name).unwrap_or_default();
        if IMPLICIT_CLASS_METHODS.contains(&name) {
            continue;
        }
        let decorated = decorators(file, function);
        if decorated.iter().any(|d| d.contains("staticmethod") || d.contains("classmethod")) {
            continue;
        }
        let bases = field_text(file, class, Field::Superclasses).unwrap_or_default();
        if bases
            .split(|c: char| !c.is_alphanumeric() && c != '_' && c != '.')
            .any(|b| b == "type" || b.ends_with("Meta") || b.ends_with("Type"))
        {
            continue;
        }
        let parameters = parameter_names(file, function);
        let first = parameters.first().map(|(n, _)| n.as_str());
        let first_is_splat = function
            .field(Field::Parameters)
            .and_then(|p| p.named_child(0))
            .is_some_and(|p| p.py_kind() == Kind::ListSplatPattern);
        if first_is_splat {
            continue;
        }
        let is_self = first == Some("self");
        if is_self == (polarity == Polarity::Negative) {
            let message = match first {
                Some(n) => format!("Normal methods should have 'self', rather than '{n}', as their first parameter."),
                None => "Normal methods should have at least one parameter (the first of which should be 'self')."
                    .to_string(),
            };
            findings.push(RawFinding::answer(cx.location(function), message));
        }
    }
    findings
}
