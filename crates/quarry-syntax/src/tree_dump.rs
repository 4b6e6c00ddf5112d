//! A readable, indented dump of a syntax tree, written without recursion,
//! within a time budget and with output that grows linearly with the tree.

use std::io::{self, Write};

use crate::budget::Deadline;
use crate::error::SyntaxError;
use crate::parse::ParsedFile;

/// Depth up to which each level indents by two spaces. Deeper nodes keep
/// this indentation and show their depth as `[depth N]`, so the dump of a
/// pathologically nested tree stays proportional to its node count.
pub const MAX_INDENT_DEPTH: usize = 40;

/// Nodes written between two looks at the time budget.
const NODES_PER_BUDGET_CHECK: usize = 4096;

/// Why a tree dump stopped before its end.
#[derive(Debug, thiserror::Error)]
pub enum DumpError {
    /// Writing the output failed.
    #[error("cannot write output: {0}")]
    Write(#[from] io::Error),
    /// The file's time budget ran out while the tree was being written.
    #[error(transparent)]
    Budget(#[from] SyntaxError),
}

/// Writes one line per named node (and per missing or error node):
/// indentation by depth, the field name, the kind, the span as
/// `start_line:start_column-end_line:end_column` (1-based, as people read
/// positions; JSON output keeps the 0-based span schema), and the text of
/// leaves (at most 60 characters). Stops with [`DumpError::Budget`] once
/// `deadline` has passed; what was written until then stays written.
pub fn write_tree(file: &ParsedFile, out: &mut (impl Write + ?Sized), deadline: &Deadline) -> Result<(), DumpError> {
    let mut cursor = file.root().walk();
    let mut depth = 0usize;
    let mut visited = 0usize;
    loop {
        visited += 1;
        if visited.is_multiple_of(NODES_PER_BUDGET_CHECK) {
            deadline.check(file.source().path(), || "writing the syntax tree".to_string())?;
        }
        let node = cursor.node();
        if node.is_named() || node.is_missing() || node.is_error() {
            let span = file.span_of(node);
            write!(out, "{:indent$}", "", indent = depth.min(MAX_INDENT_DEPTH) * 2)?;
            if depth > MAX_INDENT_DEPTH {
                write!(out, "[depth {depth}] ")?;
            }
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
