//! Suppression comments as a lexical fact of a file: the forms ruff,
//! flake8 and CodeQL users write, read from the file's comments (found by
//! the tokenizer, so a `#` inside a string is not a comment) as the
//! analysis reads the file, within its time budget. What they mean (which
//! findings they suppress, which went unused, the edits that add or remove
//! them) is the workspace's (quarry-workspace's `suppression`).
//!
//! - `# noqa` (every query) and `# noqa: ID[,ID ...]` cover the line they
//!   are on, as in ruff and flake8. An ID is kept as written: a quarry id
//!   (`unused-import`), a paper index (`Q1`), a CodeQL `@id`
//!   (`py/unused-import`) or a ruff code (`F401`), see [`crate::rule_ids`].
//!   IDs may be separated by commas or spaces.
//! - `# lgtm[ID, ...]` (and a bare `# lgtm` at the start of a comment)
//!   covers its own line and, when the comment stands alone on its line, the
//!   next line, as in CodeQL's `AlertSuppression.qll`.
//! - `# codeql[ID, ...]` stands alone on its line and covers the next line,
//!   as in CodeQL.
//! - `# quarry: skip-file` anywhere in the file.

use quarry_syntax::{tokenize, Language, TokenKind};

/// The comment form of a suppression.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Form {
    /// `# noqa` / `# noqa: ID`.
    Noqa,
    /// `# lgtm[ID]` / `# lgtm`.
    Lgtm,
    /// `# codeql[ID]`.
    CodeQl,
}

impl Form {
    /// How the form is written, for messages.
    pub fn name(self) -> &'static str {
        match self {
            Form::Noqa => "noqa",
            Form::Lgtm => "lgtm",
            Form::CodeQl => "codeql",
        }
    }
}

/// One suppression directive found in a comment.
#[derive(Debug, Clone)]
pub struct Directive {
    /// Its form.
    pub form: Form,
    /// 0-based line of the comment.
    pub line: usize,
    /// 0-based character column of the directive in its line (of the `#`
    /// before `noqa`, as ruff reports it).
    pub column: usize,
    /// 0-based lines whose findings it suppresses.
    pub covers: Vec<usize>,
    /// The IDs it names as written; `None` for every query.
    pub codes: Option<Vec<String>>,
    /// The directive's text (`noqa: F401`, `codeql[py/unused-import]`).
    pub text: String,
}

/// The suppression comments of one file.
#[derive(Debug, Clone, Default)]
pub struct SuppressionComments {
    /// `# quarry: skip-file` was found.
    pub skip_file: bool,
    /// Line directives in file order.
    pub directives: Vec<Directive>,
}

impl SuppressionComments {
    /// Reads the suppression comments of a Python file's text.
    pub fn scan(text: &str) -> SuppressionComments {
        let mut found = SuppressionComments::default();
        if !may_hold_directives(text) {
            return found;
        }
        let mut line = 0usize;
        let mut line_start = 0usize;
        let mut counted_to = 0usize;
        for token in tokenize(text, Language::Python) {
            if token.kind != TokenKind::Comment {
                continue;
            }
            for (offset, byte) in text.as_bytes()[counted_to..token.start].iter().enumerate() {
                if *byte == b'\n' {
                    line += 1;
                    line_start = counted_to + offset + 1;
                }
            }
            counted_to = token.start;
            let comment = token.text(text);
            let alone = text[line_start..token.start].trim().is_empty();
            let column = text[line_start..token.start].chars().count();
            if is_skip_file(comment) {
                found.skip_file = true;
            }
            found.directives.extend(directives_in(comment, line, column, alone));
        }
        found
    }
}

/// Whether some `#` of the text is followed on its line by a directive's
/// keyword: most files have none, and are not tokenized again. The text
/// after a line's first `#` holds what follows every other `#` of the line,
/// so each line is looked at once.
fn may_hold_directives(text: &str) -> bool {
    text.split('\n').any(|line| {
        line.find('#').is_some_and(|at| {
            let rest = line[at..].to_ascii_lowercase();
            ["noqa", "lgtm", "codeql", "quarry"].iter().any(|word| rest.contains(word))
        })
    })
}

/// Whether a comment is `# quarry: skip-file` (case and spacing as ruff's
/// `# ruff: noqa`: any spaces around the colon).
fn is_skip_file(comment: &str) -> bool {
    let body = comment.trim_start_matches('#').trim_start();
    let Some(rest) = strip_prefix_ignore_case(body, "quarry") else { return false };
    let Some(rest) = rest.trim_start().strip_prefix(':') else { return false };
    strip_prefix_ignore_case(rest.trim_start(), "skip-file").is_some_and(|rest| !starts_with_word_char(rest))
}

