//! BLEU as nltk's `nltk.translate.bleu_score` computes it: `sentence_bleu`
//! and `corpus_bleu` over pre-tokenized text, with configurable weights,
//! `auto_reweigh`, and the Chen & Cherry (2014) smoothing functions
//! `method0`–`method7` with nltk's defaults (epsilon 0.1, alpha 5, k 5).
//!
//! Scores are on nltk's 0–1 scale. Fractions are kept exact where nltk keeps
//! `Fraction`s and rounded where nltk switches to floats, so results are
//! bit-identical.

use std::collections::HashMap;

use crate::ngrams::{count_ngrams, FastMap};
use crate::pynum::{fsum, ratio_to_f64, PyNum};
use crate::pytext::split_whitespace;
use crate::EvalError;

/// nltk's `SmoothingFunction` methods.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Smoothing {
    /// No smoothing (nltk's default).
    #[default]
    Method0,
    /// Add epsilon (0.1) to zero match counts.
    Method1,
    /// Add one to numerator and denominator from bigrams on (Lin & Och 2004).
    Method2,
    /// NIST geometric sequence smoothing.
    Method3,
    /// Length-scaled geometric smoothing (k = 5).
    Method4,
    /// Average of neighbouring orders.
    Method5,
    /// Interpolation with a prior (alpha = 5); needs three or more orders.
    Method6,
    /// Methods 4 then 5.
    Method7,
}

impl Smoothing {
    /// Parses `method0` … `method7` (or `0` … `7`).
    pub fn parse(name: &str) -> Result<Self, EvalError> {
        let digit = name.strip_prefix("method").unwrap_or(name);
        Ok(match digit {
            "0" => Smoothing::Method0,
            "1" => Smoothing::Method1,
            "2" => Smoothing::Method2,
            "3" => Smoothing::Method3,
            "4" => Smoothing::Method4,
            "5" => Smoothing::Method5,
            "6" => Smoothing::Method6,
            "7" => Smoothing::Method7,
            _ => {
                return Err(EvalError::InvalidParameter(format!(
                    "unknown smoothing function {name:?} (expected method0..method7)"
                )))
            }
        })
    }
}

/// Options of nltk's `sentence_bleu` / `corpus_bleu`.
#[derive(Debug, Clone, PartialEq)]
pub struct NltkBleuOptions {
    /// Weights per n-gram order; their count sets the maximum order.
    pub weights: Vec<f64>,
    /// The smoothing function.
    pub smoothing: Smoothing,
    /// nltk's `auto_reweigh`.
    pub auto_reweigh: bool,
}

impl Default for NltkBleuOptions {
    fn default() -> Self {
        NltkBleuOptions { weights: vec![0.25; 4], smoothing: Smoothing::Method0, auto_reweigh: false }
    }
}

/// nltk's `modified_precision` as an unreduced fraction (numerator, denominator).
fn modified_precision(refs: &[&[&str]], hyp: &[&str], n: usize) -> (i128, i128) {
    let mut counts: HashMap<&[&str], i128> = HashMap::new();
    if hyp.len() >= n {
        for g in hyp.windows(n) {
            *counts.entry(g).or_insert(0) += 1;
        }
    }
    let mut max_counts: HashMap<&[&str], i128> = HashMap::new();
    for r in refs {
        let mut rc: HashMap<&[&str], i128> = HashMap::new();
        if r.len() >= n {
            for g in r.windows(n) {
                if counts.contains_key(g) {
                    *rc.entry(g).or_insert(0) += 1;
                }
            }
        }
        for g in counts.keys() {
            let m = max_counts.entry(g).or_insert(0);
            *m = (*m).max(rc.get(g).copied().unwrap_or(0));
        }
    }
    let numerator: i128 = counts.iter().map(|(g, c)| (*c).min(max_counts[g])).sum();
    let denominator = counts.values().sum::<i128>().max(1);
    (numerator, denominator)
}

/// nltk's `closest_ref_length`: closest, ties to the shorter.
fn closest_ref_length(refs: &[&[&str]], hyp_len: usize) -> usize {
    refs.iter().map(|r| r.len()).min_by_key(|&l| (l.abs_diff(hyp_len), l)).unwrap_or(0)
}

/// nltk's `brevity_penalty`.
fn brevity_penalty(closest_ref_len: usize, hyp_len: usize) -> f64 {
    if hyp_len > closest_ref_len {
        1.0
    } else if hyp_len == 0 {
        0.0
    } else {
        (1.0 - closest_ref_len as f64 / hyp_len as f64).exp()
    }
}

