//! CS1QA's scores as the authors' evaluation computes them (repository cyoon47/CS1QA):
//! line F1 and exact match of a code-line selection (`calculate_F1_EM` and the best-of-
//! alternatives rule of `compute_metrics` in `src/span_prediction/utils.py`), the majority
//! vote over code segments of type classification (`np.bincount(...).argmax()` in
//! `src/type_classification/classify_type.py`), the naive middle-lines baseline of the
//! paper's Section 6, and answer BLEU-1 (`src/answer_retrieval/get_bleu.py`: nltk
//! `sentence_bleu` on whitespace tokens with weights `(1, 0, 0, 0)`).
//!
//! Hand-written because the numbers must match that code bit for bit, including its
//! treatment of N/A selections (a selection or gold span of no lines).

use std::collections::BTreeSet;

use crate::sentence_bleu::{sentence_bleu, NltkBleuOptions};
use crate::EvalError;

/// An inclusive range of 0-based code lines.
pub type LineSpan = (u64, u64);

/// F1 and exact match of one selection against one gold span (`calculate_F1_EM`).
///
/// `selection` is the union of the given inclusive ranges; empty means N/A. `gold` `None`
/// means N/A. Both N/A: `(1, 1)`; exactly one N/A: `(0, 0)`; no common line: `(0, 0)`;
/// otherwise line-set F1, and EM 1 exactly when F1 is 1.
pub fn line_f1_em(selection: &[LineSpan], gold: Option<LineSpan>) -> (f64, f64) {
    let Some((gs, ge)) = gold else {
        return if selection.is_empty() { (1.0, 1.0) } else { (0.0, 0.0) };
    };
    if selection.is_empty() {
        return (0.0, 0.0);
    }
    let selected: BTreeSet<u64> = selection.iter().flat_map(|&(a, b)| a..=b).collect();
    // range(start, end + 1) is empty when end < start
    let label: BTreeSet<u64> = (gs..=ge).collect();
    let tp = label.intersection(&selected).count();
    if tp == 0 {
        return (0.0, 0.0);
    }
    let fp = selected.difference(&label).count();
    let fn_ = label.difference(&selected).count();
    let precision = tp as f64 / (tp + fp) as f64;
    let recall = tp as f64 / (tp + fn_) as f64;
    let f1 = 2.0 * precision * recall / (precision + recall);
    (f1, if f1 == 1.0 { 1.0 } else { 0.0 })
}

/// The score against the best of several alternative gold spans: the first alternative
/// with the highest F1 gives both F1 and EM (`scores[np.argmax([x[0] for x in scores])]`).
/// No alternatives is an error.
pub fn best_line_f1_em(selection: &[LineSpan], golds: &[Option<LineSpan>]) -> Result<(f64, f64), EvalError> {
    let mut best: Option<(f64, f64)> = None;
    for g in golds {
        let s = line_f1_em(selection, *g);
        if best.is_none_or(|b| s.0 > b.0) {
            best = Some(s);
        }
    }
    best.ok_or(EvalError::NoReferences)
}

/// Mean line F1 and EM over rows, as fractions.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct LineScores {
    /// Mean best-alternative F1.
    pub f1: f64,
    /// Mean best-alternative exact match.
    pub em: f64,
    /// Rows averaged.
    pub count: usize,
}

/// Table 8's two columns.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct LineReport {
    /// Every row, N/A gold spans included.
    pub all: LineScores,
    /// Rows whose own gold span is not N/A, scored against their non-N/A alternatives only
    /// (the paper's "Valid Line" experiments drop N/A rows from the data).
    pub valid: LineScores,
}

/// One evaluated row: the prediction, the row's own gold span and every alternative gold
/// span of its question (the row's own included).
#[derive(Debug, Clone)]
pub struct LineCase<'a> {
    /// Predicted ranges (empty: N/A).
    pub selection: &'a [LineSpan],
    /// The row's own gold span.
    pub own: Option<LineSpan>,
    /// All gold spans of rows sharing the question and code.
    pub alternatives: &'a [Option<LineSpan>],
}

