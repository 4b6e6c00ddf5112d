//! The `13a` tokenizer of sacrebleu (mteval-v13a.pl), sacrebleu's default.

use crate::pytext;

/// True for the characters of sacrebleu's first regular expression
/// `[\{-\~\[-\` -\&\(-\+\:-\@\/]`, which are split off on both sides.
fn is_split_punct(c: u8) -> bool {
    matches!(c, b'{'..=b'~' | b'['..=b'`' | b' '..=b'&' | b'('..=b'+' | b':'..=b'@' | b'/')
}

/// Applies a two-character pattern `(A)(B)` left to right without overlaps,
/// like Python's `re.sub`, writing the replacement built by `emit`.
///
/// It works on UTF-8 bytes: every class involved either is ASCII or is the
/// complement of ASCII digits, and multi-byte characters never contain ASCII
/// bytes, so matches and insertions fall where the character-level regular
/// expression puts them.
fn sub_pairs(
    input: &[u8],
    first: impl Fn(u8) -> bool,
    second: impl Fn(u8) -> bool,
    emit: impl Fn(&mut Vec<u8>, u8, u8),
) -> Vec<u8> {
    let mut out = Vec::with_capacity(input.len() + 16);
    let mut i = 0;
    while i < input.len() {
        if i + 1 < input.len() && first(input[i]) && second(input[i + 1]) {
            emit(&mut out, input[i], input[i + 1]);
            i += 2;
        } else {
            out.push(input[i]);
            i += 1;
        }
    }
    out
}

/// Tokenizes one segment exactly as sacrebleu's `Tokenizer13a` does after
/// BLEU's own preprocessing (`rstrip`), returning the space-joined tokens.
pub fn tokenize_13a(segment: &str) -> String {
    let mut line = pytext::rstrip(segment).to_string();
    if line.contains('<') {
        line = line.replace("<skipped>", "");
    }
    if line.contains('\n') {
        line = line.replace("-\n", "").replace('\n', " ");
    }
    if line.contains('&') {
        line = line.replace("&quot;", "\"").replace("&amp;", "&").replace("&lt;", "<").replace("&gt;", ">");
    }
    let mut bytes: Vec<u8> = Vec::with_capacity(line.len() * 2 + 2);
    bytes.push(b' ');
    for &c in line.as_bytes() {
        if is_split_punct(c) {
            bytes.extend([b' ', c, b' ']);
        } else {
            bytes.push(c);
        }
    }
    bytes.push(b' ');
    let is_digit = |c: u8| c.is_ascii_digit();
    let is_dot_comma = |c: u8| c == b'.' || c == b',';
    // period and comma unless preceded by a digit
    let bytes = sub_pairs(&bytes, |c| !is_digit(c), is_dot_comma, |o, a, b| o.extend([a, b' ', b, b' ']));
    // period and comma unless followed by a digit
    let bytes = sub_pairs(&bytes, is_dot_comma, |c| !is_digit(c), |o, a, b| o.extend([b' ', a, b' ', b]));
    // dash when preceded by a digit
    let bytes = sub_pairs(&bytes, is_digit, |c| c == b'-', |o, a, b| o.extend([a, b' ', b, b' ']));
    let text = String::from_utf8_lossy(&bytes);
    let mut out = String::with_capacity(text.len());
    for token in pytext::split_whitespace(&text) {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(token);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::tokenize_13a;

    #[test]
    fn tokenizes_like_mteval() {
        assert_eq!(
            tokenize_13a("Returns the value (x+1), e.g. 3.5-4."),
            "Returns the value ( x + 1 ) , e . g . 3.5 - 4 ."
        );
        assert_eq!(tokenize_13a("a &amp; b &lt;c&gt;"), "a & b < c >");
        assert_eq!(tokenize_13a("it's 1,000"), "it's 1,000");
    }
}
