//! Generated answers written the way CodeQA's answers are written, so that its
//! case-sensitive scorers (BLEU, ROUGE-L, METEOR) compare like with like.
//!
//! CodeQA's answers are space-separated tokens with punctuation split off (`front - end`,
//! `reference : URL`), except that identifiers keep their underscores (`map_url_in`), and
//! they are lower case except `Yes`, `No` and a few tokens such as `URL`. A WordPiece
//! tokenizer splits `_` off as punctuation and an uncased one lower-cases everything:
//! [`codeqa_answer_text`] joins the underscores back, and [`TrueCaser`], learned from the
//! training answers, restores each word's most frequent written form.

use std::collections::HashMap;

/// `text` with every `_` token joined to its neighbours (`map _ url _ in` becomes
/// `map_url_in`) and whitespace collapsed to single spaces.
pub fn codeqa_answer_text(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut glue = false;
    for token in text.split_whitespace() {
        let underscore = token == "_";
        if !out.is_empty() && !glue && !underscore {
            out.push(' ');
        }
        out.push_str(token);
        glue = underscore;
    }
    out
}

/// Maps a lower-cased word to the form it is most often written in, learned from the
/// training answers (ties: the form seen first).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TrueCaser {
    forms: HashMap<String, String>,
}

impl TrueCaser {
    /// Learns the forms of every whitespace-separated word of `answers`.
    pub fn learn<'a>(answers: impl IntoIterator<Item = &'a str>) -> Self {
        // For each lower-cased word: its forms with their counts, in first-seen order.
        let mut counts: HashMap<String, Vec<(String, usize)>> = HashMap::new();
        for answer in answers {
            for word in answer.split_whitespace() {
                let forms = counts.entry(word.to_lowercase()).or_default();
                match forms.iter_mut().find(|(f, _)| f == word) {
                    Some(slot) => slot.1 += 1,
                    None => forms.push((word.to_string(), 1)),
                }
            }
        }
        let forms = counts
            .into_iter()
            .filter_map(|(lower, forms)| {
                let mut best: Option<&(String, usize)> = None;
                for f in &forms {
                    if best.is_none_or(|b| f.1 > b.1) {
                        best = Some(f);
                    }
                }
                let best = best?.0.clone();
                (best != lower).then_some((lower, best))
            })
            .collect();
        TrueCaser { forms }
    }

    /// Words whose usual form is not their lower-cased form.
    pub fn len(&self) -> usize {
        self.forms.len()
    }

    /// Whether no word changes.
    pub fn is_empty(&self) -> bool {
        self.forms.is_empty()
    }

    /// `text` with each whitespace-separated word replaced by its usual form when that form
    /// differs only in case from the word; other words are kept. Single spaces join them.
    pub fn apply(&self, text: &str) -> String {
        text.split_whitespace()
            .map(|w| match self.forms.get(w) {
                Some(form) => form.as_str(),
                None => w,
            })
            .collect::<Vec<_>>()
            .join(" ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn underscores_join_their_neighbours() {
        assert_eq!(codeqa_answer_text("the map _ url _ in  function"), "the map_url_in function");
        assert_eq!(codeqa_answer_text("_ private"), "_private");
        assert_eq!(codeqa_answer_text("front - end"), "front - end");
        assert_eq!(codeqa_answer_text(""), "");
    }

    #[test]
    fn truecaser_restores_the_usual_form() {
        let tc = TrueCaser::learn(["Yes", "No", "Yes", "the documentation on URL", "the url", "the URL"]);
        assert_eq!(tc.apply("yes"), "Yes");
        assert_eq!(tc.apply("the  url"), "the URL");
        assert_eq!(tc.apply("a documentation"), "a documentation");
        assert_eq!(tc.len(), 3);
        assert!(TrueCaser::learn(["lower only"]).is_empty());
    }
}
