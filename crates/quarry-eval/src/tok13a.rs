//! The `13a` tokenizer of sacrebleu (mteval-v13a.pl), sacrebleu's default.

use crate::pytext;

/// True for the characters of sacrebleu's first regular expression
/// `[\{-\~\[-\` -\&\(-\+\:-\@\/]`, which are split off on both sides.
fn is_split_punct(c: char) -> bool {
    matches!(c, '{'..='~' | '['..='`' | ' '..='&' | '('..='+' | ':'..='@' | '/')
}

/// Applies a two-character pattern `(A)(B)` left to right without overlaps,
/// like Python's `re.sub`, writing the replacement built by `emit`.
fn sub_pairs(
    input: &[char],
    first: impl Fn(char) -> bool,
    second: impl Fn(char) -> bool,
    emit: impl Fn(&mut Vec<char>, char, char),
) -> Vec<char> {
    let mut out = Vec::with_capacity(input.len() + 8);
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
    let mut line = pytext::rstrip(segment).replace("<skipped>", "");
    line = line.replace("-\n", "").replace('\n', " ");
    if line.contains('&') {
        line = line
            .replace("&quot;", "\"")
            .replace("&amp;", "&")
            .replace("&lt;", "<")
            .replace("&gt;", ">");
    }
    let mut chars: Vec<char> = Vec::with_capacity(line.len() + 2);
    chars.push(' ');
    for c in line.chars() {
        if is_split_punct(c) {
            chars.extend([' ', c, ' ']);
        } else {
            chars.push(c);
        }
    }
    chars.push(' ');
    let is_digit = |c: char| c.is_ascii_digit();
    let is_dot_comma = |c: char| c == '.' || c == ',';
    // period and comma unless preceded by a digit
    let chars = sub_pairs(
        &chars,
        |c| !is_digit(c),
        is_dot_comma,
        |o, a, b| o.extend([a, ' ', b, ' ']),
    );
    // period and comma unless followed by a digit
    let chars = sub_pairs(
        &chars,
        is_dot_comma,
        |c| !is_digit(c),
        |o, a, b| o.extend([' ', a, ' ', b]),
    );
    // dash when preceded by a digit
    let chars = sub_pairs(
        &chars,
        is_digit,
        |c| c == '-',
        |o, a, b| o.extend([a, ' ', b, ' ']),
    );
    let joined: String = chars.into_iter().collect();
    pytext::split_whitespace(&joined)
        .collect::<Vec<_>>()
        .join(" ")
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
