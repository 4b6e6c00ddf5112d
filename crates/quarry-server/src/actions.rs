//! Code actions on quarry's diagnostics: add `# noqa: ID` on the line a
//! finding is reported on (extending a `# noqa: ...` already there), and
//! remove (or shorten) a suppression comment that suppressed nothing.

use std::collections::HashMap;

use lsp_types::{CodeAction, CodeActionKind, Diagnostic, Range, TextEdit, Uri, WorkspaceEdit};
use quarry_query::suppression::{Directive, Form, Suppressions};

use crate::diagnostics::{code_of, UNUSED_SUPPRESSION};
use crate::text::Text;

/// The quick fixes for `diagnostics` (quarry's, in a document whose text is `text`).
pub fn for_diagnostics(uri: &Uri, text: &Text, diagnostics: &[Diagnostic]) -> Vec<CodeAction> {
    let suppressions = Suppressions::scan(text.as_str());
    let mut actions = Vec::new();
    for diagnostic in diagnostics {
        let Some(code) = code_of(diagnostic) else { continue };
        let line = diagnostic.range.start.line as usize;
        let fix = if code == UNUSED_SUPPRESSION {
            let column = text.column(diagnostic.range.start);
            let directive = suppressions.directives.iter().find(|d| d.line == line && d.column == column);
            let unused: Vec<String> = diagnostic
                .data
                .as_ref()
                .and_then(|d| serde_json::from_value(d["unused"].clone()).ok())
                .unwrap_or_default();
            directive.map(|d| (format!("Remove unused suppression `{}`", d.text), remove_unused(text, d, &unused)))
        } else {
            Some((format!("Suppress {code} on this line (# noqa: {code})"), add_noqa(text, &suppressions, line, code)))
        };
        let Some((title, edit)) = fix else { continue };
        actions.push(CodeAction {
            title,
            kind: Some(CodeActionKind::QUICKFIX),
            diagnostics: Some(vec![diagnostic.clone()]),
            edit: Some(WorkspaceEdit {
                changes: Some(HashMap::from([(uri.clone(), vec![edit])])),
                ..Default::default()
            }),
            ..CodeAction::default()
        });
    }
    actions
}

/// Where a directive's text ends on its line: (start column of the
/// directive's keyword, end column), in characters.
fn directive_columns(text: &Text, directive: &Directive) -> Option<(usize, usize)> {
    let line = text.line(directive.line);
    let from: usize = line.chars().take(directive.column).map(char::len_utf8).sum::<usize>().min(line.len());
    let at = from + line[from..].find(directive.text.as_str())?;
    let start = line[..at].chars().count();
    Some((start, start + directive.text.chars().count()))
}

fn add_noqa(text: &Text, suppressions: &Suppressions, line: usize, code: &str) -> TextEdit {
    let existing = suppressions.directives.iter().find(|d| d.form == Form::Noqa && d.line == line && d.codes.is_some());
    if let Some((_, end)) = existing.and_then(|d| directive_columns(text, d)) {
        let at = text.position(line, end);
        return TextEdit { range: Range { start: at, end: at }, new_text: format!(", {code}") };
    }
    let end = text.position(line, text.line(line).chars().count());
    TextEdit { range: Range { start: end, end }, new_text: format!("  # noqa: {code}") }
}

fn remove_unused(text: &Text, directive: &Directive, unused: &[String]) -> TextEdit {
    let line_text = text.line(directive.line);
    let (keyword_start, end) = directive_columns(text, directive).unwrap_or((directive.column, directive.column));
    let kept: Vec<&String> = directive.codes.iter().flatten().filter(|c| !unused.contains(c)).collect();
    if !kept.is_empty() {
        let kept = kept.iter().map(|c| c.as_str()).collect::<Vec<_>>().join(", ");
        let new_text = match directive.form {
            Form::Noqa => format!("noqa: {kept}"),
            form => format!("{}[{kept}]", form.name()),
        };
        let range = text.range((directive.line, keyword_start), (directive.line, end));
        return TextEdit { range, new_text };
    }
    // The whole comment goes from its `#`, with the blanks before it; a
    // line left empty goes too.
    let keyword_at: usize = line_text.chars().take(keyword_start).map(char::len_utf8).sum();
    let hash = line_text[..keyword_at].rfind('#').unwrap_or(keyword_at);
    let before = &line_text[..hash];
    let start = before.trim_end().chars().count();
    let rest: String = line_text.chars().skip(end).collect();
    if before.trim().is_empty() && rest.trim().is_empty() {
        let range = Range { start: text.position(directive.line, 0), end: text.position(directive.line + 1, 0) };
        return TextEdit { range, new_text: String::new() };
    }
    TextEdit { range: text.range((directive.line, start), (directive.line, end)), new_text: String::new() }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn apply(text: &str, edit: &TextEdit) -> String {
        let mut text = Text::new(text.to_string());
        text.apply(vec![lsp_types::TextDocumentContentChangeEvent {
            range: Some(edit.range),
            range_length: None,
            text: edit.new_text.clone(),
        }]);
        text.as_str().to_string()
    }

    #[test]
    fn noqa_is_added_or_extended() {
        let source = "import os\nimport sys  # noqa: F811\n";
        let text = Text::new(source.to_string());
        let suppressions = Suppressions::scan(source);
        assert_eq!(
            apply(source, &add_noqa(&text, &suppressions, 0, "unused-import")),
            "import os  # noqa: unused-import\nimport sys  # noqa: F811\n"
        );
        assert_eq!(
            apply(source, &add_noqa(&text, &suppressions, 1, "unused-import")),
            "import os\nimport sys  # noqa: F811, unused-import\n"
        );
    }

    #[test]
    fn unused_suppressions_are_removed_or_shortened() {
        let source = "x = 1  # noqa: unused-import\n# codeql[py/unused-import]\ny = 2  # noqa: unused-import, F401\n";
        let text = Text::new(source.to_string());
        let directives = Suppressions::scan(source).directives;
        let unused = vec!["unused-import".to_string()];
        assert_eq!(
            apply(source, &remove_unused(&text, &directives[0], &unused)),
            source.replace("  # noqa: unused-import\n# codeql", "\n# codeql")
        );
        let codeql_unused = vec!["py/unused-import".to_string()];
        assert_eq!(
            apply(source, &remove_unused(&text, &directives[1], &codeql_unused)),
            source.replace("# codeql[py/unused-import]\n", "")
        );
        assert_eq!(
            apply(source, &remove_unused(&text, &directives[2], &unused)),
            source.replace("unused-import, F401", "F401")
        );
    }
}