/// The statistics nltk's `corpus_bleu` accumulates for one segment.
#[derive(Debug, Clone, PartialEq)]
struct SegmentCounts {
    /// Clipped matches per order (`modified_precision` numerators).
    num: Vec<i128>,
    /// Hypothesis n-grams per order, at least 1 (`modified_precision` denominators).
    den: Vec<i128>,
    hyp_len: usize,
    ref_len: usize,
}

/// All `modified_precision` fractions of one segment for orders 1..=max_n,
/// counting each n-gram once.
fn segment_counts(refs: &[&[&str]], hyp: &[&str], max_n: usize) -> SegmentCounts {
    let hyp_counts = count_ngrams(hyp, 1, max_n);
    let mut max_ref: FastMap<&[&str], usize> = FastMap::default();
    max_ref.reserve(hyp_counts.len());
    for r in refs {
        let mut rc: FastMap<&[&str], usize> = FastMap::default();
        for n in 1..=max_n.min(r.len()) {
            for g in r.windows(n) {
                if hyp_counts.contains_key(g) {
                    *rc.entry(g).or_insert(0) += 1;
                }
            }
        }
        for (g, c) in rc {
            let m = max_ref.entry(g).or_insert(0);
            *m = (*m).max(c);
        }
    }
    let mut num = vec![0i128; max_n];
    for (g, c) in &hyp_counts {
        num[g.len() - 1] += (*c).min(max_ref.get(g).copied().unwrap_or(0)) as i128;
    }
    let den = (1..=max_n).map(|n| (hyp.len() + 1).saturating_sub(n).max(1) as i128).collect();
    SegmentCounts { num, den, hyp_len: hyp.len(), ref_len: closest_ref_length(refs, hyp.len()) }
}

/// nltk's `sentence_bleu(references, hypothesis, weights, smoothing, auto_reweigh)`.
pub fn sentence_bleu(refs: &[&[&str]], hyp: &[&str], opts: &NltkBleuOptions) -> Result<f64, EvalError> {
    corpus_bleu(&[refs.to_vec()], &[hyp], opts)
}

/// The highest n-gram order the weights may ask for.
pub const MAX_NGRAM_ORDER: usize = 16;

/// Checks n-gram weights: one to [`MAX_NGRAM_ORDER`] finite numbers of zero or more, not all
/// zero. nltk scores NaN, infinite or negative weights as NaN or as a perfect match, and all
/// zeros as 1.0; quarry refuses them instead, for every caller.
pub fn check_weights(weights: &[f64]) -> Result<(), EvalError> {
    let bad = |message: String| Err(EvalError::InvalidParameter(format!("weights: {message}")));
    if weights.is_empty() || weights.len() > MAX_NGRAM_ORDER {
        return bad(format!("{} given, expected 1 to {MAX_NGRAM_ORDER}", weights.len()));
    }
    if let Some(w) = weights.iter().find(|w| !w.is_finite() || **w < 0.0) {
        return bad(format!("{w} is not a finite number of zero or more"));
    }
    if weights.iter().all(|&w| w == 0.0) {
        return bad("at least one weight must be above zero".into());
    }
    Ok(())
}

fn check_options(opts: &NltkBleuOptions) -> Result<(), EvalError> {
    check_weights(&opts.weights)?;
    if opts.smoothing == Smoothing::Method6 && opts.weights.len() < 3 {
        return Err(EvalError::InvalidParameter("smoothing method6 needs at least three weights".into()));
    }
    Ok(())
}

/// nltk's `corpus_bleu(list_of_references, hypotheses, ...)`.
pub fn corpus_bleu(list_of_refs: &[Vec<&[&str]>], hyps: &[&[&str]], opts: &NltkBleuOptions) -> Result<f64, EvalError> {
    if list_of_refs.len() != hyps.len() {
        return Err(EvalError::LengthMismatch { hyps: hyps.len(), refs: list_of_refs.len(), stream: 0 });
    }
    if hyps.is_empty() {
        return Err(EvalError::EmptyInput);
    }
    check_options(opts)?;
    let mut segments = Vec::with_capacity(hyps.len());
    for (refs, hyp) in list_of_refs.iter().zip(hyps) {
        if refs.is_empty() {
            return Err(EvalError::NoReferences);
        }
        segments.push(segment_counts(refs, hyp, opts.weights.len()));
    }
    let last = hyps.len() - 1;
    score_segments(&segments, &list_of_refs[last], hyps[last], opts)
}

