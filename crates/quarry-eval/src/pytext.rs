//! String primitives with Python 3 `str` semantics (`isspace`, `split()`,
//! `rstrip()`, `lower()`), which the reference implementations rely on.

/// True for the characters Python's `str.isspace()` accepts.
///
/// Python counts the ASCII information separators U+001C..U+001F as
/// whitespace, Rust's `char::is_whitespace` does not; otherwise they agree.
pub fn is_space(c: char) -> bool {
    c.is_whitespace() || ('\u{1c}'..='\u{1f}').contains(&c)
}

/// Python's `s.split()` with no argument: runs of whitespace separate
/// tokens, and leading or trailing whitespace yields no empty token.
pub fn split_whitespace(s: &str) -> impl Iterator<Item = &str> {
    s.split(is_space).filter(|t| !t.is_empty())
}

/// Python's `s.rstrip()` with no argument.
pub fn rstrip(s: &str) -> &str {
    s.trim_end_matches(is_space)
}

/// Python's `s.lower()` (full Unicode lowercasing, final sigma included).
pub fn lower(s: &str) -> String {
    if s.is_ascii() {
        s.to_ascii_lowercase()
    } else {
        s.to_lowercase()
    }
}

/// Python's `len(s)`: the number of code points.
pub fn char_len(s: &str) -> usize {
    if s.is_ascii() {
        s.len()
    } else {
        s.chars().count()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_like_python() {
        let v: Vec<&str> = split_whitespace(" a\u{1f}b\u{a0}c  d\n").collect();
        assert_eq!(v, ["a", "b", "c", "d"]);
        assert_eq!(rstrip("x \u{1c}\n"), "x");
        assert_eq!(lower("ÀB"), "àb");
        assert_eq!(char_len("né"), 2);
    }
}
