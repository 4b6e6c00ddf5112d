//! Code actions on quarry's diagnostics: add `# noqa: ID` on the line a
//! finding is reported on (extending a `# noqa: ...` already there), and
//! remove (or shorten) a suppression comment that suppressed nothing. The
//! edits are quarry-workspace's (`suppression::edits`); here they become
//! the protocol's code actions.

use std::collections::HashMap;

use lsp_types::{CodeAction, CodeActionKind, Diagnostic, TextEdit, Uri, WorkspaceEdit};
use quarry_workspace::suppression::edits::{add_noqa, directive_at, remove_unused, Edit};
use quarry_workspace::suppression::SuppressionComments;

use crate::diagnostics::{code_of, UNUSED_SUPPRESSION};
use crate::text::Text;

/// The quick fixes for `diagnostics` (quarry's, in a document whose text is `text`).
pub fn for_diagnostics(uri: &Uri, text: &Text, diagnostics: &[Diagnostic]) -> Vec<CodeAction> {
    let suppressions = SuppressionComments::scan(text.source());
    let mut actions = Vec::new();
    for diagnostic in diagnostics {
        let Some(code) = code_of(diagnostic) else { continue };
        let line = diagnostic.range.start.line as usize;
        let fix = if code == UNUSED_SUPPRESSION {
            let column = text.column(diagnostic.range.start);
            let directive = directive_at(&suppressions, line, column);
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
        let edit = text_edit(text, edit);
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

/// An edit as the protocol writes it.
fn text_edit(text: &Text, edit: Edit) -> TextEdit {
    TextEdit { range: text.range(edit.start, edit.end), new_text: edit.new_text }
}
