//! CodeQA pair generation grows with a comment's length only linearly. Each
//! test times the generator on a comment and on one four times longer: a
//! quadratic step takes sixteen times as long, a linear one four, and the
//! bound between them (ten, plus slack for a loaded machine) fails when a
//! quadratic step comes back. The parses are made beforehand (stored
//! parses), so only the generator is timed.
//!
//! The first two tests build the parses by hand, in the shapes spaCy gives;
//! the last parses with spaCy's English model from QUARRY_SPACY_MODEL_DIR
//! (scripts/test sets it) and skips with a message without it.

use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use quarry_data::codeqa::{generate_cancellable, texts_to_parse, Outcome, Pair, StoredParses};
use quarry_nlp::{Doc, Token};

/// Generates the pairs of `comment` from `parses`, timing the generator.
fn timed(comment: &str, mut parses: StoredParses) -> (Duration, Vec<Pair>) {
    let start = Instant::now();
    let outcomes = generate_cancellable(&[comment], &mut parses, 6, &AtomicBool::new(false)).unwrap();
    let elapsed = start.elapsed();
    match outcomes.into_iter().next() {
        Some(Outcome::Pairs(pairs)) => (elapsed, pairs),
        other => panic!("{other:?}"),
    }
}

/// Asserts that four times the input took well under sixteen times as long.
fn assert_linear(what: &str, small: Duration, large: Duration) {
    assert!(large < small * 10 + Duration::from_millis(500), "{what}: n: {small:?}, 4n: {large:?}");
}

/// A doc of `(text, tag, pos, dep, head)` tokens separated by spaces; a
/// head of `None` makes the token a root.
fn doc(tokens: &[(String, &str, &str, &str, Option<usize>)]) -> Doc {
    let tokens: Vec<Token> = tokens
        .iter()
        .enumerate()
        .map(|(i, (text, tag, pos, dep, head))| Token {
            text: text.clone(),
            whitespace: if i + 1 < tokens.len() { " ".into() } else { String::new() },
            tag: (*tag).into(),
            pos: (*pos).into(),
            morph: String::new(),
            lemma: if *tag == "VBZ" { text.trim_end_matches('s').into() } else { text.clone() },
            head: head.unwrap_or(i),
            dep: (*dep).into(),
            sent_start: i == 0,
        })
        .collect();
    let text = tokens.iter().map(|t| format!("{}{}", t.text, t.whitespace)).collect();
    Doc { text, tokens }
}

