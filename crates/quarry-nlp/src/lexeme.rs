//! Lexical attributes of a token string as spaCy computes them: NORM,
//! PREFIX, SUFFIX, SHAPE, LOWER, IS_SPACE; with Python's notion of
//! whitespace, letters and digits.

use rustc_hash::FxHashMap;

/// Python's `str.isspace()` for one character (it also counts the
/// information separators U+001C..U+001F, which Rust's `is_whitespace`
/// does not).
pub fn py_isspace(c: char) -> bool {
    matches!(
        c,
        '\t' | '\n' | '\u{0B}' | '\u{0C}' | '\r' | '\u{1C}'..='\u{1F}' | ' ' | '\u{85}' | '\u{A0}' | '\u{1680}'
            | '\u{2000}'..='\u{200A}' | '\u{2028}' | '\u{2029}' | '\u{202F}' | '\u{205F}' | '\u{3000}'
    )
}

/// Python's `str.isspace()` for a string (false when empty).
pub fn is_space(s: &str) -> bool {
    !s.is_empty() && s.chars().all(py_isspace)
}

/// spaCy's word shape: letters become `x`/`X`, digits `d`, other
/// characters stay; a run of the same shape character is cut after four;
/// strings of 100 characters or more are `LONG`.
pub fn shape(text: &str) -> String {
    if text.chars().count() >= 100 {
        return "LONG".to_string();
    }
    let mut out = String::new();
    let mut last: Option<char> = None;
    let mut seq = 0;
    for c in text.chars() {
        let sc = if c.is_alphabetic() {
            if c.is_uppercase() {
                'X'
            } else {
                'x'
            }
        } else if c.is_numeric() {
            'd'
        } else {
            c
        };
        if Some(sc) == last {
            seq += 1;
        } else {
            seq = 0;
            last = Some(sc);
        }
        if seq < 4 {
            out.push(sc);
        }
    }
    out
}

/// The first character.
pub fn prefix(text: &str) -> &str {
    match text.char_indices().nth(1) {
        Some((i, _)) => &text[..i],
        None => text,
    }
}

/// The last three characters.
pub fn suffix(text: &str) -> &str {
    let n = text.chars().count();
    if n <= 3 {
        return text;
    }
    let (i, _) = text.char_indices().nth(n - 3).unwrap_or((0, ' '));
    &text[i..]
}

/// Norms spaCy's English vocabulary applies before lower-casing (spaCy's
/// `BASE_NORMS`: quotes, dashes, currency signs). They are part of spaCy's
/// code, not of the model directory, so quarry carries them.
const BASE_NORMS: &[(&str, &str)] = &[
    ("'s", "'s"),
    ("'S", "'s"),
    ("’s", "'s"),
    ("’S", "'s"),
    ("’", "'"),
    ("‘", "'"),
    ("´", "'"),
    ("`", "'"),
    ("”", "\""),
    ("“", "\""),
    ("''", "\""),
    ("``", "\""),
    ("´´", "\""),
    ("„", "\""),
    ("»", "\""),
    ("«", "\""),
    ("‘‘", "\""),
    ("’’", "\""),
    ("？", "?"),
    ("！", "!"),
    ("，", ","),
    ("；", ";"),
    ("：", ":"),
    ("。", "."),
    ("।", "."),
    ("…", "..."),
    ("—", "-"),
    ("–", "-"),
    ("--", "-"),
    ("---", "-"),
    ("——", "-"),
    ("€", "$"),
    ("£", "$"),
    ("¥", "$"),
    ("฿", "$"),
    ("US$", "$"),
    ("C$", "$"),
    ("A$", "$"),
    ("₺", "$"),
    ("₹", "$"),
    ("৳", "$"),
    ("₩", "$"),
    ("Mex$", "$"),
    ("₣", "$"),
    ("E£", "$"),
];

/// The NORM of a string: the model's `lexeme_norm` table, then spaCy's
/// base norms, then the lower-cased string.
#[derive(Debug, Default)]
pub struct Norms {
    /// The model's table, keyed by spaCy string id.
    table: FxHashMap<u64, String>,
}

impl Norms {
    /// Norms from the model's `lexeme_norm` table.
    pub fn new(table: FxHashMap<u64, String>) -> Self {
        Norms { table }
    }

    /// The norm of `text`.
    pub fn norm(&self, text: &str) -> String {
        if let Some(n) = self.table.get(&crate::hash::string_id(text)) {
            return n.clone();
        }
        if let Some((_, n)) = BASE_NORMS.iter().find(|(k, _)| *k == text) {
            return (*n).to_string();
        }
        text.to_lowercase()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shapes_like_spacy() {
        assert_eq!(shape("Hello"), "Xxxxx");
        assert_eq!(shape("C3PO2000"), "XdXXdddd");
        assert_eq!(shape("__init__"), "__xxxx__");
        assert_eq!(shape("a.b"), "x.x");
    }

    #[test]
    fn affixes_count_characters() {
        assert_eq!(prefix("élan"), "é");
        assert_eq!(suffix("naïve"), "ïve");
        assert_eq!(suffix("ab"), "ab");
    }

    #[test]
    fn norms_fall_back_to_lowercase() {
        let n = Norms::default();
        assert_eq!(n.norm("’s"), "'s");
        assert_eq!(n.norm("Hello"), "hello");
        assert!(py_isspace('\u{1F}') && !py_isspace('x'));
    }
}
