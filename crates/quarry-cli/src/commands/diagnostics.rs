//! Compiler-diagnostic rendering of findings: the code with answer spans
//! underlined by `^` and supporting facts by `-`.

use std::io::{self, Write};

use quarry_query::report::{FileReport, FindingRecord};
use quarry_syntax::SpanRecord;

/// Writes every finding of a file.
pub fn write(out: &mut dyn Write, report: &FileReport) -> io::Result<()> {
    let lines: Vec<&str> = report.text.split_inclusive(['\n']).map(|l| l.trim_end_matches(['\n', '\r'])).collect();
    for finding in &report.findings {
        write_finding(out, &lines, finding)?;
    }
    Ok(())
}

fn write_finding(out: &mut dyn Write, lines: &[&str], finding: &FindingRecord) -> io::Result<()> {
    let kind = if finding.example_type == 1 { "answer" } else { "negative" };
    writeln!(out, "{kind}[{}]: {}", finding.query_id, finding.message)?;
    let Some(first) = finding.answer_spans.first() else { return Ok(()) };
    writeln!(out, "  --> {}:{}:{}", finding.file, first.start_line + 1, first.start_column + 1)?;
    let mut marked: Vec<(&SpanRecord, char, &str)> = Vec::new();
    marked.extend(finding.answer_spans.iter().map(|s| (s, '^', "answer")));
    marked.extend(finding.supporting_fact_spans.iter().map(|s| (s, '-', "supporting fact")));
    marked.sort_by_key(|(s, _, _)| (s.start_line, s.start_column));
    let width = marked.iter().map(|(s, _, _)| s.end_line + 1).max().unwrap_or(1).to_string().len();
    for (span, mark, label) in marked {
        for line in span.start_line..=span.end_line.min(span.start_line + 4) {
            let Some(text) = lines.get(line) else { break };
            writeln!(out, "{:>width$} | {text}", line + 1)?;
            let chars = text.chars().count();
            let from = if line == span.start_line { span.start_column } else { 0 };
            let to = if line == span.end_line { span.end_column } else { chars };
            let indent: String = text.chars().take(from).map(|c| if c == '\t' { '\t' } else { ' ' }).collect();
            let underline: String = std::iter::repeat_n(mark, to.saturating_sub(from).max(1)).collect();
            let note = if line == span.end_line.min(span.start_line + 4) { format!(" {label}") } else { String::new() };
            writeln!(out, "{:>width$} | {indent}{underline}{note}", "")?;
        }
    }
    writeln!(out)
}
