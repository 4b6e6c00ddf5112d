//! ROUGE-L as Google's `rouge-score` package computes it
//! (`RougeScorer(['rougeL'], use_stemmer=...)`): its default tokenizer
//! (lowercase, non-alphanumeric to spaces, nltk Porter stemming of tokens
//! longer than three characters when asked), LCS precision, recall and
//! F-measure, and `score_multi`'s best-F-measure choice among references.
//!
//! Scores are on rouge-score's 0–1 scale.

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
    let lowered = crate::pytext::lower(text);
    lowered
        .split(|c: char| !(c.is_ascii_lowercase() || c.is_ascii_digit()))
        .filter(|t| !t.is_empty())
        .map(|t| {
            if use_stemmer && t.len() > 3 {
                porter::stem(t)
            } else {
                t.to_string()
            }
        })
        .filter(|t| {
            !t.is_empty()
                && t.bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
        })
        .collect()
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
            cur[j + 1] = if x == y {
                prev[j] + 1
            } else {
                prev[j + 1].max(cur[j])
            };
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
    RougeScore {
        precision,
        recall,
        fmeasure: fmeasure(precision, recall),
    }
}

/// A ROUGE-L scorer with rouge-score's default tokenizer.
#[derive(Debug, Clone, Copy, Default)]
pub struct RougeL {
    /// Whether tokens longer than three characters are Porter-stemmed.
    pub use_stemmer: bool,
}

impl RougeL {
    /// `scorer.score(target, prediction)['rougeL']`.
    pub fn score(&self, target: &str, prediction: &str) -> RougeScore {
        score_lcs(
            &tokenize(target, self.use_stemmer),
            &tokenize(prediction, self.use_stemmer),
        )
    }

    /// `scorer.score_multi(targets, prediction)['rougeL']`: the first target
    /// with the highest F-measure.
    pub fn score_multi(&self, targets: &[&str], prediction: &str) -> RougeScore {
        let pred = tokenize(prediction, self.use_stemmer);
        let mut best: Option<RougeScore> = None;
        for t in targets {
            let s = score_lcs(&tokenize(t, self.use_stemmer), &pred);
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
pub fn line_scores(
    hyps: &[&str],
    refs: &[Vec<&str>],
    use_stemmer: bool,
) -> Result<(Vec<f64>, f64), EvalError> {
    crate::bleu::check_streams(hyps, refs)?;
    if hyps.is_empty() {
        return Err(EvalError::EmptyInput);
    }
    let scorer = RougeL { use_stemmer };
    let mut per_line = Vec::with_capacity(hyps.len());
    let mut sum = 0.0;
    for (i, h) in hyps.iter().enumerate() {
        let targets: Vec<&str> = refs.iter().map(|s| s[i]).collect();
        let f = if targets.len() == 1 {
            scorer.score(targets[0], h)
        } else {
            scorer.score_multi(&targets, h)
        }
        .fmeasure;
        sum += f;
        per_line.push(f);
    }
    Ok((per_line, sum / hyps.len() as f64))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rouge_score_doc_example() {
        let s = RougeL { use_stemmer: true }.score(
            "The quick brown fox jumps over the lazy dog",
            "The quick brown dog jumps on the log.",
        );
        assert!((s.precision - 0.625).abs() < 1e-15);
        assert!((s.recall - 5.0 / 9.0).abs() < 1e-15);
    }

    #[test]
    fn tokenizer_drops_punctuation() {
        assert_eq!(
            tokenize("Hello, World! x_y", false),
            ["hello", "world", "x", "y"]
        );
    }
}
