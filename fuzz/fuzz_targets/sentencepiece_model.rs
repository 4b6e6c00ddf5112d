//! The SentencePiece model loaders (T5's `spiece.model`, PLBART's `sentencepiece.bpe.model`),
//! then encoding and decoding with what loaded.
//! Input: one byte choosing the loader (even: T5, odd: PLBART), then the model file's bytes.
#![no_main]

use libfuzzer_sys::fuzz_target;
use quarry_model::Tokenizer;

fuzz_target!(|data: &[u8]| {
    let Some((&choice, model)) = data.split_first() else { return };
    let dir = std::env::temp_dir().join(format!("quarry-fuzz-sentencepiece-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join(if choice % 2 == 0 { "spiece.model" } else { "sentencepiece.bpe.model" });
    std::fs::write(&file, model).unwrap();
    let loaded = if choice % 2 == 0 { Tokenizer::from_t5_sentencepiece(&file) } else { Tokenizer::from_plbart_sentencepiece(&file) };
    let Ok(tokenizer) = loaded else { return };
    let _ = (tokenizer.vocab_size(), tokenizer.pad_id(), tokenizer.unk_id());
    for text in ["def f(x):\n    return x  # naïve 😀", "  a\u{a0}\u{fb01}  <mask> </s>\t", "ＡＢＣ\u{200b}x"] {
        if let Ok(encoded) = tokenizer.encode(text, Some(16)) {
            assert!(encoded.ids.len() <= 16);
            assert_eq!(encoded.ids.len(), encoded.offsets.len());
            let _ = tokenizer.decode(&encoded.ids);
        }
        let _ = tokenizer.tokenize_ids(text);
    }
    let _ = tokenizer.ids_of_tokens(&["[CLS]", "<unk>", "__java__"]);
    let _ = tokenizer.cls_sep_ids();
    let _ = std::fs::remove_file(&file);
});
