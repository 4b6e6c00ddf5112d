//! Predicate–argument structure from a dependency parse.
//!
//! CodeQA's generator reads PropBank roles from an SRL model (paper,
//! Appendix A); quarry's parser gives spaCy's ClearNLP dependencies, so the
//! roles are derived from the labels of each verb's dependents:
//!
//! | dependent of the verb | role |
//! | --- | --- |
//! | `nsubj`, `csubj`; for `relcl`/`acl` verbs the modified noun phrase; for `conj` verbs the subject of the first conjunct | A0 (subject) |
//! | `nsubjpass`, `csubjpass`; `attr` after expletive `there` | A1 in subject position |
//! | `dobj`; else `ccomp`, `xcomp`, infinitival `advcl`; `attr`/`acomp` of a copula | A1 (object) |
//! | `dative`, `agent`, `oprd`, `prep` not listed below | A2 |
//! | `prep` *in, on, at, within, inside, across, throughout, under, among*; `advcl` marked *where* | AM-LOC (Where) |
//! | `prep` *with, by, via, through, without, according*; `advcl` *using …*; `advmod` ending in *-ly* | AM-MNR (How) |
//! | `prep` *for*; `advcl`/`xcomp` infinitive *to …* after an object; `advcl` marked *so that*, *in order* | AM-PNC (For what purpose) |
//! | `prep` *before, after, during, until, till, upon*; `advcl` marked or led by *when, while, before, after, until, till, once, whenever*; `advmod` *always, never, then, now, once, already, often* | AM-TMP (When / Till when) |
//! | `prep` *because, due*; `advcl` marked *because, since, as* | AM-CAU (Why) |
//! | other `advcl` (*if …*), `advmod`, `npadvmod` | AM-ADV (kept in the question, never asked) |
//! | `neg` | AM-NEG (flips the Yes/No answer) |
//! | `aux`, `auxpass` (not infinitival *to*) | modals and auxiliaries of the verb group |
//! | `prt` | dropped (*look up* → *look*, as in the authors' output) |
//!
//! When a verb has no subject, its first numbered argument takes the subject
//! slot and the next one the object slot, as Syn-QG's `getSubject` does.

use std::sync::Arc;

use quarry_nlp::Doc;

use super::tokens::Tokens;

/// A semantic role, ordered as Syn-QG orders the extra fields of a question:
/// numbered arguments first, then modifiers in PropBank's label order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Role {
    /// A0: the agent.
    Agent,
    /// A1: the patient or theme.
    Patient,
    /// A2: instrument, benefactive, attribute, start or end point.
    Arg2,
    /// AM-ADV: other adverbials (conditions, ...).
    Adverbial,
    /// AM-CAU: cause.
    Cause,
    /// AM-DIR: direction.
    Direction,
    /// AM-EXT: extent.
    Extent,
    /// AM-LOC: location.
    Location,
    /// AM-MNR: manner.
    Manner,
    /// AM-PNC/AM-PRP: purpose.
    Purpose,
    /// AM-TMP: time.
    Temporal,
}

impl Role {
    /// True for the numbered arguments (A0, A1, A2).
    pub fn is_numbered(self) -> bool {
        matches!(self, Role::Agent | Role::Patient | Role::Arg2)
    }
}

/// One argument of a predicate.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Arg {
    /// Its role.
    pub role: Role,
    /// Its tokens in document order (not always contiguous: a noun phrase
    /// that a relative clause modifies leaves the clause out).
    pub tokens: Tokens,
    /// The token the argument hangs from (its head word).
    pub head: usize,
    /// The dependency label that linked it to the verb.
    pub dep: String,
}

/// A verb with its verb group and arguments.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Predicate {
    /// The verb token.
    pub verb: usize,
    /// Auxiliaries and modals of the verb, in order.
    pub aux: Vec<usize>,
    /// The negation token, if any.
    pub neg: Option<usize>,
    /// True when the verb is a copula ("is") with no auxiliary.
    pub copula: bool,
    /// The subject (A0, or the first numbered argument when there is none).
    pub subject: Option<Arg>,
    /// Object candidates that wh-questions ask about: `dobj`, `xcomp`,
    /// `ccomp`, `attr`, `acomp` and purpose infinitives (`advcl` *to …*),
    /// the `dobj` first, then in document order (the first is A1).
    pub objects: Vec<Arg>,
    /// The other arguments (A2 and modifiers), in document order.
    pub args: Vec<Arg>,
}