/// The score of accumulated segment statistics; `last_refs` and `last_hyp`
/// are the segment nltk hands to smoothing functions that need one.
fn score_segments(
    segments: &[SegmentCounts],
    last_refs: &[&[&str]],
    last_hyp: &[&str],
    opts: &NltkBleuOptions,
) -> Result<f64, EvalError> {
    let max_n = opts.weights.len();
    let mut numerators = vec![0i128; max_n];
    let mut denominators = vec![0i128; max_n];
    let (mut hyp_lengths, mut ref_lengths) = (0usize, 0usize);
    for seg in segments {
        for i in 0..max_n {
            numerators[i] += seg.num[i];
            denominators[i] += seg.den[i];
        }
        hyp_lengths += seg.hyp_len;
        ref_lengths += seg.ref_len;
    }
    let bp = brevity_penalty(ref_lengths, hyp_lengths);
    if numerators[0] == 0 {
        return Ok(0.0);
    }
    let p_n: Vec<PyNum> = (0..max_n).map(|i| PyNum::Frac(numerators[i], denominators[i])).collect();
    let p_n = smooth(opts.smoothing, p_n, last_refs, last_hyp, hyp_lengths)?;

    let mut weights = opts.weights.clone();
    if opts.auto_reweigh && hyp_lengths < 4 && weights == [0.25; 4] {
        weights = vec![1.0 / hyp_lengths as f64; hyp_lengths];
    }
    let terms = weights.iter().zip(&p_n).filter(|(_, p)| p.is_positive()).map(|(w, p)| w * p.to_f64().ln());
    Ok(bp * fsum(terms).exp())
}

fn smooth(
    method: Smoothing,
    mut p_n: Vec<PyNum>,
    refs: &[&[&str]],
    hyp: &[&str],
    hyp_len: usize,
) -> Result<Vec<PyNum>, EvalError> {
    const EPSILON: f64 = 0.1;
    const ALPHA: i128 = 5;
    const K: i128 = 5;
    let den = |p: PyNum| match p {
        PyNum::Frac(_, d) => d,
        PyNum::Float(_) => 1,
    };
    match method {
        Smoothing::Method0 => {
            Ok(p_n.into_iter().map(|p| if p.numerator() != 0 { p } else { PyNum::Float(f64::MIN_POSITIVE) }).collect())
        }
        Smoothing::Method1 => {
            Ok(p_n
                .into_iter()
                .map(|p| {
                    if p.numerator() == 0 {
                        PyNum::Float((p.numerator() as f64 + EPSILON) / den(p) as f64)
                    } else {
                        p
                    }
                })
                .collect())
        }
        Smoothing::Method2 => Ok(p_n
            .iter()
            .enumerate()
            .map(|(i, &p)| if i != 0 { PyNum::Frac(p.numerator() + 1, den(p) + 1) } else { p })
            .collect()),
        Smoothing::Method3 => {
            let mut incvnt = 1u32;
            for p in p_n.iter_mut() {
                if p.numerator() == 0 {
                    let d = (1u128 << incvnt) * den(*p) as u128;
                    *p = PyNum::Float(ratio_to_f64(1, d));
                    incvnt += 1;
                }
            }
            Ok(p_n)
        }
        Smoothing::Method4 => {
            let mut incvnt = 1u32;
            for p in p_n.iter_mut() {
                if p.numerator() == 0 && hyp_len > 1 {
                    let scaled = ((1i128 << incvnt) * K) as f64 / (hyp_len as f64).ln();
                    let numerator = 1.0 / scaled;
                    *p = PyNum::Float(numerator / den(*p) as f64);
                    incvnt += 1;
                }
            }
            Ok(p_n)
        }
        Smoothing::Method5 => {
            let (n5, d5) = modified_precision(refs, hyp, 5);
            let mut plus1 = p_n.clone();
            plus1.push(PyNum::Frac(n5, d5));
            let mut prev = p_n[0].py_add(PyNum::int(1));
            for i in 0..p_n.len() {
                let v = prev.py_add(p_n[i]).py_add(plus1[i + 1]).py_div(PyNum::int(3));
                p_n[i] = v;
                prev = v;
            }
            Ok(p_n)
        }
        Smoothing::Method6 => {
            if p_n[2].is_zero() {
                return Err(EvalError::Undefined("smoothing method6 requires a non-zero trigram precision".into()));
            }
            for i in 2..p_n.len() {
                let m = p_n[i].numerator();
                let l = hyp.len().saturating_sub(i) as i128;
                p_n[i] = if p_n[i - 2].is_zero() {
                    // pi0 is the int 0: int / int true division gives a float.
                    PyNum::Float(ratio_to_f64(m as u128, (l + ALPHA) as u128))
                } else {
                    let pi0 = p_n[i - 1].py_mul(p_n[i - 1]).py_div(p_n[i - 2]);
                    PyNum::int(m).py_add(PyNum::int(ALPHA).py_mul(pi0)).py_div(PyNum::int(l + ALPHA))
                };
            }
            Ok(p_n)
        }
        Smoothing::Method7 => {
            let p_n = smooth(Smoothing::Method4, p_n, refs, hyp, hyp_len)?;
            smooth(Smoothing::Method5, p_n, refs, hyp, hyp_len)
        }
    }
}

