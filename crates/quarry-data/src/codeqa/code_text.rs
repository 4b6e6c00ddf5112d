//! Code as the released files hold it.
//!
//! `.code.original` (from the released Python files): the function without
//! its docstring and comments; white space inside string literals removed;
//! line breaks removed together with the next line's indentation (so
//! `return True\n    x = 1` gives `return Truex 1`, as in the released
//! lines); the characters `( ) , : . = ; ! |` replaced by spaces; white
//! space collapsed; cut at 100 tokens.
//!
//! `.code`: `.code.original` sub-tokenized: underscores become spaces,
//! camel case is split (`ValidationError` → `Validation Error`,
//! `isnotaGUID` → `isnota GUID`, `u'Some` → `u' Some`) and digits stand
//! apart (`aff4` → `aff 4`, `{0}` → `{ 0 }`).

use std::ops::Range;

/// The most tokens of a `.code.original` line.
pub const MAX_CODE_TOKENS: usize = 100;

/// Characters replaced by a space in `.code.original`.
const SPACED: [char; 9] = ['(', ')', ',', ':', '.', '=', ';', '!', '|'];

/// `.code.original` of a function's source text. `removed` are byte ranges
/// (relative to `source`) to leave out (docstring, comments); `strings` are
/// the ranges of string literals, whose white space is dropped.
pub fn code_original(source: &str, removed: &[Range<usize>], strings: &[Range<usize>]) -> String {
    let mut kept = String::with_capacity(source.len());
    let mut after_newline = false;
    for (i, c) in source.char_indices() {
        if removed.iter().any(|r| r.contains(&i)) {
            continue;
        }
        let in_string = strings.iter().any(|r| r.contains(&i));
        if in_string {
            after_newline = false;
            if SPACED.contains(&c) {
                kept.push(' ');
            } else if !c.is_whitespace() {
                kept.push(c);
            }
            continue;
        }
        if c == '\n' || c == '\r' {
            after_newline = true;
            continue;
        }
        if after_newline && (c == ' ' || c == '\t') {
            continue;
        }
        after_newline = false;
        kept.push(if SPACED.contains(&c) { ' ' } else { c });
    }
    kept.split_whitespace().take(MAX_CODE_TOKENS).collect::<Vec<_>>().join(" ")
}

/// `.code` of a `.code.original` line.
pub fn subtokenize(original: &str) -> String {
    let mut out = String::with_capacity(original.len() + original.len() / 4);
    let mut prev: Option<char> = None;
    let chars: Vec<char> = original.chars().collect();
    for (k, &c) in chars.iter().enumerate() {
        if c == '_' {
            out.push(' ');
            prev = Some(' ');
            continue;
        }
        if let Some(p) = prev {
            let next = chars.get(k + 1).copied();
            let boundary = (c.is_uppercase() && !p.is_uppercase() && !p.is_whitespace() && !p.is_ascii_digit())
                || (c.is_uppercase() && p.is_uppercase() && next.is_some_and(char::is_lowercase))
                || (c.is_ascii_digit() != p.is_ascii_digit() && !p.is_whitespace());
            if boundary {
                out.push(' ');
            }
        }
        out.push(c);
        prev = Some(c);
    }
    out.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn code_original_matches_the_released_form() {
        let src = "def safe_range(*args):\n    rng = xrange(*args)\n    if len(rng) > MAX_RANGE:\n        raise OverflowError('range too big, maximum size for range is %d' % MAX_RANGE)\n    return rng";
        let start = src.find("'range").unwrap();
        let end = src.find("%d'").unwrap() + 3;
        assert_eq!(
            code_original(src, &[], std::slice::from_ref(&(start..end))),
            "def safe_range *args rng xrange *args if len rng > MAX_RANGE raise OverflowError 'rangetoobig maximumsizeforrangeis%d' % MAX_RANGE return rng"
        );
    }

    #[test]
    fn subtokens_match_the_released_form() {
        assert_eq!(
            subtokenize("def safe_range *args rng xrange *args if len rng > MAX_RANGE raise OverflowError 'rangetoobig maximumsizeforrangeis%d' % MAX_RANGE return rng"),
            "def safe range *args rng xrange *args if len rng > MAX RANGE raise Overflow Error 'rangetoobig maximumsizeforrangeis%d' % MAX RANGE return rng"
        );
        assert_eq!(subtokenize("raise NotImplementedError func __name__"), "raise Not Implemented Error func name");
        assert_eq!(subtokenize("u'SnapshotID\"{0}\"isnotaGUID' aff4"), "u' Snapshot ID\"{ 0 }\"isnota GUID' aff 4");
    }
}
