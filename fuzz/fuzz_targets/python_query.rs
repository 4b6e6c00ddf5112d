//! Python: decoding, parsing, blocks, error regions, tokens and every query
//! in both forms, as `quarry query` and the dataset builder run them.
#![no_main]

use libfuzzer_sys::fuzz_target;
use quarry_query::report::analyze_parsed_within;
use quarry_query::{all_queries, Polarity};
use quarry_syntax::{code_blocks, tokenize, Deadline, Language, ParsedFile, SourceFile, DEFAULT_MAX_DEPTH};

fuzz_target!(|data: &[u8]| {
    let Ok(source) = SourceFile::from_bytes("fuzz.py", data.to_vec()) else { return };
    let _ = tokenize(source.text(), Language::Python);
    let Ok(file) = ParsedFile::parse(source, Language::Python) else { return };
    let _ = file.error_regions();
    let blocks = code_blocks(&file);
    for block in blocks.all() {
        let _ = block.content(&file);
    }
    let queries = all_queries();
    let deadline = Deadline::unlimited();
    let polarities = [Polarity::Positive, Polarity::Negative];
    if let Ok(report) = analyze_parsed_within(&file, &queries, &polarities, DEFAULT_MAX_DEPTH, &deadline) {
        for finding in &report.findings {
            let _ = serde_json::to_string(finding).unwrap();
        }
    }
});
