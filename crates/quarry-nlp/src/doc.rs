//! The analysed text: tokens and their dependency tree, in spaCy's terms.
//!
//! Heads are absolute token indices; a sentence root is its own head, as in
//! spaCy (`token.head.i == token.i`). The JSON form (`serde`) is the one
//! `quarry nlp parse --format json` prints:
//! `{"text": ..., "tokens": [{"text", "whitespace", "tag", "pos", "morph",
//! "lemma", "head", "dep", "sent_start"}]}`.

use std::ops::Range;

use serde::{Deserialize, Serialize};

/// One token of a [`Doc`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Token {
    /// The token's text, exactly as in the input.
    pub text: String,
    /// The whitespace that follows the token in the input ("" or the spaces).
    pub whitespace: String,
    /// Fine-grained tag (Penn Treebank, e.g. `VBZ`).
    pub tag: String,
    /// Coarse Universal Dependencies part of speech (e.g. `VERB`).
    pub pos: String,
    /// Morphological features in UD's `Key=Value|...` form ("" when none).
    pub morph: String,
    /// Lemma (base form).
    pub lemma: String,
    /// Index of the syntactic head in the doc; a root points to itself.
    pub head: usize,
    /// Dependency label (ClearNLP style as spaCy's English models use, e.g.
    /// `nsubj`, `dobj`, `ROOT`).
    pub dep: String,
    /// True when the token starts a sentence.
    pub sent_start: bool,
}

/// An analysed text: its tokens and dependency tree.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Doc {
    /// The text the doc was made from.
    pub text: String,
    /// The tokens in order.
    pub tokens: Vec<Token>,
}

impl Doc {
    /// Number of tokens.
    pub fn len(&self) -> usize {
        self.tokens.len()
    }

    /// True when the doc has no token.
    pub fn is_empty(&self) -> bool {
        self.tokens.is_empty()
    }

    /// The token at `i`.
    pub fn token(&self, i: usize) -> &Token {
        &self.tokens[i]
    }

    /// The head of token `i` (itself for a root).
    pub fn head(&self, i: usize) -> usize {
        self.tokens[i].head
    }

    /// True when token `i` is the root of its sentence.
    pub fn is_root(&self, i: usize) -> bool {
        self.tokens[i].head == i
    }

    /// Immediate dependents of `i` in order, left ones first.
    pub fn children(&self, i: usize) -> Vec<usize> {
        (0..self.len()).filter(|&c| c != i && self.tokens[c].head == i).collect()
    }

    /// Immediate dependents of `i` that stand before it.
    pub fn lefts(&self, i: usize) -> Vec<usize> {
        self.children(i).into_iter().filter(|&c| c < i).collect()
    }

    /// Immediate dependents of `i` that stand after it.
    pub fn rights(&self, i: usize) -> Vec<usize> {
        self.children(i).into_iter().filter(|&c| c > i).collect()
    }

    /// The first child of `i` with dependency label `dep`.
    pub fn child_with_dep(&self, i: usize, dep: &str) -> Option<usize> {
        self.children(i).into_iter().find(|&c| self.tokens[c].dep == dep)
    }

    /// True when `ancestor` is `i` or dominates it.
    pub fn is_ancestor(&self, ancestor: usize, i: usize) -> bool {
        let mut cur = i;
        // A well-formed tree reaches its root in at most len steps; the bound
        // keeps a malformed (cyclic) doc from looping.
        for _ in 0..=self.len() {
            if cur == ancestor {
                return true;
            }
            let head = self.tokens[cur].head;
            if head == cur {
                return false;
            }
            cur = head;
        }
        false
    }

    /// Token `i` and everything it dominates, in document order.
    pub fn subtree(&self, i: usize) -> Vec<usize> {
        (0..self.len()).filter(|&t| self.is_ancestor(i, t)).collect()
    }

    /// Index of the leftmost token of `i`'s subtree.
    pub fn left_edge(&self, i: usize) -> usize {
        self.subtree(i).first().copied().unwrap_or(i)
    }

    /// Index of the rightmost token of `i`'s subtree.
    pub fn right_edge(&self, i: usize) -> usize {
        self.subtree(i).last().copied().unwrap_or(i)
    }

    /// The sentences as token ranges, in order.
    pub fn sents(&self) -> Vec<Range<usize>> {
        let mut out = Vec::new();
        let mut start = 0;
        for i in 1..self.len() {
            if self.tokens[i].sent_start {
                out.push(start..i);
                start = i;
            }
        }
        if !self.is_empty() {
            out.push(start..self.len());
        }
        out
    }

    /// The text of tokens `range`, with the whitespace between them as in the
    /// input and none after the last.
    pub fn span_text(&self, range: Range<usize>) -> String {
        let mut s = String::new();
        let end = range.end;
        for i in range {
            s.push_str(&self.tokens[i].text);
            if i + 1 < end {
                s.push_str(&self.tokens[i].whitespace);
            }
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tok(text: &str, head: usize, dep: &str, sent_start: bool) -> Token {
        Token {
            text: text.into(),
            whitespace: " ".into(),
            tag: String::new(),
            pos: String::new(),
            morph: String::new(),
            lemma: text.to_lowercase(),
            head,
            dep: dep.into(),
            sent_start,
        }
    }

    /// "Returns the value. It works" — two sentences.
    fn sample() -> Doc {
        Doc {
            text: "Returns the value . It works".into(),
            tokens: vec![
                tok("Returns", 0, "ROOT", true),
                tok("the", 2, "det", false),
                tok("value", 0, "dobj", false),
                tok(".", 0, "punct", false),
                tok("It", 5, "nsubj", true),
                tok("works", 5, "ROOT", false),
            ],
        }
    }

    #[test]
    fn navigation_follows_heads() {
        let d = sample();
        assert_eq!(d.children(0), vec![2, 3]);
        assert_eq!(d.lefts(2), vec![1]);
        assert_eq!(d.subtree(2), vec![1, 2]);
        assert_eq!(d.left_edge(0), 0);
        assert_eq!(d.right_edge(0), 3);
        assert_eq!(d.child_with_dep(5, "nsubj"), Some(4));
        assert!(d.is_root(5) && !d.is_root(4));
        assert_eq!(d.sents(), vec![0..4, 4..6]);
        assert_eq!(d.span_text(1..3), "the value");
    }

    #[test]
    fn cyclic_heads_do_not_loop() {
        let mut d = sample();
        d.tokens[1].head = 2;
        d.tokens[2].head = 1;
        assert!(!d.is_ancestor(0, 1));
    }
}