/// Every directive in one comment.
fn directives_in(comment: &str, line: usize, column: usize, alone: bool) -> Vec<Directive> {
    let mut out = Vec::new();
    let lower = comment.to_ascii_lowercase();
    // Character columns are counted on from the previous directive, so a
    // comment of many directives is read once.
    let mut columns = CharColumns::new(comment);
    // `# noqa`: after any `#` of the comment, as ruff (`# type: ignore # noqa`).
    for (hash, _) in comment.match_indices('#') {
        let after = &comment[hash + 1..];
        let trimmed = after.trim_start();
        let Some(rest) = strip_prefix_ignore_case(trimmed, "noqa") else { continue };
        if starts_with_word_char(rest) {
            continue;
        }
        let start = hash + 1 + (after.len() - trimmed.len());
        let (codes, end) = match rest.strip_prefix(':') {
            Some(list) => {
                let (codes, used) = code_list(list);
                let end = comment.len() - list.len() + used;
                (if codes.is_empty() { None } else { Some(codes) }, end)
            }
            None => (None, comment.len() - rest.len()),
        };
        out.push(Directive {
            form: Form::Noqa,
            line,
            column: column + columns.at(hash),
            covers: vec![line],
            codes,
            text: comment[start..end].trim_end().to_string(),
        });
    }
    // Where the comment's leading `#`s and the blanks after them end: a bare
    // `lgtm` starting no later counts as the comment's start.
    let after_hashes = comment.trim_start_matches('#');
    let lead = comment.len() - after_hashes.trim_start().len();
    for (form, word) in [(Form::Lgtm, "lgtm"), (Form::CodeQl, "codeql")] {
        let mut columns = CharColumns::new(comment);
        // The first `]` at or after a byte offset, remembered: the offsets
        // asked grow, so the comment is searched once per form.
        let mut next_close: Option<Option<usize>> = None;
        for (at, _) in lower.match_indices(word) {
            if comment[..at].chars().next_back().is_some_and(is_word_char) {
                continue;
            }
            let rest = &comment[at + word.len()..];
            let bracketed = rest.trim_start().strip_prefix('[').and_then(|inner| {
                let from = comment.len() - inner.len();
                let close = match next_close {
                    Some(Some(close)) if close >= from => Some(close),
                    Some(None) => None,
                    _ => {
                        let found = comment[from..].find(']').map(|i| from + i);
                        next_close = Some(found);
                        found
                    }
                }? - from;
                let codes: Vec<String> =
                    inner[..close].split(',').map(str::trim).filter(|c| !c.is_empty()).map(String::from).collect();
                let end = comment.len() - inner.len() + close + 1;
                Some((codes, end))
            });
            let (codes, end) = match bracketed {
                Some((codes, end)) => (Some(codes), end),
                // A bare `lgtm` counts only at the start of the comment or after `;`.
                None if form == Form::Lgtm && !starts_with_word_char(rest) => {
                    if !(comment[..at].trim_end().ends_with(';') || at <= lead) {
                        continue;
                    }
                    (None, at + word.len())
                }
                None => continue,
            };
            let covers = match form {
                Form::CodeQl if alone => vec![line + 1],
                Form::CodeQl => continue,
                _ if alone => vec![line, line + 1],
                _ => vec![line],
            };
            out.push(Directive {
                form,
                line,
                column: column + columns.at(at),
                covers,
                codes,
                text: comment[at..end].to_string(),
            });
        }
    }
    out
}

/// Character columns of growing byte offsets of one text, each counted on
/// from the one asked before.
struct CharColumns<'a> {
    text: &'a str,
    byte: usize,
    chars: usize,
}

impl<'a> CharColumns<'a> {
    fn new(text: &'a str) -> CharColumns<'a> {
        CharColumns { text, byte: 0, chars: 0 }
    }

    /// The number of characters before byte `at` (a char boundary at or
    /// after the previous one asked).
    fn at(&mut self, at: usize) -> usize {
        if at < self.byte {
            self.byte = 0;
            self.chars = 0;
        }
        self.chars += self.text[self.byte..at].chars().count();
        self.byte = at;
        self.chars
    }
}

/// The IDs at the start of `list` (after `noqa:`), separated by commas or
/// spaces, and how many bytes they take.
fn code_list(list: &str) -> (Vec<String>, usize) {
    let mut codes = Vec::new();
    let mut used = 0;
    let mut rest = list;
    loop {
        let trimmed = rest.trim_start_matches([' ', '\t', ',']);
        let length =
            trimmed.find(|c: char| !(is_word_char(c) || matches!(c, '-' | '/' | '.'))).unwrap_or(trimmed.len());
        if length == 0 {
            break;
        }
        codes.push(trimmed[..length].to_string());
        used += rest.len() - trimmed.len() + length;
        rest = &trimmed[length..];
    }
    (codes, used)
}

fn is_word_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

fn starts_with_word_char(text: &str) -> bool {
    text.chars().next().is_some_and(|c| is_word_char(c) || c == '-')
}

fn strip_prefix_ignore_case<'a>(text: &'a str, prefix: &str) -> Option<&'a str> {
    let head = text.get(..prefix.len())?;
    head.eq_ignore_ascii_case(prefix).then(|| &text[prefix.len()..])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scan(text: &str) -> SuppressionComments {
        SuppressionComments::scan(text)
    }

    #[test]
    fn skip_file() {
        assert!(scan("# quarry: skip-file\nimport os\n").skip_file);
        assert!(scan("import os\n#Quarry:Skip-File\n").skip_file);
        assert!(!scan("s = '# quarry: skip-file'\n").skip_file);
        assert!(!scan("# quarry: skip-files\n").skip_file);
    }
}
