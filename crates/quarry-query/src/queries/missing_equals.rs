//! Q4 "`__eq__` not overridden when adding attributes": a class stores new
//! attributes on `self` but inherits `__eq__` from a base class, so two
//! instances that differ only in the new attributes compare equal.
//!
//! ```python
//! class Point:
//!     def __eq__(self, other):             # supporting fact
//!         return self.x == other.x
//! class ColorPoint(Point):                 # answer
//!     def __init__(self, x, color):
//!         self.color = color               # supporting fact
//! ```
//!
//! As in CodeQL: the `__eq__` must be declared by a direct base and be
//! neither `object`'s nor an identity (`self is other`) or generic
//! (`self.__dict__ == other.__dict__`) comparison; metaclasses and
//! `TestCase` subclasses are left out, and so are stores of attributes the
//! base `__eq__` already reads. All blocks of the class and of the base are
//! relevant. Classes with a decorator that may generate `__eq__` (`@attr.s`)
//! are left alone, as CodeQL leaves them. A direct base from another module
//! of the project counts through its summary (its `__eq__` and the
//! attributes it reads); bases from outside the analysed tree stay unknown
//! and are not judged. Negative form: the same situation where the class does
//! override `__eq__` (Figure 10 of the paper).

use quarry_syntax::Span;
use tree_sitter::Node;

use crate::classes::{ClassId, ClassRef, Classes};
use crate::context::FileContext;
use crate::finding::{Polarity, RawFinding};
use crate::methods::{is_generic_eq, is_identity_eq, reads_receiver_attribute};
use crate::query::{Hops, Query, QueryMeta};

/// The query.
pub static QUERY: Query = Query {
    meta: QueryMeta {
        id: "missing-equals",
        name: "`__eq__` not overridden when adding attributes",
        index: 4,
        hops: Hops::Multi,
        description: "When adding new attributes to instances of a class, equality for that class needs to be defined.",
        codeql: "python/ql/src/Classes/DefineEqualsWhenAddingAttributes.ql",
    },
    find,
};

/// A base class whose `__eq__` the class should override.
enum BaseEq<'f> {
    Local(ClassId, Node<'f>),
    /// A class of another module of the project, with the attributes its
    /// `__eq__` reads on the receiver.
    External(Vec<String>),
    Builtin,
}

fn find(cx: &FileContext<'_>, polarity: Polarity) -> Vec<RawFinding> {
    let classes = cx.classes();
    let file = cx.file();
    let mut findings = Vec::new();
    for (id, class) in crate::classes::ClassId::enumerate(classes.all()) {
        if class.self_stores.is_empty() || classes.derives_from_builtin(id, "type") || class.has_opaque_decorator() {
            continue;
        }
        let declares_eq = class.declares("__eq__");
        if declares_eq != (polarity == Polarity::Negative) || is_test_case(classes, id) {
            continue;
        }
        for base in base_eqs(cx, classes, id) {
            let stores: Vec<Span> = class
                .self_stores
                .iter()
                .filter(|s| match &base {
                    BaseEq::Local(_, eq) => !reads_receiver_attribute(file, *eq, &s.name),
                    BaseEq::External(reads) => !reads.contains(&s.name),
                    BaseEq::Builtin => true,
                })
                .map(|s| cx.span(s.attribute))
                .collect();
            if stores.is_empty() {
                continue;
            }
            let mut facts = Vec::new();
            let mut context = vec![cx.span(class.node)];
            if let BaseEq::Local(sup, eq) = base {
                facts.push(cx.location(eq));
                context.push(cx.span(classes.get(sup).node));
            }
            facts.extend(stores);
            let message = if declares_eq {
                format!("The class '{}' overrides '__eq__' and adds new attributes.", class.name)
            } else {
                format!("The class '{}' does not override '__eq__', but adds new attributes.", class.name)
            };
            findings.push(RawFinding::new(vec![cx.location(class.node)], facts, message).with_context(context));
        }
    }
    findings
}

/// The direct bases declaring an `__eq__` that a subclass adding attributes
/// must override.
fn base_eqs<'f>(cx: &FileContext<'f>, classes: &Classes<'f>, id: ClassId) -> Vec<BaseEq<'f>> {
    let file = cx.file();
    let mut found = Vec::new();
    for base in &classes.get(id).bases {
        match base {
            ClassRef::Local(sup) => {
                let Some(eq) = classes.get(*sup).method("__eq__") else { continue };
                if !is_identity_eq(file, eq) && !is_generic_eq(file, eq) {
                    found.push(BaseEq::Local(*sup, eq));
                }
            }
            ClassRef::External(e) => {
                let eq = classes.external(*e).and_then(|c| c.members.iter().find(|m| m.name == "__eq__"));
                if let Some(reads) = eq.and_then(|m| m.method.as_ref()).and_then(|m| m.eq_reads.clone()) {
                    found.push(BaseEq::External(reads));
                }
            }
            ClassRef::Builtin(name) if *name != "object" && crate::builtins::declares(name, "__eq__") => {
                found.push(BaseEq::Builtin);
            }
            _ => {}
        }
    }
    found
}

/// Whether a superclass is named `TestCase` (`unittest.TestCase` included).
fn is_test_case(classes: &Classes<'_>, id: ClassId) -> bool {
    classes.mro(id).iter().any(|c| match c {
        ClassRef::Local(j) => classes.get(*j).name == "TestCase",
        ClassRef::External(e) => classes.external(*e).is_some_and(|c| c.name == "TestCase"),
        ClassRef::Unknown(text) => text == "TestCase" || text.ends_with(".TestCase"),
        ClassRef::Builtin(_) => false,
    })
}
