//! Hover on a diagnostic: the documentation of the query that reported it.

use lsp_types::{Diagnostic, Hover, HoverContents, MarkupContent, MarkupKind, Position};
use quarry_query::{find_query, Hops, Query};

use crate::diagnostics::{code_of, UNUSED_SUPPRESSION};

/// The hover for `position`: the documentation of each query with a
/// diagnostic there; `None` when there is none.
pub fn at(diagnostics: &[Diagnostic], position: Position) -> Option<Hover> {
    let mut sections: Vec<String> = Vec::new();
    let mut range = None;
    for diagnostic in diagnostics.iter().filter(|d| d.range.start <= position && position <= d.range.end) {
        let Some(code) = code_of(diagnostic) else { continue };
        let section = if code == UNUSED_SUPPRESSION {
            format!("**{UNUSED_SUPPRESSION}**\n\n{}: a suppression comment that suppressed no finding of the queries that ran. Remove it, or the IDs that found nothing.", diagnostic.message)
        } else if let Some(query) = find_query(code) {
            documentation(query)
        } else {
            continue;
        };
        if !sections.contains(&section) {
            sections.push(section);
        }
        range.get_or_insert(diagnostic.range);
    }
    (!sections.is_empty()).then(|| Hover {
        contents: HoverContents::Markup(MarkupContent {
            kind: MarkupKind::Markdown,
            value: sections.join("\n\n---\n\n"),
        }),
        range,
    })
}

/// A query's documentation in Markdown.
pub fn documentation(query: &Query) -> String {
    let meta = &query.meta;
    let hops = match meta.hops {
        Hops::Single => "single-hop: the answer is found within one code block",
        Hops::Multi => "multi-hop: the answer needs several code blocks",
    };
    format!(
        "**{}** (`{}`, CodeQueries Q{})\n\n{}\n\n{hops}. Mirrors the CodeQL query `{}`. Suppress with `# noqa: {}`.",
        meta.name, meta.id, meta.index, meta.description, meta.codeql, meta.id
    )
}
