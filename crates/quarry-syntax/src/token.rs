//! Lexical tokens shared by the Python and Java lexers, and the helpers both
//! lexers use. It names neither lexer: `lexer::tokenize` dispatches to them.

use serde::Serialize;

use crate::position::{LineIndex, Span, SpanRecord};

/// The lexical class of a token.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TokenKind {
    /// A reserved word of the language (`def`, `class`, `public`, ...).
    Keyword,
    /// A name.
    Identifier,
    /// A numeric, string, character, boolean or null literal.
    Literal,
    /// An operator (`+`, `==`, `=`, `and` is a keyword, not an operator).
    Operator,
    /// Brackets, separators and other punctuation (`(`, `,`, `.`, `:`, `;`).
    Punctuation,
    /// A comment, including Java doc comments.
    Comment,
    /// Python: the end of a logical line.
    Newline,
    /// Python: an increase of indentation (its span is the leading whitespace).
    Indent,
    /// Python: a decrease of indentation (an empty span where the line starts).
    Dedent,
    /// Text that forms no token: a stray character, an unterminated string or comment.
    Error,
}

/// One token: its kind and where it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Token {
    /// The lexical class.
    pub kind: TokenKind,
    /// Byte offset of the first byte.
    pub start: usize,
    /// Byte offset one past the last byte.
    pub end: usize,
}

impl Token {
    /// The token's text.
    pub fn text<'a>(&self, text: &'a str) -> &'a str {
        &text[self.start..self.end]
    }

    /// The token's span, indexed by `lines`.
    pub fn span(&self, text: &str, lines: &LineIndex) -> Span {
        Span::from_bytes(text, lines, self.start, self.end)
    }
}

/// A token with its text and position, as printed by `quarry tokens`.
#[derive(Debug, Clone, Serialize)]
pub struct TokenRecord {
    /// The lexical class.
    pub kind: TokenKind,
    /// Where the token is, with its text, in the CodeQueries span schema.
    #[serde(flatten)]
    pub span: SpanRecord,
}

/// Longest operator or punctuation from `table` at the start of `rest`.
pub(crate) fn longest_symbol<'t>(rest: &str, table: &[&'t str]) -> Option<&'t str> {
    table.iter().copied().filter(|symbol| rest.starts_with(symbol)).max_by_key(|symbol| symbol.len())
}

/// Length in bytes of the number literal at the start of `rest`: digits,
/// letters, underscores and dots, plus a sign right after an exponent marker.
/// `is_exponent` decides which letters mark an exponent in this language.
pub(crate) fn number_length(rest: &str, is_exponent: impl Fn(u8, bool) -> bool) -> usize {
    let bytes = rest.as_bytes();
    let hex = bytes.len() > 1 && bytes[0] == b'0' && matches!(bytes[1], b'x' | b'X');
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if b.is_ascii_alphanumeric() || b == b'_' {
            i += 1;
            if is_exponent(b, hex) && matches!(bytes.get(i), Some(b'+' | b'-')) {
                i += 1;
            }
        } else if b == b'.' && bytes.get(i + 1).is_none_or(|&n| n != b'.') {
            i += 1;
        } else {
            break;
        }
    }
    i
}

/// Whether `c` may start an identifier.
pub(crate) fn is_identifier_start(c: char) -> bool {
    c == '_' || c.is_alphabetic()
}

/// Whether `c` may continue an identifier.
pub(crate) fn is_identifier_continue(c: char) -> bool {
    c == '_' || c.is_alphanumeric()
}
