//! Classification metrics with scikit-learn's conventions: labels sorted,
//! confusion matrix rows are true labels and columns predictions, per-class
//! precision/recall/F1 with 0 where undefined (`zero_division=0`), macro-F1
//! the unweighted mean (numpy's) over every label seen in either list.

use std::collections::BTreeSet;

use crate::pynum::numpy_mean;
use crate::EvalError;

/// Precision, recall, F1 and support of one class.
#[derive(Debug, Clone, PartialEq)]
pub struct ClassScore {
    /// The class label.
    pub label: String,
    /// tp / (tp + fp), 0 when nothing was predicted as this class.
    pub precision: f64,
    /// tp / (tp + fn), 0 when the class never occurs.
    pub recall: f64,
    /// 2tp / (2tp + fp + fn), 0 when undefined.
    pub f1: f64,
    /// Number of true instances.
    pub support: usize,
}

/// A full classification report.
#[derive(Debug, Clone, PartialEq)]
pub struct ClassificationReport {
    /// Sorted labels.
    pub labels: Vec<String>,
    /// Fraction of correct predictions (0–1).
    pub accuracy: f64,
    /// Per-class scores in label order.
    pub per_class: Vec<ClassScore>,
    /// Mean of per-class F1.
    pub macro_f1: f64,
    /// `matrix[i][j]`: true label i predicted as label j.
    pub confusion: Vec<Vec<usize>>,
}

/// `a / b`, 0 when `b` is 0 (scikit-learn's `zero_division=0`).
pub fn ratio(a: usize, b: usize) -> f64 {
    if b == 0 {
        0.0
    } else {
        a as f64 / b as f64
    }
}

/// tp / (tp + fp), 0 when nothing was predicted positive.
pub fn precision(tp: usize, fp: usize) -> f64 {
    ratio(tp, tp + fp)
}

/// tp / (tp + fn), 0 when nothing is positive.
pub fn recall(tp: usize, fn_: usize) -> f64 {
    ratio(tp, tp + fn_)
}

/// 2tp / (2tp + fp + fn), the harmonic mean of precision and recall; 0 when undefined.
pub fn f1(tp: usize, fp: usize, fn_: usize) -> f64 {
    ratio(2 * tp, 2 * tp + fp + fn_)
}

/// Computes the report for parallel lists of true and predicted labels.
pub fn classification_report(truth: &[&str], predicted: &[&str]) -> Result<ClassificationReport, EvalError> {
    if truth.len() != predicted.len() {
        return Err(EvalError::LengthMismatch { hyps: predicted.len(), refs: truth.len(), stream: 0 });
    }
    if truth.is_empty() {
        return Err(EvalError::EmptyInput);
    }
    let labels: Vec<String> =
        truth.iter().chain(predicted).map(|s| s.to_string()).collect::<BTreeSet<_>>().into_iter().collect();
    let idx = |l: &str| labels.binary_search_by(|x| x.as_str().cmp(l)).unwrap_or_default();
    let k = labels.len();
    let mut confusion = vec![vec![0usize; k]; k];
    for (t, p) in truth.iter().zip(predicted) {
        confusion[idx(t)][idx(p)] += 1;
    }
    let correct: usize = (0..k).map(|i| confusion[i][i]).sum();
    let mut per_class = Vec::with_capacity(k);
    for (i, label) in labels.iter().enumerate() {
        let tp = confusion[i][i];
        let support: usize = confusion[i].iter().sum();
        let predicted_n: usize = confusion.iter().map(|row| row[i]).sum();
        let (fp, fn_) = (predicted_n - tp, support - tp);
        per_class.push(ClassScore {
            label: label.clone(),
            precision: precision(tp, fp),
            recall: recall(tp, fn_),
            f1: f1(tp, fp, fn_),
            support,
        });
    }
    Ok(ClassificationReport {
        accuracy: ratio(correct, truth.len()),
        macro_f1: numpy_mean(&per_class.iter().map(|c| c.f1).collect::<Vec<_>>()),
        per_class,
        confusion,
        labels,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn report_matches_hand_computation() {
        let r = classification_report(&["a", "a", "b", "c"], &["a", "b", "b", "b"]).unwrap();
        assert_eq!(r.labels, ["a", "b", "c"]);
        assert_eq!(r.accuracy, 0.5);
        assert_eq!(r.confusion, vec![vec![1, 1, 0], vec![0, 1, 0], vec![0, 1, 0]]);
        // f1: a = 2/3, b = 2/4, c = 0
        assert!((r.macro_f1 - (2.0 / 3.0 + 0.5) / 3.0).abs() < 1e-15);
        assert!((r.per_class[1].precision - 1.0 / 3.0).abs() < 1e-15);
    }
}
