//! A Java tokenizer: comments, text blocks, string and character literals,
//! numbers with suffixes and underscores, keywords, operators and separators.
//! It never fails; an unterminated string or comment becomes an error token
//! that ends at the end of its line (string) or of the file (comment).

use crate::token::{is_identifier_continue, is_identifier_start, longest_symbol, number_length, Token, TokenKind};

/// Java reserved keywords, including contextual ones that act as keywords in
/// declarations (`var`, `record`, `yield`, `sealed`, `permits`, `non-sealed`
/// are identifiers here, as in the Java lexical grammar).
pub const JAVA_KEYWORDS: &[&str] = &[
    "abstract",
    "assert",
    "boolean",
    "break",
    "byte",
    "case",
    "catch",
    "char",
    "class",
    "const",
    "continue",
    "default",
    "do",
    "double",
    "else",
    "enum",
    "extends",
    "final",
    "finally",
    "float",
    "for",
    "goto",
    "if",
    "implements",
    "import",
    "instanceof",
    "int",
    "interface",
    "long",
    "native",
    "new",
    "package",
    "private",
    "protected",
    "public",
    "return",
    "short",
    "static",
    "strictfp",
    "super",
    "switch",
    "synchronized",
    "this",
    "throw",
    "throws",
    "transient",
    "try",
    "void",
    "volatile",
    "while",
    "_",
];

const LITERAL_WORDS: &[&str] = &["true", "false", "null"];

const PUNCTUATION: &[&str] = &["(", ")", "[", "]", "{", "}", ";", ",", ".", "...", "@", "::"];

const OPERATORS: &[&str] = &[
    "=", ">", "<", "!", "~", "?", ":", "->", "==", ">=", "<=", "!=", "&&", "||", "++", "--", "+", "-", "*", "/", "&",
    "|", "^", "%", "<<", ">>", ">>>", "+=", "-=", "*=", "/=", "&=", "|=", "^=", "%=", "<<=", ">>=", ">>>=",
];

/// Tokenizes Java source text.
pub fn tokenize(text: &str) -> Vec<Token> {
    let bytes = text.as_bytes();
    let mut tokens = Vec::new();
    let mut pos = 0;
    while pos < bytes.len() {
        let rest = &text[pos..];
        let c = rest.chars().next().unwrap_or('\0');
        let (kind, len) = if c.is_whitespace() {
            pos += c.len_utf8();
            continue;
        } else if rest.starts_with("//") {
            (TokenKind::Comment, rest.find(['\n', '\r']).unwrap_or(rest.len()))
        } else if let Some(body) = rest.strip_prefix("/*") {
            match body.find("*/") {
                Some(i) => (TokenKind::Comment, i + 4),
                None => (TokenKind::Error, rest.len()),
            }
        } else if rest.starts_with("\"\"\"") {
            match text_block_length(rest) {
                Some(len) => (TokenKind::Literal, len),
                None => (TokenKind::Error, rest.len()),
            }
        } else if c == '"' || c == '\'' {
            quoted_length(rest, c as u8)
        } else if is_identifier_start(c) || c == '$' {
            let len: usize =
                rest.chars().take_while(|&c| is_identifier_continue(c) || c == '$').map(char::len_utf8).sum();
            let word = &rest[..len];
            let kind = if JAVA_KEYWORDS.contains(&word) {
                TokenKind::Keyword
            } else if LITERAL_WORDS.contains(&word) {
                TokenKind::Literal
            } else {
                TokenKind::Identifier
            };
            (kind, len)
        } else if c.is_ascii_digit() || (c == '.' && rest.as_bytes().get(1).is_some_and(u8::is_ascii_digit)) {
            let len =
                number_length(rest, |b, hex| if hex { matches!(b, b'p' | b'P') } else { matches!(b, b'e' | b'E') });
            (TokenKind::Literal, len)
        } else {
            let punctuation = longest_symbol(rest, PUNCTUATION);
            let operator = longest_symbol(rest, OPERATORS);
            match (punctuation, operator) {
                (Some(p), Some(o)) if o.len() > p.len() => (TokenKind::Operator, o.len()),
                (Some(p), _) => (TokenKind::Punctuation, p.len()),
                (None, Some(o)) => (TokenKind::Operator, o.len()),
                (None, None) => (TokenKind::Error, c.len_utf8()),
            }
        };
        tokens.push(Token { kind, start: pos, end: pos + len });
        pos += len;
    }
    tokens
}

