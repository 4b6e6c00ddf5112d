//! Special tokens as transformers handles them: a truncated sequence keeps every special token
//! the tokenizer adds (PLBART with `src_lang` ends in `</s> __java__`), and a WordPiece
//! `vocab.txt` splits `[CLS]`, `[SEP]`, ... out of the text as `BertTokenizer` does.

use std::path::Path;

use quarry_model::Tokenizer;

/// The PLBART fixture's `sentencepiece.bpe.model` with `src_lang` `java`, assembled in `dir`.
fn plbart_java(dir: &Path) -> Tokenizer {
    let model = "sentencepiece.bpe.model";
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/tokenizers/plbart").join(model);
    std::fs::copy(fixture, dir.join(model)).unwrap();
    std::fs::write(dir.join("tokenizer_config.json"), r#"{"src_lang": "java"}"#).unwrap();
    Tokenizer::from_path(dir).unwrap()
}

/// transformers' `PLBartTokenizer(..., src_lang="java")(text, truncation=True, max_length=8)`
/// gives the text's first six pieces, then `</s>` and `__java__`; quarry kept only the last
/// special token and dropped `</s>`.
#[test]
fn truncation_keeps_every_added_special_token() {
    let dir = tempfile::tempdir().unwrap();
    let tok = plbart_java(dir.path());
    let text = "public int size ( ) { return count ; } ".repeat(10);
    let full = tok.encode(&text, None).unwrap();
    let eos = tok.token_id("</s>").unwrap();
    let java = tok.token_id("__java__").unwrap();
    assert_eq!(full.ids[full.ids.len() - 2..], [eos, java]);
    let cut = tok.encode(&text, Some(8)).unwrap();
    let mut expected = full.ids[..6].to_vec();
    expected.extend([eos, java]);
    assert_eq!(cut.ids, expected);
    assert_eq!(cut.tokens.len(), 8);
    assert_eq!(cut.offsets[..6], full.offsets[..6]);
    // A sequence that fits is left as it is.
    assert_eq!(tok.encode(&text, Some(full.ids.len())).unwrap(), full);
}

/// `BertTokenizer` never splits its special tokens; from `vocab.txt` alone quarry lowercased
/// `[SEP]` and split it into `[`, `sep`, `]`.
#[test]
fn wordpiece_vocab_keeps_special_tokens_in_the_text_whole() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("vocab.txt"), "[PAD]\n[UNK]\n[CLS]\n[SEP]\n[MASK]\nhello\nworld\n").unwrap();
    let tok = Tokenizer::from_path(dir.path()).unwrap();
    assert_eq!(tok.encode("Hello [SEP] world[MASK]", None).unwrap().ids, vec![2, 5, 3, 6, 4, 3]);
    // Only the exact spelling is special, as in transformers.
    assert_eq!(tok.encode("[sep]", None).unwrap().ids, vec![2, 1, 1, 1, 3]);
}
