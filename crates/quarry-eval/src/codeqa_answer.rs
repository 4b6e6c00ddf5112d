//! The exact match, precision, recall and F1 that CodeQA reports (`eval_accuracies` in the
//! authors' `codeBERT/code/run.py`): answers are normalized by lower-casing and collapsing
//! whitespace only (no punctuation or article stripping, unlike SQuAD's [`crate::squad`]);
//! per line the reference with the highest F1 gives all four values; each is averaged over
//! lines (summed in line order, as its `AverageMeter`) and reported on a 0–100 scale.

use std::collections::HashMap;

use crate::pytext;
use crate::EvalError;

/// CodeQA's `normalize_answer`: `' '.join(s.lower().split())`.
pub fn normalize_answer(s: &str) -> String {
    let lowered = pytext::lower(s);
    pytext::split_whitespace(&lowered).collect::<Vec<_>>().join(" ")
}

/// Exact match, precision, recall and F1 of one answer, each 0–1.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct AnswerScore {
    /// 1 when the normalized answers are equal.
    pub em: f64,
    /// Shared tokens over hypothesis tokens.
    pub precision: f64,
    /// Shared tokens over reference tokens.
    pub recall: f64,
    /// Harmonic mean of precision and recall.
    pub f1: f64,
}

/// `eval_score(prediction, ground_truth)`. An empty reference is undefined there unless
/// the prediction is empty too (the script then fails on an unset variable), so it is an
/// error here.
pub fn eval_score(prediction: &str, ground_truth: &str) -> Result<AnswerScore, EvalError> {
    if ground_truth.is_empty() {
        return if prediction.is_empty() {
            Ok(AnswerScore { em: 1.0, precision: 1.0, recall: 1.0, f1: 1.0 })
        } else {
            Err(EvalError::Undefined("CodeQA's eval_score has no value for an empty reference".into()))
        };
    }
    let p = normalize_answer(prediction);
    let g = normalize_answer(ground_truth);
    let em = if p == g { 1.0 } else { 0.0 };
    let pt: Vec<&str> = p.split(' ').filter(|t| !t.is_empty()).collect();
    let gt: Vec<&str> = g.split(' ').filter(|t| !t.is_empty()).collect();
    let mut counts: HashMap<&str, usize> = HashMap::new();
    for t in &gt {
        *counts.entry(t).or_insert(0) += 1;
    }
    let mut same = 0usize;
    for t in &pt {
        if let Some(c) = counts.get_mut(t) {
            if *c > 0 {
                *c -= 1;
                same += 1;
            }
        }
    }
    if same == 0 {
        return Ok(AnswerScore { em, ..AnswerScore::default() });
    }
    let precision = same as f64 / pt.len() as f64;
    let recall = same as f64 / gt.len() as f64;
    Ok(AnswerScore { em, precision, recall, f1: (2.0 * precision * recall) / (precision + recall) })
}

/// `compute_eval_score(prediction, ground_truths)`: the values of the reference with the
/// strictly highest F1 (all zero when no F1 is positive).
pub fn best_over_references(prediction: &str, truths: &[&str]) -> Result<AnswerScore, EvalError> {
    let mut best = AnswerScore::default();
    for t in truths {
        let s = eval_score(prediction, t)?;
        if s.f1 > best.f1 {
            best = s;
        }
    }
    Ok(best)
}

/// Per-line scores and the corpus averages (0–100) of CodeQA's EM, precision, recall and
/// F1; `refs[k][i]` is the k-th reference of line `i`.
pub fn codeqa_answer_scores(hyps: &[&str], refs: &[Vec<&str>]) -> Result<(Vec<AnswerScore>, AnswerScore), EvalError> {
    crate::bleu::check_streams(hyps, refs)?;
    if hyps.is_empty() {
        return Err(EvalError::EmptyInput);
    }
    let mut per_line = Vec::with_capacity(hyps.len());
    let mut sum = AnswerScore::default();
    for (i, h) in hyps.iter().enumerate() {
        crate::cancel::check()?;
        let truths: Vec<&str> = refs.iter().map(|r| r[i]).collect();
        let s = best_over_references(h, &truths).map_err(|e| match e {
            EvalError::Undefined(m) => EvalError::Undefined(format!("line {}: {m}", i + 1)),
            other => other,
        })?;
        sum.em += s.em;
        sum.precision += s.precision;
        sum.recall += s.recall;
        sum.f1 += s.f1;
        per_line.push(s);
    }
    let n = hyps.len() as f64;
    let mean = AnswerScore {
        em: sum.em / n * 100.0,
        precision: sum.precision / n * 100.0,
        recall: sum.recall / n * 100.0,
        f1: sum.f1 / n * 100.0,
    };
    Ok((per_line, mean))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalizes_case_and_whitespace_only() {
        assert_eq!(normalize_answer("  The  Cat,\tan apple! "), "the cat, an apple!");
        let s = eval_score("the answer.", "Answer").unwrap();
        assert_eq!((s.em, s.f1), (0.0, 0.0));
        let s = eval_score("Yes", " yes ").unwrap();
        assert_eq!((s.em, s.precision, s.recall, s.f1), (1.0, 1.0, 1.0, 1.0));
        let s = eval_score("a string of x", "a string").unwrap();
        assert_eq!((s.precision, s.recall), (0.5, 1.0));
        assert!((s.f1 - 2.0 / 3.0).abs() < 1e-15);
    }

    #[test]
    fn picks_the_reference_with_the_best_f1_and_averages() {
        let s = best_over_references("red blue", &["green", "blue green", "red blue"]).unwrap();
        assert_eq!(s.em, 1.0);
        let (per, mean) = codeqa_answer_scores(&["x", "a b"], &[vec!["x", "a c"]]).unwrap();
        assert_eq!(per[0].f1, 1.0);
        assert!((mean.f1 - 75.0).abs() < 1e-12);
        assert!((mean.em - 50.0).abs() < 1e-12);
        assert!(codeqa_answer_scores(&["x"], &[vec![""]]).is_err());
        assert!(codeqa_answer_scores(&["x"], &[vec![]]).is_err());
        assert!(codeqa_answer_scores(&[], &[vec![]]).is_err());
    }
}
