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
//! calls. Superclasses in other modules of the project count (through
//! their summaries): their `__init__` methods must be called too, and a
//! class is not blamed for a call such a superclass already misses; their
//! code is in another file, so they are not supporting facts. The
//! `__init__` methods along the MRO are relevant. Negative form: classes
//! whose superclass `__init__` methods are all called.

use std::collections::HashMap;

use tree_sitter::Node;

use crate::calls::{external_init_references, Reference};
use crate::class_syntax::MemberKind;
use crate::classes::{ClassId, ClassRef, Classes, Lookup};
use crate::context::FileContext;
use crate::finding::{Polarity, RawFinding};
use crate::methods::{does_something, only_raises};
use crate::project::ExternalClass;
use crate::query::{Hops, Query, QueryMeta};

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

/// An `__init__` method: of a class of the file, or of a class of another
/// module of the project (by its index among the class's members).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Init<'f> {
    Local(ClassId, Node<'f>),
    External(ExternalClass, usize),
}

/// For one class: its initializer and the superclass `__init__` methods it
/// does not reach.
struct Check<'f> {
    initializer: Init<'f>,
    missing: Vec<Init<'f>>,
}

fn find(cx: &FileContext<'_>, polarity: Polarity) -> Vec<RawFinding> {
    let classes = cx.classes();
    let mut references = References::new();
    let checks: Vec<Option<Check<'_>>> =
        classes.ids().map(|id| check_class(cx, classes, &ClassRef::Local(id), &mut references)).collect();
    let mut external_checks: HashMap<ExternalClass, Option<Check<'_>>> = HashMap::new();
    let mut findings = Vec::new();
    for (id, class) in crate::classes::ClassId::enumerate(classes.all()) {
        let Some(check) = &checks[id.index()] else { continue };
        let Init::Local(_, initializer) = check.initializer else { continue };
        let supers = classes.local_supers(id);
        for e in classes.external_supers(id) {
            if let std::collections::hash_map::Entry::Vacant(slot) = external_checks.entry(e) {
                slot.insert(check_class(cx, classes, &ClassRef::External(e), &mut references));
            }
        }
        // A superclass that misses `m` too takes the blame; one quarry cannot
        // decide (an `__init__` call it cannot follow) may, when `m` is above it.
        let missed_by_super = |m: &Init<'_>| {
            supers.iter().any(|s| match &checks[s.index()] {
                Some(c) => c.missing.contains(m),
                None => matches!(m, Init::Local(owner, _) if classes.local_supers(*s).contains(owner)),
            }) || classes
                .external_supers(id)
                .iter()
                .any(|e| external_checks.get(e).and_then(Option::as_ref).is_some_and(|c| c.missing.contains(m)))
        };
        let missing: Vec<Init<'_>> = check.missing.iter().copied().filter(|m| !missed_by_super(m)).collect();
        let context: Vec<_> =
            supers.iter().filter_map(|s| classes.get(*s).method("__init__")).map(|m| cx.span(m)).collect();
        let answer = cx.location(class.node);
        match polarity {
            Polarity::Positive if !missing.is_empty() => {
                let mut facts: Vec<_> = missing
                    .iter()
                    .filter_map(|m| match m {
                        Init::Local(_, node) => Some(cx.location(*node)),
                        Init::External(..) => None,
                    })
                    .collect();
                facts.push(cx.location(initializer));
                let message = format!(
                    "Class {} may not be initialized properly: a superclass __init__ is not called.",
                    class.name
                );
                findings.push(RawFinding::new(vec![answer], facts, message).with_context(context));
            }
            Polarity::Negative if check.missing.is_empty() && !context.is_empty() => {
                let message = format!("Class {} calls every superclass __init__.", class.name);
                findings.push(
                    RawFinding::answer(answer, message).with_facts([cx.location(initializer)]).with_context(context),
                );
            }
            _ => {}
        }
    }
    findings
}

/// The `__init__` references of each local function, classified once.
type References<'f> = HashMap<usize, Vec<Reference>>;

/// The `__init__` references an `__init__` method makes.
fn references_of<'f>(
    cx: &FileContext<'f>,
    classes: &Classes<'f>,
    references: &mut References<'f>,
    init: Init<'f>,
) -> Vec<Reference> {
    match init {
        Init::Local(defining, function) => references
            .entry(function.id())
            .or_insert_with(|| {
                cx.calls().attribute_references(defining, function, "__init__").into_iter().map(|(_, r)| r).collect()
            })
            .clone(),
        Init::External(class, index) => {
            let (Some(project), Some(summary)) = (classes.project(), classes.external(class)) else {
                return Vec::new();
            };
            match summary.members.get(index).and_then(|m| m.method.as_ref()) {
                Some(method) => external_init_references(project, class, method),
                None => Vec::new(),
            }
        }
    }
}

