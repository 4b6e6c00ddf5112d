//! Text positions as LSP speaks them: lines and columns in the code units
//! of the negotiated [`Encoding`] (UTF-16, the protocol's default, or UTF-8
//! or UTF-32 when the client offers them), converted to and from quarry's
//! character columns and byte offsets; and the edits of full and
//! incremental text synchronisation. A byte-order mark that starts a
//! document is a character of the editor's text but not of the text quarry
//! analyses (decoded as CPython does, without it): quarry's columns on the
//! first line count from after it.

use lsp_types::{Position, Range, TextDocumentContentChangeEvent};
use quarry_syntax::LineIndex;

/// The byte-order mark.
const BOM: char = '\u{feff}';

/// What the columns of LSP positions count (`positionEncoding`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Encoding {
    /// Bytes of UTF-8.
    Utf8,
    /// UTF-16 code units: the protocol's default, which every client supports.
    #[default]
    Utf16,
    /// Characters (Unicode code points).
    Utf32,
}

impl Encoding {
    /// The first encoding of the client's `offered` list (its order of preference) that
    /// quarry speaks; UTF-16 when it offers none of them or no list.
    pub fn negotiate(offered: Option<&[lsp_types::PositionEncodingKind]>) -> Encoding {
        let known = |kind: &lsp_types::PositionEncodingKind| match kind.as_str() {
            "utf-8" => Some(Encoding::Utf8),
            "utf-16" => Some(Encoding::Utf16),
            "utf-32" => Some(Encoding::Utf32),
            _ => None,
        };
        offered.and_then(|list| list.iter().find_map(known)).unwrap_or_default()
    }

    /// The name the protocol gives it.
    pub fn kind(self) -> lsp_types::PositionEncodingKind {
        match self {
            Encoding::Utf8 => lsp_types::PositionEncodingKind::UTF8,
            Encoding::Utf16 => lsp_types::PositionEncodingKind::UTF16,
            Encoding::Utf32 => lsp_types::PositionEncodingKind::UTF32,
        }
    }

    /// The code units of `c`.
    fn units(self, c: char) -> usize {
        match self {
            Encoding::Utf8 => c.len_utf8(),
            Encoding::Utf16 => c.len_utf16(),
            Encoding::Utf32 => 1,
        }
    }
}

/// A text with its line index, built on first need after each edit (an
/// edit finds its offsets by scanning up to them, so a burst of edits to a
/// large document does not index it once per edit), and the encoding its
/// positions' columns are counted in.
pub struct Text {
    text: String,
    lines: std::cell::OnceCell<LineIndex>,
    encoding: Encoding,
}

impl Text {
    /// A text whose positions count columns in `encoding`; indexed on first need.
    pub fn new(text: String, encoding: Encoding) -> Text {
        Text { text, lines: std::cell::OnceCell::new(), encoding }
    }

    fn lines(&self) -> &LineIndex {
        self.lines.get_or_init(|| LineIndex::new(&self.text))
    }

    /// The byte range of 0-based `line`'s content, found by scanning from
    /// the start when the text is not indexed; `None` past the last line.
    fn line_range(&self, line: usize) -> Option<std::ops::Range<usize>> {
        if let Some(lines) = self.lines.get() {
            return lines.line_range(line);
        }
        let bytes = self.text.as_bytes();
        let (mut start, mut at, mut current) = (0usize, 0usize, 0usize);
        while current < line {
            let next = bytes[at..].iter().position(|b| *b == b'\n' || *b == b'\r')?;
            at += next;
            at += if bytes[at] == b'\r' && bytes.get(at + 1) == Some(&b'\n') { 2 } else { 1 };
            start = at;
            current += 1;
        }
        let end = bytes[start..].iter().position(|b| *b == b'\n' || *b == b'\r').map_or(bytes.len(), |n| start + n);
        Some(start..end)
    }

    /// The text, as the editor has it.
    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// The text as quarry analyses it: without a leading byte-order mark.
    pub fn source(&self) -> &str {
        self.text.strip_prefix(BOM).unwrap_or(&self.text)
    }

