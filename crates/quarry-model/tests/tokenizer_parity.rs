//! quarry's tokenizers give transformers' ids on held-out real code, for the tokenizer format of
//! each INSPECT model family: CodeT5's byte-level BPE (as `tokenizer.json`, and as `vocab.json`
//! + `merges.txt`, which quarry assembles itself), BART's, and T5's SentencePiece unigram.
//!
//! `tests/fixtures/tokenizers/` holds tokenizers trained on JDK and CPython code and the ids
//! `AutoTokenizer` gives for 16 snippets left out of training (`parity/tokenizer_parity.py`
//! makes them, and says how). The 1,000-snippet check reads a folder the same script writes,
//! named by `QUARRY_TOKENIZER_PARITY`.

use std::path::{Path, PathBuf};

use quarry_model::Tokenizer;
use serde::Deserialize;
use std::collections::BTreeMap;

const FAMILIES: [&str; 4] = ["codet5", "codet5_bpe", "bart", "t5"];

#[derive(Deserialize)]
struct Row {
    text: String,
    /// Per family: the tokenizer called on the text, special tokens included.
    ids: BTreeMap<String, Vec<u32>>,
    /// Per family: `convert_tokens_to_ids(tokenize(text))`.
    plain: BTreeMap<String, Vec<u32>>,
}

/// Compares every family's ids on every snippet of `dir`; returns the number of snippets.
fn check(dir: &Path) -> usize {
    let text = std::fs::read_to_string(dir.join("reference.jsonl")).unwrap();
    let rows: Vec<Row> = text.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    for family in FAMILIES {
        let tokenizer = Tokenizer::from_path(&dir.join(family)).unwrap();
        let mut mismatches = Vec::new();
        for (i, row) in rows.iter().enumerate() {
            let ids = tokenizer.encode(&row.text, None).unwrap().ids;
            let plain = tokenizer.tokenize_ids(&row.text).unwrap();
            if ids != row.ids[family] || plain != row.plain[family] {
                mismatches.push(i);
            }
        }
        assert!(
            mismatches.is_empty(),
            "{family}: {} of {} snippets differ from transformers, first: snippet {} {:?}",
            mismatches.len(),
            rows.len(),
            mismatches[0],
            rows[mismatches[0]].text
        );
    }
    rows.len()
}

#[test]
fn every_family_tokenizes_held_out_code_as_transformers() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/tokenizers");
    assert_eq!(check(&dir), 16);
    // The fixture really holds each family's format and special tokens.
    let codet5 = Tokenizer::from_path(&dir.join("codet5_bpe")).unwrap();
    assert!(codet5.source().ends_with("vocab.json"), "{}", codet5.source().display());
    assert_eq!((codet5.pad_id(), codet5.cls_sep_ids().unwrap()), (0, (1, 2)));
    let bart = Tokenizer::from_path(&dir.join("bart")).unwrap();
    assert_eq!((bart.pad_id(), bart.cls_sep_ids().unwrap()), (1, (0, 2)));
    let t5 = Tokenizer::from_path(&dir.join("t5")).unwrap();
    assert_eq!((t5.pad_id(), t5.token_id("</s>"), t5.token_id("<extra_id_7>").is_some()), (0, Some(1), true));
}

/// `QUARRY_TOKENIZER_PARITY=DIR`: the 1,000 held-out snippets of `parity/tokenizer_parity.py`.
#[test]
fn a_thousand_snippets_when_asked() {
    let Some(dir) = std::env::var_os("QUARRY_TOKENIZER_PARITY").map(PathBuf::from) else {
        eprintln!("skipped: QUARRY_TOKENIZER_PARITY names no folder written by parity/tokenizer_parity.py");
        return;
    };
    let snippets = check(&dir);
    eprintln!("{snippets} snippets x {} tokenizer formats: ids identical to transformers", FAMILIES.len());
    assert!(snippets >= 1000, "{snippets} snippets");
}
