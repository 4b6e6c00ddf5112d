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
//! As in CodeQL, only a function that is the class attribute of its name
//! counts: decorated methods (static and class methods, properties, any
//! decorator whose result is not the function) and functions whose name the
//! class body binds again (`f = staticmethod(f)`) are left out, as are
//! helpers the class body calls or applies as decorators, implicit class
//! methods (`__new__`, `__init_subclass__`, `__class_getitem__`), methods of
//! metaclasses, methods of `zope.interface.Interface` subclasses, and
//! methods with `*args`. Negative form: instance methods whose first
//! parameter is `self`.

use std::collections::HashMap;

use crate::ast::field_text;

use crate::context::FileContext;
use crate::finding::{Polarity, RawFinding};
use crate::import_statements::{import_aliases, resolve_imported};
use crate::methods::ClassBody;
use crate::parameters::parameter_names;
use crate::query::{Hops, Query, QueryMeta};
use crate::syntax::{Field, Kind};

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
    let imports: Vec<_> =
        cx.nodes(Kind::ImportStatement).iter().chain(cx.nodes(Kind::ImportFromStatement)).copied().collect();
    let aliases = import_aliases(file, &imports);
    let mut findings = Vec::new();
    let mut bodies: HashMap<usize, ClassBody<'_>> = HashMap::new();
    for &function in cx.nodes(Kind::FunctionDefinition) {
        let Some(class) = cx.syntax().method_class(function) else { continue };
        let name = field_text(file, function, Field::Name).unwrap_or_default();
        if IMPLICIT_CLASS_METHODS.contains(&name) {
            continue;
        }
        let body = bodies.entry(class.id()).or_insert_with(|| ClassBody::of(cx.syntax(), class));
        if !body.is_class_attribute(cx.syntax(), function) || body.uses(name) {
            continue;
        }
        let bases = field_text(file, class, Field::Superclasses).unwrap_or_default();
        if bases
            .split(|c: char| !c.is_alphanumeric() && c != '_' && c != '.')
            .any(|b| b == "type" || b.ends_with("Meta") || b.ends_with("Type"))
        {
            continue;
        }
        let zope_interface = bases
            .split(|c: char| !c.is_alphanumeric() && c != '_' && c != '.')
            .any(|b| resolve_imported(&aliases, b).as_deref() == Some("zope.interface.Interface"));
        if zope_interface {
            continue;
        }
        let parameters = parameter_names(file, function);
        let first = parameters.first().map(|(n, _)| n.as_str());
        if crate::signatures::Signature::of(file, function).varargs {
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
