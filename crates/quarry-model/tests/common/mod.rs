//! Helpers shared by the integration tests: a tiny vocabulary and a synthetic span task.

#![allow(dead_code)]

use std::collections::BTreeSet;
use std::path::PathBuf;

use quarry_model::evaluation::spans::Label;
use quarry_model::nn::rng::SeededRng;
use quarry_model::training::data::SpanExample;

/// Plain word tokens of the synthetic task.
pub const WORDS: usize = 12;
/// Key tokens: runs of them form answer spans.
pub const KEYS: usize = 6;
/// Fact tokens: runs of them form fact spans.
pub const FACTS: usize = 3;

/// Writes a WordPiece vocabulary of the synthetic task's tokens into a fresh directory.
pub fn vocab_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("quarry-model-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut vocab = vec!["[PAD]".to_string(), "[UNK]".into(), "[CLS]".into(), "[SEP]".into()];
    vocab.extend((0..WORDS).map(|i| format!("w{i}")));
    vocab.extend((0..KEYS).map(|i| format!("k{i}")));
    vocab.extend((0..FACTS).map(|i| format!("f{i}")));
    std::fs::write(dir.join("vocab.txt"), vocab.join("\n") + "\n").unwrap();
    dir
}

/// Writes a WordPiece vocabulary of every lower-cased word and punctuation mark of `text`
/// (words are runs of characters for which `in_word` holds) into a fresh directory named
/// after `name`, and returns the directory.
pub fn word_vocab_dir(name: &str, text: &str, in_word: impl Fn(char) -> bool) -> PathBuf {
    let mut words = BTreeSet::new();
    let mut word = String::new();
    for c in text.to_lowercase().chars() {
        if in_word(c) {
            word.push(c);
            continue;
        }
        if !word.is_empty() {
            words.insert(std::mem::take(&mut word));
        }
        if !c.is_whitespace() {
            words.insert(c.to_string());
        }
    }
    if !word.is_empty() {
        words.insert(word);
    }
    let dir = std::env::temp_dir().join(format!("quarry-model-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut vocab = vec!["[PAD]".to_string(), "[UNK]".into(), "[CLS]".into(), "[SEP]".into()];
    vocab.extend(words);
    std::fs::write(dir.join("vocab.txt"), vocab.join("\n") + "\n").unwrap();
    dir
}

/// A synthetic span example in the paper's layout: a run of key tokens is an answer span
/// (B on the first key, I on the following ones), a run of fact tokens a supporting-fact
/// span (F, then I); the rest O. Telling B or F from I needs the previous token, so the
/// encoder must learn to attend.
pub fn synthetic_example(rng: &SeededRng) -> SpanExample {
    let len = 10 + (rng.uniform() * 10.0) as usize;
    let negative = rng.uniform() < 0.3;
    let mut tokens = vec!["[CLS]".to_string()];
    let mut labels = vec![None];
    let mut prev_key = false;
    let mut prev_fact = false;
    for _ in 0..len {
        let r = rng.uniform();
        let pick = |n: usize| ((rng.uniform() * n as f32) as usize).min(n - 1);
        if !negative && r < 0.3 {
            tokens.push(format!("k{}", pick(KEYS)));
            labels.push(Some(if prev_key { Label::I } else { Label::B }));
            prev_key = true;
            prev_fact = false;
        } else if r < 0.4 {
            tokens.push(format!("f{}", pick(FACTS)));
            labels.push(Some(if prev_fact { Label::I } else { Label::F }));
            prev_key = false;
            prev_fact = true;
        } else {
            tokens.push(format!("w{}", pick(WORDS)));
            labels.push(Some(Label::O));
            prev_key = false;
            prev_fact = false;
        }
    }
    tokens.push("[SEP]".into());
    labels.push(None);
    let query = Some(if negative { "negative".into() } else { "keys".into() });
    SpanExample { tokens, labels, query, single_hop: Some(true) }
}

/// `n` synthetic examples drawn with `seed`.
pub fn synthetic_set(n: usize, seed: u64) -> Vec<SpanExample> {
    let rng = SeededRng::new(seed);
    (0..n).map(|_| synthetic_example(&rng)).collect()
}
