//! The generator: one comment to question–answer pairs.
//!
//! [`pairs_from_doc`] is a pure function of a parsed comment. [`generate`]
//! adds the flow around it: preprocess the comment, parse it, and when its
//! main clause has no subject ("Returns the value"), parse it again with
//! "the code" put before it (paper, Section 4.2) and generate from that.
//! [`generate_cancellable`] is [`generate`] that a caller on another thread can
//! stop (a Ctrl-C in Python): a long comment takes its parser, and the
//! generator, time in its length (the generator makes words only for the
//! pairs it keeps, see `tests/codeqa_scaling.rs`).

use std::collections::HashSet;
use std::sync::atomic::{AtomicBool, Ordering};

use quarry_nlp::Doc;

use super::filters::keep_answer;
use super::pair::{Kind, Pair};
use super::preprocess::{comment_text, with_code_subject, with_it_subject};
use super::roles::{predicates_with, Predicate, Tree};
use super::variants::{merged, split_with};
use super::verb_group::verb_group;
use super::wh::{
    bare_object_question, is_asked, modifier_question, object_question, rest_has_words, subject_question, Clause,
};
use super::words::{has_word, words};
use super::yesno::{has_yes_no_question, yes_no_question};

/// The most pairs kept per comment by default.
pub const DEFAULT_MAX_PAIRS: usize = 6;

/// Something that parses English text into a [`Doc`]: quarry-nlp's
/// pipeline, or stored parses.
pub trait CommentParser {
    /// Parses texts, one result per text, in order.
    fn parse_many(&mut self, texts: &[&str]) -> Vec<Result<Doc, String>>;
}

/// True when the comment's main clause has no subject ("Returns …",
/// "Get …", "Decorator which …"): then the text with "the code" is parsed
/// too, and [`reads_as_code_subject`] decides which parse is used.
pub fn lacks_subject(doc: &Doc) -> bool {
    let Some(first) = doc.sents().into_iter().next() else { return false };
    let Some(root) = first.clone().find(|&i| doc.is_root(i)) else { return false };
    !doc.children(root)
        .iter()
        .any(|&c| matches!(doc.tokens[c].dep.as_str(), "nsubj" | "nsubjpass" | "csubj" | "csubjpass" | "expl"))
}

/// True when the text with "the code" must be parsed too: the main clause
/// lacks a subject, or its subject starts with a capitalised verb form that
/// the parser read as a noun ("Returns the given HTML with …").
pub fn wants_code_subject(doc: &Doc) -> bool {
    if lacks_subject(doc) {
        return true;
    }
    let Some(t0) = doc.tokens.first() else { return false };
    let capital = t0.text.chars().next().is_some_and(char::is_uppercase);
    capital && matches!(t0.tag.as_str(), "VBZ" | "VB" | "VBP" | "NNS") && !doc.is_root(0)
}

/// True when a subjectless comment opens with a word the parser tagged as
/// a verb or a plural or proper noun ("Stores …" read as a noun), the
/// cases where "it …" is tried after "the code …" failed.
fn starts_like_a_verb(doc: &Doc) -> bool {
    lacks_subject(doc)
        && doc.tokens.first().is_some_and(|t| t.tag.starts_with("VB") || matches!(t.tag.as_str(), "NNS" | "NNP"))
}

/// True when, in the parse of "the code …", "code" is the subject of the
/// verb that follows it: the comment started with a verb, so the added
/// subject is kept. Otherwise ("the code decorator which …") the comment
/// started with a noun phrase and its own parse is used.
pub fn reads_as_code_subject(doc: &Doc) -> bool {
    let n = code_prefix_len(doc);
    n > 0
        && doc.len() > n
        && doc.tokens[n - 1].dep == "nsubj"
        && doc.tokens[n - 1].head == n
        && matches!(doc.tokens[n].pos.as_str(), "VERB" | "AUX")
}

/// The number of tokens of the added subject: 2 for "the code …", 1 for
/// "it …", 0 otherwise.
pub fn code_prefix_len(doc: &Doc) -> usize {
    let lower = |i: usize| doc.tokens.get(i).map(|t| t.text.to_lowercase()).unwrap_or_default();
    if lower(0) == "the" && lower(1) == "code" {
        2
    } else if lower(0) == "it" {
        1
    } else {
        0
    }
}