    /// The characters before quarry's column 0 on 0-based `line`: 1 for a
    /// byte-order mark that starts the text, else 0.
    fn bom_chars(&self, line: usize) -> usize {
        usize::from(line == 0 && self.text.starts_with(BOM))
    }

    /// The editor's text of 0-based `line` without its terminator ("" past the end).
    fn raw_line(&self, line: usize) -> &str {
        self.lines().line_range(line).map_or("", |range| &self.text[range])
    }

    /// The text of 0-based `line` as quarry analyses it, without its
    /// terminator ("" past the end).
    pub fn line(&self, line: usize) -> &str {
        let text = self.raw_line(line);
        if self.bom_chars(line) == 1 {
            return text.strip_prefix(BOM).unwrap_or(text);
        }
        text
    }

    /// The LSP position of a 0-based line and character column (quarry's
    /// span columns); clamped to the end of the line.
    pub fn position(&self, line: usize, column: usize) -> Position {
        let chars = column.saturating_add(self.bom_chars(line));
        let units: usize = self.raw_line(line).chars().take(chars).map(|c| self.encoding.units(c)).sum();
        Position { line: line as u32, character: units as u32 }
    }

    /// The LSP range of a span given by line and character columns.
    pub fn range(&self, start: (usize, usize), end: (usize, usize)) -> Range {
        Range { start: self.position(start.0, start.1), end: self.position(end.0, end.1) }
    }

    /// The byte offset of an LSP position. As the protocol asks, a column
    /// past the end of its line means the end of the line, and a line past
    /// the end of the text means the end of the text; a column inside a
    /// character (a surrogate pair, a UTF-8 sequence) falls before it.
    pub fn offset(&self, position: Position) -> usize {
        let Some(range) = self.line_range(position.line as usize) else { return self.text.len() };
        let mut units = 0usize;
        for (i, c) in self.text[range.clone()].char_indices() {
            units += self.encoding.units(c);
            if units > position.character as usize {
                return range.start + i;
            }
        }
        range.end
    }

    /// The 0-based character column of an LSP position (quarry's columns).
    pub fn column(&self, position: Position) -> usize {
        let offset = self.offset(position);
        let start = self.line_range(position.line as usize).map_or(offset, |r| r.start);
        let chars = self.text[start.min(offset)..offset].chars().count();
        chars.saturating_sub(self.bom_chars(position.line as usize))
    }

    /// Applies the changes of one `didChange`, in order: a change with a
    /// range replaces that range, one without replaces the whole text.
    pub fn apply(&mut self, changes: Vec<TextDocumentContentChangeEvent>) {
        for change in changes {
            match change.range {
                None => self.text = change.text,
                Some(range) => {
                    let start = self.offset(range.start);
                    let end = self.offset(range.end).max(start);
                    self.text.replace_range(start..end, &change.text);
                }
            }
            self.lines = std::cell::OnceCell::new();
        }
    }
}

