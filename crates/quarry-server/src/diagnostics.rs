//! Findings as LSP diagnostics: range = the first answer span, code = the
//! query id, message = the query's message, related information = the
//! supporting-fact spans (and any further answer spans). Only reported
//! findings become diagnostics: suppressed and negative-form ones never
//! do. Suppression comments that suppressed nothing become hints tagged
//! unnecessary, with the code [`UNUSED_SUPPRESSION`].

use lsp_types::{
    Diagnostic, DiagnosticRelatedInformation, DiagnosticSeverity, DiagnosticTag, Location, NumberOrString, Uri,
};
use quarry_syntax::SpanRecord;
use quarry_workspace::triage::{Status, TriagedFile, UnusedSuppression};

use crate::text::Text;

/// The code of an unused-suppression diagnostic.
pub const UNUSED_SUPPRESSION: &str = "unused-suppression";

/// The diagnostics' `source`.
pub const SOURCE: &str = "quarry";

/// The diagnostics of one triaged file whose text is `text`.
pub fn of_file(uri: &Uri, file: &TriagedFile, text: &Text) -> Vec<Diagnostic> {
    if file.skipped {
        return Vec::new();
    }
    let range = |span: &SpanRecord| text.range((span.start_line, span.start_column), (span.end_line, span.end_column));
    let mut diagnostics = Vec::new();
    for triaged in file.findings.iter().filter(|t| t.status == Status::Reported && t.finding.example_type == 1) {
        let finding = &triaged.finding;
        let Some(answer) = finding.answer_spans.first() else { continue };
        let related = finding
            .answer_spans
            .iter()
            .skip(1)
            .map(|span| ("also the answer", span))
            .chain(finding.supporting_fact_spans.iter().map(|span| ("supporting fact", span)))
            .map(|(what, span)| DiagnosticRelatedInformation {
                location: Location { uri: uri.clone(), range: range(span) },
                message: format!("{what}: {}", first_line(&span.span)),
            })
            .collect::<Vec<_>>();
        diagnostics.push(Diagnostic {
            range: range(answer),
            severity: Some(DiagnosticSeverity::WARNING),
            code: Some(NumberOrString::String(finding.query_id.to_string())),
            source: Some(SOURCE.to_string()),
            message: finding.message.clone(),
            related_information: (!related.is_empty()).then_some(related),
            ..Diagnostic::default()
        });
    }
    diagnostics.extend(file.unused_suppressions.iter().map(|unused| unused_suppression(unused, text)));
    diagnostics
}

/// The hint for a suppression comment that suppressed nothing, over the
/// directive.
fn unused_suppression(unused: &UnusedSuppression, text: &Text) -> Diagnostic {
    let end = unused.column + 2 + unused.text.chars().count();
    Diagnostic {
        range: text.range((unused.line, unused.column), (unused.line, end)),
        severity: Some(DiagnosticSeverity::HINT),
        code: Some(NumberOrString::String(UNUSED_SUPPRESSION.to_string())),
        source: Some(SOURCE.to_string()),
        message: format!("unused suppression: nothing found here for {}", unused.unused.join(", ")),
        tags: Some(vec![DiagnosticTag::UNNECESSARY]),
        data: Some(serde_json::json!({ "unused": unused.unused })),
        ..Diagnostic::default()
    }
}

/// The query id a diagnostic of quarry's stands for.
pub fn code_of(diagnostic: &Diagnostic) -> Option<&str> {
    match &diagnostic.code {
        Some(NumberOrString::String(code)) if diagnostic.source.as_deref() == Some(SOURCE) => Some(code),
        _ => None,
    }
}

fn first_line(text: &str) -> String {
    let line = text.lines().next().unwrap_or("").trim();
    let mut short: String = line.chars().take(80).collect();
    if short.len() < line.len() || text.trim().contains('\n') {
        short.push('…');
    }
    short
}
