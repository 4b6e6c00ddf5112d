//! SQuAD v1.1 answer normalization, exact match and token F1, as in the
//! official `evaluate-v1.1.py` (also used by CodeQA): lowercase, drop ASCII
//! punctuation, drop the articles a/an/the as whole words, collapse spaces.
//!
//! Per-answer scores are 0–1; corpus scores are on the script's 0–100 scale.

use std::collections::HashMap;

use crate::pytext;
use crate::EvalError;

/// Python's `string.punctuation`.
const PUNCTUATION: &str = "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~";

fn is_word_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// `normalize_answer(s)` of the SQuAD script.
pub fn normalize_answer(s: &str) -> String {
    let lowered = pytext::lower(s);
    let no_punc: String = lowered.chars().filter(|c| !PUNCTUATION.contains(*c)).collect();
    // re.sub(r'\b(a|an|the)\b', ' ', text): whole-word articles become a space.
    let mut no_articles = String::with_capacity(no_punc.len());
    let mut word = String::new();
    let flush = |word: &mut String, out: &mut String| {
        if matches!(word.as_str(), "a" | "an" | "the") {
            out.push(' ');
        } else {
            out.push_str(word);
        }
        word.clear();
    };
    for c in no_punc.chars() {
        if is_word_char(c) {
            word.push(c);
        } else {
            flush(&mut word, &mut no_articles);
            no_articles.push(c);
        }
    }
    flush(&mut word, &mut no_articles);
    pytext::split_whitespace(&no_articles).collect::<Vec<_>>().join(" ")
}

/// `exact_match_score(prediction, ground_truth)`: 1.0 or 0.0.
pub fn exact_match(prediction: &str, ground_truth: &str) -> f64 {
    if normalize_answer(prediction) == normalize_answer(ground_truth) {
        1.0
    } else {
        0.0
    }
}

/// `f1_score(prediction, ground_truth)` over normalized tokens.
pub fn f1(prediction: &str, ground_truth: &str) -> f64 {
    let p = normalize_answer(prediction);
    let g = normalize_answer(ground_truth);
    let pt: Vec<&str> = pytext::split_whitespace(&p).collect();
    let gt: Vec<&str> = pytext::split_whitespace(&g).collect();
    let mut counts: HashMap<&str, usize> = HashMap::new();
    for t in &gt {
        *counts.entry(t).or_insert(0) += 1;
    }
    let mut num_same = 0usize;
    for t in &pt {
        if let Some(c) = counts.get_mut(t) {
            if *c > 0 {
                *c -= 1;
                num_same += 1;
            }
        }
    }
    if num_same == 0 {
        return 0.0;
    }
    let precision = 1.0 * num_same as f64 / pt.len() as f64;
    let recall = 1.0 * num_same as f64 / gt.len() as f64;
    (2.0 * precision * recall) / (precision + recall)
}

/// `metric_max_over_ground_truths`: the best score over the references.
pub fn max_over_ground_truths(metric: fn(&str, &str) -> f64, prediction: &str, truths: &[&str]) -> f64 {
    truths.iter().map(|t| metric(prediction, t)).fold(f64::NEG_INFINITY, f64::max)
}

/// Per-line scores and the corpus score `100 * sum / n` for `metric`
/// (`exact_match` or `f1`); `refs[k][i]` is the k-th answer of line `i`.
pub fn corpus(metric: fn(&str, &str) -> f64, hyps: &[&str], refs: &[Vec<&str>]) -> Result<(Vec<f64>, f64), EvalError> {
    let (per_line, sum) = crate::bleu::score_lines(hyps, refs, |h, truths| max_over_ground_truths(metric, h, truths))?;
    Ok((per_line, 100.0 * sum / hyps.len() as f64))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalizes_like_squad() {
        assert_eq!(normalize_answer("The  Cat, an apple!"), "cat apple");
        assert_eq!(normalize_answer("theme a_b"), "theme ab");
        assert_eq!(exact_match("the answer.", "Answer"), 1.0);
        assert!((f1("red blue", "blue green") - 0.5).abs() < 1e-15);
    }
}