/// What a reference to `__init__` reaches for an instance whose MRO is
/// `mro`: `Err(())` when quarry cannot tell, `Ok(None)` for a builtin one.
fn resolve<'f>(classes: &Classes<'f>, mro: &[ClassRef], reference: Reference) -> Result<Option<Init<'f>>, ()> {
    let after = |entry: ClassRef| match mro.iter().position(|c| *c == entry) {
        Some(at) => classes.lookup_along(&mro[at + 1..], "__init__"),
        None => Lookup::Unknown,
    };
    let lookup = match reference {
        Reference::Receiver => classes.lookup_along(mro, "__init__"),
        Reference::Super(class) => after(ClassRef::Local(class)),
        Reference::SuperExternal(class) => after(ClassRef::External(class)),
        Reference::Class(class) => classes.lookup(class, "__init__"),
        Reference::External(class) => classes.lookup_ref(&ClassRef::External(class), "__init__"),
        Reference::Opaque => Lookup::Unknown,
    };
    init_of(classes, lookup).ok_or(())
}

/// The `__init__` a lookup found: `Some(None)` for a builtin one, `None`
/// when it is not a method quarry can see.
fn init_of<'f>(classes: &Classes<'f>, lookup: Lookup<'_, 'f>) -> Option<Option<Init<'f>>> {
    match lookup {
        Lookup::Local(class, member) if member.kind == MemberKind::Method => {
            Some(Some(Init::Local(class, member.node)))
        }
        Lookup::External(class, member) if member.kind == MemberKind::Method => {
            let index = classes.external(class)?.members.iter().rposition(|m| m.name == member.name)?;
            Some(Some(Init::External(class, index)))
        }
        Lookup::Builtin(_) => Some(None),
        _ => None,
    }
}

/// The check of one class (of this file or of another module), or `None`
/// when it is out of scope.
fn check_class<'f>(
    cx: &FileContext<'f>,
    classes: &Classes<'f>,
    class: &ClassRef,
    references: &mut References<'f>,
) -> Option<Check<'f>> {
    let mro = classes.mro_of(class);
    if mro.iter().any(|c| matches!(c, ClassRef::Unknown(_))) || is_abstract(cx, classes, &mro) {
        return None;
    }
    let declares_other = |entry: &ClassRef| match entry {
        ClassRef::Local(c) => classes.get(*c).declared("__init__").is_some_and(|m| m.kind != MemberKind::Method),
        ClassRef::External(e) => {
            classes.external(*e).and_then(|c| c.declared("__init__")).is_some_and(|m| m.kind != MemberKind::Method)
        }
        _ => false,
    };
    if mro.iter().any(declares_other) {
        return None;
    }
    let initializer = init_of(classes, classes.lookup_along(&mro, "__init__"))??;
    let top_references = references_of(cx, classes, references, initializer);
    if top_references.iter().any(|r| resolve(classes, &mro, *r).is_err()) {
        return None;
    }
    let mut reached = vec![initializer];
    let mut work = vec![initializer];
    while let Some(init) = work.pop() {
        for reference in references_of(cx, classes, references, init) {
            match resolve(classes, &mro, reference) {
                Ok(Some(target)) if !reached.contains(&target) => {
                    reached.push(target);
                    work.push(target);
                }
                // A summary keeps less than a tree: an `__init__` of another
                // module making a call quarry cannot follow leaves the class
                // out, as the initializer's own unresolved calls do.
                Err(()) if matches!(init, Init::External(..)) => return None,
                _ => {}
            }
        }
    }
    let mut missing = Vec::new();
    for entry in mro.iter().skip(1) {
        let init = match entry {
            ClassRef::Local(s) => classes
                .get(*s)
                .method("__init__")
                .filter(|m| does_something(*m) && !only_raises(*m))
                .map(|m| Init::Local(*s, m)),
            ClassRef::External(e) => classes.external(*e).and_then(|c| {
                let index = c.members.iter().rposition(|m| m.name == "__init__")?;
                let method = c.members[index].method.as_ref()?;
                (method.does_something && !method.only_raises).then_some(Init::External(*e, index))
            }),
            _ => None,
        };
        if let Some(init) = init.filter(|i| !reached.contains(i)) {
            missing.push(init);
        }
    }
    Some(Check { initializer, missing })
}

/// Whether a class of the MRO uses `ABCMeta` or declares an abstract method.
fn is_abstract(cx: &FileContext<'_>, classes: &Classes<'_>, mro: &[ClassRef]) -> bool {
    let abc = |metaclass: &Option<String>, decorators: &[String]| {
        metaclass.as_deref().is_some_and(|m| m.contains("ABCMeta")) || decorators.iter().any(|d| d.contains("ABCMeta"))
    };
    mro.iter().any(|entry| match entry {
        ClassRef::Local(c) => {
            let class = classes.get(*c);
            abc(&class.metaclass, &class.decorators)
                || class.members.iter().any(|m| m.kind == MemberKind::Method && method_is_abstract(cx.file(), m.node))
        }
        ClassRef::External(e) => classes.external(*e).is_some_and(|class| {
            abc(&class.metaclass, &class.decorators)
                || class
                    .members
                    .iter()
                    .filter_map(|m| m.method.as_ref())
                    .any(|m| m.decorators.iter().any(|d| d.ends_with("abstractmethod")))
        }),
        _ => false,
    })
}

fn method_is_abstract(file: &quarry_syntax::ParsedFile, function: Node<'_>) -> bool {
    crate::ast::decorators(file, function).iter().any(|d| d.ends_with("abstractmethod"))
}
