//! The generator on quarry-nlp's own parses gives the pairs it gives on
//! spaCy's (the stored fixture parses). Needs the spaCy model directory in
//! QUARRY_SPACY_MODEL_DIR (scripts/test sets it); skips with a message
//! otherwise.

use std::path::{Path, PathBuf};

use quarry_data::codeqa::{generate, StoredParses};

fn model_dir() -> Option<PathBuf> {
    quarry_stdx::skip::path_from_env("QUARRY_SPACY_MODEL_DIR", concat!(env!("CARGO_PKG_NAME"), "::", module_path!()))
}

#[test]
fn pipeline_pairs_equal_spacy_pairs_on_the_fixture() {
    let Some(dir) = model_dir() else { return };
    let mut pipeline = quarry_nlp::Pipeline::load(&dir).unwrap();
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/codeqa");
    let mut stored = StoredParses::read(&fixtures.join("parses.jsonl")).unwrap();
    let text = std::fs::read_to_string(fixtures.join("comments.jsonl")).unwrap();
    let comments: Vec<String> = text
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap()["comment"].as_str().unwrap().to_string())
        .collect();
    let refs: Vec<&str> = comments.iter().map(String::as_str).collect();
    let ours = generate(&refs, &mut pipeline, 6);
    let spacy = generate(&refs, &mut stored, 6);
    assert_eq!(ours, spacy);
}

#[test]
fn a_missing_model_is_an_error() {
    let e = quarry_nlp::Pipeline::load(Path::new("/nonexistent/model")).err().unwrap().to_string();
    assert!(e.contains("/nonexistent/model"), "{e}");
}
