//! ROUGE-L as Google's `rouge-score` package computes it
//! (`RougeScorer(['rougeL'], use_stemmer=...)`): its default tokenizer
//! (lowercase, non-alphanumeric to spaces, nltk Porter stemming of tokens
//! longer than three characters when asked), LCS precision, recall and
//! F-measure, and `score_multi`'s best-F-measure choice among references.
//!
//! Scores are on rouge-score's 0–1 scale.

use std::cell::RefCell;

use crate::ngrams::FastMap;
use crate::porter;
use crate::EvalError;

/// Precision, recall and F-measure of one comparison.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct RougeScore {
    /// LCS length over prediction length.
    pub precision: f64,
    /// LCS length over target length.
    pub recall: f64,
    /// Harmonic mean of precision and recall.
    pub fmeasure: f64,
}

/// rouge-score's `tokenize.tokenize(text, stemmer)`.
pub fn tokenize(text: &str, use_stemmer: bool) -> Vec<String> {
    RougeL::new(use_stemmer).tokens(text)
}

/// The most tokens a line may have for ROUGE-L. The longest common
/// subsequence takes time in the product of the two lines' lengths (that
/// is its definition in rouge-score and coco-caption alike), so two lines of
/// 100,000 tokens would take minutes; 10,000 tokens (some 60 KB of English)
/// is far beyond any sentence, answer or summary these metrics score, and two
/// such lines take well under a second. Longer lines are refused with an
/// error naming the input and line ([`check_lcs_lengths`]).
pub const MAX_LCS_TOKENS: usize = 10_000;

/// Refuses a line of more than [`MAX_LCS_TOKENS`] tokens: `NAME line N`.
/// `tokens` counts a line's tokens; a line of no more bytes than the limit
/// cannot exceed it (every token takes a byte), so only longer lines are
/// counted.
pub fn check_lcs_lengths(name: &str, lines: &[&str], tokens: impl Fn(&str) -> usize) -> Result<(), EvalError> {
    for (i, line) in lines.iter().enumerate() {
        if line.len() <= MAX_LCS_TOKENS {
            continue;
        }
        let count = tokens(line);
        if count > MAX_LCS_TOKENS {
            return Err(EvalError::BadLine {
                input: name.to_string(),
                line: i + 1,
                message: format!(
                    "{count} tokens, more than ROUGE-L scores ({MAX_LCS_TOKENS}): its longest common subsequence \
                     takes time in the product of two lines' lengths"
                ),
            });
        }
    }
    Ok(())
}

/// Length of the longest common subsequence.
pub fn lcs_len<T: PartialEq>(a: &[T], b: &[T]) -> usize {
    if a.is_empty() || b.is_empty() {
        return 0;
    }
    let mut prev = vec![0usize; b.len() + 1];
    let mut cur = vec![0usize; b.len() + 1];
    for x in a {
        for (j, y) in b.iter().enumerate() {
            cur[j + 1] = if x == y { prev[j] + 1 } else { prev[j + 1].max(cur[j]) };
        }
        std::mem::swap(&mut prev, &mut cur);
    }
    prev[b.len()]
}

/// rouge-score's `scoring.fmeasure`.
pub fn fmeasure(precision: f64, recall: f64) -> f64 {
    if precision + recall > 0.0 {
        2.0 * precision * recall / (precision + recall)
    } else {
        0.0
    }
}

/// rouge-score's `_score_lcs(target_tokens, prediction_tokens)`.
pub fn score_lcs(target: &[String], prediction: &[String]) -> RougeScore {
    if target.is_empty() || prediction.is_empty() {
        return RougeScore::default();
    }
    let lcs = lcs_len(target, prediction) as f64;
    let precision = lcs / prediction.len() as f64;
    let recall = lcs / target.len() as f64;
    RougeScore { precision, recall, fmeasure: fmeasure(precision, recall) }
}

/// A ROUGE-L scorer with rouge-score's default tokenizer; remembers stems.
#[derive(Debug, Default)]
pub struct RougeL {
    use_stemmer: bool,
    stems: RefCell<FastMap<String, String>>,
}

impl RougeL {
    /// A scorer; `use_stemmer` Porter-stems tokens longer than three characters.
    pub fn new(use_stemmer: bool) -> Self {
        RougeL { use_stemmer, stems: RefCell::default() }
    }

    /// `tokenize(text, stemmer)` with stems cached across calls.
    pub fn tokens(&self, text: &str) -> Vec<String> {
        let lowered = crate::pytext::lower(text);
        let mut stems = self.stems.borrow_mut();
        lowered
            .split(|c: char| !(c.is_ascii_lowercase() || c.is_ascii_digit()))
            .filter(|t| !t.is_empty())
            .map(|t| {
                if self.use_stemmer && t.len() > 3 {
                    if let Some(s) = stems.get(t) {
                        return s.clone();
                    }
                    let s = porter::stem(t);
                    stems.insert(t.to_string(), s.clone());
                    s
                } else {
                    t.to_string()
                }
            })
            .filter(|t| !t.is_empty() && t.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit()))
            .collect()
    }

    /// `scorer.score(target, prediction)['rougeL']`.
    pub fn score(&self, target: &str, prediction: &str) -> RougeScore {
        score_lcs(&self.tokens(target), &self.tokens(prediction))
    }

    /// `scorer.score_multi(targets, prediction)['rougeL']`: the first target
    /// with the highest F-measure.
    pub fn score_multi(&self, targets: &[&str], prediction: &str) -> RougeScore {
        let pred = self.tokens(prediction);
        let mut best: Option<RougeScore> = None;
        for t in targets {
            let s = score_lcs(&self.tokens(t), &pred);
            // numpy.argmax keeps the first maximum
            if best.is_none_or(|b| s.fmeasure > b.fmeasure) {
                best = Some(s);
            }
        }
        best.unwrap_or_default()
    }
}

/// ROUGE-L F-measure of every line (best over the references, as
/// `score_multi`) and their mean; `refs[k][i]` is the k-th reference of line `i`.
pub fn line_scores(hyps: &[&str], refs: &[Vec<&str>], use_stemmer: bool) -> Result<(Vec<f64>, f64), EvalError> {
    let scorer = RougeL::new(use_stemmer);
    let (per_line, sum) = crate::bleu::score_lines(hyps, refs, |h, targets| {
        if targets.len() == 1 { scorer.score(targets[0], h) } else { scorer.score_multi(targets, h) }.fmeasure
    })?;
    Ok((per_line, sum / hyps.len() as f64))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rouge_score_doc_example() {
        let s = RougeL::new(true)
            .score("The quick brown fox jumps over the lazy dog", "The quick brown dog jumps on the log.");
        assert!((s.precision - 0.625).abs() < 1e-15);
        assert!((s.recall - 5.0 / 9.0).abs() < 1e-15);
    }

    #[test]
    fn tokenizer_drops_punctuation() {
        assert_eq!(tokenize("Hello, World! x_y", false), ["hello", "world", "x", "y"]);
    }
}
