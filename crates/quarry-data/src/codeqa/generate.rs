//! The generator: one comment to question–answer pairs.
//!
//! [`pairs_from_doc`] is a pure function of a parsed comment. [`generate`]
//! adds the flow around it: preprocess the comment, parse it, and when its
//! main clause has no subject ("Returns the value"), parse it again with
//! "the code" put before it (paper, Section 4.2) and generate from that.
//! [`generate_cancellable`] is [`generate`] that a caller on another thread can
//! stop (a Ctrl-C in Python): a long comment takes time in the product of its
//! predicates and its length.

use std::collections::HashSet;
use std::sync::atomic::{AtomicBool, Ordering};

use quarry_nlp::Doc;

use super::filters::keep_answer;
use super::pair::{Kind, Pair};
use super::preprocess::{comment_text, with_code_subject, with_it_subject};
use super::roles::{predicates, Predicate};
use super::variants::{merged, split};
use super::verb_group::verb_group;
use super::wh::{bare_object_question, modifier_questions, object_questions, subject_question, Clause};
use super::words::words;
use super::yesno::yes_no_question;

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
/// predicate: `None` when it stopped.
fn pairs_from_doc_cancellable(doc: &Doc, code_subject: bool, max: usize, cancel: &AtomicBool) -> Option<Vec<Pair>> {
    let preds = predicates(doc);
    let main = main_predicate(doc, &preds);
    let mut ranked: Vec<(usize, usize, Pair)> = Vec::new();
    for (k, p) in preds.iter().enumerate() {
        if cancel.load(Ordering::Relaxed) {
            return None;
        }
        let Some(subject) = &p.subject else { continue };
        let prefix = if code_subject { code_prefix_len(doc) } else { 0 };
        let is_code = prefix > 0 && subject.tokens == (0..prefix).collect::<Vec<_>>();
        let subject_words = if is_code { "the code".to_string() } else { words(doc, &subject.tokens) };
        if subject_words.is_empty() {
            continue;
        }
        let base = if Some(k) == main {
            0
        } else if main.is_some_and(|m| doc.tokens[p.verb].dep == "conj" && doc.tokens[p.verb].head == preds[m].verb) {
            10
        } else {
            20
        };
        let mut push = |rank: usize, pair: Pair| {
            let order = ranked.len();
            ranked.push((base + rank, order, pair));
        };
        let c = clause_of(doc, p, is_code, &subject_words);
        for q in object_questions(&c) {
            push(if q.rule == "what-dobj" { 0 } else { 4 }, q);
        }
        for q in modifier_questions(&c) {
            push(1, q);
        }
        if !is_code {
            push(5, subject_question(&c));
        }
        if let Some(q) = yes_no_question(&c) {
            push(6, q);
        }
        if base < 20 {
            for v in [merged(p), split(doc, p)].into_iter().flatten() {
                let cv = clause_of(doc, &v, is_code, &subject_words);
                for q in object_questions(&cv).into_iter().take(1) {
                    push(2, Pair { rule: format!("{}-reattached", q.rule), ..q });
                }
                for q in modifier_questions(&cv) {
                    push(3, Pair { rule: format!("{}-reattached", q.rule), ..q });
                }
            }
            if let Some(q) = bare_object_question(&c) {
                push(7, q);
            }
        }
    }
    ranked.sort_by_key(|(rank, order, _)| (*rank, *order));
    let mut seen = HashSet::new();
    let mut out = Vec::new();
    for (_, _, pair) in ranked {
        if out.len() >= max {
            break;
        }
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