/// Auxiliary verbs that form a verb group (Syn-QG's list).
const AUX_WORDS: [&str; 22] = [
    "is", "have", "has", "were", "was", "be", "did", "do", "does", "am", "had", "are", "will", "would", "should",
    "shall", "can", "could", "may", "might", "being", "been",
];

/// Labels whose verb is not a predicate of its own.
const NOT_PREDICATE: [&str; 6] = ["aux", "auxpass", "amod", "compound", "nmod", "case"];

/// How deep subject inheritance through `conj` chains may go.
const MAX_DEPTH: usize = 8;

/// Every predicate of the doc, in document order.
pub fn predicates(doc: &Doc) -> Vec<Predicate> {
    predicates_with(doc, &Tree::new(doc))
}

/// [`predicates`] with the doc's [`Tree`] already made.
pub(crate) fn predicates_with(doc: &Doc, tree: &Tree) -> Vec<Predicate> {
    (0..doc.len()).filter(|&i| is_predicate(doc, i)).map(|v| predicate(doc, tree, v)).collect()
}

/// Children of every token, computed once.
fn children_of(doc: &Doc) -> Vec<Vec<usize>> {
    let mut out = vec![Vec::new(); doc.len()];
    for (i, t) in doc.tokens.iter().enumerate() {
        if t.head != i && t.head < doc.len() {
            out[t.head].push(i);
        }
    }
    out
}

/// The doc's dependency tree as the roles read it: each token's children
/// and, for every token a root reaches, where its subtree lies, so that a
/// subtree is taken in constant time ([`Tokens`] lists it when read).
pub(crate) struct Tree {
    children: Vec<Vec<usize>>,
    /// The tokens in an in-order walk from each root (left children, the
    /// token, right children): every subtree is one stretch of it, and a
    /// projective subtree's stretch is in document order.
    walk: Arc<[usize]>,
    spans: Vec<Option<Span>>,
}

/// Where a subtree lies.
#[derive(Debug, Clone, Copy)]
struct Span {
    /// Its least and greatest token.
    first: usize,
    last: usize,
    /// Its number of tokens.
    size: usize,
    /// Its stretch of the walk.
    start: usize,
    end: usize,
}

impl Tree {
    /// The tree of `doc`, in time linear in its length.
    pub(crate) fn new(doc: &Doc) -> Tree {
        let children = children_of(doc);
        let n = doc.len();
        let mut walk = Vec::with_capacity(n);
        let mut spans: Vec<Option<Span>> = vec![None; n];
        for root in (0..n).filter(|&i| doc.tokens[i].head == i) {
            // (token, its next child, its stretch's start, emitted).
            let mut stack = vec![(root, 0, walk.len(), false)];
            while let Some(frame) = stack.last_mut() {
                let (t, next, start, emitted) = *frame;
                let kids = &children[t];
                if !emitted && kids.get(next).is_none_or(|&c| c > t) {
                    walk.push(t);
                    frame.3 = true;
                } else if let Some(&c) = kids.get(next) {
                    frame.1 += 1;
                    stack.push((c, 0, walk.len(), false));
                } else {
                    stack.pop();
                    let mut span = Span { first: t, last: t, size: 1, start, end: walk.len() };
                    for s in kids.iter().filter_map(|&c| spans[c]) {
                        span.first = span.first.min(s.first);
                        span.last = span.last.max(s.last);
                        span.size += s.size;
                    }
                    spans[t] = Some(span);
                }
            }
        }
        Tree { children, walk: walk.into(), spans }
    }

    /// The children of token `i`, in order.
    pub(crate) fn children(&self, i: usize) -> &[usize] {
        self.children.get(i).map_or(&[], Vec::as_slice)
    }

    /// Token `i` and all it dominates, in order.
    pub(crate) fn subtree(&self, i: usize) -> Tokens {
        match self.spans.get(i).copied().flatten() {
            Some(s) if s.last + 1 - s.first == s.size => Tokens::range(s.first..s.last + 1),
            Some(s) => Tokens::walk(self.walk.clone(), s.start..s.end, s.first, s.last),
            // No root reaches `i` (a cycle, or a head outside the doc): walk it now.
            None => Tokens::from(subtree(&self.children, i)),
        }
    }
}

