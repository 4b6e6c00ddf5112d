//! Q9 "`__init__` method calls overridden method": an `__init__` calls
//! `self.method(...)` while a subclass overrides `method`; the override
//! then runs on a partially initialized instance.
//!
//! ```python
//! class Base:
//!     def __init__(self):
//!         self.setup()               # answer
//!     def setup(self): ...           # supporting fact (overridden)
//! class Derived(Base):
//!     def setup(self): ...           # supporting fact (overriding)
//! ```
//!
//! As in CodeQL, the method must be declared by the class whose `__init__`
//! makes the call, and the overriding methods are those declared by its
//! subclasses in the file. The `__init__`, both methods and the classes
//! linking them are relevant. Negative form: such calls in `__init__` to
//! methods no subclass overrides.

use crate::class_syntax::MemberKind;
use crate::context::FileContext;
use crate::finding::{Polarity, RawFinding};
use crate::query::{Hops, Query, QueryMeta};
use crate::relevance::linkage_context;
use crate::syntax::{Field, Kind, SyntaxNode};

/// The query.
pub static QUERY: Query = Query {
    meta: QueryMeta {
        id: "init-calls-subclass",
        name: "`__init__` method calls overridden method",
        index: 9,
        hops: Hops::Multi,
        description: "Calling a method from __init__ that is overridden by a subclass may result in a partially initialized instance being observed.",
        codeql: "python/ql/src/Classes/InitCallsSubclassMethod.ql",
    },
    find,
};

fn find(cx: &FileContext<'_>, polarity: Polarity) -> Vec<RawFinding> {
    let file = cx.file();
    let classes = cx.classes();
    let mut findings = Vec::new();
    for (id, class) in crate::classes::ClassId::enumerate(classes.all()) {
        let Some(init) = class.method("__init__") else { continue };
        let Some((receiver, _)) = crate::parameters::parameter_names(file, init).into_iter().next() else { continue };
        for call in crate::methods::own_nodes(init).into_iter().filter(|n| n.py_kind() == Kind::Call) {
            let Some(callee) = call.field(Field::Function).filter(|f| f.py_kind() == Kind::Attribute) else {
                continue;
            };
            let is_self = callee.field(Field::Object).is_some_and(|o| file.node_text(o) == receiver);
            let Some(name) = callee.field(Field::Attribute).map(|a| file.node_text(a)) else { continue };
            let Some(overridden) = class.declared(name).filter(|m| m.kind == MemberKind::Method) else { continue };
            if !is_self {
                continue;
            }
            let overriding: Vec<(crate::classes::ClassId, tree_sitter::Node<'_>)> = classes
                .ids()
                .filter(|&sub| sub != id && classes.is_subclass(sub, id))
                .filter_map(|sub| classes.get(sub).method(name).map(|m| (sub, m)))
                .collect();
            if overriding.is_empty() == (polarity == Polarity::Positive) {
                continue;
            }
            let mut facts = vec![cx.location(overridden.node)];
            facts.extend(overriding.iter().map(|(_, m)| cx.location(*m)));
            let mut context = vec![cx.span(init)];
            for (sub, _) in &overriding {
                context.extend(linkage_context(cx, *sub, id));
            }
            let message = if overriding.is_empty() {
                format!("Call to self.{name} in __init__ method; no subclass overrides it.")
            } else {
                format!("Call to self.{name} in __init__ method, which is overridden by a subclass.")
            };
            findings.push(RawFinding::new(vec![cx.location(call)], facts, message).with_context(context));
        }
    }
    findings
}
