//! The Hugging Face `tokenizer.json` loader, then encoding and decoding with what loaded.
//! Input: the file's bytes, `0xFF` (never in UTF-8), then a text to encode.
#![no_main]

use libfuzzer_sys::fuzz_target;
use quarry_model::Tokenizer;

fuzz_target!(|data: &[u8]| {
    let (json, text) = match data.iter().position(|&b| b == 0xFF) {
        Some(at) => (&data[..at], String::from_utf8_lossy(&data[at + 1..]).into_owned()),
        None => (data, "def f(x):\n    return x  # naïve 😀".to_string()),
    };
    let dir = std::env::temp_dir().join(format!("quarry-fuzz-hf-tokenizer-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("tokenizer.json");
    std::fs::write(&file, json).unwrap();
    let Ok(tokenizer) = Tokenizer::from_tokenizer_json(&file) else { return };
    let _ = (tokenizer.vocab_size(), tokenizer.pad_id(), tokenizer.unk_id());
    if let Ok(encoded) = tokenizer.encode(&text, Some(16)) {
        assert!(encoded.ids.len() <= 16);
        assert_eq!(encoded.ids.len(), encoded.offsets.len());
        let _ = tokenizer.decode(&encoded.ids);
    }
    let _ = tokenizer.encode_plain(&text);
    let _ = tokenizer.ids_of_tokens(&["def", "[UNK]", "<s>"]);
    let _ = tokenizer.cls_sep_ids();
});
