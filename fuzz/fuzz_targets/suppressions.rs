//! The suppression scanner on any text: it never panics, every directive
//! lies on a line of the text with its text taken from that line, and the
//! per-line index answers as a scan of every directive does.
#![no_main]

use libfuzzer_sys::fuzz_target;
use quarry_workspace::suppression::{Names, SuppressionComments, Suppressions};

/// Queries looked up: a quarry id, one whose ruff code and CodeQL id exist,
/// and one no comment is likely to name.
const QUERIES: [&str; 3] = ["unused-import", "equals-none", "flask-debug"];

fuzz_target!(|text: &str| {
    let found = Suppressions::new(SuppressionComments::scan(text));
    let lines: Vec<&str> = text.split('\n').collect();
    for directive in &found.directives {
        let line = lines[directive.line];
        assert!(directive.column <= line.chars().count(), "{directive:?}");
        assert!(line.contains(directive.text.as_str()), "{directive:?}");
        assert!(directive.covers.iter().all(|&c| c == directive.line || c == directive.line + 1));
    }
    let last = lines.len() + 1;
    for query in QUERIES {
        for line in 0..last.min(64) {
            let scanned = found.directives.iter().position(|d| d.suppresses(query, line));
            assert_eq!(found.find(query, line), scanned, "{query} on line {line}");
        }
    }
});
