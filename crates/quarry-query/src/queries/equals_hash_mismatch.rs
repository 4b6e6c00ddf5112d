//! Q13 "Inconsistent equality and hashing": a class that defines `__hash__`
//! without defining `__eq__`, so objects that hash alike may compare by
//! identity and break dictionaries and sets.
//!
//! ```python
//! class Key:
//!     def __hash__(self):      # answer
//!         return hash(self.k)
//! # the class `Key` is the supporting fact; it defines no __eq__
//! ```
//!
//! Python 3 semantics, as CodeQL's query for Python 3: a class defining
//! `__eq__` without `__hash__` is made unhashable automatically and is
//! fine. Classes whose `__hash__` is `None` or never returns are unhashable
//! and left out. The class's class-level block and `__init__` are relevant
//! with the method. Negative form: classes that declare `__hash__` together
//! with `__eq__`, the same plausible spans with the contract kept.

use crate::classes::ClassInfo;

use crate::class_syntax::MemberKind;
use crate::context::FileContext;
use crate::finding::{Polarity, RawFinding};
use crate::methods::only_raises;
use crate::query::{Hops, Query, QueryMeta};

/// The query.
pub static QUERY: Query = Query {
    meta: QueryMeta {
        id: "equals-hash-mismatch",
        name: "Inconsistent equality and hashing",
        index: 13,
        hops: Hops::Multi,
        description:
            "Defining equality for a class without also defining hashability (or vice-versa) violates the object model.",
        codeql: "python/ql/src/Classes/EqualsOrHash.ql",
    },
    find,
};

fn find(cx: &FileContext<'_>, polarity: Polarity) -> Vec<RawFinding> {
    let mut findings = Vec::new();
    for class in cx.classes().all() {
        let Some(hash) = class.declared("__hash__") else { continue };
        if class.has_opaque_decorator() {
            continue;
        }
        if unhashable(cx, class) {
            continue;
        }
        let defines_equality = class.declares("__eq__");
        if defines_equality == (polarity == Polarity::Positive) {
            continue;
        }
        let message = if defines_equality {
            format!("Class {} implements __hash__ and __eq__.", class.name)
        } else {
            format!("Class {} implements __hash__ but does not define __eq__.", class.name)
        };
        let context = crate::relevance::linkage_of_nodes(cx, hash.node, &[class.node]);
        findings.push(
            RawFinding::answer(cx.location(hash.node), message)
                .with_facts([cx.location(class.node)])
                .with_context(context),
        );
    }
    findings
}

/// Whether the class's own `__hash__` is `None` or a method that only raises.
fn unhashable(cx: &FileContext<'_>, class: &ClassInfo<'_>) -> bool {
    class.declared("__hash__").is_some_and(|m| match m.kind {
        MemberKind::Assignment => cx.text(m.node).trim() == "None",
        MemberKind::Method => only_raises(m.node),
        MemberKind::NestedClass => false,
    })
}
