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
        return Err(EvalError::LengthMismatch { hyps: predictions.len(), refs: golds.len(), stream: 0 });
    }
    if predictions.is_empty() {
        return Err(EvalError::EmptyInput);
    }
    let hits = predictions.iter().zip(golds).filter(|(p, g)| span_set_exact_match(p, g)).count();
    Ok(hits as f64 / predictions.len() as f64)
}

/// Parses a span set written as `START-END` items separated by commas or
/// whitespace, e.g. `"3-7, 12-15"`; an empty text is the empty set.
pub fn parse_span_set(text: &str) -> Result<Vec<Span>, EvalError> {
    let mut out = Vec::new();
    for part in text.split(|c: char| c == ',' || c.is_whitespace()).filter(|p| !p.is_empty()) {
        let bad = || EvalError::InvalidParameter(format!("bad span {part:?} (expected START-END)"));
        let (a, b) = part.split_once('-').ok_or_else(bad)?;
        let (start, end): (u64, u64) = (a.parse().map_err(|_| bad())?, b.parse().map_err(|_| bad())?);
        if start > end {
            return Err(bad());
        }
        out.push(Span { start, end });
    }
    Ok(out)
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
        assert_eq!(span_set_accuracy(&[vec![a], vec![b]], &[vec![a], vec![a]]).unwrap(), 0.5);
        assert_eq!(parse_span_set("1-4, 7-9").unwrap(), [a, b]);
        assert!(parse_span_set("4").is_err());
        assert!(parse_span_set("").unwrap().is_empty());
    }
}
