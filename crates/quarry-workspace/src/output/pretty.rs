//! Compiler-diagnostic rendering of findings: the code with answer spans
//! underlined by `^` and supporting facts by `-`, in colour when the
//! [`Palette`] is enabled.
//!
//! Output is bounded: a long line is shown as a window of at most
//! [`MAX_LINE_CHARS`] characters around the span, at most five lines are
//! shown per span, and after `max_findings` findings of one file the rest are
//! counted rather than shown (JSON Lines and SARIF keep every full span).
//! Nothing from the input reaches the terminal raw: file names, messages and
//! comment texts have their control characters escaped, and source lines
//! show them as visible characters ([`style::escape_controls`],
//! [`style::visible_controls`]).

use std::io::{self, Write};

use quarry_syntax::SpanRecord;

use super::style::{self, Palette};
use crate::triage::{Status, TriagedFile, UnusedSuppression};
use quarry_query::report::FindingRecord;

/// The most characters of one source line shown; longer lines are cut to a
/// window around the marked columns, with `…` where text was left out.
pub const MAX_LINE_CHARS: usize = 160;

/// Default number of findings shown per file.
pub const DEFAULT_MAX_FINDINGS_SHOWN: usize = 1000;

/// Lines of a span shown before the rest is left out.
const MAX_SPAN_LINES: usize = 5;

/// Characters of context kept left of the span when a line is cut.
const LEFT_CONTEXT: usize = 40;

/// One source line and whether it is pure ASCII (characters are bytes).
struct Line<'a> {
    text: &'a str,
    ascii: bool,
}

/// Writes the reported findings of a file (not those suppressed or in the
/// baseline), at most `max_findings` of them.
pub fn write(out: &mut dyn Write, file: &TriagedFile, max_findings: usize, palette: Palette) -> io::Result<()> {
    let reported: Vec<&FindingRecord> =
        file.findings.iter().filter(|t| t.status == Status::Reported).map(|t| &t.finding).collect();
    if reported.is_empty() {
        return Ok(());
    }
    let lines: Vec<Line<'_>> =
        source_lines(&file.report.text).into_iter().map(|text| Line { text, ascii: text.is_ascii() }).collect();
    for finding in reported.iter().take(max_findings) {
        write_finding(out, &lines, finding, palette)?;
    }
    let hidden = reported.len().saturating_sub(max_findings);
    if hidden > 0 {
        writeln!(
            out,
            "note: {hidden} more finding(s) in {} not shown (--max-shown; --format jsonl or sarif lists all)\n",
            style::escape_controls(&file.report.path.display().to_string())
        )?;
    }
    Ok(())
}

/// The lines of `text` without their ends, numbered as spans number them: `\n`, `\r\n` and
/// a lone `\r` (old Mac files) each end a line.
fn source_lines(text: &str) -> Vec<&str> {
    let bytes = text.as_bytes();
    let (mut lines, mut start, mut at) = (Vec::new(), 0, 0);
    while at < bytes.len() {
        let end_len = match bytes[at] {
            b'\n' => 1,
            b'\r' if bytes.get(at + 1) == Some(&b'\n') => 2,
            b'\r' => 1,
            _ => 0,
        };
        if end_len == 0 {
            at += 1;
            continue;
        }
        lines.push(&text[start..at]);
        at += end_len;
        start = at;
    }
    if start < bytes.len() {
        lines.push(&text[start..]);
    }
    lines
}

/// Writes one unused suppression as a warning.
pub fn write_unused(out: &mut dyn Write, unused: &UnusedSuppression, palette: Palette) -> io::Result<()> {
    writeln!(
        out,
        "{}{}: suppression `{}` names {} but nothing was found there",
        palette.paint(style::WARNING, "warning"),
        palette.paint(style::QUERY, "[unused-suppression]"),
        style::escape_controls(&unused.text),
        unused.unused.join(", ")
    )?;
    writeln!(
        out,
        "  {} {}:{}:{}\n",
        palette.paint(style::GUTTER, "-->"),
        style::escape_controls(&unused.file),
        unused.line + 1,
        unused.column + 1
    )
}