/// True when token `i` heads a clause of its own.
fn is_predicate(doc: &Doc, i: usize) -> bool {
    let t = &doc.tokens[i];
    if NOT_PREDICATE.contains(&t.dep.as_str()) {
        return false;
    }
    if t.tag.starts_with("VB") && t.pos != "AUX" {
        return true;
    }
    // A copula heading its clause ("there is a value", "x is missing").
    t.pos == "AUX" && t.lemma == "be" && !matches!(t.dep.as_str(), "aux" | "auxpass")
}

fn predicate(doc: &Doc, tree: &Tree, v: usize) -> Predicate {
    let mut aux = Vec::new();
    let mut neg = None;
    let mut subject = None;
    let mut objects = Vec::new();
    let mut args = Vec::new();
    let mut expletive = false;
    for &c in tree.children(v) {
        let t = &doc.tokens[c];
        let lower = t.text.to_lowercase();
        match t.dep.as_str() {
            "aux" | "auxpass" if c < v && t.tag != "TO" && (t.tag == "MD" || AUX_WORDS.contains(&lower.as_str())) => {
                aux.push(c)
            }
            "neg" => neg = Some(c),
            "nsubj" | "csubj" => subject = Some(arg(doc, Role::Agent, c, subject_tokens(doc, tree, v, c))),
            "nsubjpass" | "csubjpass" => subject = Some(arg(doc, Role::Patient, c, tree.subtree(c))),
            "expl" => expletive = true,
            "dobj" | "ccomp" | "xcomp" | "acomp" | "attr" => {
                objects.push(arg(doc, Role::Patient, c, tree.subtree(c)));
            }
            "dative" | "agent" | "oprd" => args.push(arg(doc, Role::Arg2, c, tree.subtree(c))),
            "prep" => args.push(arg(doc, prep_role(doc, tree, c), c, tree.subtree(c))),
            "advcl" => {
                let role = clause_role(doc, tree, c);
                // A purpose infinitive is also what the verb is for
                // ("prepare a string to make it printable").
                if role == Role::Purpose && is_infinitive(doc, tree, c) {
                    objects.push(arg(doc, Role::Patient, c, tree.subtree(c)));
                }
                args.push(arg(doc, role, c, tree.subtree(c)));
            }
            "advmod" | "npadvmod" => {
                if let Some(role) = advmod_role(doc, c) {
                    args.push(arg(doc, role, c, tree.subtree(c)));
                }
            }
            _ => {}
        }
    }
    // "there is a value": the attribute is the subject.
    if expletive && subject.is_none() {
        if let Some(pos) = objects.iter().position(|o| o.dep == "attr") {
            subject = Some(objects.remove(pos));
        }
    }
    // A clausal object that comes after a direct object is a purpose when
    // it is an infinitive ("prepare a string to make it printable"); it stays
    // an object candidate too.
    let has_dobj = objects.iter().any(|o| o.dep == "dobj");
    for o in &objects {
        if has_dobj && o.dep == "xcomp" && is_infinitive(doc, tree, o.head) {
            args.push(Arg { role: Role::Purpose, ..o.clone() });
        }
    }
    if subject.is_none() {
        subject = inherited_subject(doc, tree, v, 0);
    }
    objects.sort_by_key(|o| (o.dep != "dobj", o.head));
    args.sort_by_key(|a| a.head);
    // No subject: the first numbered argument takes its slot (Syn-QG's
    // getSubject), and the next one becomes the object.
    if subject.is_none() && objects.first().is_some_and(|o| o.dep == "dobj") {
        subject = Some(objects.remove(0));
        if objects.is_empty() {
            if let Some(pos) = args.iter().position(|a| a.role == Role::Arg2) {
                objects.push(args.remove(pos));
            }
        }
    }
    let copula = doc.tokens[v].lemma == "be" && aux.is_empty();
    Predicate { verb: v, aux, neg, copula, subject, objects, args }
}

fn arg(doc: &Doc, role: Role, head: usize, tokens: Tokens) -> Arg {
    Arg { role, tokens, head, dep: doc.tokens[head].dep.clone() }
}

/// Token `i` and all it dominates, in order (iterative, so deep trees cannot
/// overflow the stack).
pub(crate) fn subtree(children: &[Vec<usize>], i: usize) -> Vec<usize> {
    let mut out = vec![i];
    let mut stack = vec![i];
    let mut seen = vec![false; children.len()];
    seen[i] = true;
    while let Some(n) = stack.pop() {
        for &c in &children[n] {
            if !seen[c] {
                seen[c] = true;
                out.push(c);
                stack.push(c);
            }
        }
    }
    out.sort_unstable();
    out
}

