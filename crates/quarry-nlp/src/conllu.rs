//! CoNLL-U output as Universal Dependencies define it: one block per
//! sentence with `# sent_id` and `# text` comments, ten tab-separated
//! columns per token (ID, FORM, LEMMA, UPOS, XPOS, FEATS, HEAD, DEPREL,
//! DEPS, MISC), 1-based heads and 0 for the root. Labels are the model's
//! (ClearNLP style, `ROOT` for roots), `SpaceAfter=No` marks tokens glued
//! to the next one, and whitespace or a control character inside a form is
//! written escaped (`\n`, `\t`, `\r`, any other as `\u{20}`, its code point
//! in hex) so every token stays on one line and in its column.

use crate::Doc;

fn field(s: &str) -> String {
    if s.is_empty() {
        return "_".to_string();
    }
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if c.is_whitespace() || c.is_control() => out.push_str(&format!("\\u{{{:x}}}", c as u32)),
            c => out.push(c),
        }
    }
    out
}

/// Text for a comment line: line breaks become spaces, other control
/// characters (tab aside) are written as `\u{..}`.
fn comment(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '\n' | '\r' | '\u{85}' | '\u{2028}' | '\u{2029}' => out.push(' '),
            '\t' => out.push('\t'),
            c if c.is_control() => out.push_str(&format!("\\u{{{:x}}}", c as u32)),
            c => out.push(c),
        }
    }
    out
}

/// The doc in CoNLL-U; `id` prefixes the sentence ids (`id-1`, `id-2`, ...).
pub fn to_conllu(doc: &Doc, id: &str) -> String {
    let mut out = String::new();
    for (k, sent) in doc.sents().into_iter().enumerate() {
        out.push_str(&format!("# sent_id = {id}-{}\n", k + 1));
        let text = doc.span_text(sent.clone());
        out.push_str(&format!("# text = {}\n", comment(&text)));
        for i in sent.clone() {
            let t = &doc.tokens[i];
            let head = if t.head == i || !sent.contains(&t.head) { 0 } else { t.head - sent.start + 1 };
            let misc = if t.whitespace.is_empty() && i + 1 < doc.len() { "SpaceAfter=No" } else { "_" };
            out.push_str(&format!(
                "{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t_\t{}\n",
                i - sent.start + 1,
                field(&t.text),
                field(&t.lemma),
                field(&t.pos),
                field(&t.tag),
                field(&t.morph),
                head,
                field(&t.dep),
                misc
            ));
        }
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Token;

    fn tok(text: &str, ws: &str, head: usize, dep: &str, start: bool) -> Token {
        Token {
            text: text.into(),
            whitespace: ws.into(),
            tag: "NN".into(),
            pos: "NOUN".into(),
            morph: String::new(),
            lemma: text.to_lowercase(),
            head,
            dep: dep.into(),
            sent_start: start,
        }
    }

    #[test]
    fn one_block_per_sentence_with_local_heads() {
        let doc = Doc {
            text: "Go. It\nworks".into(),
            tokens: vec![
                tok("Go", "", 0, "ROOT", true),
                tok(".", " ", 0, "punct", false),
                tok("It", "", 4, "nsubj", true),
                tok("\n", "", 4, "dep", false),
                tok("works", "", 4, "ROOT", false),
            ],
        };
        let s = to_conllu(&doc, "1");
        let blocks: Vec<&str> = s.trim_end().split("\n\n").collect();
        assert_eq!(blocks.len(), 2);
        assert!(blocks[0].contains("# text = Go."));
        assert_eq!(comment("a\u{0}b\nc"), "a\\u{0}b c");
        assert!(blocks[0].contains("1\tGo\tgo\tNOUN\tNN\t_\t0\tROOT\t_\tSpaceAfter=No"));
        assert!(blocks[1].contains("2\t\\n\t\\n\tNOUN\tNN\t_\t3\tdep"));
        assert!(blocks[1].contains("3\tworks\tworks\tNOUN\tNN\t_\t0\tROOT\t_\t_"));
    }
}