fn mean(scores: &[(f64, f64)]) -> LineScores {
    if scores.is_empty() {
        return LineScores::default();
    }
    let n = scores.len() as f64;
    // summed in row order as the authors' cumulative sums are
    let (f1, em) = scores.iter().fold((0.0, 0.0), |(f, e), s| (f + s.0, e + s.1));
    LineScores { f1: f1 / n, em: em / n, count: scores.len() }
}

/// Mean F1 and EM over every row (each row counts, as in the authors' evaluation, so a
/// question annotated twice counts twice) and over the valid-line subset.
pub fn line_report(cases: &[LineCase<'_>]) -> Result<LineReport, EvalError> {
    if cases.is_empty() {
        return Err(EvalError::EmptyInput);
    }
    let mut all = Vec::with_capacity(cases.len());
    let mut valid = Vec::new();
    for c in cases {
        all.push(best_line_f1_em(c.selection, c.alternatives)?);
        if c.own.is_some() {
            let spans: Vec<Option<LineSpan>> = c.alternatives.iter().copied().filter(Option::is_some).collect();
            valid.push(best_line_f1_em(c.selection, &spans)?);
        }
    }
    Ok(LineReport { all: mean(&all), valid: mean(&valid) })
}

/// The naive baseline: the middle `width` lines of a program of `lines` lines (all of them
/// when it has at most `width`; the extra line of an odd margin goes after the window).
/// `None` for an empty program (N/A).
pub fn middle_lines(lines: u64, width: u64) -> Option<LineSpan> {
    if lines == 0 || width == 0 {
        return None;
    }
    if lines <= width {
        return Some((0, lines - 1));
    }
    let start = (lines - width) / 2;
    Some((start, start + width - 1))
}

/// The tokens CS1QA retrieval indexes with BM25: Python's `text.lower().split()` (Unicode
/// lowercasing; runs of Python whitespace separate tokens). The authors' BM25 tokenisation
/// is not in their repository; this is the expression quarry's rank-bm25 cross-check uses.
pub fn bm25_tokens(text: &str) -> Vec<String> {
    let lower = crate::pytext::lower(text);
    crate::pytext::split_whitespace(&lower).map(str::to_string).collect()
}

/// The class with the most votes, the lowest class index winning ties
/// (`np.bincount(votes).argmax()`); `None` without votes.
pub fn majority_vote(votes: &[usize]) -> Option<usize> {
    let max = *votes.iter().max()?;
    let mut counts = vec![0usize; max + 1];
    for &v in votes {
        counts[v] += 1;
    }
    let best = *counts.iter().max()?;
    counts.iter().position(|&c| c == best)
}

/// BLEU-1 of a retrieved answer against the gold answer as the authors compute it: nltk
/// `sentence_bleu([gold.split()], retrieved.split(), weights=(1, 0, 0, 0))`, on a 0–1 scale.
pub fn answer_bleu1(gold: &str, retrieved: &str) -> Result<f64, EvalError> {
    let reference: Vec<&str> = crate::pytext::split_whitespace(gold).collect();
    let hypothesis: Vec<&str> = crate::pytext::split_whitespace(retrieved).collect();
    let opts = NltkBleuOptions { weights: vec![1.0, 0.0, 0.0, 0.0], ..NltkBleuOptions::default() };
    sentence_bleu(&[reference.as_slice()], &hypothesis, &opts)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_scores_follow_calculate_f1_em() {
        // both N/A, one N/A
        assert_eq!(line_f1_em(&[], None), (1.0, 1.0));
        assert_eq!(line_f1_em(&[(1, 2)], None), (0.0, 0.0));
        assert_eq!(line_f1_em(&[], Some((1, 2))), (0.0, 0.0));
        // gold 3..=7 (5 lines), selection 5..=9 and 12 (6 lines): tp 3, fp 3, fn 2
        let (f1, em) = line_f1_em(&[(5, 9), (12, 12)], Some((3, 7)));
        let (p, r) = (3.0 / 6.0, 3.0 / 5.0);
        assert_eq!(f1, 2.0 * p * r / (p + r));
        assert!((f1 - 6.0 / 11.0).abs() < 1e-15);
        assert_eq!(em, 0.0);
        // overlapping ranges count each line once
        assert_eq!(line_f1_em(&[(3, 5), (4, 7)], Some((3, 7))), (1.0, 1.0));
        // disjoint
        assert_eq!(line_f1_em(&[(0, 1)], Some((3, 7))), (0.0, 0.0));
    }

    #[test]
    fn best_alternative_is_the_first_highest_f1() {
        // alternatives N/A and 2..=4; selecting N/A matches the first
        assert_eq!(best_line_f1_em(&[], &[Some((2, 4)), None]).unwrap(), (1.0, 1.0));
        // selection 2..=3 against 2..=4 (F1 0.8) and 0..=9 (F1 2*(1*0.2)/1.2 = 1/3)
        let (f1, em) = best_line_f1_em(&[(2, 3)], &[Some((0, 9)), Some((2, 4))]).unwrap();
        assert!((f1 - 0.8).abs() < 1e-15 && em == 0.0);
        assert!(best_line_f1_em(&[], &[]).is_err());
    }

    #[test]
    fn report_has_all_rows_and_the_valid_subset() {
        let alt_a = [Some((2, 4)), None];
        let alt_b = [None];
        let cases = [
            // row 1 of question A (own span 2..=4): predicted 2..=4 -> 1/1 in both columns
            LineCase { selection: &[(2, 4)], own: Some((2, 4)), alternatives: &alt_a },
            // row 2 of question A (own N/A): same prediction -> 1/1 in "all", not in "valid"
            LineCase { selection: &[(2, 4)], own: None, alternatives: &alt_a },
            // question B, N/A gold, predicted N/A -> 1/1 in "all"
            LineCase { selection: &[], own: None, alternatives: &alt_b },
            // question A again, predicted N/A: "all" takes the N/A alternative (1/1)
            LineCase { selection: &[], own: Some((2, 4)), alternatives: &alt_a },
        ];
        let r = line_report(&cases).unwrap();
        assert_eq!(r.all, LineScores { f1: 1.0, em: 1.0, count: 4 });
        // valid rows: 1 (1/1) and 4 (N/A against 2..=4 only: 0/0)
        assert_eq!(r.valid, LineScores { f1: 0.5, em: 0.5, count: 2 });
    }

    #[test]
    fn middle_lines_and_votes() {
        assert_eq!(middle_lines(0, 60), None);
        assert_eq!(middle_lines(10, 60), Some((0, 9)));
        assert_eq!(middle_lines(100, 60), Some((20, 79)));
        assert_eq!(middle_lines(101, 60), Some((20, 79)));
        assert_eq!(majority_vote(&[]), None);
        assert_eq!(majority_vote(&[3, 1, 3, 1]), Some(1));
        assert_eq!(majority_vote(&[4, 4, 0]), Some(4));
    }

    #[test]
    fn bleu1_is_clipped_unigram_precision_times_brevity() {
        // hypothesis "the cat the dog" (4), reference "the cat sat on the mat" (6):
        // clipped matches the, cat, the = 3 -> p1 = 3/4; BP = exp(1 - 6/4)
        let b = answer_bleu1("the cat sat on the mat", "the cat the dog").unwrap();
        assert!((b - 0.75 * (1.0f64 - 1.5).exp()).abs() < 1e-12, "{b}");
        assert_eq!(answer_bleu1("a b", "c d").unwrap(), 0.0);
        // longer than the reference: no brevity penalty
        let b = answer_bleu1("x y", "x y z").unwrap();
        assert!((b - 2.0 / 3.0).abs() < 1e-12);
    }
}