/// Scores of raw text lines, tokenized on whitespace like Python's
/// `str.split()`: per-line `sentence_bleu`, their mean, and nltk's
/// `corpus_bleu` over all lines. `refs[k][i]` is the k-th reference of line `i`.
pub fn line_scores(hyps: &[&str], refs: &[Vec<&str>], opts: &NltkBleuOptions) -> Result<LineScores, EvalError> {
    crate::bleu::check_streams(hyps, refs)?;
    if hyps.is_empty() {
        return Err(EvalError::EmptyInput);
    }
    check_options(opts)?;
    let hyp_toks: Vec<Vec<&str>> = hyps.iter().map(|h| split_whitespace(h).collect()).collect();
    let ref_toks: Vec<Vec<Vec<&str>>> =
        refs.iter().map(|s| s.iter().map(|r| split_whitespace(r).collect()).collect()).collect();
    let mut per_line = Vec::with_capacity(hyps.len());
    let mut segments = Vec::with_capacity(hyps.len());
    let mut sum = 0.0;
    let mut last_refs: Vec<&[&str]> = Vec::new();
    for (i, hyp) in hyp_toks.iter().enumerate() {
        crate::cancel::check()?;
        let seg_refs: Vec<&[&str]> = ref_toks.iter().map(|s| s[i].as_slice()).collect();
        let counts = segment_counts(&seg_refs, hyp, opts.weights.len());
        let s = score_segments(std::slice::from_ref(&counts), &seg_refs, hyp, opts).map_err(|e| match e {
            EvalError::Undefined(m) => EvalError::Undefined(format!("line {}: {m}", i + 1)),
            other => other,
        })?;
        sum += s;
        per_line.push(s);
        segments.push(counts);
        last_refs = seg_refs;
    }
    let corpus = score_segments(&segments, &last_refs, &hyp_toks[hyp_toks.len() - 1], opts)?;
    Ok(LineScores { mean: sum / hyps.len() as f64, per_line, corpus })
}

/// Per-line sentence BLEU with the mean and the corpus-level value.
#[derive(Debug, Clone, PartialEq)]
pub struct LineScores {
    /// One score per line (0–1).
    pub per_line: Vec<f64>,
    /// Mean of the per-line scores.
    pub mean: f64,
    /// nltk's `corpus_bleu` over all lines.
    pub corpus: f64,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn toks(s: &str) -> Vec<&str> {
        s.split_whitespace().collect()
    }

    #[test]
    fn nltk_doc_example() {
        let hyp =
            toks("It is a guide to action which ensures that the military always obeys the commands of the party");
        let r1 = toks("It is a guide to action that ensures that the military will forever heed Party commands");
        let r2 = toks("It is the guiding principle which guarantees the military forces always being under the command of the Party");
        let r3 = toks("It is the practical guide for the army always to heed the directions of the party");
        let refs: Vec<&[&str]> = vec![&r1, &r2, &r3];
        let s = sentence_bleu(&refs, &hyp, &NltkBleuOptions::default()).unwrap();
        assert!((s - 0.5045666840058485).abs() < 1e-15, "{s}");
    }

    #[test]
    fn weights_that_are_not_a_distribution_of_orders_are_refused() {
        let score = |weights: Vec<f64>| {
            sentence_bleu(&[&["a", "b"]], &["a", "b"], &NltkBleuOptions { weights, ..Default::default() })
        };
        assert!(score(vec![1.0, 0.0]).is_ok());
        for bad in [vec![f64::NAN, 0.0], vec![f64::INFINITY], vec![-1.0, 0.0], vec![0.0; 4], vec![], vec![0.1; 17]] {
            let error = score(bad.clone()).unwrap_err().to_string();
            assert!(error.contains("weights"), "{bad:?}: {error}");
        }
    }

    #[test]
    fn unigram_weights() {
        let hyp = toks("a b c d");
        let r = toks("a b x y");
        let refs: Vec<&[&str]> = vec![&r];
        let opts = NltkBleuOptions { weights: vec![1.0, 0.0, 0.0, 0.0], ..Default::default() };
        assert!((sentence_bleu(&refs, &hyp, &opts).unwrap() - 0.5).abs() < 1e-15);
    }
}
