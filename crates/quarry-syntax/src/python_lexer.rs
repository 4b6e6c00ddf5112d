//! A Python tokenizer in the manner of the standard `tokenize` module:
//! logical NEWLINE, INDENT and DEDENT tokens, implicit line joining inside
//! brackets, backslash continuations and all string prefixes. Blank lines and
//! newlines inside brackets produce no token. It never fails; text that forms
//! no token becomes an error token, and indentation that matches no enclosing
//! level dedents to the nearest one.

use crate::token::{is_identifier_continue, is_identifier_start, longest_symbol, number_length, Token, TokenKind};

/// Python 3 keywords (soft keywords such as `match` are identifiers, as in `tokenize`).
pub const PYTHON_KEYWORDS: &[&str] = &[
    "False", "None", "True", "and", "as", "assert", "async", "await", "break", "class", "continue", "def", "del",
    "elif", "else", "except", "finally", "for", "from", "global", "if", "import", "in", "is", "lambda", "nonlocal",
    "not", "or", "pass", "raise", "return", "try", "while", "with", "yield",
];

const PUNCTUATION: &[&str] = &["(", ")", "[", "]", "{", "}", ",", ":", ";", ".", "...", "->", "`"];

const OPERATORS: &[&str] = &[
    "+", "-", "*", "/", "%", "@", "&", "|", "^", "~", "<", ">", "=", "!", "**", "//", "<<", ">>", "<=", ">=", "==",
    "!=", "<>", ":=", "+=", "-=", "*=", "/=", "%=", "@=", "&=", "|=", "^=", "**=", "//=", "<<=", ">>=",
];

/// Tokenizes Python source text.
pub fn tokenize(text: &str) -> Vec<Token> {
    let mut lexer = Lexer { text, bytes: text.as_bytes(), pos: 0, tokens: Vec::new(), indents: vec![0], depth: 0 };
    lexer.run();
    lexer.tokens
}

struct Lexer<'a> {
    text: &'a str,
    bytes: &'a [u8],
    pos: usize,
    tokens: Vec<Token>,
    indents: Vec<usize>,
    depth: usize,
}

