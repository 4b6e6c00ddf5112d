//! Set exact match and F1 as HotpotQA's `update_sp` computes them for
//! supporting facts; CS1QA uses it on sets of code line numbers.

use std::collections::HashSet;
use std::hash::Hash;

use crate::EvalError;

/// Precision, recall, F1 and exact match of one predicted set.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct SetScore {
    /// True positives over predicted.
    pub precision: f64,
    /// True positives over gold.
    pub recall: f64,
    /// Harmonic mean (0 when both are 0).
    pub f1: f64,
    /// 1.0 when the sets are equal, else 0.0.
    pub em: f64,
}

/// HotpotQA's `update_sp(metrics, prediction, gold)` for one example.
pub fn set_score<T: Eq + Hash>(prediction: &[T], gold: &[T]) -> SetScore {
    let pred: HashSet<&T> = prediction.iter().collect();
    let gold: HashSet<&T> = gold.iter().collect();
    let tp = pred.intersection(&gold).count();
    let fp = pred.len() - tp;
    let fn_ = gold.len() - tp;
    let precision = if tp + fp > 0 { 1.0 * tp as f64 / (tp + fp) as f64 } else { 0.0 };
    let recall = if tp + fn_ > 0 { 1.0 * tp as f64 / (tp + fn_) as f64 } else { 0.0 };
    let f1 = if precision + recall > 0.0 { 2.0 * precision * recall / (precision + recall) } else { 0.0 };
    let em = if fp + fn_ == 0 { 1.0 } else { 0.0 };
    SetScore { precision, recall, f1, em }
}

/// The most line numbers one line set may expand to: a range such as
/// `1-99999999999` is an error, not an allocation of its size.
pub const MAX_LINES_IN_SET: u64 = 1_000_000;

/// Parses a line set such as `"3, 5-7 10"` into line numbers; a set of more
/// than [`MAX_LINES_IN_SET`] lines is an error.
pub fn parse_line_set(text: &str) -> Result<Vec<u64>, EvalError> {
    let mut out: Vec<u64> = Vec::new();
    for part in text.split(|c: char| c == ',' || c.is_whitespace()).filter(|p| !p.is_empty()) {
        let bad = || EvalError::InvalidParameter(format!("bad line number or range {part:?}"));
        if let Some((a, b)) = part.split_once('-') {
            let (a, b): (u64, u64) = (a.parse().map_err(|_| bad())?, b.parse().map_err(|_| bad())?);
            if a > b {
                return Err(bad());
            }
            if b - a >= MAX_LINES_IN_SET.saturating_sub(out.len() as u64) {
                return Err(EvalError::InvalidParameter(format!(
                    "line range {part:?} holds more than {MAX_LINES_IN_SET} lines"
                )));
            }
            out.extend(a..=b);
        } else {
            out.push(part.parse().map_err(|_| bad())?);
        }
    }
    Ok(out)
}

/// Mean line exact match and mean line F1 over examples (HotpotQA averages
/// the per-example values).
pub fn mean_set_scores<T: Eq + Hash>(predictions: &[Vec<T>], golds: &[Vec<T>]) -> Result<SetScore, EvalError> {
    if predictions.len() != golds.len() {
        return Err(EvalError::LengthMismatch { hyps: predictions.len(), refs: golds.len(), stream: 0 });
    }
    if predictions.is_empty() {
        return Err(EvalError::EmptyInput);
    }
    let mut total = SetScore::default();
    for (p, g) in predictions.iter().zip(golds) {
        let s = set_score(p, g);
        total.precision += s.precision;
        total.recall += s.recall;
        total.f1 += s.f1;
        total.em += s.em;
    }
    let n = predictions.len() as f64;
    Ok(SetScore { precision: total.precision / n, recall: total.recall / n, f1: total.f1 / n, em: total.em / n })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_huge_range_is_an_error_not_an_allocation() {
        // Found by the `metrics` fuzz target: `4444-333...` asked for 2.6e18 lines.
        let error = parse_line_set("444444444444 4444-33333333333330444").unwrap_err();
        assert!(error.to_string().contains("more than"), "{error}");
        assert_eq!(parse_line_set("1-3, 7").unwrap(), vec![1, 2, 3, 7]);
        assert_eq!(parse_line_set("1-1000000").unwrap().len(), 1_000_000);
        assert!(parse_line_set("1-1000001").is_err());
    }

    #[test]
    fn hotpot_semantics() {
        let s = set_score(&[1, 2, 3], &[2, 3, 4, 5]);
        assert!((s.precision - 2.0 / 3.0).abs() < 1e-15);
        assert!((s.recall - 0.5).abs() < 1e-15);
        assert_eq!(s.em, 0.0);
        let e = set_score::<u64>(&[], &[]);
        assert_eq!((e.em, e.f1), (1.0, 0.0));
        assert_eq!(parse_line_set("3, 5-7").unwrap(), [3, 5, 6, 7]);
        assert!(parse_line_set("x").is_err());
    }
}
