//! quarry's tokenizers give transformers' ids on held-out real code, for the tokenizer format of
//! each INSPECT model family: CodeT5's byte-level BPE (as `tokenizer.json`, and as `vocab.json`
//! with `merges.txt`, which quarry assembles itself), BART's, T5's SentencePiece unigram (as
//! `tokenizer.json`, and as the `spiece.model` file itself), and PLBART's SentencePiece BPE
//! `sentencepiece.bpe.model` (fairseq's ids; without and with `src_lang` `java`).
//!
//! `tests/fixtures/tokenizers/` holds tokenizers trained on JDK and CPython code and the ids
//! `AutoTokenizer` gives for 16 snippets left out of training and seven edge texts (special
//! tokens in the text, odd whitespace, Unicode; `parity/tokenizer_parity.py`
//! makes them, and says how). The 1,000-snippet check reads a folder the same script writes,
//! named by `QUARRY_TOKENIZER_PARITY`.

use std::path::{Path, PathBuf};

use quarry_model::Tokenizer;
use serde::Deserialize;
use std::collections::BTreeMap;

const FAMILIES: [&str; 7] = ["codet5", "codet5_bpe", "bart", "t5", "t5_spm", "plbart", "plbart_java"];

#[derive(Deserialize)]
struct Row {
    text: String,
    /// Per family: the tokenizer called on the text, special tokens included.
    ids: BTreeMap<String, Vec<u32>>,
    /// Per family: `convert_tokens_to_ids(tokenize(text))`.
    plain: BTreeMap<String, Vec<u32>>,
}

