//! The model `config.json` loader and the tokenizer loaders (tokenizer.json,
//! WordPiece vocab, BPE vocab and merges), from a file holding the input.
#![no_main]

use libfuzzer_sys::fuzz_target;
use quarry_model::EncoderConfig;
use quarry_model::Tokenizer;

fuzz_target!(|data: &[u8]| {
    let dir = std::env::temp_dir().join(format!("quarry-fuzz-model-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("input");
    std::fs::write(&file, data).unwrap();
    let _ = EncoderConfig::from_file(&file);
    let _ = Tokenizer::from_tokenizer_json(&file);
    let _ = Tokenizer::from_wordpiece_vocab(&file, true);
    let _ = Tokenizer::from_bpe(&file, &file);
});
