//! Shared checks for the syntax-layer tests: the invariants every file must keep.

#![allow(dead_code)]

use quarry_syntax::{code_blocks, tokenize, Language, ParsedFile, Span};

/// Checks blocks, tokens and span round trips of a parsed file; returns the
/// problems found (empty when the file is consistent).
pub fn check_file(file: &ParsedFile) -> Vec<String> {
    let mut problems = Vec::new();
    let text = file.text();
    let lines = file.source().lines();
    let name = file.source().path().display().to_string();
    if file.language() == Language::Python {
        let blocks = code_blocks(file);
        let mut owner = vec![None; lines.line_count()];
        for block in blocks.all() {
            for run in &block.lines {
                for (line, slot) in owner.iter_mut().enumerate().take(run.end + 1).skip(run.start) {
                    if let Some(other) = slot.replace(block.index) {
                        problems.push(format!("{name}: line {line} in blocks {other} and {}", block.index));
                    }
                }
            }
            let content = block.content(file);
            let expected: String = block
                .lines
                .iter()
                .flat_map(|run| run.start..=run.end)
                .map(|l| &text[lines.line_range_with_terminator(l).unwrap()])
                .collect();
            if content != expected {
                problems.push(format!("{name}: block {} content differs from its lines", block.index));
            }
        }
        for (line, slot) in owner.iter().enumerate() {
            let has_code = !text[lines.line_range(line).unwrap()].trim().is_empty();
            if has_code && slot.is_none() {
                problems.push(format!("{name}: code line {line} is in no block"));
            }
        }
    }
    for token in tokenize(text, file.language()) {
        let span = token.span(text, lines);
        check_round_trip(text, lines, span, &name, &mut problems);
    }
    for node in quarry_syntax::walk::Preorder::new(file.root()).take(2000) {
        check_round_trip(text, lines, file.span_of(node), &name, &mut problems);
    }
    problems
}

fn check_round_trip(text: &str, lines: &quarry_syntax::LineIndex, span: Span, name: &str, problems: &mut Vec<String>) {
    match Span::from_positions(text, lines, span.start, span.end) {
        Some(back) if back.start_byte == span.start_byte && back.end_byte == span.end_byte => {}
        // A position inside a \r\n pair has no column of its own; tree-sitter
        // never puts node boundaries there, and the lexers never do.
        other => problems.push(format!("{name}: span {span:?} does not round-trip ({other:?})")),
    }
}