/// The tokenizer of one family: `plbart_java` is the `plbart` directory with `src_lang` `java`
/// in its `tokenizer_config.json`, assembled in `scratch`.
fn load(dir: &Path, family: &str, scratch: &Path) -> Tokenizer {
    if family != "plbart_java" {
        return Tokenizer::from_path(&dir.join(family)).unwrap();
    }
    let model = "sentencepiece.bpe.model";
    std::fs::copy(dir.join("plbart").join(model), scratch.join(model)).unwrap();
    std::fs::write(scratch.join("tokenizer_config.json"), r#"{"src_lang": "java"}"#).unwrap();
    Tokenizer::from_path(scratch).unwrap()
}

/// Compares every family's ids on every snippet of `dir`; returns the number of snippets.
fn check(dir: &Path) -> usize {
    let text = std::fs::read_to_string(dir.join("reference.jsonl")).unwrap();
    let rows: Vec<Row> = text.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let scratch = tempfile::tempdir().unwrap();
    let mut failures = Vec::new();
    for family in FAMILIES {
        let tokenizer = load(dir, family, scratch.path());
        let mut mismatches = Vec::new();
        for (i, row) in rows.iter().enumerate() {
            let ids = tokenizer.encode(&row.text, None).unwrap().ids;
            let plain = tokenizer.tokenize_ids(&row.text).unwrap();
            if ids != row.ids[family] || plain != row.plain[family] {
                mismatches.push(i);
            }
        }
        eprintln!("{family}: {} of {} snippets identical to transformers", rows.len() - mismatches.len(), rows.len());
        if let Some(&first) = mismatches.first() {
            failures.push(format!(
                "{family}: {} of {} snippets differ from transformers, first: snippet {first} {:?}",
                mismatches.len(),
                rows.len(),
                rows[first].text
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    rows.len()
}

#[test]
fn every_family_tokenizes_held_out_code_as_transformers() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/tokenizers");
    assert_eq!(check(&dir), 16 + 7);
    // The fixture really holds each family's format and special tokens.
    let codet5 = Tokenizer::from_path(&dir.join("codet5_bpe")).unwrap();
    assert!(codet5.source().ends_with("vocab.json"), "{}", codet5.source().display());
    assert_eq!((codet5.pad_id(), codet5.cls_sep_ids().unwrap()), (0, (1, 2)));
    let bart = Tokenizer::from_path(&dir.join("bart")).unwrap();
    assert_eq!((bart.pad_id(), bart.cls_sep_ids().unwrap()), (1, (0, 2)));
    let t5 = Tokenizer::from_path(&dir.join("t5")).unwrap();
    assert_eq!((t5.pad_id(), t5.token_id("</s>"), t5.token_id("<extra_id_7>").is_some()), (0, Some(1), true));
    // The SentencePiece files: T5's sentinels after its pieces, the last first; PLBART's
    // fairseq ids, then its language codes and <mask>.
    let t5 = Tokenizer::from_path(&dir.join("t5_spm")).unwrap();
    assert!(t5.source().ends_with("spiece.model"), "{}", t5.source().display());
    let pieces = t5.vocab_size() - 100;
    assert_eq!((t5.pad_id(), t5.unk_id(), t5.token_id("</s>")), (0, Some(2), Some(1)));
    assert_eq!(
        (t5.token_id("<extra_id_99>"), t5.token_id("<extra_id_0>")),
        (Some(pieces as u32), Some(pieces as u32 + 99))
    );
    let plbart = Tokenizer::from_path(&dir.join("plbart")).unwrap();
    assert!(plbart.source().ends_with("sentencepiece.bpe.model"), "{}", plbart.source().display());
    assert_eq!((plbart.pad_id(), plbart.unk_id(), plbart.cls_sep_ids().unwrap()), (1, Some(3), (0, 2)));
    let size = plbart.vocab_size() as u32;
    let tail = ["__java__", "__python__", "__en_XX__", "<mask>"].map(|t| plbart.token_id(t));
    assert_eq!(tail, [Some(size - 4), Some(size - 3), Some(size - 2), Some(size - 1)]);
}

#[derive(Deserialize)]
struct StressRow {
    family: String,
    text: String,
    /// transformers' ids without special tokens.
    plain: Vec<u32>,
}

/// Compares the SentencePiece families' ids on `stress.jsonl` (random texts of short pieces,
/// where merge orders compete most), when the script wrote one; returns the number of texts.
fn check_stress(dir: &Path) -> usize {
    let Ok(text) = std::fs::read_to_string(dir.join("stress.jsonl")) else { return 0 };
    let rows: Vec<StressRow> = text.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let mut failures = Vec::new();
    for family in ["t5_spm", "plbart"] {
        let tokenizer = Tokenizer::from_path(&dir.join(family)).unwrap();
        let rows: Vec<&StressRow> = rows.iter().filter(|r| r.family == family).collect();
        let differ: Vec<&&StressRow> =
            rows.iter().filter(|r| tokenizer.tokenize_ids(&r.text).unwrap() != r.plain).collect();
        eprintln!("{family}: {} of {} stress texts identical to transformers", rows.len() - differ.len(), rows.len());
        if let Some(first) = differ.first() {
            failures.push(format!("{family}: {} stress texts differ, first {:?}", differ.len(), first.text));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    rows.len()
}

/// `QUARRY_TOKENIZER_PARITY=DIR`: the 1,000 held-out snippets of `parity/tokenizer_parity.py`,
/// and its stress texts when it wrote them (`--stress`).
#[test]
fn a_thousand_snippets_when_asked() {
    let Some(dir) = std::env::var_os("QUARRY_TOKENIZER_PARITY").map(PathBuf::from) else {
        eprintln!("skipped: QUARRY_TOKENIZER_PARITY names no folder written by parity/tokenizer_parity.py");
        return;
    };
    let snippets = check(&dir);
    eprintln!("{snippets} snippets x {} tokenizer formats: ids identical to transformers", FAMILIES.len());
    assert!(snippets >= 1000, "{snippets} snippets");
    let stress = check_stress(&dir);
    eprintln!("{stress} stress texts of the SentencePiece formats: ids identical to transformers");
}
