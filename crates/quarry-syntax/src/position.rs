//! Positions and spans: byte offsets, 0-based lines, 0-based character columns.
//!
//! Columns count Unicode scalar values (characters) from the start of the line,
//! not bytes. That is what CodeQL reports and what Python string indexing does,
//! so `lines[start_line][start_column:end_column]` in a researcher's script
//! selects the same text as quarry's span, also on non-ASCII lines. End columns
//! are exclusive. A line ends at `\n`, `\r\n` or a lone `\r`.

use serde::{Deserialize, Serialize};

/// A 0-based line and a 0-based character column.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct Position {
    /// 0-based line number.
    pub line: usize,
    /// 0-based column in characters.
    pub column: usize,
}

/// Where each line starts, for converting offsets to positions and back.
#[derive(Debug, Clone, Default)]
pub struct LineIndex {
    /// Byte offset of the start of each line.
    starts: Vec<usize>,
    /// Byte offset of the end of each line's content (before its terminator).
    ends: Vec<usize>,
    /// Whether each line is pure ASCII (so columns equal byte distances).
    ascii: Vec<bool>,
    len: usize,
}

impl LineIndex {
    /// Indexes the lines of `text`.
    pub fn new(text: &str) -> LineIndex {
        let bytes = text.as_bytes();
        let mut index = LineIndex { len: bytes.len(), ..LineIndex::default() };
        let mut start = 0;
        let mut ascii = true;
        let mut i = 0;
        while i < bytes.len() {
            match bytes[i] {
                b'\n' | b'\r' => {
                    index.push_line(start, i, ascii);
                    i += if bytes[i] == b'\r' && bytes.get(i + 1) == Some(&b'\n') { 2 } else { 1 };
                    start = i;
                    ascii = true;
                    continue;
                }
                b if b >= 0x80 => ascii = false,
                _ => {}
            }
            i += 1;
        }
        index.push_line(start, bytes.len(), ascii);
        index
    }

    fn push_line(&mut self, start: usize, end: usize, ascii: bool) {
        self.starts.push(start);
        self.ends.push(end);
        self.ascii.push(ascii);
    }

    /// Number of lines; a file ending in a line terminator has a last, empty line.
    pub fn line_count(&self) -> usize {
        self.starts.len()
    }

    /// Byte range of a line's content, without its terminator.
    pub fn line_range(&self, line: usize) -> Option<std::ops::Range<usize>> {
        Some(*self.starts.get(line)?..self.ends[line])
    }

    /// Byte range of a line including its terminator.
    pub fn line_range_with_terminator(&self, line: usize) -> Option<std::ops::Range<usize>> {
        let start = *self.starts.get(line)?;
        let end = self.starts.get(line + 1).copied().unwrap_or(self.len);
        Some(start..end)
    }

    /// The line holding byte `offset` (an offset at the very end maps to the last line).
    pub fn line_of(&self, offset: usize) -> usize {
        self.starts.partition_point(|&s| s <= offset).saturating_sub(1)
    }

    /// Moves an offset that falls inside a line terminator (between the end of
    /// a line's content and the start of the next line) back to the end of the
    /// content; other offsets are returned unchanged.
    pub fn clamp_to_content(&self, offset: usize) -> usize {
        let offset = offset.min(self.len);
        offset.min(self.ends[self.line_of(offset)])
    }

    /// Converts a byte offset into a line and character column.
    ///
    /// Offsets inside a line terminator or past the end are clamped to the
    /// nearest valid position; offsets inside a multi-byte character count the
    /// character as not yet reached.
    pub fn position(&self, text: &str, offset: usize) -> Position {
        let offset = offset.min(self.len);
        let line = self.line_of(offset);
        let start = self.starts[line];
        let column = if self.ascii[line] {
            offset - start
        } else {
            let upto = floor_char_boundary(text, offset);
            text[start..upto].chars().count()
        };
        Position { line, column }
    }

    /// Converts a line and character column back into a byte offset.
    ///
    /// Returns `None` when the line does not exist or the column lies beyond
    /// the end of the line's content (the end itself is allowed).
    pub fn offset(&self, text: &str, position: Position) -> Option<usize> {
        let range = self.line_range(position.line)?;
        if self.ascii[position.line] {
            let offset = range.start + position.column;
            return (offset <= range.end).then_some(offset);
        }
        let line_text = &text[range.clone()];
        if position.column == line_text.chars().count() {
            return Some(range.end);
        }
        line_text.char_indices().nth(position.column).map(|(i, _)| range.start + i)
    }
}

fn floor_char_boundary(text: &str, mut offset: usize) -> usize {
    while offset > 0 && !text.is_char_boundary(offset) {
        offset -= 1;
    }
    offset
}