/// The pairs of a parsed comment, best first, at most `max`.
/// `code_subject`: the doc starts with the "the code" that preprocessing
/// added.
pub fn pairs_from_doc(doc: &Doc, code_subject: bool, max: usize) -> Vec<Pair> {
    pairs_from_doc_cancellable(doc, code_subject, max, &AtomicBool::new(false)).unwrap_or_default()
}

/// [`pairs_from_doc`] that stops once `cancel` is set, checked before each
/// predicate and each pair made: `None` when it stopped.
///
/// Every question a predicate allows is first a [`Candidate`], ranked
/// without its words; the words are made in rank order, only until `max`
/// pairs are kept. Making them all took time in the product of the
/// predicates and the comment's length: a run-on comment ("…; it returns
/// …; it returns …") nests each clause in the next, so every predicate's
/// arguments hold most of the comment.
fn pairs_from_doc_cancellable(doc: &Doc, code_subject: bool, max: usize, cancel: &AtomicBool) -> Option<Vec<Pair>> {
    let tree = Tree::new(doc);
    let preds = predicates_with(doc, &tree);
    let main = main_predicate(doc, &preds);
    let worded: Vec<bool> = (0..doc.len()).map(|i| has_word(doc, i)).collect();
    let prefix = if code_subject { code_prefix_len(doc) } else { 0 };
    let mut sources: Vec<Source> = Vec::new();
    let mut variants: Vec<Predicate> = Vec::new();
    let mut ranked: Vec<(usize, usize, Candidate)> = Vec::new();
    for (k, p) in preds.iter().enumerate() {
        if cancel.load(Ordering::Relaxed) {
            return None;
        }
        let Some(subject) = &p.subject else { continue };
        let is_code = prefix > 0 && subject.tokens.iter().eq(0..prefix);
        // The subject's words are made only for the pairs made (below).
        if !is_code && !subject.tokens.iter().any(|i| worded.get(i).copied().unwrap_or(false)) {
            continue;
        }
        let base = if Some(k) == main {
            0
        } else if main.is_some_and(|m| doc.tokens[p.verb].dep == "conj" && doc.tokens[p.verb].head == preds[m].verb) {
            10
        } else {
            20
        };
        let mut push = |rank: usize, candidate: Candidate| {
            let order = ranked.len();
            ranked.push((base + rank, order, candidate));
        };
        let clause = sources.len();
        sources.push(Source { pred: PredicateRef::Parsed(k), owner: k, is_code });
        for (j, o) in p.objects.iter().enumerate() {
            push(
                if o.dep == "dobj" { 0 } else { 4 },
                Candidate { clause, template: Template::Object(j), reattached: false },
            );
        }
        for (j, a) in p.args.iter().enumerate() {
            if is_asked(a.role) {
                push(1, Candidate { clause, template: Template::Modifier(j), reattached: false });
            }
        }
        if !is_code {
            push(5, Candidate { clause, template: Template::Subject, reattached: false });
        }
        if has_yes_no_question(doc, p, &verb_group(doc, p, is_code)) {
            push(6, Candidate { clause, template: Template::YesNo, reattached: false });
        }
        if base < 20 {
            for v in [merged(p), split_with(doc, &tree, p)].into_iter().flatten() {
                let clause = sources.len();
                sources.push(Source { pred: PredicateRef::Variant(variants.len()), owner: k, is_code });
                if !v.objects.is_empty() {
                    push(2, Candidate { clause, template: Template::Object(0), reattached: true });
                }
                for (j, a) in v.args.iter().enumerate() {
                    if is_asked(a.role) {
                        push(3, Candidate { clause, template: Template::Modifier(j), reattached: true });
                    }
                }
                variants.push(v);
            }
            if p.objects.first().is_some_and(|o| o.dep == "dobj" && rest_has_words(p, &[o.head], &worded)) {
                push(7, Candidate { clause, template: Template::BareObject, reattached: false });
            }
        }
    }
    ranked.sort_by_key(|(rank, order, _)| (*rank, *order));
    let mut clauses: Vec<Option<Clause>> = sources.iter().map(|_| None).collect();
    let mut seen = HashSet::new();
    let mut out = Vec::new();
    for (_, _, candidate) in ranked {
        if out.len() >= max {
            break;
        }
        if cancel.load(Ordering::Relaxed) {
            return None;
        }
        let Some(slot) = clauses.get_mut(candidate.clause) else { continue };
        let Some(source) = sources.get(candidate.clause) else { continue };
        if slot.is_none() {
            *slot = source.clause(doc, &preds, &variants);
        }
        let Some(pair) = slot.as_ref().and_then(|c| candidate.pair(c)) else { continue };
        if pair.kind == Kind::Wh && !keep_answer(&pair.answer) {
            continue;
        }
        // "What is ?": a question needs more than its wh-word and verb.
        if pair.question.split_whitespace().count() < 4 {
            continue;
        }
        if seen.insert((pair.question.clone(), pair.answer.clone())) {
            out.push(pair);
        }
    }
    Some(out)
}