/// A token of [`doc`]: text, tag, part of speech, label and head (`None`
/// for a root).
type Spec = (String, &'static str, &'static str, &'static str, Option<usize>);

/// "it returns the value0 in the list ; it returns the value1 in the list ;
/// …", parsed as spaCy parses it: each clause is the complement (`ccomp`)
/// of the next, so each holds all those before it.
fn run_on(clauses: usize) -> Doc {
    let mut tokens: Vec<Spec> = Vec::new();
    for k in 0..clauses {
        let verb = 8 * k + 1;
        let last = k + 1 == clauses;
        let (dep, head) = if last { ("ROOT", None) } else { ("ccomp", Some(verb + 8)) };
        tokens.push(("it".into(), "PRP", "PRON", "nsubj", Some(verb)));
        tokens.push(("returns".into(), "VBZ", "VERB", dep, head));
        tokens.push(("the".into(), "DT", "DET", "det", Some(verb + 2)));
        tokens.push((format!("value{k}"), "NN", "NOUN", "dobj", Some(verb)));
        tokens.push(("in".into(), "IN", "ADP", "prep", Some(verb)));
        tokens.push(("the".into(), "DT", "DET", "det", Some(verb + 5)));
        tokens.push(("list".into(), "NN", "NOUN", "pobj", Some(verb + 3)));
        if !last {
            tokens.push((";".into(), ":", "PUNCT", "punct", Some(verb + 8)));
        }
    }
    doc(&tokens)
}

/// "the value of a0 a1 … reads the file , gets the key0 from the cache ,
/// gets the key1 from the cache , …": one long subject that every verb
/// shares (each `conj` of the first verb inherits it).
fn shared_subject(words: usize, verbs: usize) -> Doc {
    let subject_head = 1;
    let root = words + 3;
    let mut tokens: Vec<Spec> = vec![
        ("the".into(), "DT", "DET", "det", Some(subject_head)),
        ("value".into(), "NN", "NOUN", "nsubj", Some(root)),
        ("of".into(), "IN", "ADP", "prep", Some(subject_head)),
    ];
    for w in 0..words {
        let (dep, head) = if w + 1 == words { ("pobj", Some(2)) } else { ("compound", Some(3 + words - 1)) };
        tokens.push((format!("a{w}"), "NN", "NOUN", dep, head));
    }
    tokens.push(("reads".into(), "VBZ", "VERB", "ROOT", None));
    tokens.push(("the".into(), "DT", "DET", "det", Some(root + 2)));
    tokens.push(("file".into(), "NN", "NOUN", "dobj", Some(root)));
    for k in 0..verbs {
        let comma = tokens.len();
        let verb = comma + 1;
        tokens.push((",".into(), ",", "PUNCT", "punct", Some(root)));
        tokens.push(("gets".into(), "VBZ", "VERB", "conj", Some(root)));
        tokens.push(("the".into(), "DT", "DET", "det", Some(verb + 2)));
        tokens.push((format!("key{k}"), "NN", "NOUN", "dobj", Some(verb)));
        tokens.push(("from".into(), "IN", "ADP", "prep", Some(verb + 2)));
        tokens.push(("the".into(), "DT", "DET", "det", Some(verb + 5)));
        tokens.push(("cache".into(), "NN", "NOUN", "pobj", Some(verb + 3)));
    }
    doc(&tokens)
}

/// Times the generator on `make(n)` and `make(4 n)`; `check` looks at the
/// pairs of the longer one.
fn assert_linear_on(what: &str, n: usize, make: impl Fn(usize) -> Doc, check: impl Fn(&[Pair])) {
    let run = |n: usize| {
        let doc = make(n);
        let comment = doc.text.clone();
        timed(&comment, StoredParses::from_docs([doc]))
    };
    let (small, _) = run(n);
    let (large, pairs) = run(4 * n);
    assert_linear(what, small, large);
    check(&pairs);
}

/// Each clause of a run-on comment is an argument of the next; the
/// generator listed every argument's words for every question it could ask
/// before keeping six.
#[test]
fn a_run_on_comment_is_paired_in_linear_time() {
    assert_linear_on("run-on", 300, run_on, |pairs| {
        assert_eq!(pairs.len(), 6, "{pairs:#?}");
        assert_eq!(pairs[0].question.split_whitespace().take(4).collect::<Vec<_>>(), ["What", "does", "it", "return"]);
        assert_eq!(pairs[0].answer, "the value1199");
    });
}

/// Every verb of a long list shares the first one's subject: its tokens
/// were listed again for each, and each list of verbs walked the whole doc.
#[test]
fn a_subject_shared_by_many_verbs_is_paired_in_linear_time() {
    let n = 1_000;
    assert_linear_on(
        "shared subject",
        n,
        |n| shared_subject(n, n / 4),
        |pairs| {
            let answers: Vec<&str> = pairs.iter().map(|p| p.answer.as_str()).collect();
            assert_eq!(answers[0], "the file", "{pairs:#?}");
            assert_eq!(answers[3..], ["the key0 from the cache", "the key1 from the cache", "the key2 from the cache"]);
            assert_eq!(pairs[1].rule, "what-subject");
            assert_eq!(pairs[1].answer.split_whitespace().count(), 3 + 4 * n);
        },
    );
}

/// The model's directory, or `None` after reporting the skip.
fn model_dir() -> Option<PathBuf> {
    quarry_stdx::skip::path_from_env("QUARRY_SPACY_MODEL_DIR", concat!(env!("CARGO_PKG_NAME"), "::", module_path!()))
}

/// A comment of `n` clauses.
type Comment = fn(usize) -> String;

/// Long comments as spaCy's English model parses them: clauses joined by
/// semicolons, and a chain of relative clauses.
#[test]
fn long_comments_parsed_by_the_model_are_paired_in_linear_time() {
    let Some(dir) = model_dir() else { return };
    let pipeline = quarry_nlp::Pipeline::load(&dir).unwrap();
    let shapes: [(&str, Comment); 2] = [
        ("semicolons", |n| {
            let clauses: Vec<String> = (0..n).map(|k| format!("returns the value{k} in the list")).collect();
            format!("This method {}", clauses.join("; it "))
        }),
        ("relative clauses", |n| {
            let clauses: Vec<String> = (0..n).map(|k| format!("that calls f{k}")).collect();
            format!("Returns a function {}", clauses.join(" "))
        }),
    ];
    for (what, comment) in shapes {
        let run = |n: usize| {
            let comment = comment(n);
            let docs = texts_to_parse(&comment).iter().map(|t| pipeline.parse(t).unwrap()).collect::<Vec<_>>();
            timed(&comment, StoredParses::from_docs(docs))
        };
        let (small, _) = run(150);
        let (large, pairs) = run(600);
        assert_linear(what, small, large);
        assert_eq!(pairs.len(), 6, "{what}: {pairs:#?}");
    }
}
