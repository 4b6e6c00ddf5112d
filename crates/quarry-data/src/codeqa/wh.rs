//! Wh-question rules (paper Table 2 and Appendix A, Algorithms 1 and 2, with
//! Syn-QG's templates):
//!
//! - object questions, one per object candidate (`dobj`, `xcomp`, `ccomp`,
//!   `attr`, `acomp`): *What* + main auxiliary + subject + other
//!   auxiliaries + verb + the remaining arguments;
//! - the subject question: *What* + finite verb group + object + remaining
//!   arguments, answered by the subject;
//! - one question per modifier: *When* (*Till when* for *until* answers),
//!   *Where*, *How*, *Why*, *For what purpose*, *By how much*, *In which
//!   direction* + main auxiliary + subject + verb + object + the rest.
//!
//! The remaining arguments follow Syn-QG's order: numbered arguments, then
//! modifiers in PropBank's label order (ADV, CAU, DIR, EXT, LOC, MNR, PNC,
//! TMP), each in document order.

use std::collections::HashSet;

use quarry_nlp::Doc;

use super::pair::{Kind, Pair};
use super::roles::{Arg, Predicate, Role};
use super::verb_group::VerbGroup;
use super::words::{question, words};

/// The parts of one predicate that every template uses.
pub struct Clause<'a> {
    /// The parsed comment.
    pub doc: &'a Doc,
    /// The predicate.
    pub pred: &'a Predicate,
    /// Its verb group.
    pub verb: VerbGroup,
    /// The subject's words.
    pub subject: String,
}

impl Clause<'_> {
    /// The arguments other than the subject and those headed by `skip`, in
    /// Syn-QG's order, as words.
    pub fn rest(&self, skip: &[usize]) -> String {
        let texts: Vec<String> = rest_args(self.pred, skip).iter().map(|a| words(self.doc, &a.tokens)).collect();
        super::words::join(&texts.iter().map(String::as_str).collect::<Vec<_>>())
    }

    /// The first object candidate.
    pub fn object(&self) -> Option<&Arg> {
        self.pred.objects.first()
    }
}

/// The arguments of `pred` that [`Clause::rest`] puts in a question: the
/// objects and other arguments not headed by `skip` nor by the subject's
/// head, the first of each head only, in Syn-QG's order.
fn rest_args<'p>(pred: &'p Predicate, skip: &[usize]) -> Vec<&'p Arg> {
    let subject = pred.subject.as_ref().map(|s| s.head);
    let mut heads = HashSet::new();
    let mut parts: Vec<&Arg> = Vec::new();
    for a in pred.objects.iter().chain(&pred.args) {
        if skip.contains(&a.head) || subject == Some(a.head) || !heads.insert(a.head) {
            continue;
        }
        parts.push(a);
    }
    parts.sort_by_key(|a| (a.role, a.head));
    parts
}

/// True when [`Clause::rest`] of `pred` with `skip` has words, without
/// making them: `worded[i]` tells whether token `i` has a word.
pub(crate) fn rest_has_words(pred: &Predicate, skip: &[usize], worded: &[bool]) -> bool {
    rest_args(pred, skip).iter().any(|a| a.tokens.iter().any(|i| worded.get(i).copied().unwrap_or(false)))
}

/// True when modifiers of `role` are asked about (see [`wh_word`]).
pub fn is_asked(role: Role) -> bool {
    !matches!(role, Role::Agent | Role::Patient | Role::Arg2 | Role::Adverbial)
}

/// The wh-word a modifier role asks with (`None` for roles never asked).
pub fn wh_word(role: Role, answer: &str) -> Option<&'static str> {
    Some(match role {
        Role::Temporal => {
            if answer.split_whitespace().any(|w| matches!(w, "until" | "till" | "untill")) {
                "Till when"
            } else {
                "When"
            }
        }
        Role::Location => "Where",
        Role::Manner => "How",
        Role::Cause => "Why",
        Role::Purpose => "For what purpose",
        Role::Extent => "By how much",
        Role::Direction => "In which direction",
        Role::Agent | Role::Patient | Role::Arg2 | Role::Adverbial => return None,
    })
}

/// Object questions: one per object candidate.
pub fn object_questions(c: &Clause) -> Vec<Pair> {
    c.pred.objects.iter().map(|o| object_question(c, o)).collect()
}

/// The question about object candidate `o` of the clause.
pub fn object_question(c: &Clause, o: &Arg) -> Pair {
    let v = &c.verb;
    Pair {
        question: question(&["What", &v.main_aux, &c.subject, &v.secondary, &v.verb, &c.rest(&[o.head])]),
        answer: words(c.doc, &o.tokens),
        kind: Kind::Wh,
        rule: format!("what-{}", o.dep),
    }
}

/// The object question without the other arguments ("What does the code
/// get ?"), when there are any: the authors' role labeller often left
/// phrases out that the dependency parse attaches to the verb.
pub fn bare_object_question(c: &Clause) -> Option<Pair> {
    let o = c.pred.objects.first().filter(|o| o.dep == "dobj")?;
    if c.rest(&[o.head]).is_empty() {
        return None;
    }
    let v = &c.verb;
    Some(Pair {
        question: question(&["What", &v.main_aux, &c.subject, &v.secondary, &v.verb]),
        answer: words(c.doc, &o.tokens),
        kind: Kind::Wh,
        rule: "what-dobj-bare".into(),
    })
}

/// The question about the subject.
pub fn subject_question(c: &Clause) -> Pair {
    let (object, skip) = match c.object() {
        Some(o) => (words(c.doc, &o.tokens), vec![o.head]),
        None => (String::new(), Vec::new()),
    };
    Pair {
        question: question(&["What", &c.verb.full, &object, &c.rest(&skip)]),
        answer: c.subject.clone(),
        kind: Kind::Wh,
        rule: "what-subject".into(),
    }
}

/// One question per modifier that has a wh-word.
pub fn modifier_questions(c: &Clause) -> Vec<Pair> {
    c.pred.args.iter().filter_map(|a| modifier_question(c, a)).collect()
}

/// The question about modifier `a` of the clause, when its role has a
/// wh-word.
pub fn modifier_question(c: &Clause, a: &Arg) -> Option<Pair> {
    let v = &c.verb;
    let answer = words(c.doc, &a.tokens);
    let wh = wh_word(a.role, &answer)?;
    let (object, mut skip) = match c.object() {
        Some(o) if o.head != a.head => (words(c.doc, &o.tokens), vec![o.head]),
        _ => (String::new(), Vec::new()),
    };
    skip.push(a.head);
    Some(Pair {
        question: question(&[wh, &v.main_aux, &c.subject, &v.secondary, &v.verb, &object, &c.rest(&skip)]),
        answer,
        kind: Kind::Wh,
        rule: format!("am-{}", role_name(a.role)),
    })
}

/// PropBank's short name of a modifier role.
pub fn role_name(role: Role) -> &'static str {
    match role {
        Role::Agent => "a0",
        Role::Patient => "a1",
        Role::Arg2 => "a2",
        Role::Adverbial => "adv",
        Role::Cause => "cau",
        Role::Direction => "dir",
        Role::Extent => "ext",
        Role::Location => "loc",
        Role::Manner => "mnr",
        Role::Purpose => "pnc",
        Role::Temporal => "tmp",
    }
}