/// The subject's tokens; a relative pronoun stands for the noun phrase the
/// clause modifies ("Decorator which causes ..." → "Decorator").
fn subject_tokens(doc: &Doc, tree: &Tree, v: usize, s: usize) -> Tokens {
    let t = &doc.tokens[s];
    let relative = matches!(t.tag.as_str(), "WDT" | "WP") || t.text.eq_ignore_ascii_case("that");
    if relative && doc.tokens[v].dep == "relcl" {
        if let Some(tokens) = antecedent(doc, tree, v) {
            return tokens;
        }
    }
    tree.subtree(s)
}

/// The noun phrase that a `relcl`/`acl` verb modifies, without the clause.
fn antecedent(doc: &Doc, tree: &Tree, v: usize) -> Option<Tokens> {
    let noun = doc.tokens[v].head;
    if noun == v {
        return None;
    }
    let start = tree.subtree(v).first().unwrap_or(v);
    let mut tokens = tree.subtree(noun).before(start);
    while tokens.last().is_some_and(|t| matches!(doc.tokens[t].dep.as_str(), "punct" | "cc")) {
        tokens.pop();
    }
    (!tokens.is_empty()).then_some(tokens)
}

/// A subject taken from the context: the first conjunct's subject for
/// `conj` verbs, the modified noun phrase for `relcl`/`acl` verbs.
fn inherited_subject(doc: &Doc, tree: &Tree, v: usize, depth: usize) -> Option<Arg> {
    if depth > MAX_DEPTH {
        return None;
    }
    let t = &doc.tokens[v];
    match t.dep.as_str() {
        "conj" if t.head != v => {
            let h = t.head;
            for &c in tree.children(h) {
                match doc.tokens[c].dep.as_str() {
                    "nsubj" | "csubj" => return Some(arg(doc, Role::Agent, c, subject_tokens(doc, tree, h, c))),
                    "nsubjpass" | "csubjpass" => return Some(arg(doc, Role::Patient, c, tree.subtree(c))),
                    _ => {}
                }
            }
            inherited_subject(doc, tree, h, depth + 1)
        }
        "relcl" | "acl" => {
            antecedent(doc, tree, v).map(|tokens| Arg { role: Role::Agent, head: t.head, dep: t.dep.clone(), tokens })
        }
        _ => None,
    }
}

/// True when verb `v` is a `to`-infinitive.
fn is_infinitive(doc: &Doc, tree: &Tree, v: usize) -> bool {
    tree.children(v).iter().any(|&c| doc.tokens[c].tag == "TO" && c < v)
}

/// Token `i` and all it dominates, in order.
pub fn subtree_of(doc: &Doc, i: usize) -> Vec<usize> {
    subtree(&children_of(doc), i)
}

/// The role that prepositional phrase or adverbial clause `i` would have
/// if it hung from a verb (`None` for other tokens).
pub fn modifier_role(doc: &Doc, i: usize) -> Option<Role> {
    modifier_role_with(doc, &Tree::new(doc), i)
}

/// [`modifier_role`] with the doc's [`Tree`] already made.
pub(crate) fn modifier_role_with(doc: &Doc, tree: &Tree, i: usize) -> Option<Role> {
    match doc.tokens[i].dep.as_str() {
        "prep" => Some(prep_role(doc, tree, i)),
        "advcl" | "acl" => Some(clause_role(doc, tree, i)),
        _ => None,
    }
}

/// The role of a prepositional phrase attached to a verb.
fn prep_role(doc: &Doc, tree: &Tree, p: usize) -> Role {
    let word = doc.tokens[p].text.to_lowercase();
    match word.as_str() {
        "for" => Role::Purpose,
        "with" | "by" | "via" | "through" | "without" | "according" | "using" => Role::Manner,
        "in" | "on" | "at" | "within" | "inside" | "across" | "throughout" | "under" | "among" => {
            // "in order to" is a purpose.
            if word == "in" && tree.children(p).iter().any(|&c| doc.tokens[c].text.eq_ignore_ascii_case("order")) {
                Role::Purpose
            } else {
                Role::Location
            }
        }
        "before" | "after" | "during" | "until" | "till" | "upon" => Role::Temporal,
        "because" | "due" => Role::Cause,
        _ => Role::Arg2,
    }
}

