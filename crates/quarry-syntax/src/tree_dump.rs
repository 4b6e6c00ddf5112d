//! A readable, indented dump of a syntax tree, written without recursion.

use std::io::{self, Write};

use crate::parse::ParsedFile;

/// Writes one line per named node (and per missing or error node):
/// indentation by depth, the field name, the kind, the span as
/// `start_line:start_column-end_line:end_column` (1-based, as people read
/// positions; JSON output keeps the 0-based span schema), and the text of leaves.
pub fn write_tree(file: &ParsedFile, out: &mut (impl Write + ?Sized)) -> io::Result<()> {
    let mut cursor = file.root().walk();
    let mut depth = 0usize;
    loop {
        let node = cursor.node();
        if node.is_named() || node.is_missing() || node.is_error() {
            let span = file.span_of(node);
            let indent = depth.min(200);
            write!(out, "{:indent$}", "", indent = indent * 2)?;
            if let Some(field) = cursor.field_name() {
                write!(out, "{field}: ")?;
            }
            if node.is_missing() {
                write!(out, "MISSING ")?;
            }
            write!(
                out,
                "{} {}:{}-{}:{}",
                node.kind(),
                span.start.line + 1,
                span.start.column + 1,
                span.end.line + 1,
                span.end.column + 1
            )?;
            if node.child_count() == 0 && !node.is_missing() {
                let text = file.node_text(node);
                let shown: String = text.chars().take(60).collect();
                write!(out, " {shown:?}")?;
            }
            writeln!(out)?;
        }
        if cursor.goto_first_child() {
            depth += 1;
            continue;
        }
        loop {
            if cursor.goto_next_sibling() {
                break;
            }
            if depth == 0 || !cursor.goto_parent() {
                return Ok(());
            }
            depth -= 1;
        }
    }
}
