//! Attachment hedges. A prepositional phrase after an object may hang from
//! the verb ("convert [a json job] [to the native object]") or from the
//! object's noun ("get [list of public ip blocks for a domain]"); parsers
//! disagree, and the answer changes with the choice. For the main
//! predicates the generator also asks with the other attachment, at a lower
//! rank than the parse's own reading:
//!
//! - [`merged`]: a verb-attached phrase or infinitive right after the
//!   object is read as part of the object;
//! - [`split`]: a phrase (not *of …*) or a *using …* clause that ends the
//!   object is read as the verb's own modifier.

use quarry_nlp::Doc;

use super::roles::{modifier_role_with, Arg, Predicate, Role, Tree};

/// Dependents that may belong to the object before them: phrases, and
/// infinitives ("the amount of time [to wait …]", "an apache site [to be
/// enabled]").
const MERGEABLE: [&str; 4] = ["prep", "xcomp", "advcl", "ccomp"];

/// The predicate with the verb-attached phrase that directly follows its
/// first object folded into that object.
pub fn merged(p: &Predicate) -> Option<Predicate> {
    let object = p.objects.first().filter(|o| o.dep == "dobj")?;
    let last = object.tokens.last()?;
    let next = |a: &Arg| a.tokens.first() == Some(last + 1) && MERGEABLE.contains(&a.dep.as_str());
    let arg = p.args.iter().chain(&p.objects[1..]).find(|a| next(a))?.clone();
    let mut q = p.clone();
    q.args.retain(|a| a.head != arg.head);
    q.objects.retain(|o| o.head != arg.head || o.dep == "dobj");
    let mut tokens = object.tokens.clone();
    tokens.extend(&arg.tokens);
    q.objects[0] = Arg { tokens, ..object.clone() };
    Some(q)
}

/// The predicate with the phrase that ends its first object made a
/// modifier of the verb.
pub fn split(doc: &Doc, p: &Predicate) -> Option<Predicate> {
    split_with(doc, &Tree::new(doc), p)
}

/// [`split`] with the doc's [`Tree`] already made, so that it takes time in
/// the object's children rather than the doc's length.
pub(crate) fn split_with(doc: &Doc, tree: &Tree, p: &Predicate) -> Option<Predicate> {
    let object = p.objects.first().filter(|o| o.dep == "dobj")?;
    let head = object.head;
    let last_child = tree.children(head).iter().copied().rfind(|&c| c > head)?;
    let t = &doc.tokens[last_child];
    let role = match t.dep.as_str() {
        "prep" if !t.text.eq_ignore_ascii_case("of") => modifier_role_with(doc, tree, last_child).unwrap_or(Role::Arg2),
        "acl" if t.tag == "VBG" && t.lemma == "use" => Role::Manner,
        _ => return None,
    };
    let tail = tree.subtree(last_child);
    let (start, end) = (tail.first()?, tail.last()?);
    let kept = object.tokens.before(start);
    if kept.is_empty() || object.tokens.any_after(end) {
        return None;
    }
    let mut q = p.clone();
    q.objects[0] = Arg { tokens: kept, ..object.clone() };
    q.args.push(Arg { role, tokens: tail, head: last_child, dep: t.dep.clone() });
    q.args.sort_by_key(|a| a.head);
    Some(q)
}
