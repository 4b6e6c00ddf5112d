//! Each rule family of the CodeQA generator on real sentences, with the
//! parses spaCy's en_core_web_sm made of them
//! (tests/fixtures/codeqa/parses.jsonl, made with
//! `scripts/codeqa/spacy_docs.py` from `quarry codeqa texts`).

use std::path::Path;

use quarry_data::codeqa::{generate, Kind, Outcome, Pair, StoredParses};

fn pairs(comment: &str) -> Vec<Pair> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/codeqa/parses.jsonl");
    let mut parser = StoredParses::read(&path).unwrap();
    match generate(&[comment], &mut parser, 6).pop().unwrap() {
        Outcome::Pairs(p) => p,
        Outcome::ParseError(e) => panic!("{e}"),
    }
}

fn has(comment: &str, question: &str, answer: &str) {
    let got = pairs(comment);
    assert!(
        got.iter().any(|p| p.question == question && p.answer == answer),
        "{comment}\nwanted: {question} => {answer}\ngot: {got:#?}"
    );
}

#[test]
fn object_questions_keep_the_other_arguments() {
    has(
        "Returns the IP address from a HTTP request object.",
        "What does the code return from a http request object ?",
        "the ip address",
    );
    has(
        "This method converts a channel in the database to a JSON dictionary.",
        "What does this method convert to a json dictionary ?",
        "a channel in the database",
    );
}

#[test]
fn the_code_subject_and_do_support_follow_the_tense() {
    has(
        "Set a global mysql variable to a given value.",
        "What did the code set to a given value ?",
        "a global mysql variable",
    );
    has(
        "Validates the birth_day and returns the datetime object.",
        "What does the code return ?",
        "the datetime object",
    );
    has("Validates the birth_day and returns the datetime object.", "What does the code validate ?", "the birth_day");
}

#[test]
fn modifier_questions_by_role() {
    has(
        "Executes the command with the given arguments.",
        "How does the code execute the command ?",
        "with the given arguments",
    );
    has("Stores the result in the cache.", "Where does the code store the result ?", "in the cache");
    has("Waits until the process ends.", "Till when does the code wait ?", "until the process ends");
    has(
        "Raises an error because the file is missing.",
        "Why does the code raise an error ?",
        "because the file is missing",
    );
    has(
        "Modifies the provided function to support kwargs.",
        "For what purpose does the code modify the provided function ?",
        "to support kwargs",
    );
    has(
        "Decorator which causes a cookie to be set when a setter method is called.",
        "When be a cookie set ?",
        "when a setter method is called",
    );
}

#[test]
fn relative_clauses_and_participles_take_the_noun_as_subject() {
    has(
        "Decorator which causes a cookie to be set when a setter method is called.",
        "What does decorator cause ?",
        "a cookie to be set when a setter method is called",
    );
    has(
        "Returns a dictionary containing the default object values.",
        "What is containing the default object values ?",
        "a dictionary",
    );
    has(
        "Returns a dictionary containing the default object values.",
        "What do a dictionary contain ?",
        "the default object values",
    );
}

#[test]
fn subject_questions_with_modals_and_expletives() {
    has(
        "The DB driver will handle quoting of the given value.",
        "What will the db driver handle ?",
        "quoting of the given value",
    );
    has(
        "The DB driver will handle quoting of the given value.",
        "What will handle quoting of the given value ?",
        "the db driver",
    );
    has("There is a negative value in the array.", "Is a negative value in the array ?", "Yes");
    let got = pairs("There is a negative value in the array.");
    assert!(got.iter().all(|p| p.question.split_whitespace().count() >= 4), "{got:#?}");
}

#[test]
fn yes_no_questions_flip_on_negation() {
    has("Windows don't have a mode like linux cli example.", "Do windows have a mode like linux cli example ?", "No");
    has(
        "Returns the IP address from a HTTP request object.",
        "Does the code return the ip address from a http request object ?",
        "Yes",
    );
    let got = pairs("Windows don't have a mode like linux cli example.");
    assert!(got.iter().filter(|p| p.kind == Kind::Yesno).all(|p| p.answer == "No"));
}

#[test]
fn attachment_hedge_reads_the_phrase_inside_the_object() {
    has(
        "Get list of public IP blocks for a domain",
        "What does the code get ?",
        "list of public ip blocks for a domain",
    );
}

#[test]
fn filters_drop_self_references_and_notes() {
    let got = pairs("This method converts a channel in the database to a JSON dictionary.");
    assert!(got.iter().all(|p| p.answer != "this method"), "{got:#?}");
    assert!(pairs("TODO: remove this").is_empty());
    assert!(pairs("").is_empty());
    let all: Vec<Pair> = ["Returns the IP address from a HTTP request object.", "Stores the result in the cache."]
        .iter()
        .flat_map(|c| pairs(c))
        .collect();
    assert!(all.iter().all(|p| p.question.ends_with(" ?") && p.answer != "the code"));
}

#[test]
fn a_missing_parse_is_an_error_for_that_comment_only() {
    let mut parser = StoredParses::default();
    let out = generate(&["Returns the value.", "TODO"], &mut parser, 6);
    assert!(matches!(&out[0], Outcome::ParseError(e) if e.contains("no stored parse")));
    assert_eq!(out[1], Outcome::Pairs(Vec::new()));
}

#[test]
fn bad_stored_parses_name_file_and_line() {
    let dir = std::env::temp_dir().join(format!("quarry-codeqa-badparse-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("docs.jsonl");
    std::fs::write(&path, "{\"text\": \"x\", \"tokens\": []}\nnot json\n").unwrap();
    let e = StoredParses::read(&path).unwrap_err().to_string();
    assert!(e.contains("docs.jsonl:2"), "{e}");
    std::fs::write(
        &path,
        r#"{"text": "x", "tokens": [{"text": "x", "whitespace": "", "tag": "NN", "pos": "NOUN", "morph": "", "lemma": "x", "head": 5, "dep": "ROOT", "sent_start": true}]}"#,
    )
    .unwrap();
    let e = StoredParses::read(&path).unwrap_err().to_string();
    assert!(e.contains("docs.jsonl:1") && e.contains("head outside"), "{e}");
}

#[test]
fn a_cancelled_generation_stops_and_an_uncancelled_one_equals_generate() {
    use std::sync::atomic::AtomicBool;
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/codeqa/parses.jsonl");
    let mut parser = StoredParses::read(&path).unwrap();
    let comments = ["Returns the IP address from a HTTP request object.", "TODO"];
    let whole = generate(&comments, &mut parser, 6);
    assert!(matches!(&whole[0], Outcome::Pairs(p) if !p.is_empty()), "{whole:?}");
    let watched = quarry_data::codeqa::generate_cancellable(&comments, &mut parser, 6, &AtomicBool::new(false));
    assert_eq!(watched, Some(whole));
    let stopped = quarry_data::codeqa::generate_cancellable(&comments, &mut parser, 6, &AtomicBool::new(true));
    assert_eq!(stopped, None);
}
