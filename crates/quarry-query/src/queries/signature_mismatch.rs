//! Q7 "Signature mismatch in overriding method": a method overrides one of
//! a superclass with a signature no call of the overridden method could
//! satisfy, so code written against the superclass breaks on the subclass.
//!
//! ```python
//! class Base:
//!     def run(self): ...              # supporting fact
//! class Job(Base):
//!     def run(self, when): ...        # answer: needs more arguments
//! ```
//!
//! As in CodeQL: the overriding method must require more positional
//! arguments than the overridden one allows, or allow fewer than it
//! requires; special methods, `__init__`, static and class methods are left
//! out (as is any decorated method, whose signature a decorator may change),
//! and so are overridden methods called anywhere in the file (by their
//! name), whose mismatches the arity queries report. The classes linking
//! the two methods are relevant. Negative form: overriding methods whose
//! signature is compatible with the overridden one.

use crate::syntax::{Field, Kind, SyntaxNode};
use tree_sitter::Node;

use crate::ast::decorators_under;
use crate::class_syntax::{Member, MemberKind};
use crate::classes::Lookup;
use crate::context::FileContext;
use crate::finding::{Polarity, RawFinding};
use crate::query::{Hops, Query, QueryMeta};
use crate::relevance::linkage_of_nodes;
use crate::signatures::Signature;

/// The query.
pub static QUERY: Query = Query {
    meta: QueryMeta {
        id: "signature-mismatch",
        name: "Signature mismatch in overriding method",
        index: 7,
        hops: Hops::Multi,
        description: "Overriding a method without ensuring that both methods accept the same number and type of parameters has the potential to cause an error when there is a mismatch.",
        codeql: "python/ql/src/Functions/SignatureOverriddenMethod.ql",
    },
    find,
};

fn find(cx: &FileContext<'_>, polarity: Polarity) -> Vec<RawFinding> {
    let file = cx.file();
    let classes = cx.classes();
    let called = called_names(cx);
    let mut findings = Vec::new();
    for (id, class) in crate::classes::ClassId::enumerate(classes.all()) {
        for member in class.members.iter().filter(|m| m.kind == MemberKind::Method) {
            let name = member.name.as_str();
            if (name.starts_with("__") && name.ends_with("__")) || !is_normal(cx, member) {
                continue;
            }
            if class.declarations(name) > 1 {
                continue;
            }
            let Some(base) = overridden(cx, id, name) else { continue };
            if called.binary_search_by(|c| c.as_str().cmp(name)).is_ok() {
                continue;
            }
            let sub = Signature::of(file, member.node);
            let sup = Signature::of(file, base);
            let more = sup.max_positional().is_some_and(|max| sub.min_positional() > max);
            let fewer = sub.max_positional().is_some_and(|max| max < sup.min_positional());
            let mismatch = more || fewer;
            if mismatch != (polarity == Polarity::Positive) {
                continue;
            }
            let message = if mismatch {
                format!("Overriding method '{name}' has signature mismatch with the overridden method.")
            } else {
                format!("Overriding method '{name}' has a signature compatible with the overridden method.")
            };
            findings.push(
                RawFinding::answer(cx.location(member.node), message)
                    .with_facts([cx.location(base)])
                    .with_context(linkage_of_nodes(cx, member.node, &[base])),
            );
        }
    }
    findings
}

/// The nearest method of a superclass that `name` in class `id` overrides.
fn overridden<'f>(cx: &FileContext<'f>, id: crate::classes::ClassId, name: &str) -> Option<Node<'f>> {
    let classes = cx.classes();
    for sup in classes.local_supers(id) {
        match classes.lookup(sup, name) {
            Lookup::Local(owner, member) if member.kind == MemberKind::Method => {
                let duplicated = classes.get(owner).declarations(name) > 1;
                return (is_normal(cx, member) && !duplicated).then_some(member.node);
            }
            Lookup::Local(..) | Lookup::External(..) | Lookup::Builtin(_) | Lookup::Unknown => return None,
            Lookup::Missing => {}
        }
    }
    None
}

/// A plain instance method: no decorator, which could make it a static or
/// class method, a property, or change its signature. The member knows its
/// `decorated_definition`, so no parent is searched from the root (which
/// costs a scan of the class body per method).
fn is_normal(cx: &FileContext<'_>, member: &Member<'_>) -> bool {
    decorators_under(cx.file(), member.decorated).is_empty()
}

/// Names called anywhere in the file, as `name(...)` or `x.name(...)`,
/// sorted and without repeats (searched by bisection).
fn called_names(cx: &FileContext<'_>) -> Vec<String> {
    let mut names: Vec<String> = cx
        .nodes(Kind::Call)
        .iter()
        .filter_map(|call| call.field(Field::Function))
        .filter_map(|f| match f.py_kind() {
            Kind::Identifier => Some(cx.text(f).to_string()),
            Kind::Attribute => f.field(Field::Attribute).map(|a| cx.text(a).to_string()),
            _ => None,
        })
        .collect();
    names.sort();
    names.dedup();
    names
}
