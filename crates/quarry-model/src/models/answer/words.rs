//! Word vocabularies of the recurrent baselines: CodeQA's files are already tokenized (words
//! separated by spaces), and its baselines (after Ahmad et al.'s code-summarization models)
//! read words, a source vocabulary from the training code and questions and a target one
//! from the training answers, each cut to its most frequent words. Saved as the
//! checkpoint's `vocab.json`.

use std::collections::HashMap;
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::error::{ModelError, Result};

/// Padding, id 0 of both vocabularies.
pub const PAD: &str = "<pad>";
/// An unknown word, id 1 of both vocabularies.
pub const UNK: &str = "<unk>";
/// Start of an answer, id 2 of the target vocabulary; the question/code separator, id 2 of
/// the source vocabulary.
pub const START: &str = "<s>";
/// End of an answer, id 3 of the target vocabulary.
pub const END: &str = "</s>";
/// The file a checkpoint keeps both vocabularies in.
pub const VOCAB_FILE: &str = "vocab.json";

/// Words by id, and ids by word.
#[derive(Debug, Clone, PartialEq)]
pub struct Vocab {
    words: Vec<String>,
    ids: HashMap<String, u32>,
}

impl Vocab {
    /// The special words first (`specials`), then the words of `texts` by falling frequency
    /// (ties alphabetically) until `size` words in all.
    pub fn build<'a>(texts: impl IntoIterator<Item = &'a str>, specials: &[&str], size: usize) -> Self {
        let mut counts: HashMap<&str, usize> = HashMap::new();
        for text in texts {
            for w in text.split_whitespace() {
                *counts.entry(w).or_default() += 1;
            }
        }
        let mut ranked: Vec<(&str, usize)> = counts.into_iter().filter(|(w, _)| !specials.contains(w)).collect();
        ranked.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
        let words = specials
            .iter()
            .map(|s| s.to_string())
            .chain(ranked.into_iter().map(|(w, _)| w.to_string()))
            .take(size.max(specials.len()))
            .collect();
        Self::from_words(words)
    }

    fn from_words(words: Vec<String>) -> Self {
        let ids = words.iter().enumerate().map(|(i, w)| (w.clone(), i as u32)).collect();
        Vocab { words, ids }
    }

    /// Number of words, specials included.
    pub fn len(&self) -> usize {
        self.words.len()
    }

    /// Whether the vocabulary is empty (never, once built).
    pub fn is_empty(&self) -> bool {
        self.words.is_empty()
    }

    /// The id of `word`, if it is in the vocabulary.
    pub fn get(&self, word: &str) -> Option<u32> {
        self.ids.get(word).copied()
    }

    /// The id of `word`, or the unknown word's (id 1).
    pub fn id(&self, word: &str) -> u32 {
        self.get(word).unwrap_or(1)
    }

    /// The word of `id`.
    pub fn word(&self, id: u32) -> &str {
        self.words.get(id as usize).map_or(UNK, String::as_str)
    }
}

/// Both vocabularies, as `vocab.json` stores them.
#[derive(Debug, Clone, PartialEq)]
pub struct Vocabularies {
    /// Code and question words (encoder input).
    pub source: Vocab,
    /// Answer words (decoder input and output).
    pub target: Vocab,
}

#[derive(Serialize, Deserialize)]
struct VocabFile {
    source: Vec<String>,
    target: Vec<String>,
}

impl Vocabularies {
    /// Builds both from training examples `(question, code, answer)`, cut to `source_size`
    /// and `target_size` words.
    pub fn build<'a>(
        examples: impl IntoIterator<Item = (&'a str, &'a str, &'a str)> + Clone,
        source_size: usize,
        target_size: usize,
    ) -> Self {
        let sources = examples.clone().into_iter().flat_map(|(q, c, _)| [q, c]);
        let source = Vocab::build(sources, &[PAD, UNK, START], source_size);
        let target = Vocab::build(examples.into_iter().map(|(_, _, a)| a), &[PAD, UNK, START, END], target_size);
        Vocabularies { source, target }
    }

    /// Writes `dir/vocab.json`.
    pub fn save(&self, dir: &Path) -> Result<()> {
        let path = dir.join(VOCAB_FILE);
        let file = VocabFile { source: self.source.words.clone(), target: self.target.words.clone() };
        let text = serde_json::to_string(&file)
            .map_err(|e| ModelError::Json { path: path.clone(), message: e.to_string() })?;
        std::fs::write(&path, text).map_err(|e| ModelError::io(&path, e))
    }

    /// Reads `dir/vocab.json`, checking that the special words are where they belong.
    pub fn load(dir: &Path) -> Result<Self> {
        let path = dir.join(VOCAB_FILE);
        let text = quarry_stdx::read::read_text(&path, quarry_stdx::read::MAX_TEXT_FILE_BYTES)
            .map_err(|e| ModelError::io(&path, e.source))?;
        let file: VocabFile =
            serde_json::from_str(&text).map_err(|e| ModelError::Json { path: path.clone(), message: e.to_string() })?;
        let starts = |words: &[String], specials: &[&str]| {
            words.len() >= specials.len() && words.iter().zip(specials).all(|(w, s)| w == s)
        };
        if !starts(&file.source, &[PAD, UNK, START]) || !starts(&file.target, &[PAD, UNK, START, END]) {
            return Err(ModelError::Json {
                path,
                message: format!("the vocabularies must start with {PAD} {UNK} {START} (source) and {PAD} {UNK} {START} {END} (target)"),
            });
        }
        Ok(Vocabularies { source: Vocab::from_words(file.source), target: Vocab::from_words(file.target) })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frequent_words_first_and_a_round_trip() {
        let v = Vocabularies::build([("what does f do ?", "def f x", "it returns x"), ("what is x ?", "x", "x")], 6, 6);
        assert_eq!(v.source.word(3), "x", "the most frequent source word after the specials");
        assert_eq!(v.source.len(), 6);
        assert_eq!(v.target.word(4), "x");
        assert_eq!(v.target.id("never"), 1);
        let dir = tempfile::tempdir().unwrap();
        v.save(dir.path()).unwrap();
        assert_eq!(Vocabularies::load(dir.path()).unwrap(), v);
        std::fs::write(dir.path().join(VOCAB_FILE), r#"{"source":["a"],"target":[]}"#).unwrap();
        let err = Vocabularies::load(dir.path()).unwrap_err().to_string();
        assert!(err.contains(VOCAB_FILE), "{err}");
    }
}
