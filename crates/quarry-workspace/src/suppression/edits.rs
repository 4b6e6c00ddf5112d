//! The edits behind the editor's quick fixes on suppressions: add
//! `# noqa: ID` on the line a finding is reported on (extending a
//! `# noqa: ...` already there), and remove (or shorten) a suppression
//! comment that suppressed nothing. Positions are 0-based lines and
//! character columns, as quarry's spans; the server converts them to the
//! protocol's.

use super::{Directive, Form, SuppressionComments};

/// A 0-based line and character column.
pub type LineColumn = (usize, usize);

/// Replace the text from `start` to `end` with `new_text`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Edit {
    /// Where the replaced text starts.
    pub start: LineColumn,
    /// Where it ends (exclusive); `(line + 1, 0)` takes the line break too.
    pub end: LineColumn,
    /// The text put there.
    pub new_text: String,
}

/// The text of each 0-based line of a document, without its terminator
/// ("" past the end).
pub trait Lines {
    /// The text of line `line`.
    fn line(&self, line: usize) -> &str;
}

/// Where a directive's text lies on its line: (start column of the
/// directive's keyword, end column), in characters.
fn directive_columns(line_text: &str, directive: &Directive) -> Option<(usize, usize)> {
    let from: usize = line_text.chars().take(directive.column).map(char::len_utf8).sum::<usize>().min(line_text.len());
    let at = from + line_text[from..].find(directive.text.as_str())?;
    let start = line_text[..at].chars().count();
    Some((start, start + directive.text.chars().count()))
}

/// The edit that suppresses `code` on 0-based line `line`: `, CODE` after
/// the line's `# noqa: ...` list, else `  # noqa: CODE` at its end.
pub fn add_noqa(text: &impl Lines, comments: &SuppressionComments, line: usize, code: &str) -> Edit {
    let line_text = text.line(line);
    let existing = comments.directives.iter().find(|d| d.form == Form::Noqa && d.line == line && d.codes.is_some());
    if let Some((_, end)) = existing.and_then(|d| directive_columns(line_text, d)) {
        return Edit { start: (line, end), end: (line, end), new_text: format!(", {code}") };
    }
    let end = (line, line_text.chars().count());
    Edit { start: end, end, new_text: format!("  # noqa: {code}") }
}

/// The edit that takes the IDs `unused` out of `directive`: the directive
/// keeps the IDs left, or the whole comment goes (with the blanks before
/// it, and its line when nothing else is on it).
pub fn remove_unused(text: &impl Lines, directive: &Directive, unused: &[String]) -> Edit {
    let line = directive.line;
    let line_text = text.line(line);
    let (keyword_start, end) = directive_columns(line_text, directive).unwrap_or((directive.column, directive.column));
    let kept: Vec<&String> = directive.codes.iter().flatten().filter(|c| !unused.contains(c)).collect();
    if !kept.is_empty() {
        let kept = kept.iter().map(|c| c.as_str()).collect::<Vec<_>>().join(", ");
        let new_text = match directive.form {
            Form::Noqa => format!("noqa: {kept}"),
            form => format!("{}[{kept}]", form.name()),
        };
        return Edit { start: (line, keyword_start), end: (line, end), new_text };
    }
    // The whole comment goes from its `#`, with the blanks before it; a
    // line left empty goes too.
    let keyword_at: usize = line_text.chars().take(keyword_start).map(char::len_utf8).sum();
    let hash = line_text[..keyword_at].rfind('#').unwrap_or(keyword_at);
    let before = &line_text[..hash];
    let start = before.trim_end().chars().count();
    let rest: String = line_text.chars().skip(end).collect();
    if before.trim().is_empty() && rest.trim().is_empty() {
        return Edit { start: (line, 0), end: (line + 1, 0), new_text: String::new() };
    }
    Edit { start: (line, start), end: (line, end), new_text: String::new() }
}

/// The directive an unused-suppression report at 0-based `line`, character
/// `column` stands for.
pub fn directive_at(comments: &SuppressionComments, line: usize, column: usize) -> Option<&Directive> {
    comments.directives.iter().find(|d| d.line == line && d.column == column)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A text's lines split as the editor splits them.
    struct Text(Vec<String>);

    impl Text {
        fn new(text: String) -> Text {
            Text(text.split('\n').map(str::to_string).collect())
        }
    }

    impl Lines for Text {
        fn line(&self, line: usize) -> &str {
            self.0.get(line).map_or("", String::as_str)
        }
    }

    /// `text` with `edit` applied.
    fn apply(text: &str, edit: &Edit) -> String {
        let offset = |(line, column): LineColumn| {
            let start: usize = text.split_inclusive('\n').take(line).map(str::len).sum();
            let rest = &text[start.min(text.len())..];
            start + rest.chars().take(column).map(char::len_utf8).sum::<usize>()
        };
        let (start, end) = (offset(edit.start), offset(edit.end));
        format!("{}{}{}", &text[..start], edit.new_text, &text[end..])
    }

    #[test]
    fn noqa_is_added_or_extended() {
        let source = "import os\nimport sys  # noqa: F811\n";
        let text = Text::new(source.to_string());
        let suppressions = SuppressionComments::scan(source);
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
        let directives = SuppressionComments::scan(source).directives;
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