/// The role of an adverbial clause, from its marker or its form.
fn clause_role(doc: &Doc, tree: &Tree, v: usize) -> Role {
    for &c in tree.children(v) {
        let t = &doc.tokens[c];
        if c > v || !matches!(t.dep.as_str(), "mark" | "advmod") {
            continue;
        }
        match t.text.to_lowercase().as_str() {
            "when" | "while" | "before" | "after" | "until" | "till" | "once" | "whenever" => return Role::Temporal,
            "because" | "since" | "as" => return Role::Cause,
            "where" | "wherever" => return Role::Location,
            "so" => return Role::Purpose,
            "if" | "unless" | "whether" | "though" | "although" => return Role::Adverbial,
            _ => {}
        }
    }
    if is_infinitive(doc, tree, v) {
        return Role::Purpose;
    }
    if doc.tokens[v].tag == "VBG" && doc.tokens[v].lemma == "use" {
        return Role::Manner;
    }
    Role::Adverbial
}

/// The role of an adverb attached to a verb (`None` for discourse words such
/// as "also", "only", which stay out of questions).
fn advmod_role(doc: &Doc, a: usize) -> Option<Role> {
    let t = &doc.tokens[a];
    let lower = t.text.to_lowercase();
    match lower.as_str() {
        "also" | "only" | "just" | "even" | "still" | "not" | "then" | "first" | "here" | "there" | "how" | "why"
        | "when" | "where" | "so" | "thus" | "therefore" | "instead" | "however" => None,
        "always" | "never" | "now" | "once" | "already" | "often" | "again" | "sometimes" | "currently" | "later"
        | "soon" | "usually" | "immediately" => Some(Role::Temporal),
        _ if lower.ends_with("ly") && t.tag.starts_with("RB") => Some(Role::Manner),
        _ => Some(Role::Adverbial),
    }
}

#[cfg(test)]
mod tests {
    use quarry_nlp::Token;
    use quarry_stdx::rng::SplitMix64;

    use super::*;

    fn doc_with_heads(heads: &[usize]) -> Doc {
        let token = |(i, &head): (usize, &usize)| Token {
            text: format!("w{i}"),
            whitespace: " ".into(),
            tag: "NN".into(),
            pos: "NOUN".into(),
            morph: String::new(),
            lemma: format!("w{i}"),
            head,
            dep: "dep".into(),
            sent_start: i == 0,
        };
        Doc { text: String::new(), tokens: heads.iter().enumerate().map(token).collect() }
    }

    /// The tree's subtrees, whatever form they take, list as the walk
    /// over the children lists does.
    fn assert_subtrees_match(doc: &Doc) {
        let tree = Tree::new(doc);
        let children = children_of(doc);
        for i in 0..doc.len() {
            let want = subtree(&children, i);
            let got = tree.subtree(i);
            assert_eq!((got.first(), got.last()), (want.first().copied(), want.last().copied()), "{i}");
            assert_eq!(got.iter().collect::<Vec<_>>(), want, "{i}");
            assert_eq!(&got[..], &want[..], "{i}");
        }
    }

    #[test]
    fn subtrees_of_projective_non_projective_and_cyclic_parses() {
        // Projective: 0 <- 1 -> 2, 1 root.
        assert_subtrees_match(&doc_with_heads(&[1, 1, 1]));
        // Non-projective: 3 hangs from 0 across 1's arc to 2.
        assert_subtrees_match(&doc_with_heads(&[1, 1, 1, 0]));
        // A cycle (1 <-> 2) no root reaches, and a head outside the doc.
        assert_subtrees_match(&doc_with_heads(&[0, 2, 1, 1, 9]));
        let mut rng = SplitMix64::new(7);
        for _ in 0..500 {
            let n = 1 + rng.below(12);
            let heads: Vec<usize> = (0..n).map(|i| if rng.below(4) == 0 { i } else { rng.below(n + 1) }).collect();
            assert_subtrees_match(&doc_with_heads(&heads));
        }
    }

    #[test]
    fn subtrees_of_the_fixture_parses() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/codeqa/parses.jsonl");
        for doc in crate::jsonl::read_records::<Doc>(&path).unwrap() {
            assert_subtrees_match(&doc);
        }
    }
}
