//! Q11 "`__iter__` method returns a non-iterator": an `__iter__` returns an
//! instance of a class that lacks `__next__` (or Python 2's `next`), so a
//! `for` loop over the object raises `TypeError`.
//!
//! ```python
//! class Cursor:                      # answer: returned, but no __next__
//!     def __iter__(self): return self
//! class Table:
//!     def __iter__(self):            # supporting fact
//!         return Cursor()
//! ```
//!
//! As in CodeQL, the answer is the class of the returned object, for the
//! classes of the file quarry can see (`return self`, `return Cls(...)`);
//! a class is an iterator when it or a base defines `__iter__` and
//! `__next__` (or `next`): a class with `__next__` but no `__iter__` cannot
//! be iterated over either.
//! Both classes are relevant. Negative form: `__iter__` methods returning
//! instances of classes that are iterators.

use crate::calls::defining_class;
use crate::classes::{ClassId, Classes, Lookup};
use crate::context::FileContext;
use crate::finding::{Polarity, RawFinding};
use crate::query::{Hops, Query, QueryMeta};
use crate::syntax::{Kind, SyntaxNode};

/// The query.
pub static QUERY: Query = Query {
    meta: QueryMeta {
        id: "iter-returns-non-iterator",
        name: "`__iter__` method returns a non-iterator",
        index: 11,
        hops: Hops::Multi,
        description:
            "The '__iter__' method returns a non-iterator which, if used in a 'for' loop, would raise a 'TypeError'.",
        codeql: "python/ql/src/Functions/IterReturnsNonIterator.ql",
    },
    find,
};

fn find(cx: &FileContext<'_>, polarity: Polarity) -> Vec<RawFinding> {
    let file = cx.file();
    let classes = cx.classes();
    let mut findings = Vec::new();
    for class in classes.all() {
        let Some(iter) = class.method("__iter__") else { continue };
        let Some(owner) = defining_class(classes, iter) else { continue };
        let receiver = crate::parameters::parameter_names(file, iter).into_iter().next().map(|(n, _)| n);
        let mut returned: Vec<ClassId> = Vec::new();
        for node in crate::methods::own_nodes(iter).into_iter().filter(|n| n.py_kind() == Kind::ReturnStatement) {
            let Some(value) = node.named_child(0).map(crate::ast::strip_parentheses) else { continue };
            let class = if value.py_kind() == Kind::Identifier && receiver.as_deref() == Some(file.node_text(value)) {
                Some(owner)
            } else if value.py_kind() == Kind::Call {
                cx.calls().resolve_class_call(value)
            } else {
                None
            };
            returned.extend(class.filter(|c| classes.is_fully_known(*c) && !returned.contains(c)));
        }
        for iterator in returned {
            if is_iterator(classes, iterator) == (polarity == Polarity::Positive) {
                continue;
            }
            let name = &classes.get(iterator).name;
            let message = if polarity == Polarity::Positive {
                format!("Class {name} is returned as an iterator but does not fully implement the iterator interface.")
            } else {
                format!("Class {name} is returned as an iterator and implements the iterator interface.")
            };
            let context = [cx.span(classes.get(iterator).node), cx.span(class.node)];
            findings.push(
                RawFinding::answer(cx.location(classes.get(iterator).node), message)
                    .with_facts([cx.location(iter)])
                    .with_context(context),
            );
        }
    }
    findings
}

/// Whether instances of the class implement the iterator interface, as
/// CodeQL's `isIterator`: `__iter__` and `__next__` (or Python 2's `next`).
fn is_iterator(classes: &Classes<'_>, id: ClassId) -> bool {
    let has = |name: &str| !matches!(classes.lookup(id, name), Lookup::Missing);
    has("__iter__") && (has("__next__") || has("next"))
}
