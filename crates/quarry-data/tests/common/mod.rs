//! Helpers shared by the dataset build tests.

use std::path::{Path, PathBuf};

/// A real WordPiece tokenizer with a character-level vocabulary, written as a
/// Hugging Face tokenizer.json, so the tests need no downloaded model.
pub fn char_tokenizer(dir: &Path) -> PathBuf {
    let mut vocab = serde_json::Map::new();
    for token in ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"] {
        vocab.insert(token.into(), vocab.len().into());
    }
    for c in (33u8..127).map(char::from).filter(|c| !c.is_ascii_uppercase()) {
        vocab.insert(c.to_string(), vocab.len().into());
        vocab.insert(format!("##{c}"), vocab.len().into());
    }
    let special = |id: usize, content: &str| serde_json::json!({"id": id, "content": content, "single_word": false, "lstrip": false, "rstrip": false, "normalized": false, "special": true});
    let tokenizer = serde_json::json!({
        "version": "1.0",
        "truncation": null,
        "padding": null,
        "added_tokens": [special(0, "[PAD]"), special(1, "[UNK]"), special(2, "[CLS]"), special(3, "[SEP]"), special(4, "[MASK]")],
        "normalizer": {"type": "BertNormalizer", "clean_text": true, "handle_chinese_chars": true, "strip_accents": null, "lowercase": true},
        "pre_tokenizer": {"type": "BertPreTokenizer"},
        "post_processor": null,
        "decoder": null,
        "model": {"type": "WordPiece", "unk_token": "[UNK]", "continuing_subword_prefix": "##", "max_input_chars_per_word": 100, "vocab": vocab},
    });
    let path = dir.join("tokenizer.json");
    std::fs::write(&path, serde_json::to_string(&tokenizer).unwrap()).unwrap();
    dir.to_path_buf()
}
