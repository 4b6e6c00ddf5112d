//! Tokenizer files quarry cannot use are errors that name the file and say what to do.

use std::path::Path;

use quarry_model::Tokenizer;

/// XLM-RoBERTa's and CamemBERT's SentencePiece file is named `sentencepiece.bpe.model` too,
/// but is a unigram model; the error said only "model_type is 1".
#[test]
fn a_unigram_sentencepiece_bpe_model_points_to_tokenizer_json() {
    let dir = tempfile::tempdir().unwrap();
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/tokenizers/t5_spm/spiece.model");
    std::fs::copy(fixture, dir.path().join("sentencepiece.bpe.model")).unwrap();
    let Err(error) = Tokenizer::from_path(dir.path()) else { panic!("a unigram model loaded as PLBART's") };
    let error = error.to_string();
    assert!(
        error.contains("sentencepiece.bpe.model") && error.contains("unigram") && error.contains("tokenizer.json"),
        "{error}"
    );
}

/// A WordPiece `tokenizer.json` whose vocabulary lacks its unknown token loads, and fails on
/// the first unknown word; the error did not say which tokenizer.
#[test]
fn an_encoding_error_names_the_tokenizer_file() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("vocab.txt"), "[PAD]\n[UNK]\n[CLS]\n[SEP]\nhello\n").unwrap();
    let json = dir.path().join("tokenizer.json");
    Tokenizer::from_path(dir.path()).unwrap().save(&json).unwrap();
    let mut value: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    value["model"]["vocab"].as_object_mut().unwrap().remove("[UNK]");
    std::fs::write(&json, value.to_string()).unwrap();
    let tok = Tokenizer::from_path(&json).unwrap();
    let error = tok.encode("hello zzz", None).unwrap_err().to_string();
    assert!(error.contains("tokenizer.json") && error.contains("[UNK]"), "{error}");
}
