//! The English pipeline on arbitrary text, with the real model (`QUARRY_SPACY_MODEL_DIR`, as
//! `scripts/test` and `scripts/fuzz` set it): tokens cover the text exactly (their texts and
//! whitespace spell it), and short texts go through the whole analysis with heads in range.
#![no_main]

use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use quarry_nlp::Pipeline;

fn pipeline() -> &'static Pipeline {
    static PIPELINE: OnceLock<Pipeline> = OnceLock::new();
    PIPELINE.get_or_init(|| {
        let dir = std::env::var_os("QUARRY_SPACY_MODEL_DIR")
            .expect("set QUARRY_SPACY_MODEL_DIR to the spaCy model directory (scripts/fuzz does)");
        Pipeline::load(std::path::Path::new(&dir)).expect("the seed model loads")
    })
}

fuzz_target!(|text: &str| {
    let nlp = pipeline();
    let tokens = nlp.tokenize(text);
    let spelled: String = tokens.iter().map(|t| format!("{}{}", t.text, t.whitespace)).collect();
    assert_eq!(spelled, text);
    assert!(tokens.iter().all(|t| !t.text.is_empty()));
    // The analysis is much slower than tokenizing: only short texts take it.
    if text.len() <= 2048 {
        let doc = nlp.parse(text).expect("a short text is analysed");
        assert_eq!(doc.tokens.len(), tokens.len());
        assert!(doc.tokens.iter().all(|t| t.head < doc.tokens.len()));
    }
});
