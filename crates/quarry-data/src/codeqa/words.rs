//! Token spans to the words of the released files: lower-cased, one space
//! between tokens, and the punctuation the released questions and answers
//! never hold (commas, full stops, apostrophes, backticks) dropped, so that
//! "doesn't" gives "does nt" as in the released data.

use quarry_nlp::Doc;

/// The characters removed from every token.
const DROPPED: [char; 4] = [',', '.', '\'', '`'];

/// The released form of token `i`: lower-cased without dropped characters
/// ("" when nothing is left).
pub fn word(doc: &Doc, i: usize) -> String {
    let t = &doc.tokens[i].text;
    t.chars().filter(|c| !DROPPED.contains(c) && !c.is_whitespace()).flat_map(char::to_lowercase).collect()
}

/// True when token `i` has a released form ([`word`] is not empty), found
/// without making it.
pub fn has_word(doc: &Doc, i: usize) -> bool {
    doc.tokens.get(i).is_some_and(|t| t.text.chars().any(|c| !DROPPED.contains(&c) && !c.is_whitespace()))
}

/// The words of `tokens` (in the order given) joined by single spaces.
pub fn words(doc: &Doc, tokens: &[usize]) -> String {
    let mut out = String::new();
    for &i in tokens {
        let w = word(doc, i);
        if w.is_empty() {
            continue;
        }
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(&w);
    }
    out
}

/// Joins non-empty parts with single spaces.
pub fn join(parts: &[&str]) -> String {
    let mut out = String::new();
    for p in parts {
        let p = p.trim();
        if p.is_empty() {
            continue;
        }
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(p);
    }
    out
}

/// A question in the released form: words joined, the first letter
/// capitalised, ending in " ?".
pub fn question(parts: &[&str]) -> String {
    let body = join(parts);
    let mut chars = body.chars();
    let mut out = match chars.next() {
        Some(c) => c.to_uppercase().collect::<String>() + chars.as_str(),
        None => String::new(),
    };
    out.push_str(" ?");
    out
}

#[cfg(test)]
mod tests {
    use quarry_nlp::Token;

    use super::*;

    #[test]
    fn has_word_tells_an_empty_word_without_making_it() {
        let texts = ["Value", ",", ".", "''", "`", "n't", "\u{a0}", "İ", "..,", "a.b", ""];
        let token = |text: &&str| Token {
            text: text.to_string(),
            whitespace: " ".into(),
            tag: "NN".into(),
            pos: "NOUN".into(),
            morph: String::new(),
            lemma: String::new(),
            head: 0,
            dep: "dep".into(),
            sent_start: false,
        };
        let doc = Doc { text: String::new(), tokens: texts.iter().map(token).collect() };
        for (i, text) in texts.iter().enumerate() {
            assert_eq!(has_word(&doc, i), !word(&doc, i).is_empty(), "{text:?}");
        }
        assert!(!has_word(&doc, texts.len()));
    }
}
