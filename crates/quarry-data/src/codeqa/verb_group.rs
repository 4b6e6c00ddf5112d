//! The verb group of a predicate as questions need it: the main auxiliary
//! (a modal or auxiliary of the sentence, or do-support), the other
//! auxiliaries, the verb, and the negation.
//!
//! Do-support follows the paper (Appendix A) and Syn-QG: *does* for a
//! present-tense singular subject, *do* otherwise, *did* for the past. When
//! the subject is the "the code" that preprocessing added, the verb was an
//! imperative or third-person form, so it is *did* for past forms (`VBD`,
//! `VBN`: "Set …" read as "the code set") and *does* otherwise, which is
//! what the released questions show (never "do the code").

use quarry_nlp::Doc;

use super::roles::Predicate;
use super::words::{join, word};

/// The words of a predicate's verb group.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VerbGroup {
    /// The word that opens a question: the first auxiliary or modal, the
    /// copula, or do/does/did.
    pub main_aux: String,
    /// The other auxiliaries ("be" in "will be called").
    pub secondary: String,
    /// The verb as wh-questions put it after the subject, with the negation
    /// ("not return").
    pub verb: String,
    /// The verb of a Yes/No question (no negation: it flips the answer).
    pub bool_verb: String,
    /// The finite verb group for questions about the subject ("returns",
    /// "will handle", "is containing").
    pub full: String,
    /// True when the verb is negated.
    pub negated: bool,
}

/// The verb group of `p`; `code_subject` when its subject is the added
/// "the code".
pub fn verb_group(doc: &Doc, p: &Predicate, code_subject: bool) -> VerbGroup {
    let v = p.verb;
    let form = word(doc, v);
    let neg = p.neg.map(|n| word(doc, n)).unwrap_or_default();
    let negated = p.neg.is_some();
    let aux: Vec<String> = p.aux.iter().map(|&a| word(doc, a)).collect();
    if let Some((first, rest)) = aux.split_first() {
        let secondary = rest.join(" ");
        let mut full = aux.clone();
        full.push(neg.clone());
        full.push(form.clone());
        return VerbGroup {
            main_aux: first.clone(),
            secondary,
            verb: join(&[&neg, &form]),
            bool_verb: form.clone(),
            full: join(&full.iter().map(String::as_str).collect::<Vec<_>>()),
            negated,
        };
    }
    if p.copula {
        return VerbGroup {
            main_aux: form.clone(),
            secondary: String::new(),
            verb: neg.clone(),
            bool_verb: String::new(),
            full: join(&[&form, &neg]),
            negated,
        };
    }
    let lemma = doc.tokens[v].lemma.to_lowercase();
    let lemma = if lemma.is_empty() { form.clone() } else { lemma };
    let main_aux = do_support(doc, v, code_subject).to_string();
    let full = if negated {
        join(&[&main_aux, &neg, &lemma])
    } else {
        match doc.tokens[v].tag.as_str() {
            "VBG" => join(&["is", &form]),
            "VB" | "VBP" => third_person(&lemma),
            _ => form.clone(),
        }
    };
    VerbGroup { main_aux, secondary: String::new(), verb: join(&[&neg, &lemma]), bool_verb: lemma, full, negated }
}

/// do, does or did for verb `v`.
fn do_support(doc: &Doc, v: usize, code_subject: bool) -> &'static str {
    let own = doc.tokens[v].tag.as_str();
    if code_subject {
        return if matches!(own, "VBD" | "VBN") { "did" } else { "does" };
    }
    let head = doc.tokens[v].head;
    let tag = if head != v && matches!(doc.tokens[head].pos.as_str(), "VERB" | "AUX") {
        doc.tokens[head].tag.as_str()
    } else {
        own
    };
    match tag {
        "VBZ" => "does",
        "VBD" | "VBN" => "did",
        _ => "do",
    }
}

/// The third-person singular present of a lemma ("return" → "returns").
pub fn third_person(lemma: &str) -> String {
    let irregular = match lemma {
        "be" => Some("is"),
        "have" => Some("has"),
        "do" => Some("does"),
        "go" => Some("goes"),
        _ => None,
    };
    if let Some(w) = irregular {
        return w.to_string();
    }
    let bytes = lemma.as_bytes();
    let n = bytes.len();
    if lemma.ends_with('s')
        || lemma.ends_with("sh")
        || lemma.ends_with("ch")
        || lemma.ends_with('x')
        || lemma.ends_with('z')
    {
        return format!("{lemma}es");
    }
    if n >= 2 && bytes[n - 1] == b'y' && !b"aeiou".contains(&bytes[n - 2]) {
        return format!("{}ies", &lemma[..n - 1]);
    }
    format!("{lemma}s")
}