impl Lexer<'_> {
    fn run(&mut self) {
        let mut at_line_start = true;
        let mut line_has_tokens = false;
        while self.pos < self.bytes.len() {
            if at_line_start && self.depth == 0 {
                at_line_start = false;
                if !self.indentation() {
                    continue;
                }
            }
            let b = self.bytes[self.pos];
            match b {
                b' ' | b'\t' | b'\x0c' => self.pos += 1,
                b'\r' | b'\n' => {
                    let start = self.pos;
                    self.skip_newline();
                    if self.depth == 0 && line_has_tokens {
                        self.push(TokenKind::Newline, start, self.pos);
                        line_has_tokens = false;
                    }
                    at_line_start = true;
                }
                b'\\' if matches!(self.bytes.get(self.pos + 1), Some(b'\n' | b'\r')) => {
                    self.pos += 1;
                    self.skip_newline();
                }
                b'#' => {
                    let start = self.pos;
                    self.pos = self.line_end();
                    self.push(TokenKind::Comment, start, self.pos);
                }
                _ => {
                    self.token();
                    line_has_tokens = true;
                }
            }
        }
        if line_has_tokens {
            self.push(TokenKind::Newline, self.pos, self.pos);
        }
        while self.indents.len() > 1 {
            self.indents.pop();
            self.push(TokenKind::Dedent, self.pos, self.pos);
        }
    }

    /// Handles the indentation at the start of a line. Returns false when the
    /// line is blank or holds only a comment (then nothing is emitted and the
    /// position stays at the comment or line end).
    fn indentation(&mut self) -> bool {
        let start = self.pos;
        let mut column = 0usize;
        while let Some(&b) = self.bytes.get(self.pos) {
            match b {
                b' ' => column += 1,
                b'\t' => column = (column / 8 + 1) * 8,
                b'\x0c' => column = 0,
                _ => break,
            }
            self.pos += 1;
        }
        match self.bytes.get(self.pos) {
            None | Some(b'\n' | b'\r' | b'#') => return self.pos < self.bytes.len() && self.bytes[self.pos] == b'#',
            Some(b'\\') if matches!(self.bytes.get(self.pos + 1), Some(b'\n' | b'\r')) => return true,
            _ => {}
        }
        let current = *self.indents.last().unwrap_or(&0);
        if column > current {
            self.indents.push(column);
            self.push(TokenKind::Indent, start, self.pos);
        } else {
            while column < *self.indents.last().unwrap_or(&0) {
                self.indents.pop();
                self.push(TokenKind::Dedent, self.pos, self.pos);
            }
            if column > *self.indents.last().unwrap_or(&0) {
                // Inconsistent dedent: Python rejects it; keep going at this level.
                self.indents.push(column);
            }
        }
        true
    }

    fn token(&mut self) {
        let start = self.pos;
        let rest = &self.text[start..];
        let c = rest.chars().next().unwrap_or('\0');
        if let Some(len) = string_start(rest) {
            let (end, terminated) = self.string_end(start, len);
            self.pos = end;
            self.push(if terminated { TokenKind::Literal } else { TokenKind::Error }, start, end);
        } else if is_identifier_start(c) {
            let len: usize = rest.chars().take_while(|&c| is_identifier_continue(c)).map(char::len_utf8).sum();
            self.pos += len;
            let kind = if PYTHON_KEYWORDS.contains(&&rest[..len]) { TokenKind::Keyword } else { TokenKind::Identifier };
            self.push(kind, start, self.pos);
        } else if c.is_ascii_digit() || (c == '.' && rest.as_bytes().get(1).is_some_and(u8::is_ascii_digit)) {
            self.pos += number_length(rest, |b, hex| !hex && matches!(b, b'e' | b'E'));
            self.push(TokenKind::Literal, start, self.pos);
        } else if let Some(symbol) =
            longest_symbol(rest, PUNCTUATION).into_iter().chain(longest_symbol(rest, OPERATORS)).max_by_key(|s| s.len())
        {
            self.pos += symbol.len();
            match symbol {
                "(" | "[" | "{" => self.depth += 1,
                ")" | "]" | "}" => self.depth = self.depth.saturating_sub(1),
                _ => {}
            }
            let kind = if PUNCTUATION.contains(&symbol) { TokenKind::Punctuation } else { TokenKind::Operator };
            self.push(kind, start, self.pos);
        } else {
            self.pos += c.len_utf8();
            self.push(TokenKind::Error, start, self.pos);
        }
    }

    /// Finds the end of a string whose prefix and opening quote(s) are `open_len`
    /// bytes long. Returns the end offset and whether the string was closed.
    fn string_end(&self, start: usize, open_len: usize) -> (usize, bool) {
        let quote = self.bytes[start + open_len - 1];
        let triple = open_len >= 3 && self.bytes[start + open_len - 3..start + open_len].iter().all(|&b| b == quote);
        let mut i = start + open_len;
        while i < self.bytes.len() {
            let b = self.bytes[i];
            if b == b'\\' {
                i += if self.bytes.get(i + 1) == Some(&b'\r') && self.bytes.get(i + 2) == Some(&b'\n') { 3 } else { 2 };
                continue;
            }
            if b == quote {
                if !triple {
                    return (i + 1, true);
                }
                if self.bytes.get(i + 1) == Some(&quote) && self.bytes.get(i + 2) == Some(&quote) {
                    return (i + 3, true);
                }
            } else if !triple && (b == b'\n' || b == b'\r') {
                return (i, false);
            }
            i += 1;
        }
        (self.bytes.len(), false)
    }

    fn skip_newline(&mut self) {
        if self.bytes.get(self.pos) == Some(&b'\r') && self.bytes.get(self.pos + 1) == Some(&b'\n') {
            self.pos += 2;
        } else {
            self.pos += 1;
        }
    }

    fn line_end(&self) -> usize {
        self.bytes[self.pos..].iter().position(|&b| b == b'\n' || b == b'\r').map_or(self.bytes.len(), |i| self.pos + i)
    }

    fn push(&mut self, kind: TokenKind, start: usize, end: usize) {
        self.tokens.push(Token { kind, start, end });
    }
}