/// Length of a `"..."` or `'...'` literal at the start of `rest`, or an error
/// token up to the end of the line when it is not closed on its line.
fn quoted_length(rest: &str, quote: u8) -> (TokenKind, usize) {
    let bytes = rest.as_bytes();
    let mut i = 1;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => i += 2,
            b'\n' | b'\r' => return (TokenKind::Error, i),
            b if b == quote => return (TokenKind::Literal, i + 1),
            _ => i += 1,
        }
    }
    (TokenKind::Error, bytes.len())
}

/// Length of a `"""` text block at the start of `rest`, if it is closed.
fn text_block_length(rest: &str) -> Option<usize> {
    let bytes = rest.as_bytes();
    let mut i = 3;
    while i < bytes.len() {
        if bytes[i] == b'\\' {
            i += 2;
        } else if bytes[i..].starts_with(b"\"\"\"") {
            return Some(i + 3);
        } else {
            i += 1;
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds_and_texts(text: &str) -> Vec<(TokenKind, &str)> {
        tokenize(text).iter().map(|t| (t.kind, t.text(text))).collect()
    }

    /// Found by the `lexers` fuzz target: an escape before a multi-byte
    /// character inside a text block used to slice inside the character.
    #[test]
    fn escape_before_a_multibyte_character_in_a_text_block() {
        let text = "x = \"\"\"a\\\u{e7}b\"\"\"; y";
        let got = kinds_and_texts(text);
        assert!(got.contains(&(TokenKind::Literal, "\"\"\"a\\\u{e7}b\"\"\"")), "{got:?}");
        let unclosed = "\"\"\"\\\u{e7}\u{e7}";
        assert_eq!(tokenize(unclosed).last().map(|t| t.end), Some(unclosed.len()));
    }

    #[test]
    fn method_tokens() {
        use TokenKind::*;
        let text = "/** Doc. */ public int add(int a, int b) { return a >>> 1 + 0x1FL; } // end";
        let got = kinds_and_texts(text);
        assert_eq!(got[0], (Comment, "/** Doc. */"));
        assert_eq!(got[1], (Keyword, "public"));
        assert_eq!(got[3], (Identifier, "add"));
        assert!(got.contains(&(Operator, ">>>")));
        assert!(got.contains(&(Literal, "0x1FL")));
        assert_eq!(got.last(), Some(&(Comment, "// end")));
    }

    #[test]
    fn literals_of_every_kind() {
        let text = "s = \"a\\\"b\"; c = '\\n'; t = \"\"\"\n  block\n  \"\"\"; d = 1.5e-3f; n = null; b = true;";
        let literals: Vec<&str> =
            kinds_and_texts(text).into_iter().filter(|(k, _)| *k == TokenKind::Literal).map(|(_, t)| t).collect();
        assert_eq!(literals, vec!["\"a\\\"b\"", "'\\n'", "\"\"\"\n  block\n  \"\"\"", "1.5e-3f", "null", "true"]);
    }

    #[test]
    fn unterminated_string_ends_at_line_end() {
        let got = kinds_and_texts("String s = \"open;\nint x = 1;");
        assert_eq!(got[3], (TokenKind::Error, "\"open;"));
        assert!(got.contains(&(TokenKind::Identifier, "x")));
    }

    #[test]
    fn method_reference_and_lambda() {
        let got = kinds_and_texts("list.forEach(x -> f(x)); Foo::bar");
        assert!(got.contains(&(TokenKind::Operator, "->")));
        assert!(got.contains(&(TokenKind::Punctuation, "::")));
    }
}
