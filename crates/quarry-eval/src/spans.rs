//! Span-set exact match as CodeQueries evaluates answers: a prediction is
//! correct when its set of spans equals the gold set, spans compared by
//! position only.

use std::collections::BTreeSet;

use crate::EvalError;

/// A half-open span `[start, end)` in some unit (bytes, tokens or lines).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Span {
    /// First position.
    pub start: u64,
    /// One past the last position.
    pub end: u64,
}

/// True when both collections hold the same spans (order and duplicates
/// do not matter).
pub fn span_set_exact_match(prediction: &[Span], gold: &[Span]) -> bool {
    let p: BTreeSet<&Span> = prediction.iter().collect();
    let g: BTreeSet<&Span> = gold.iter().collect();
    p == g
}

/// Fraction of examples whose span sets match exactly (0–1).
pub fn span_set_accuracy(predictions: &[Vec<Span>], golds: &[Vec<Span>]) -> Result<f64, EvalError> {
    if predictions.len() != golds.len() {
        return Err(EvalError::LengthMismatch {
            hyps: predictions.len(),
            refs: golds.len(),
            stream: 0,
        });
    }
    if predictions.is_empty() {
        return Err(EvalError::EmptyInput);
    }
    let hits = predictions
        .iter()
        .zip(golds)
        .filter(|(p, g)| span_set_exact_match(p, g))
        .count();
    Ok(hits as f64 / predictions.len() as f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn order_free_comparison() {
        let a = Span { start: 1, end: 4 };
        let b = Span { start: 7, end: 9 };
        assert!(span_set_exact_match(&[a, b], &[b, a]));
        assert!(!span_set_exact_match(&[a], &[a, b]));
        assert_eq!(
            span_set_accuracy(&[vec![a], vec![b]], &[vec![a], vec![a]]).unwrap(),
            0.5
        );
    }
}
