//! Q15 "Incomplete ordering": a class defines some of the rich ordering
//! methods `__lt__`, `__le__`, `__gt__`, `__ge__` but neither it nor its
//! superclasses define all four, so some comparisons fail or misbehave.
//!
//! ```python
//! class Version:                   # answer
//!     def __lt__(self, other):     # supporting fact
//!         return self.n < other.n
//! ```
//!
//! As in CodeQL: methods inherited from superclasses other than `object`
//! count, a class is blamed only for ordering methods it declares itself,
//! `functools.total_ordering` classes are fine (decorated, or passed to a call of it:
//! `Version = total_ordering(Version)`, which CodeQL does not see), superclasses in other
//! modules of the project count (through their summaries), and classes
//! with bases quarry cannot see are left out. The class's `__init__` and the ordering
//! methods of its superclasses are relevant. Negative form: classes declaring an ordering method whose
//! ordering is complete.

use crate::ast::{call_arguments, callee_text};
use crate::builtins::is_ordering_method;
use crate::classes::{ClassId, ClassRef, Classes};
use crate::context::FileContext;
use crate::finding::{Polarity, RawFinding};
use crate::query::{Hops, Query, QueryMeta};
use crate::syntax::{Kind, SyntaxNode};

/// The query.
pub static QUERY: Query = Query {
    meta: QueryMeta {
        id: "incomplete-ordering",
        name: "Incomplete ordering",
        index: 15,
        hops: Hops::Multi,
        description: "Class defines one or more ordering method but does not define all 4 ordering comparison methods",
        codeql: "python/ql/src/Classes/IncompleteOrdering.ql",
    },
    find,
};

const ORDERING: [&str; 4] = ["__lt__", "__le__", "__gt__", "__ge__"];

fn find(cx: &FileContext<'_>, polarity: Polarity) -> Vec<RawFinding> {
    let classes = cx.classes();
    let wrapped = wrapped_by_total_ordering(cx);
    let mut findings = Vec::new();
    for (id, class) in crate::classes::ClassId::enumerate(classes.all()) {
        let declared: Vec<_> = class.members.iter().filter(|m| is_ordering_method(&m.name)).collect();
        if declared.is_empty() || !classes.is_fully_known(id) || class.has_opaque_decorator() {
            continue;
        }
        let total = class.decorators.iter().any(|d| is_total_ordering(d)) || wrapped.contains(class.name.as_str());
        let missing: Vec<&str> = ORDERING.into_iter().filter(|n| !implemented(classes, id, n)).collect();
        let positive = !total && !missing.is_empty();
        if positive != (polarity == Polarity::Positive) {
            continue;
        }
        let facts = declared.iter().map(|m| cx.location(m.node)).collect();
        let mut context: Vec<_> = classes
            .local_supers(id)
            .into_iter()
            .flat_map(|s| classes.get(s).members.iter().filter(|m| is_ordering_method(&m.name)))
            .map(|m| cx.span(m.node))
            .collect();
        context.extend(crate::relevance::linkage_context(cx, id, id));
        let message = if positive {
            format!("Class {} does not implement {}.", class.name, missing.join(" or "))
        } else {
            format!("Class {} implements a complete ordering.", class.name)
        };
        findings.push(RawFinding::new(vec![cx.location(class.node)], facts, message).with_context(context));
    }
    findings
}

/// Whether a decorator or callee names `functools.total_ordering`.
fn is_total_ordering(name: &str) -> bool {
    name == "total_ordering" || name.ends_with(".total_ordering")
}

/// The names the file passes to a call of `total_ordering` (`Version =
/// total_ordering(Version)`): classes made total without the decorator syntax.
fn wrapped_by_total_ordering<'f>(cx: &FileContext<'f>) -> std::collections::HashSet<&'f str> {
    cx.nodes(Kind::Call)
        .iter()
        .filter(|&&call| callee_text(cx.file(), call).is_some_and(is_total_ordering))
        .filter_map(|&call| call_arguments(call).first().copied())
        .filter(|argument| argument.py_kind() == Kind::Identifier)
        .map(|argument| cx.text(argument))
        .collect()
}

/// Whether the class or a superclass other than `object` declares `name`.
fn implemented(classes: &Classes<'_>, id: ClassId, name: &str) -> bool {
    classes.mro(id).iter().any(|c| match c {
        ClassRef::Local(j) => classes.get(*j).declares(name),
        ClassRef::Builtin(b) => *b != "object" && crate::builtins::declares(b, name),
        ClassRef::External(e) => classes.external(*e).is_some_and(|c| c.declares(name)),
        ClassRef::Unknown(_) => true,
    })
}
