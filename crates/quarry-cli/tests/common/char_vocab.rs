//! A character-level WordPiece vocabulary and a one-example span file, from which a first
//! scratch model (`quarry train span --tokenizer DIR`) saves a `tokenizer.json`; shared by
//! the model tests that need a real tokenizer without a downloaded model.

use std::path::{Path, PathBuf};

/// Writes `vocab.txt` into `dir` and returns the path of a one-example span file beside it.
pub fn write_char_vocab(dir: &Path) -> PathBuf {
    let mut vocab = vec!["[PAD]".to_string(), "[UNK]".into(), "[CLS]".into(), "[SEP]".into()];
    for c in (33u8..127).map(char::from).filter(|c| !c.is_ascii_uppercase()) {
        vocab.push(c.to_string());
        vocab.push(format!("##{c}"));
    }
    std::fs::write(dir.join("vocab.txt"), vocab.join("\n") + "\n").unwrap();
    let seed = dir.join("seed.jsonl");
    std::fs::write(&seed, "{\"subtokenized_input_sequence\":[\"[CLS]\",\"x\",\"[SEP]\"],\"label_sequence\":[4,0,4]}\n")
        .unwrap();
    seed
}
