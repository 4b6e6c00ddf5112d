//! A [`Doc`] in the form of spaCy's `Doc.to_json()`: character offsets
//! (counted in characters, as Python's `str` indices) for tokens and
//! sentences, and the annotations this pipeline sets (no entities).

use serde_json::{json, Value};

use crate::Doc;

/// The character offset of every token in the doc's text (spaCy's `token.idx`).
pub fn char_offsets(doc: &Doc) -> Vec<usize> {
    let mut offsets = Vec::with_capacity(doc.len());
    let mut at = 0;
    for token in &doc.tokens {
        offsets.push(at);
        at += token.text.chars().count() + token.whitespace.chars().count();
    }
    offsets
}

/// `doc` as spaCy's `Doc.to_json()` writes it: `{"text", "sents": [{"start",
/// "end"}], "tokens": [{"id", "start", "end", "tag", "pos", "morph", "lemma",
/// "dep", "head"}]}`.
pub fn to_spacy_json(doc: &Doc) -> Value {
    let offsets = char_offsets(doc);
    let end = |i: usize| offsets[i] + doc.tokens[i].text.chars().count();
    let sents: Vec<Value> = doc
        .sents()
        .into_iter()
        .map(|range| json!({"start": offsets[range.start], "end": end(range.end - 1)}))
        .collect();
    let tokens: Vec<Value> = doc
        .tokens
        .iter()
        .enumerate()
        .map(|(i, t)| {
            json!({
                "id": i, "start": offsets[i], "end": end(i), "tag": t.tag, "pos": t.pos,
                "morph": t.morph, "lemma": t.lemma, "dep": t.dep, "head": t.head,
            })
        })
        .collect();
    json!({"text": doc.text, "sents": sents, "tokens": tokens})
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Token;

    fn token(text: &str, whitespace: &str, head: usize, sent_start: bool) -> Token {
        Token {
            text: text.into(),
            whitespace: whitespace.into(),
            tag: "NN".into(),
            pos: "NOUN".into(),
            morph: String::new(),
            lemma: text.to_lowercase(),
            head,
            dep: if sent_start { "ROOT".into() } else { "dep".into() },
            sent_start,
        }
    }

    #[test]
    fn offsets_count_characters_and_sentences_end_at_their_last_token() {
        let doc = Doc {
            text: "Über x. Yes".into(),
            tokens: vec![
                token("Über", " ", 0, true),
                token("x", "", 0, false),
                token(".", " ", 0, false),
                token("Yes", "", 3, true),
            ],
        };
        assert_eq!(char_offsets(&doc), [0, 5, 6, 8]);
        let value = to_spacy_json(&doc);
        assert_eq!(value["sents"], json!([{"start": 0, "end": 7}, {"start": 8, "end": 11}]));
        assert_eq!(value["tokens"][0]["end"], 4);
        assert_eq!(value["tokens"][3]["head"], 3);
    }
}
