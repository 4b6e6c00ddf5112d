//! Yes/No questions (paper Section 4.3): one for every predicate with a
//! finite verb, in declarative order after the auxiliary (do-support when
//! the verb group has no auxiliary, modal or copula). The negation is not
//! carried into the question; it flips the answer to "No" ("windows don't
//! have a mode" → "Do windows have a mode ?" / "No").

use quarry_nlp::Doc;

use super::pair::{Kind, Pair};
use super::roles::Predicate;
use super::verb_group::VerbGroup;
use super::wh::Clause;
use super::words::{question, words};

/// The Yes/No question of a clause, or `None` when its verb is not finite.
pub fn yes_no_question(c: &Clause) -> Option<Pair> {
    if !has_yes_no_question(c.doc, c.pred, &c.verb) {
        return None;
    }
    // A complement clause opened by "that", "whether" or "if" stays out, as
    // in Syn-QG's ccomp template ("Does the code ensure ?").
    let (object, skip) = match c.object() {
        Some(o) if o.dep == "ccomp" && opens_with_mark(c, o.tokens.first()) => (String::new(), vec![o.head]),
        Some(o) => (words(c.doc, &o.tokens), vec![o.head]),
        None => (String::new(), Vec::new()),
    };
    let v = &c.verb;
    Some(Pair {
        question: question(&[&v.main_aux, &c.subject, &v.secondary, &v.bool_verb, &object, &c.rest(&skip)]),
        answer: if v.negated { "No" } else { "Yes" }.to_string(),
        kind: Kind::Yesno,
        rule: "yesno".into(),
    })
}

/// True when [`yes_no_question`] gives a question for predicate `pred` with
/// verb group `verb`: its verb is finite.
pub fn has_yes_no_question(doc: &Doc, pred: &Predicate, verb: &VerbGroup) -> bool {
    let Some(t) = doc.tokens.get(pred.verb) else { return false };
    let tag = t.tag.as_str();
    // Participles and gerunds without an auxiliary are not finite.
    if pred.aux.is_empty() && matches!(tag, "VBG" | "VBN") && verb.main_aux != "did" {
        return false;
    }
    !(pred.aux.is_empty() && tag == "VB" && t.dep == "xcomp")
}

/// True when token `first` is a complementiser ("that", "whether", "if").
fn opens_with_mark(c: &Clause, first: Option<usize>) -> bool {
    first.is_some_and(|i| {
        let t = &c.doc.tokens[i];
        t.dep == "mark" || matches!(t.text.to_lowercase().as_str(), "that" | "whether" | "if")
    })
}
