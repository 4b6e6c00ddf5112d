//! The ROUGE-L that CodeQA reports: the coco-caption `Rouge` scorer
//! (`eval/rouge/rouge.py`, shared with NeuralCodeSum), i.e. LCS over tokens
//! split on single spaces, the maximum precision and the maximum recall over
//! the references combined with beta = 1.2, averaged with `numpy.mean`.
//!
//! Scores are 0–1; CodeQA's scripts multiply the mean by 100. Note that
//! `split(" ")` keeps empty tokens, so two empty lines score 1.0, as in the
//! script; CodeQA strips its lines before scoring.

use crate::pynum::numpy_mean;
use crate::rouge::lcs_len;
use crate::EvalError;

const BETA: f64 = 1.2;

/// `Rouge().calc_score([candidate], refs)`.
pub fn calc_score(candidate: &str, refs: &[&str]) -> Result<f64, EvalError> {
    if refs.is_empty() {
        return Err(EvalError::NoReferences);
    }
    let token_c: Vec<&str> = candidate.split(' ').collect();
    let mut prec_max = f64::NEG_INFINITY;
    let mut rec_max = f64::NEG_INFINITY;
    for r in refs {
        let token_r: Vec<&str> = r.split(' ').collect();
        let lcs = lcs_len(&token_r, &token_c) as f64;
        prec_max = prec_max.max(lcs / token_c.len() as f64);
        rec_max = rec_max.max(lcs / token_r.len() as f64);
    }
    let b2 = BETA.powf(2.0);
    Ok(if prec_max != 0.0 && rec_max != 0.0 {
        ((1.0 + b2) * prec_max * rec_max) / (rec_max + b2 * prec_max)
    } else {
        0.0
    })
}

/// `Rouge().compute_score(gts, res)` over lines: per-line scores and their
/// `numpy.mean`; `refs[k][i]` is the k-th reference of line `i`.
pub fn codeqa_rouge_l(hyps: &[&str], refs: &[Vec<&str>]) -> Result<(Vec<f64>, f64), EvalError> {
    crate::bleu::check_streams(hyps, refs)?;
    if hyps.is_empty() {
        return Err(EvalError::EmptyInput);
    }
    let mut per_line = Vec::with_capacity(hyps.len());
    for (i, h) in hyps.iter().enumerate() {
        crate::cancel::check()?;
        let seg: Vec<&str> = refs.iter().map(|s| s[i]).collect();
        per_line.push(calc_score(h, &seg)?);
    }
    let mean = numpy_mean(&per_line);
    Ok((per_line, mean))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn coco_caption_semantics() {
        assert_eq!(calc_score("a b c", &["a b c"]).unwrap(), 1.0);
        assert_eq!(calc_score("", &[""]).unwrap(), 1.0);
        assert_eq!(calc_score("x", &["y"]).unwrap(), 0.0);
        // precision 2/3, recall 1/2
        let s = calc_score("a b x", &["a y z b"]).unwrap();
        let (p, r, b2) = (2.0 / 3.0, 0.5, 1.2f64 * 1.2);
        assert!((s - (1.0 + b2) * p * r / (r + b2 * p)).abs() < 1e-15);
    }
}
