//! Q10 "Conflicting attributes in base classes": a class with several bases
//! where two bases provide different values for the same attribute, neither
//! overriding the other; which one wins depends on the base order, and the
//! other is silently ignored.
//!
//! ```python
//! class TCPServer:
//!     def accept(self, conn): ...      # supporting fact
//! class ThreadingMixin:
//!     def accept(self, conn): ...      # supporting fact
//! class ThreadedServer(ThreadingMixin, TCPServer):   # answer
//!     pass
//! ```
//!
//! As in CodeQL, special `__names__`, `process_request` (the standard
//! library's recommended mixin pattern), a first definition that calls
//! `super()` and a second one that does nothing are not conflicts, nor is a
//! name the class declares itself. Bases in other modules of the project
//! count through their summaries (their definitions are in another file,
//! so they are no supporting facts); bases quarry cannot see (imported
//! from outside the project) give no answer. The relevant blocks are the class's own block and all
//! blocks of its superclasses (Figure 1 of the paper: all three classes).
//! Negative form: classes with several bases, all visible, and no
//! conflicting attribute.

use quarry_syntax::Span;

use crate::classes::{ClassId, ClassRef, Classes, Lookup};

use crate::class_syntax::MemberKind;
use crate::context::FileContext;
use crate::finding::{Polarity, RawFinding};
use crate::methods::{calls_super, does_nothing};
use crate::project::ExternalClass;
use crate::query::{Hops, Query, QueryMeta};

/// The query.
pub static QUERY: Query = Query {
    meta: QueryMeta {
        id: "conflicting-attributes",
        name: "Conflicting attributes in base classes",
        index: 10,
        hops: Hops::Multi,
        description: "When a class subclasses multiple base classes and more than one base class defines the same attribute, attribute overriding may result in unexpected behavior by instances of this class.",
        codeql: "python/ql/src/Classes/ConflictingAttributesInBaseClasses.ql",
    },
    find,
};

/// Where one side of a conflict comes from.
#[derive(Clone, PartialEq)]
enum Source {
    Local(ClassId, usize),
    External(ExternalClass, usize),
    Builtin(&'static str),
}

fn find(cx: &FileContext<'_>, polarity: Polarity) -> Vec<RawFinding> {
    let classes = cx.classes();
    let mut findings = Vec::new();
    for (id, class) in crate::classes::ClassId::enumerate(classes.all()) {
        if class.bases.len() < 2 {
            continue;
        }
        let Some(conflicts) = conflicts(cx, classes, id) else { continue };
        let answer = cx.location(class.node);
        let context = supporting_context(cx, classes, id);
        match polarity {
            Polarity::Positive if !conflicts.is_empty() => {
                let mut facts: Vec<Span> = Vec::new();
                for (_, first, second) in &conflicts {
                    facts.extend([first, second].into_iter().filter_map(|s| source_span(cx, classes, s)));
                }
                facts.sort_by_key(|s| s.start_byte);
                facts.dedup();
                let names: Vec<&str> = conflicts.iter().map(|(n, _, _)| n.as_str()).collect();
                let message = format!("Base classes have conflicting values for attribute '{}'.", names.join("', '"));
                findings.push(RawFinding::new(vec![answer], facts, message).with_context(context));
            }
            Polarity::Negative if conflicts.is_empty() => {
                let message = "Base classes have no conflicting attributes.";
                findings.push(RawFinding::answer(answer, message).with_context(context));
            }
            _ => {}
        }
    }
    findings
}

/// The conflicting names of class `id` with the two definitions of each, or
/// `None` when a base is not visible.
fn conflicts<'f>(cx: &FileContext<'f>, classes: &Classes<'f>, id: ClassId) -> Option<Vec<(String, Source, Source)>> {
    let class = classes.get(id);
    if class.bases.iter().any(|b| matches!(b, ClassRef::Unknown(_))) || !classes.is_fully_known(id) {
        return None;
    }
    let mut names: Vec<String> = Vec::new();
    for entry in classes.mro(id).iter().skip(1) {
        match entry {
            ClassRef::Local(j) => names.extend(classes.get(*j).members.iter().map(|m| m.name.clone())),
            ClassRef::Builtin(b) => names.extend(
                crate::builtins::builtin_class(b).map(|c| c.declares).unwrap_or_default().iter().map(|s| s.to_string()),
            ),
            ClassRef::External(e) => names.extend(classes.external(*e)?.members.iter().map(|m| m.name.clone())),
            ClassRef::Unknown(_) => return None,
        }
    }
    names.sort();
    names.dedup();
    let mut found = Vec::new();
    for name in names {
        if (name.starts_with("__") && name.ends_with("__")) || name == "process_request" || class.declares(&name) {
            continue;
        }
        'pairs: for (i1, b1) in class.bases.iter().enumerate() {
            for b2 in &class.bases[i1 + 1..] {
                let (Some(o1), Some(o2)) = (source(classes, b1, &name), source(classes, b2, &name)) else { continue };
                if o1 == o2 || overrides(classes, &o1, &o2) || overrides(classes, &o2, &o1) {
                    continue;
                }
                if method_fact(cx, classes, &o1, |s| s.calls_super, |f| calls_super(cx.file(), f))
                    || method_fact(cx, classes, &o2, |s| s.does_nothing, does_nothing)
                {
                    continue;
                }
                found.push((name.clone(), o1, o2));
                break 'pairs;
            }
        }
    }
    Some(found)
}