/// A contiguous region of a source file, in bytes and in line/column.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Span {
    /// Byte offset of the first byte.
    pub start_byte: usize,
    /// Byte offset one past the last byte.
    pub end_byte: usize,
    /// Position of the first character.
    pub start: Position,
    /// Position one past the last character (exclusive end).
    pub end: Position,
}

impl Span {
    /// The span of bytes `start..end` of `text`, indexed by `lines`. Ends that
    /// fall inside a line terminator (tree-sitter puts some there, e.g. a
    /// comment before `\r\n`) are moved to the end of the line's content, so
    /// a span never holds half a terminator and always round-trips.
    pub fn from_bytes(text: &str, lines: &LineIndex, start: usize, end: usize) -> Span {
        let start = lines.clamp_to_content(start);
        let end = lines.clamp_to_content(end).max(start);
        Span { start_byte: start, end_byte: end, start: lines.position(text, start), end: lines.position(text, end) }
    }

    /// The span between two positions, or `None` if either lies outside the text.
    pub fn from_positions(text: &str, lines: &LineIndex, start: Position, end: Position) -> Option<Span> {
        let start_byte = lines.offset(text, start)?;
        let end_byte = lines.offset(text, end)?;
        (start_byte <= end_byte).then_some(Span { start_byte, end_byte, start, end })
    }

    /// The source text the span covers.
    pub fn text<'a>(&self, text: &'a str) -> &'a str {
        &text[self.start_byte..self.end_byte]
    }

    /// Whether `other` lies entirely inside this span.
    pub fn contains(&self, other: &Span) -> bool {
        self.start_byte <= other.start_byte && other.end_byte <= self.end_byte
    }

    /// This span in the CodeQueries span schema, with its text.
    pub fn to_record(&self, text: &str) -> SpanRecord {
        SpanRecord {
            span: self.text(text).to_string(),
            start_line: self.start.line,
            start_column: self.start.column,
            end_line: self.end.line,
            end_column: self.end.column,
        }
    }
}

/// A span in the CodeQueries dataset schema: the exact text and its 0-based
/// start and exclusive end, in lines and character columns.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct SpanRecord {
    /// The exact source text of the span.
    pub span: String,
    /// 0-based first line.
    pub start_line: usize,
    /// 0-based first column, in characters.
    pub start_column: usize,
    /// 0-based last line.
    pub end_line: usize,
    /// 0-based column one past the last character.
    pub end_column: usize,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_round_trip_on_mixed_line_endings_and_unicode() {
        let text = "a = 1\r\nnamé = 'ü'\rz\n\nlast";
        let lines = LineIndex::new(text);
        assert_eq!(lines.line_count(), 5);
        for (offset, _) in text.char_indices().chain(std::iter::once((text.len(), ' '))) {
            let pos = lines.position(text, offset);
            let line_range = lines.line_range_with_terminator(pos.line).unwrap();
            assert!(line_range.contains(&offset) || offset == text.len());
            if let Some(back) = lines.offset(text, pos) {
                assert_eq!(back, offset, "offset {offset} -> {pos:?}");
            } else {
                // Offsets inside a terminator have no column of their own.
                assert!(offset > lines.line_range(pos.line).unwrap().end);
            }
        }
    }

    #[test]
    fn columns_count_characters_not_bytes() {
        let text = "x = 'é'  # ü\nnext";
        let lines = LineIndex::new(text);
        let hash = text.find('#').unwrap();
        assert_eq!(lines.position(text, hash), Position { line: 0, column: 9 });
        let span = Span::from_bytes(text, &lines, hash, text.find('\n').unwrap());
        assert_eq!(span.to_record(text).span, "# ü");
        assert_eq!(span.end.column, 12);
        let again = Span::from_positions(text, &lines, span.start, span.end).unwrap();
        assert_eq!(again, span);
    }

    #[test]
    fn lone_carriage_returns_end_lines() {
        let text = "a\rb\r\nc";
        let lines = LineIndex::new(text);
        assert_eq!(lines.line_count(), 3);
        assert_eq!(lines.position(text, 2), Position { line: 1, column: 0 });
        assert_eq!(lines.position(text, 5), Position { line: 2, column: 0 });
    }

    #[test]
    fn offsets_inside_crlf_are_clamped_to_the_content() {
        let text = "# note\r\nx = 1\r\n";
        let lines = LineIndex::new(text);
        let span = Span::from_bytes(text, &lines, 0, 7);
        assert_eq!(span.text(text), "# note");
        assert_eq!(span.end, Position { line: 0, column: 6 });
    }

    #[test]
    fn empty_text_has_one_empty_line() {
        let lines = LineIndex::new("");
        assert_eq!(lines.line_count(), 1);
        assert_eq!(lines.position("", 0), Position { line: 0, column: 0 });
        assert_eq!(lines.offset("", Position { line: 0, column: 1 }), None);
    }
}
