//! The BLEU that CodeQA reports: the smoothed BLEU-4 of Google's
//! `compute_bleu` (Lin & Och 2004 add-one smoothing on every order), computed
//! per question over whitespace tokens and averaged (`corpus_bleu` in
//! CodeQA's `codeBERT/code/eval/bleu/google_bleu.py`, whose second return
//! value the training scripts multiply by 100).
//!
//! Scores here are on the 0–1 scale of that function.

use crate::ngrams::{count_ngrams, NgramCounts};
use crate::pytext::split_whitespace;
use crate::EvalError;

const MAX_ORDER: usize = 4;

/// Smoothed BLEU-4 of one tokenized hypothesis against tokenized references,
/// as `compute_bleu([refs], [hyp], smooth=True)[0]`.
///
/// The reference implementation divides by the shortest reference length, so
/// an empty reference (or none) is an error, as it is there.
pub fn smoothed_bleu(refs: &[Vec<&str>], hyp: &[&str]) -> Result<f64, EvalError> {
    let reference_length = refs.iter().map(|r| r.len()).min().ok_or(EvalError::NoReferences)?;
    if reference_length == 0 {
        return Err(EvalError::Undefined("CodeQA BLEU divides by the shortest reference length, which is 0".into()));
    }
    let translation_length = hyp.len();
    let mut merged: NgramCounts = NgramCounts::default();
    for r in refs {
        for (g, c) in count_ngrams(r, 1, MAX_ORDER) {
            let slot = merged.entry(g).or_insert(0);
            *slot = (*slot).max(c);
        }
    }
    let mut matches = [0usize; MAX_ORDER];
    for (g, c) in count_ngrams(hyp, 1, MAX_ORDER) {
        if let Some(r) = merged.get(g) {
            matches[g.len() - 1] += c.min(*r);
        }
    }
    let mut p_log_sum = 0.0;
    for (order, &m) in matches.iter().enumerate() {
        let possible = (translation_length + 1).saturating_sub(order + 1);
        let p = (m as f64 + 1.0) / (possible as f64 + 1.0);
        p_log_sum += (1.0 / MAX_ORDER as f64) * p.ln();
    }
    let geo_mean = p_log_sum.exp();
    let ratio = translation_length as f64 / reference_length as f64;
    let bp = if ratio > 1.0 {
        1.0
    } else if ratio < 1e-6 {
        0.0
    } else {
        (1.0 - 1.0 / ratio).exp()
    };
    Ok(geo_mean * bp)
}

/// CodeQA's averaged sentence BLEU over raw lines (whitespace tokenization):
/// returns the per-line scores and their mean.
pub fn codeqa_bleu(hyps: &[&str], refs: &[Vec<&str>]) -> Result<(Vec<f64>, f64), EvalError> {
    crate::bleu::check_streams(hyps, refs)?;
    if hyps.is_empty() {
        return Err(EvalError::EmptyInput);
    }
    let mut scores = Vec::with_capacity(hyps.len());
    let mut total = 0.0;
    for (i, h) in hyps.iter().enumerate() {
        crate::cancel::check()?;
        let hyp: Vec<&str> = split_whitespace(h).collect();
        let seg_refs: Vec<Vec<&str>> = refs.iter().map(|r| split_whitespace(r[i]).collect()).collect();
        let s = smoothed_bleu(&seg_refs, &hyp).map_err(|e| match e {
            EvalError::Undefined(m) => EvalError::Undefined(format!("line {}: {m}", i + 1)),
            other => other,
        })?;
        total += s;
        scores.push(s);
    }
    let mean = total / hyps.len() as f64;
    Ok((scores, mean))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identical_is_one() {
        let t = vec!["a", "b", "c", "d", "e"];
        assert!((smoothed_bleu(std::slice::from_ref(&t), &t).unwrap() - 1.0).abs() < 1e-15);
    }

    #[test]
    fn empty_reference_is_undefined() {
        assert!(smoothed_bleu(&[vec![]], &["a"]).is_err());
    }
}
