//! The Python and Java lexers on any text: tokens cover only the text, in order.
#![no_main]

use libfuzzer_sys::fuzz_target;
use quarry_syntax::{tokenize, Language, LineIndex};

fuzz_target!(|text: &str| {
    let lines = LineIndex::new(text);
    for language in [Language::Python, Language::Java] {
        let mut end = 0;
        for token in tokenize(text, language) {
            let span = token.span(text, &lines);
            assert!(span.start_byte >= end && span.start_byte <= span.end_byte && span.end_byte <= text.len());
            end = span.end_byte;
            let _ = token.text(text);
        }
    }
});