fn write_finding(out: &mut dyn Write, lines: &[Line<'_>], finding: &FindingRecord, palette: Palette) -> io::Result<()> {
    let (kind, kind_style) =
        if finding.example_type == 1 { ("answer", style::ANSWER) } else { ("negative", style::NEGATIVE) };
    writeln!(
        out,
        "{}{}: {}",
        palette.paint(kind_style, kind),
        palette.paint(style::QUERY, &format!("[{}]", finding.query_id)),
        style::escape_controls(&finding.message)
    )?;
    let Some(first) = finding.answer_spans.first() else { return Ok(()) };
    writeln!(
        out,
        "  {} {}:{}:{}",
        palette.paint(style::GUTTER, "-->"),
        style::escape_controls(&finding.file),
        first.start_line + 1,
        first.start_column + 1
    )?;
    let mut marked: Vec<(&SpanRecord, char, &str)> = Vec::new();
    marked.extend(finding.answer_spans.iter().map(|s| (s, '^', "answer")));
    marked.extend(finding.supporting_fact_spans.iter().map(|s| (s, '-', "supporting fact")));
    marked.sort_by_key(|(s, _, _)| (s.start_line, s.start_column));
    let width = marked.iter().map(|(s, _, _)| s.end_line + 1).max().unwrap_or(1).to_string().len();
    let bar = palette.paint(style::GUTTER, "|");
    for (span, mark, label) in marked {
        let mark_style = if mark == '^' { style::ANSWER_MARK } else { style::FACT_MARK };
        let last = span.end_line.min(span.start_line + MAX_SPAN_LINES - 1);
        for line in span.start_line..=last {
            let Some(source) = lines.get(line) else { break };
            let from = if line == span.start_line { span.start_column } else { 0 };
            let to = if line == span.end_line { Some(span.end_column) } else { None };
            let shown = window(source, from, to);
            let number = palette.paint(style::GUTTER, &format!("{:>width$}", line + 1));
            writeln!(out, "{number} {bar} {}", style::visible_controls(&shown.text))?;
            let underline: String = std::iter::repeat_n(mark, shown.marked.max(1)).collect();
            let note = if line == last { format!(" {label}") } else { String::new() };
            writeln!(
                out,
                "{:>width$} {bar} {}{}",
                "",
                shown.indent,
                palette.paint(mark_style, &format!("{underline}{note}"))
            )?;
        }
    }
    writeln!(out)
}

/// What is printed of one line: its text (cut to a window when long), the
/// indentation before the mark and the number of marked characters.
struct Shown {
    text: String,
    indent: String,
    marked: usize,
}

/// The part of `line` to show for a mark from character `from` to `to`
/// (`None`: to the end of the line).
fn window(line: &Line<'_>, from: usize, to: Option<usize>) -> Shown {
    let length = if line.ascii { line.text.len() } else { line.text.chars().count() };
    let from = from.min(length);
    let to = to.unwrap_or(length).clamp(from, length);
    let (start, end) = if length <= MAX_LINE_CHARS {
        (0, length)
    } else {
        let start = from.saturating_sub(LEFT_CONTEXT);
        (start, (start + MAX_LINE_CHARS).min(length))
    };
    let slice = char_slice(line, start, end);
    let prefix = if start > 0 { "…" } else { "" };
    let suffix = if end < length { "…" } else { "" };
    let before = char_slice(line, start, from);
    let indent: String =
        prefix.chars().map(|_| ' ').chain(before.chars().map(|c| if c == '\t' { '\t' } else { ' ' })).collect();
    let marked = to.min(end).saturating_sub(from);
    let marked = if to > end { marked + suffix.chars().count() } else { marked };
    Shown { text: format!("{prefix}{slice}{suffix}"), indent, marked }
}

/// Characters `start..end` of a line.
fn char_slice<'a>(line: &Line<'a>, start: usize, end: usize) -> &'a str {
    let text = line.text;
    if line.ascii {
        return &text[start.min(text.len())..end.min(text.len())];
    }
    let start_byte = byte_of_char(text, start);
    let end_byte = start_byte + byte_of_char(&text[start_byte..], end.saturating_sub(start));
    &text[start_byte..end_byte]
}

/// The byte offset of character `index` of `text` (its length past the end).
fn byte_of_char(text: &str, index: usize) -> usize {
    text.char_indices().nth(index).map_or(text.len(), |(byte, _)| byte)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_end_as_spans_count_them() {
        assert_eq!(source_lines("a\rb\r\nc\nd"), ["a", "b", "c", "d"]);
        assert_eq!(source_lines("import os\rdef f():\r    x = 1\r"), ["import os", "def f():", "    x = 1"]);
        assert_eq!(source_lines("é\n\n"), ["é", ""]);
        assert!(source_lines("").is_empty());
    }

    #[test]
    fn short_lines_are_shown_whole() {
        let line = Line { text: "x = a == a", ascii: true };
        let shown = window(&line, 4, Some(10));
        assert_eq!(shown.text, "x = a == a");
        assert_eq!(shown.indent, "    ");
        assert_eq!(shown.marked, 6);
    }

    #[test]
    fn long_lines_are_cut_around_the_span() {
        let text = "a == a; ".repeat(1000);
        let line = Line { text: &text, ascii: true };
        let shown = window(&line, 4000, Some(4006));
        assert_eq!(shown.text.chars().count(), MAX_LINE_CHARS + 2);
        assert!(shown.text.starts_with('…') && shown.text.ends_with('…'));
        assert_eq!(shown.indent.chars().count(), LEFT_CONTEXT + 1);
        assert_eq!(shown.marked, 6);
        let text = "é".repeat(500);
        let line = Line { text: &text, ascii: false };
        let shown = window(&line, 300, None);
        assert_eq!(shown.text.chars().count(), MAX_LINE_CHARS + 2);
        assert_eq!(shown.marked, MAX_LINE_CHARS - LEFT_CONTEXT + 1);
    }
}