/// If `rest` starts a string literal, the length of its prefix and opening quote(s).
fn string_start(rest: &str) -> Option<usize> {
    let bytes = rest.as_bytes();
    let prefix =
        bytes.iter().take(3).take_while(|b| matches!(b.to_ascii_lowercase(), b'r' | b'b' | b'u' | b'f')).count();
    let valid_prefix = matches!(
        rest[..prefix].to_ascii_lowercase().as_str(),
        "" | "r" | "u" | "b" | "f" | "br" | "rb" | "fr" | "rf" | "ur"
    );
    if !valid_prefix {
        return None;
    }
    let quote = *bytes.get(prefix)?;
    if quote != b'"' && quote != b'\'' {
        return None;
    }
    let triple = bytes.get(prefix + 1) == Some(&quote) && bytes.get(prefix + 2) == Some(&quote);
    Some(prefix + if triple { 3 } else { 1 })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds_and_texts(text: &str) -> Vec<(TokenKind, &str)> {
        tokenize(text).iter().map(|t| (t.kind, t.text(text))).collect()
    }

    #[test]
    fn indentation_produces_indent_and_dedent() {
        use TokenKind::*;
        let text = "def f(x):\n    return x  # done\n\ny = f(1)\n";
        let got = kinds_and_texts(text);
        let kinds: Vec<TokenKind> = got.iter().map(|(k, _)| *k).collect();
        assert_eq!(
            kinds,
            vec![
                Keyword,
                Identifier,
                Punctuation,
                Identifier,
                Punctuation,
                Punctuation,
                Newline,
                Indent,
                Keyword,
                Identifier,
                Comment,
                Newline,
                Dedent,
                Identifier,
                Operator,
                Identifier,
                Punctuation,
                Literal,
                Punctuation,
                Newline
            ]
        );
        assert_eq!(got[7].1, "    ");
        assert_eq!(got[10].1, "# done");
    }

    #[test]
    fn strings_with_prefixes_and_triple_quotes() {
        let text = "a = rb'\\x00' + f\"{x}\" + '''multi\nline''' + u'é'\n";
        let literals: Vec<&str> =
            kinds_and_texts(text).into_iter().filter(|(k, _)| *k == TokenKind::Literal).map(|(_, t)| t).collect();
        assert_eq!(literals, vec!["rb'\\x00'", "f\"{x}\"", "'''multi\nline'''", "u'é'"]);
    }

    #[test]
    fn brackets_join_lines_and_continuations() {
        let text = "x = (1,\n     2)\ny = 1 + \\\n    2\n";
        let newlines = tokenize(text).iter().filter(|t| t.kind == TokenKind::Newline).count();
        assert_eq!(newlines, 2);
        assert!(tokenize(text).iter().all(|t| t.kind != TokenKind::Indent));
    }

    #[test]
    fn numbers_and_operators() {
        let text = "x **= 0x1F + 1_000.5e-3j // .5\n";
        let got = kinds_and_texts(text);
        let texts: Vec<&str> = got.iter().map(|(_, t)| *t).collect();
        assert_eq!(texts, vec!["x", "**=", "0x1F", "+", "1_000.5e-3j", "//", ".5", "\n"]);
    }

    #[test]
    fn unterminated_string_is_an_error_token_and_lexing_continues() {
        let got = kinds_and_texts("s = 'oops\nt = 1\n");
        assert_eq!(got[2], (TokenKind::Error, "'oops"));
        assert!(got.contains(&(TokenKind::Identifier, "t")));
    }

    #[test]
    fn python2_print_statement_tokens() {
        let got = kinds_and_texts("print \"hello\", x\n");
        assert_eq!(got[0], (TokenKind::Identifier, "print"));
        assert_eq!(got[1], (TokenKind::Literal, "\"hello\""));
    }
}