/// A predicate that questions are asked about: one of the parse's, or an
/// attachment variant of one ([`merged`], [`split`](super::variants::split)).
#[derive(Debug, Clone, Copy)]
enum PredicateRef {
    /// The parse's predicate at this index.
    Parsed(usize),
    /// The variant at this index.
    Variant(usize),
}

/// What a [`Clause`] is made from.
#[derive(Debug, Clone, Copy)]
struct Source {
    /// The predicate.
    pred: PredicateRef,
    /// The parse's predicate whose subject it has.
    owner: usize,
    /// True when that subject is the added "the code".
    is_code: bool,
}

impl Source {
    /// The clause, with its subject's words (`None` only for an index out
    /// of range, which the callers never give).
    fn clause<'a>(&self, doc: &'a Doc, preds: &'a [Predicate], variants: &'a [Predicate]) -> Option<Clause<'a>> {
        let pred = match self.pred {
            PredicateRef::Parsed(k) => preds.get(k)?,
            PredicateRef::Variant(k) => variants.get(k)?,
        };
        let subject = preds.get(self.owner)?.subject.as_ref()?;
        let subject = if self.is_code { "the code".to_string() } else { words(doc, &subject.tokens) };
        Some(clause_of(doc, pred, self.is_code, &subject))
    }
}

/// The template of a candidate pair.
#[derive(Debug, Clone, Copy)]
enum Template {
    /// [`object_question`] about the object at this index.
    Object(usize),
    /// [`modifier_question`] about the argument at this index.
    Modifier(usize),
    /// [`subject_question`].
    Subject,
    /// [`yes_no_question`].
    YesNo,
    /// [`bare_object_question`].
    BareObject,
}

/// A pair not made yet: its clause (an index into the sources) and
/// template.
#[derive(Debug, Clone, Copy)]
struct Candidate {
    /// The index of its clause's [`Source`].
    clause: usize,
    /// Its template.
    template: Template,
    /// True for a question about an attachment variant: its rule is marked
    /// `-reattached`.
    reattached: bool,
}

impl Candidate {
    /// The pair, made from clause `c`.
    fn pair(&self, c: &Clause) -> Option<Pair> {
        let pair = match self.template {
            Template::Object(j) => object_question(c, c.pred.objects.get(j)?),
            Template::Modifier(j) => modifier_question(c, c.pred.args.get(j)?)?,
            Template::Subject => subject_question(c),
            Template::YesNo => yes_no_question(c)?,
            Template::BareObject => bare_object_question(c)?,
        };
        Some(if self.reattached { Pair { rule: format!("{}-reattached", pair.rule), ..pair } } else { pair })
    }
}

/// The template inputs of a predicate.
fn clause_of<'a>(doc: &'a Doc, pred: &'a Predicate, is_code: bool, subject: &str) -> Clause<'a> {
    Clause { doc, pred, verb: verb_group(doc, pred, is_code), subject: subject.to_string() }
}

