//! Parsing grows with the input only linearly. Each test times the same
//! parse on an input and on one four times larger: a quadratic step takes
//! sixteen times as long, a linear one four, and the bound between them
//! (ten, plus slack for a loaded machine) fails when a quadratic step comes
//! back.

use std::time::{Duration, Instant};

use quarry_syntax::kinds::python::{Kind, SyntaxNode};
use quarry_syntax::walk::Preorder;
use quarry_syntax::{Language, ParsedFile, SourceFile};

/// Parses `text`, timing the parse alone.
fn parsed(text: String) -> (Duration, ParsedFile) {
    let source = SourceFile::from_text("big.py", text);
    let start = Instant::now();
    let file = ParsedFile::parse(source, Language::Python).unwrap();
    (start.elapsed(), file)
}

/// Asserts that four times the input took well under sixteen times as long.
fn assert_linear(what: &str, small: Duration, large: Duration) {
    assert!(large < small * 10 + Duration::from_millis(500), "{what}: n: {small:?}, 4n: {large:?}");
}

/// `n` comment lines after a statement at module level.
fn module_comments(n: usize) -> String {
    format!("import os\n{}x = 1\n", "# comment\n".repeat(n))
}

/// `n` comment lines indented with the function body they stand in.
fn block_comments(n: usize) -> String {
    format!("def f():\n    x = 1\n{}    y = 2\n", "    # comment\n".repeat(n))
}

/// tree-sitter-python's scanner looked past every remaining comment of a
/// run to find the next line's indentation, once per comment; it now stops
/// at the first comment when no indentation token can follow
/// (`vendor/README.md`).
#[test]
fn a_run_of_comment_lines_is_scanned_in_linear_time() {
    for (what, text) in [("module level", module_comments as fn(usize) -> String), ("block", block_comments)] {
        let (small, _) = parsed(text(4_000));
        let (large, file) = parsed(text(16_000));
        assert_linear(what, small, large);
        assert!(!file.has_errors(), "{what}");
        let comments = Preorder::new(file.root()).filter(|n| n.py_kind() == Kind::Comment).count();
        assert_eq!(comments, 16_000, "{what}");
    }
}
