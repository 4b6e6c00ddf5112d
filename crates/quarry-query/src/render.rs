//! A compact, stable text rendering of findings, used by snapshot tests and
//! handy for eyeballing results.

use quarry_syntax::{ParsedFile, Span};

use crate::finding::Finding;

/// Renders findings one per line:
/// `positive 3:4-3:11 "except:" | facts 5:0-5:3 "foo" | blocks [1]`.
pub fn render_findings(file: &ParsedFile, findings: &[Finding]) -> String {
    let mut out = String::new();
    for finding in findings {
        let polarity = match finding.polarity {
            crate::Polarity::Positive => "positive",
            crate::Polarity::Negative => "negative",
        };
        out.push_str(polarity);
        for span in &finding.answers {
            out.push(' ');
            out.push_str(&render_span(file, span));
        }
        if !finding.facts.is_empty() {
            out.push_str(" | facts");
            for span in &finding.facts {
                out.push(' ');
                out.push_str(&render_span(file, span));
            }
        }
        out.push_str(&format!(" | blocks {:?}\n", finding.relevant_blocks));
    }
    out
}

/// `line:column-line:column "text"`, with the text cut at 60 characters.
pub fn render_span(file: &ParsedFile, span: &Span) -> String {
    let text: String = span.text(file.text()).chars().take(60).collect();
    format!("{}:{}-{}:{} {:?}", span.start.line, span.start.column, span.end.line, span.end.column, text)
}