/// The predicate of the main clause: the root verb of the first sentence,
/// or the first predicate.
fn main_predicate(doc: &Doc, preds: &[Predicate]) -> Option<usize> {
    preds.iter().position(|p| doc.is_root(p.verb)).or(if preds.is_empty() { None } else { Some(0) })
}

/// The outcome for one comment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// The pairs (possibly none).
    Pairs(Vec<Pair>),
    /// The parser failed on the comment's text.
    ParseError(String),
}

/// Pairs for many comments, parsing in batches: first every comment's
/// text, then, for those without a subject, the text with "the code".
pub fn generate(comments: &[&str], parser: &mut dyn CommentParser, max: usize) -> Vec<Outcome> {
    generate_cancellable(comments, parser, max, &AtomicBool::new(false)).unwrap_or_default()
}

/// [`generate`] that stops once `cancel` is set (by any thread), checked between
/// the parses and before each predicate of each comment: `None` when it stopped,
/// else the same outcomes.
pub fn generate_cancellable(
    comments: &[&str],
    parser: &mut dyn CommentParser,
    max: usize,
    cancel: &AtomicBool,
) -> Option<Vec<Outcome>> {
    let cancelled = || cancel.load(Ordering::Relaxed);
    let texts: Vec<Option<String>> = comments.iter().map(|c| comment_text(c)).collect();
    let first: Vec<&str> = texts.iter().flatten().map(String::as_str).collect();
    let mut parsed = parser.parse_many(&first).into_iter();
    let mut docs: Vec<Option<Result<Doc, String>>> = texts
        .iter()
        .map(|t| t.as_ref().map(|_| parsed.next().unwrap_or_else(|| Err("parser returned too few docs".into()))))
        .collect();
    let mut second_idx = Vec::new();
    let mut second_texts = Vec::new();
    for (i, d) in docs.iter().enumerate() {
        if let (Some(Ok(doc)), Some(text)) = (d, &texts[i]) {
            if wants_code_subject(doc) {
                second_idx.push(i);
                second_texts.push(with_code_subject(text));
            }
        }
    }
    if cancelled() {
        return None;
    }
    let refs: Vec<&str> = second_texts.iter().map(String::as_str).collect();
    let mut coded = vec![false; comments.len()];
    let mut third_idx = Vec::new();
    let mut third_texts = Vec::new();
    for (i, d) in second_idx.into_iter().zip(parser.parse_many(&refs)) {
        match d {
            Ok(doc) if reads_as_code_subject(&doc) => {
                docs[i] = Some(Ok(doc));
                coded[i] = true;
            }
            Ok(_) => {
                let raw = docs[i].as_ref().and_then(|d| d.as_ref().ok());
                if let (Some(text), true) = (&texts[i], raw.is_some_and(starts_like_a_verb)) {
                    third_idx.push(i);
                    third_texts.push(with_it_subject(text));
                }
            }
            Err(e) => docs[i] = Some(Err(e)),
        }
    }
    if cancelled() {
        return None;
    }
    let refs: Vec<&str> = third_texts.iter().map(String::as_str).collect();
    for (i, d) in third_idx.into_iter().zip(parser.parse_many(&refs)) {
        match d {
            Ok(doc) if reads_as_code_subject(&doc) => {
                docs[i] = Some(Ok(doc));
                coded[i] = true;
            }
            Ok(_) => {}
            Err(e) => docs[i] = Some(Err(e)),
        }
    }
    if cancelled() {
        return None;
    }
    docs.into_iter()
        .zip(coded)
        .map(|(d, coded)| match d {
            None => Some(Outcome::Pairs(Vec::new())),
            Some(Ok(doc)) => pairs_from_doc_cancellable(&doc, coded, max, cancel).map(Outcome::Pairs),
            Some(Err(e)) => Some(Outcome::ParseError(e)),
        })
        .collect()
}

/// The texts [`generate`] may parse for a comment: its text, the text with
/// "the code" and the text with "it" (for making stored parses with another
/// parser).
pub fn texts_to_parse(comment: &str) -> Vec<String> {
    match comment_text(comment) {
        Some(t) => {
            let coded = with_code_subject(&t);
            let it = with_it_subject(&t);
            vec![t, coded, it]
        }
        None => Vec::new(),
    }
}