fn source(classes: &Classes<'_>, base: &ClassRef, name: &str) -> Option<Source> {
    match classes.lookup_ref(base, name) {
        Lookup::Local(j, member) => {
            let index = classes.get(j).members.iter().position(|m| m.node.id() == member.node.id())?;
            Some(Source::Local(j, index))
        }
        Lookup::External(e, member) => {
            let index = classes.external(e)?.members.iter().rposition(|m| m.name == member.name)?;
            Some(Source::External(e, index))
        }
        Lookup::Builtin(b) => Some(Source::Builtin(b)),
        Lookup::Unknown | Lookup::Missing => None,
    }
}

/// Whether the definition `a` overrides `b`: its class derives from `b`'s.
fn overrides(classes: &Classes<'_>, a: &Source, b: &Source) -> bool {
    match (a, b) {
        (Source::Local(ja, _), Source::Local(jb, _)) => ja != jb && classes.is_subclass(*ja, *jb),
        (Source::Local(ja, _), Source::Builtin(name)) => classes.derives_from_builtin(*ja, name),
        (Source::Local(ja, _), Source::External(eb, _)) => classes.mro(*ja).contains(&ClassRef::External(*eb)),
        (Source::External(ea, _), Source::External(eb, _)) => {
            ea != eb && classes.mro_of(&ClassRef::External(*ea)).contains(&ClassRef::External(*eb))
        }
        (Source::External(ea, _), Source::Builtin(name)) => {
            classes.mro_of(&ClassRef::External(*ea)).contains(&ClassRef::Builtin(name))
        }
        // A class of another module cannot derive from one of this file.
        (Source::External(..), Source::Local(..)) | (Source::Builtin(_), _) => false,
    }
}

/// A fact about the method a source names: read from the tree for a method
/// of this file, from the summary for one of another module; false for
/// anything that is not a method.
fn method_fact<'f>(
    _cx: &FileContext<'f>,
    classes: &Classes<'f>,
    source: &Source,
    summarised: impl Fn(&crate::project::MethodSummary) -> bool,
    local: impl Fn(tree_sitter::Node<'f>) -> bool,
) -> bool {
    match source {
        Source::Local(j, i) => {
            let member = &classes.get(*j).members[*i];
            member.kind == MemberKind::Method && local(member.node)
        }
        Source::External(e, i) => {
            classes.external(*e).and_then(|c| c.members.get(*i)).and_then(|m| m.method.as_ref()).is_some_and(summarised)
        }
        Source::Builtin(_) => false,
    }
}

fn source_span(cx: &FileContext<'_>, classes: &Classes<'_>, source: &Source) -> Option<Span> {
    match source {
        Source::Local(j, i) => Some(cx.location(classes.get(*j).members[*i].node)),
        Source::External(..) | Source::Builtin(_) => None,
    }
}

/// The superclass code the query reasons over: every block of every
/// superclass of the file, as the query looks attributes up along the MRO.
fn supporting_context(cx: &FileContext<'_>, classes: &Classes<'_>, id: ClassId) -> Vec<Span> {
    classes.local_supers(id).into_iter().map(|s| cx.span(classes.get(s).node)).collect()
}