impl quarry_workspace::suppression::edits::Lines for Text {
    fn line(&self, line: usize) -> &str {
        Text::line(self, line)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn change(range: Option<((u32, u32), (u32, u32))>, text: &str) -> TextDocumentContentChangeEvent {
        TextDocumentContentChangeEvent {
            range: range.map(|((l1, c1), (l2, c2))| Range {
                start: Position { line: l1, character: c1 },
                end: Position { line: l2, character: c2 },
            }),
            range_length: None,
            text: text.to_string(),
        }
    }

    #[test]
    fn columns_are_utf16_code_units() {
        let text = Text::new("a = '😀é' + b\r\nc\rd".to_string(), Encoding::Utf16);
        // `b` is character 11, UTF-16 unit 12 (the emoji is two units).
        assert_eq!(text.position(0, 11), Position { line: 0, character: 12 });
        assert_eq!(text.offset(Position { line: 0, character: 12 }), "a = '😀é' + ".len());
        assert_eq!(text.column(Position { line: 0, character: 12 }), 11);
        // Inside the surrogate pair: before the emoji.
        assert_eq!(text.offset(Position { line: 0, character: 6 }), "a = '".len());
        // Past the end of a line: the end of the line; past the last line: the end.
        assert_eq!(text.offset(Position { line: 1, character: 99 }), text.as_str().find("\rd").unwrap());
        assert_eq!(text.offset(Position { line: 9, character: 0 }), text.as_str().len());
        assert_eq!(text.line(2), "d");
        // The scan before indexing finds the same lines as the index.
        let fresh = Text::new(text.as_str().to_string(), Encoding::Utf16);
        for line in 0..4 {
            assert_eq!(fresh.line_range(line), text.lines().line_range(line), "line {line}");
        }
    }

    #[test]
    fn columns_count_the_negotiated_encoding_s_units() {
        let line = "a = '😀é' + b";
        // `b` is character 11: byte 15 in UTF-8, unit 12 in UTF-16, 11 in UTF-32.
        for (encoding, column) in [(Encoding::Utf8, 15), (Encoding::Utf16, 12), (Encoding::Utf32, 11)] {
            let text = Text::new(line.to_string(), encoding);
            assert_eq!(text.position(0, 11), Position { line: 0, character: column }, "{encoding:?}");
            assert_eq!(text.column(Position { line: 0, character: column }), 11, "{encoding:?}");
            assert_eq!(text.offset(Position { line: 0, character: column }), line.find('b').unwrap());
        }
        // Inside the emoji's UTF-8 bytes: before it.
        let text = Text::new(line.to_string(), Encoding::Utf8);
        assert_eq!(text.offset(Position { line: 0, character: 7 }), "a = '".len());
        let offered = |kinds: &[&str]| {
            let kinds: Vec<lsp_types::PositionEncodingKind> = kinds.iter().map(|k| k.to_string().into()).collect();
            Encoding::negotiate(Some(&kinds))
        };
        assert_eq!(offered(&["utf-32", "utf-8"]), Encoding::Utf32);
        assert_eq!(offered(&["utf-7", "utf-8", "utf-16"]), Encoding::Utf8);
        assert_eq!(offered(&["latin-1"]), Encoding::Utf16);
        assert_eq!(Encoding::negotiate(None), Encoding::Utf16);
    }

    #[test]
    fn quarry_columns_on_the_first_line_count_from_after_a_byte_order_mark() {
        let text = Text::new("\u{feff}import os  # é\nx = 1\n".to_string(), Encoding::Utf16);
        assert_eq!(text.source(), "import os  # é\nx = 1\n");
        assert_eq!(text.line(0), "import os  # é");
        // `import os` is columns 0..9 to quarry, 1..10 in the editor.
        assert_eq!(text.range((0, 0), (0, 9)).start, Position { line: 0, character: 1 });
        assert_eq!(text.range((0, 0), (0, 9)).end, Position { line: 0, character: 10 });
        assert_eq!(text.column(Position { line: 0, character: 10 }), 9);
        assert_eq!(text.column(Position { line: 0, character: 0 }), 0);
        // The end of the first line, and the other lines, are unchanged.
        assert_eq!(text.position(0, 14), Position { line: 0, character: 15 });
        assert_eq!(text.position(1, 1), Position { line: 1, character: 1 });
        assert_eq!(text.column(Position { line: 1, character: 1 }), 1);
    }

    #[test]
    fn incremental_and_full_changes_apply_in_order() {
        let mut text = Text::new("import os\nx = 1\n".to_string(), Encoding::Utf16);
        text.apply(vec![
            change(Some(((1, 4), (1, 5))), "2"),
            change(Some(((0, 0), (0, 0))), "# é\n"),
            change(Some(((2, 0), (2, 5))), "y = 3"),
        ]);
        assert_eq!(text.as_str(), "# é\nimport os\ny = 3\n");
        text.apply(vec![change(None, "z = 0\n")]);
        assert_eq!(text.as_str(), "z = 0\n");
    }
}
