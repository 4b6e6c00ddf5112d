//! The edit that turns one version of a text into the next, as tree-sitter
//! wants it to reuse the old version's tree ([`tree_sitter::InputEdit`]):
//! the changed region is what lies between the two versions' longest common
//! prefix and suffix, so it is found from the texts alone, whatever the
//! editor sent (full or incremental changes, many at once).

use tree_sitter::{InputEdit, Point};

/// The single edit from `old` to `new`; `None` when they are equal. Byte
/// offsets stay on character boundaries. Rows count line ends as parsing
/// sees them (`\n`, `\r\n` and a lone `\r`), columns are bytes.
pub fn between(old: &str, new: &str) -> Option<InputEdit> {
    if old == new {
        return None;
    }
    let (a, b) = (old.as_bytes(), new.as_bytes());
    let mut prefix = a.iter().zip(b).take_while(|(x, y)| x == y).count();
    // Start at a line start: a change next to a `\r` can make or break a
    // `\r\n` pair, which changes the rows that the prefix's end has.
    prefix = line_start(a, prefix);
    let room = a.len().min(b.len()) - prefix;
    let mut suffix = a.iter().rev().zip(b.iter().rev()).take(room).take_while(|(x, y)| x == y).count();
    while !old.is_char_boundary(a.len() - suffix) || !new.is_char_boundary(b.len() - suffix) {
        suffix -= 1;
    }
    let (old_end, new_end) = (a.len() - suffix, b.len() - suffix);
    Some(InputEdit {
        start_byte: prefix,
        old_end_byte: old_end,
        new_end_byte: new_end,
        start_position: point_at(a, prefix),
        old_end_position: point_at(a, old_end),
        new_end_position: point_at(b, new_end),
    })
}

/// The offset of the start of the line holding `offset`, before any `\r`
/// or `\n` that ends the line above.
fn line_start(bytes: &[u8], offset: usize) -> usize {
    let mut at = offset;
    while at > 0 && !matches!(bytes[at - 1], b'\n' | b'\r') {
        at -= 1;
    }
    while at > 0 && matches!(bytes[at - 1], b'\n' | b'\r') {
        at -= 1;
    }
    at
}

/// The row and byte column of `offset`.
fn point_at(bytes: &[u8], offset: usize) -> Point {
    let (mut row, mut column) = (0, 0);
    for (i, &byte) in bytes[..offset].iter().enumerate() {
        let ends_line = byte == b'\n' || (byte == b'\r' && bytes.get(i + 1) != Some(&b'\n'));
        if ends_line {
            row += 1;
            column = 0;
        } else {
            column += 1;
        }
    }
    Point { row, column }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_edit_covers_what_changed_between_lines() {
        let edit = between("a = 1\nb = 2\n", "a = 1\nb = 22\nc = 3\n").unwrap();
        assert_eq!((edit.start_byte, edit.old_end_byte, edit.new_end_byte), (5, 11, 18));
        assert_eq!(edit.old_end_position, Point { row: 1, column: 5 });
        assert_eq!(edit.new_end_position, Point { row: 2, column: 5 });
        assert!(between("same", "same").is_none());
    }

    #[test]
    fn offsets_stay_on_character_boundaries_and_rows_count_lone_carriage_returns() {
        let edit = between("x = 'é'\r\ry = 1", "x = 'è'\r\ry = 1").unwrap();
        assert!("x = 'é'".is_char_boundary(edit.start_byte));
        assert_eq!(edit.old_end_byte, "x = 'é".len());
        let edit = between("a\rb\rc", "a\rb\rcd").unwrap();
        assert_eq!(edit.start_position, Point { row: 1, column: 1 });
        assert_eq!(edit.new_end_position, Point { row: 2, column: 2 });
    }
}
