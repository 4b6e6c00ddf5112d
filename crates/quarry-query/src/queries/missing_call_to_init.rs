//! Q2 "Missing call to `__init__` during object initialization": the
//! `__init__` that runs for a class never calls, directly or through the
//! `__init__` methods it calls, the `__init__` of one of its superclasses,
//! so instances may not be fully initialized.
//!
//! ```python
//! class Base:
//!     def __init__(self): self.ready = True     # supporting fact (missing)
//! class Derived(Base):                          # answer
//!     def __init__(self): self.extra = 1        # supporting fact (initializer)
//! ```
//!
//! As in CodeQL: calls through `Class.__init__`, `super(...)` (evaluated in
//! the MRO of the class at hand) and variables holding `super(...)` are
//! followed; superclass `__init__` methods that do nothing or never return,
//! builtin ones, abstract classes, classes with bases quarry cannot see,
//! and initializers making an `__init__` call quarry cannot resolve are
//! left out; a class is not blamed for a call its superclass already
//! misses, or may miss where quarry cannot follow that superclass's
//! calls. The `__init__` methods along the MRO are relevant. Negative
//! form: classes whose superclass `__init__` methods are all called.

use crate::syntax::{Field, Kind, SyntaxNode};
use std::collections::{BTreeSet, HashMap};

use tree_sitter::Node;

use crate::calls::{attribute_references, defining_class, resolve_reference, Reference, Target};
use crate::classes::{ClassId, Classes, MemberKind};
use crate::context::FileContext;
use crate::finding::{Polarity, RawFinding};
use crate::methods::only_raises;
use crate::registry::{Hops, Query, QueryMeta};

/// The query.
pub static QUERY: Query = Query {
    meta: QueryMeta {
        id: "missing-call-to-init",
        name: "Missing call to `__init__` during object initialization",
        index: 2,
        hops: Hops::Multi,
        description: "An omitted call to a super-class `__init__` method may lead to objects of this class not being fully initialized.",
        codeql: "python/ql/src/Classes/MissingCallToInit.ql",
    },
    find,
};

/// For one class: its initializer and the superclass `__init__` methods it
/// does not reach, or `None` when the class is out of scope.
struct Check<'f> {
    initializer: Node<'f>,
    missing: Vec<Node<'f>>,
}

fn find(cx: &FileContext<'_>, polarity: Polarity) -> Vec<RawFinding> {
    let classes = cx.classes();
    let mut references = References::new();
    let checks: Vec<Option<Check<'_>>> =
        (0..classes.all().len()).map(|id| check(cx, classes, id, &mut references)).collect();
    let mut findings = Vec::new();
    for (id, class) in classes.all().iter().enumerate() {
        let Some(check) = &checks[id] else { continue };
        let supers = classes.local_supers(id);
        let missing: Vec<Node<'_>> = check
            .missing
            .iter()
            .copied()
            .filter(|m| {
                // A superclass that misses `m` too takes the blame; one quarry
                // cannot decide (an `__init__` call it cannot follow) may.
                let owner = defining_class(classes, *m);
                !supers.iter().any(|s| match &checks[*s] {
                    Some(c) => c.missing.iter().any(|n| n.id() == m.id()),
                    None => owner.is_some_and(|o| classes.local_supers(*s).contains(&o)),
                })
            })
            .collect();
        let context: Vec<_> =
            supers.iter().filter_map(|s| classes.get(*s).method("__init__")).map(|m| cx.span(m)).collect();
        let answer = cx.location(class.node);
        match polarity {
            Polarity::Positive if !missing.is_empty() => {
                let mut facts: Vec<_> = missing.iter().map(|m| cx.location(*m)).collect();
                facts.push(cx.location(check.initializer));
                let message = format!(
                    "Class {} may not be initialized properly: a superclass __init__ is not called.",
                    class.name
                );
                findings.push(RawFinding::new(vec![answer], facts, message).with_context(context));
            }
            Polarity::Negative if check.missing.is_empty() && !context.is_empty() => {
                let message = format!("Class {} calls every superclass __init__.", class.name);
                findings.push(
                    RawFinding::answer(answer, message)
                        .with_facts([cx.location(check.initializer)])
                        .with_context(context),
                );
            }
            _ => {}
        }
    }
    findings
}

/// The `__init__` references of each function, classified once.
type References<'f> = HashMap<usize, Vec<(Node<'f>, Reference)>>;

fn references_of<'r, 'f>(
    cx: &FileContext<'f>,
    references: &'r mut References<'f>,
    defining: ClassId,
    function: Node<'f>,
) -> &'r [(Node<'f>, Reference)] {
    references.entry(function.id()).or_insert_with(|| attribute_references(cx, defining, function, "__init__"))
}

fn check<'f>(
    cx: &FileContext<'f>,
    classes: &Classes<'f>,
    id: ClassId,
    references: &mut References<'f>,
) -> Option<Check<'f>> {
    let file = cx.file();
    if !classes.is_fully_known(id) || is_abstract(file, classes, id) {
        return None;
    }
    let mro_classes: Vec<ClassId> = std::iter::once(id).chain(classes.local_supers(id)).collect();
    if mro_classes.iter().any(|c| classes.get(*c).declared("__init__").is_some_and(|m| m.kind != MemberKind::Method)) {
        return None;
    }
    let crate::classes::Lookup::Local(_, top) = classes.lookup(id, "__init__") else { return None };
    let initializer = top.node;
    let top_class = defining_class(classes, initializer)?;
    let top_references = references_of(cx, references, top_class, initializer);
    if top_references.iter().any(|(_, r)| resolve_reference(classes, id, *r, "__init__") == Target::Unknown) {
        return None;
    }
    let mut reached: BTreeSet<usize> = BTreeSet::from([initializer.id()]);
    let mut work = vec![(initializer, top_class)];
    while let Some((function, defining)) = work.pop() {
        for (_, reference) in references_of(cx, references, defining, function).to_vec() {
            if let Target::Function(Some(class), node) = resolve_reference(classes, id, reference, "__init__") {
                if reached.insert(node.id()) {
                    work.push((node, class));
                }
            }
        }
    }
    let missing = classes
        .local_supers(id)
        .into_iter()
        .filter_map(|s| classes.get(s).method("__init__"))
        .filter(|m| !reached.contains(&m.id()) && does_something(*m) && !only_raises(*m))
        .collect();
    Some(Check { initializer, missing })
}

/// Whether the function has a statement other than `pass`.
fn does_something(function: Node<'_>) -> bool {
    function
        .field(Field::Body)
        .is_some_and(|b| crate::ast::statements(b).iter().any(|s| s.py_kind() != Kind::PassStatement))
}

/// Whether the class or a superclass declares an abstract method or uses `ABCMeta`.
fn is_abstract(file: &quarry_syntax::ParsedFile, classes: &Classes<'_>, id: ClassId) -> bool {
    std::iter::once(id).chain(classes.local_supers(id)).any(|c| {
        let class = classes.get(c);
        class.metaclass.as_deref().is_some_and(|m| m.contains("ABCMeta"))
            || class.decorators.iter().any(|d| d.contains("ABCMeta"))
            || class.members.iter().any(|m| m.kind == MemberKind::Method && method_is_abstract(file, m.node))
    })
}

fn method_is_abstract(file: &quarry_syntax::ParsedFile, function: Node<'_>) -> bool {
    crate::ast::decorators(file, function).iter().any(|d| d.ends_with("abstractmethod"))
}
