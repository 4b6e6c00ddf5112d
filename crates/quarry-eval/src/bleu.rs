//! Corpus BLEU identical to sacrebleu's default `BLEU()` (13a tokenization,
//! exponential smoothing, 4-grams, mixed case), and sacrebleu's
//! `sentence_bleu` (the same with effective order) for per-segment scores.
//!
//! Scores are on sacrebleu's 0–100 scale.

use crate::ngrams::{count_ngrams, NgramCounts};
use crate::tok13a::tokenize_13a;
use crate::EvalError;

/// The maximum n-gram order of sacrebleu's default BLEU.
pub const MAX_ORDER: usize = 4;

/// Sufficient statistics of one or more segments.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct BleuStats {
    /// Hypothesis length in tokens.
    pub sys_len: u64,
    /// Closest reference length in tokens.
    pub ref_len: u64,
    /// Clipped n-gram matches per order.
    pub correct: [u64; MAX_ORDER],
    /// Hypothesis n-grams per order.
    pub total: [u64; MAX_ORDER],
}

impl BleuStats {
    /// Adds another segment's statistics.
    pub fn add(&mut self, other: &BleuStats) {
        self.sys_len += other.sys_len;
        self.ref_len += other.ref_len;
        for n in 0..MAX_ORDER {
            self.correct[n] += other.correct[n];
            self.total[n] += other.total[n];
        }
    }
}

/// A BLEU score with the parts sacrebleu reports.
#[derive(Debug, Clone, PartialEq)]
pub struct BleuScore {
    /// The score, 0–100.
    pub score: f64,
    /// N-gram precisions, 0–100.
    pub precisions: [f64; MAX_ORDER],
    /// Brevity penalty.
    pub bp: f64,
    /// The statistics the score was computed from.
    pub stats: BleuStats,
}

/// Computes the statistics of one hypothesis against its references, both
/// given as raw (untokenized) text.
pub fn segment_stats(hyp: &str, refs: &[&str]) -> BleuStats {
    let hyp_tok = tokenize_13a(hyp);
    let ref_toks: Vec<String> = refs.iter().map(|r| tokenize_13a(r)).collect();
    stats_from_tokenized(&hyp_tok, &ref_toks)
}

fn stats_from_tokenized(hyp_tok: &str, ref_toks: &[String]) -> BleuStats {
    let ref_words: Vec<Vec<&str>> = ref_toks.iter().map(|r| r.split(' ').filter(|t| !t.is_empty()).collect()).collect();
    let ref_lens: Vec<u64> = ref_words.iter().map(|w| w.len() as u64).collect();
    // n-gram counts of the references, merged by maximum
    let mut ref_ngrams: NgramCounts = match ref_words.first() {
        Some(first) => count_ngrams(first, 1, MAX_ORDER),
        None => NgramCounts::default(),
    };
    for words in ref_words.iter().skip(1) {
        for (gram, count) in count_ngrams(words, 1, MAX_ORDER) {
            let slot = ref_ngrams.entry(gram).or_insert(0);
            *slot = (*slot).max(count);
        }
    }
    let hyp_words: Vec<&str> = hyp_tok.split(' ').filter(|t| !t.is_empty()).collect();
    let hyp_len = hyp_words.len() as u64;
    let mut stats =
        BleuStats { sys_len: hyp_len, ref_len: closest_ref_len(hyp_len, &ref_lens), ..BleuStats::default() };
    // Clipped matches: each hypothesis n-gram consumes one reference count,
    // which sums min(hyp count, ref count) without counting the hypothesis.
    for n in 1..=MAX_ORDER.min(hyp_words.len()) {
        stats.total[n - 1] = (hyp_words.len() + 1 - n) as u64;
        for gram in hyp_words.windows(n) {
            if let Some(r) = ref_ngrams.get_mut(gram) {
                if *r > 0 {
                    *r -= 1;
                    stats.correct[n - 1] += 1;
                }
            }
        }
    }
    stats
}

/// sacrebleu's `_get_closest_ref_len`: the closest length, ties to the shorter.
fn closest_ref_len(hyp_len: u64, ref_lens: &[u64]) -> u64 {
    let mut best: Option<(u64, u64)> = None;
    for &len in ref_lens {
        let diff = hyp_len.abs_diff(len);
        best = match best {
            None => Some((diff, len)),
            Some((d, l)) if diff < d || (diff == d && len < l) => Some((diff, len)),
            keep => keep,
        };
    }
    best.map_or(0, |(_, l)| l) // sacrebleu returns -1 without references; never reached
}

/// sacrebleu's `my_log`: the logarithm with 0 mapped to -9999999999.
fn my_log(x: f64) -> f64 {
    if x == 0.0 {
        -9_999_999_999.0
    } else {
        x.ln()
    }
}

/// sacrebleu's `BLEU.compute_bleu` with `smooth_method='exp'`.
pub fn compute_bleu(stats: &BleuStats, effective_order: bool) -> BleuScore {
    let (sys_len, ref_len) = (stats.sys_len, stats.ref_len);
    let mut bp = 1.0;
    if sys_len < ref_len {
        bp = if sys_len > 0 { (1.0 - ref_len as f64 / sys_len as f64).exp() } else { 0.0 };
    }
    let mut precisions = [0.0; MAX_ORDER];
    if stats.correct.iter().all(|&c| c == 0) {
        return BleuScore { score: 0.0, precisions, bp, stats: *stats };
    }
    let mut smooth_mteval = 1.0f64;
    let mut eff_order = MAX_ORDER;
    #[allow(clippy::needless_range_loop)] // mirrors sacrebleu's indexed loop
    for n in 0..MAX_ORDER {
        if stats.total[n] == 0 {
            break;
        }
        if effective_order {
            eff_order = n + 1;
        }
        if stats.correct[n] == 0 {
            smooth_mteval *= 2.0;
            precisions[n] = 100.0 / (smooth_mteval * stats.total[n] as f64);
        } else {
            precisions[n] = 100.0 * stats.correct[n] as f64 / stats.total[n] as f64;
        }
    }
    let mut log_sum = 0.0;
    for p in &precisions[..eff_order] {
        log_sum += my_log(*p);
    }
    let score = bp * (log_sum / eff_order as f64).exp();
    BleuScore { score, precisions, bp, stats: *stats }
}

/// Checks that every reference stream has one line per hypothesis.
pub(crate) fn check_streams<H, R>(hyps: &[H], refs: &[Vec<R>]) -> Result<(), EvalError> {
    if refs.is_empty() {
        return Err(EvalError::NoReferences);
    }
    for (stream, r) in refs.iter().enumerate() {
        if r.len() != hyps.len() {
            return Err(EvalError::LengthMismatch { hyps: hyps.len(), refs: r.len(), stream });
        }
    }
    Ok(())
}

/// Scores every line with `score(hypothesis, references of that line)`
/// after checking the streams, and returns the per-line scores with their
/// sum, accumulated in line order (as the Python references do).
pub(crate) fn score_lines(
    hyps: &[&str],
    refs: &[Vec<&str>],
    mut score: impl FnMut(&str, &[&str]) -> f64,
) -> Result<(Vec<f64>, f64), EvalError> {
    check_streams(hyps, refs)?;
    if hyps.is_empty() {
        return Err(EvalError::EmptyInput);
    }
    let mut per_line = Vec::with_capacity(hyps.len());
    let mut sum = 0.0;
    let mut line_refs: Vec<&str> = Vec::with_capacity(refs.len());
    for (i, h) in hyps.iter().enumerate() {
        crate::cancel::check()?;
        line_refs.clear();
        line_refs.extend(refs.iter().map(|r| r[i]));
        let s = score(h, &line_refs);
        sum += s;
        per_line.push(s);
    }
    Ok((per_line, sum))
}

/// Corpus BLEU as `sacrebleu.corpus_bleu(hyps, refs)` computes it;
/// `refs[k][i]` is the k-th reference of hypothesis `i`.
pub fn corpus_bleu(hyps: &[&str], refs: &[Vec<&str>]) -> Result<BleuScore, EvalError> {
    check_streams(hyps, refs)?;
    let mut total = BleuStats::default();
    for stats in segment_stats_all(hyps, refs)? {
        total.add(&stats);
    }
    Ok(compute_bleu(&total, false))
}

/// Per-segment scores as `sacrebleu.sentence_bleu(hyp, refs)` computes them
/// (exponential smoothing, effective order).
pub fn sentence_bleus(hyps: &[&str], refs: &[Vec<&str>]) -> Result<Vec<BleuScore>, EvalError> {
    check_streams(hyps, refs)?;
    Ok(segment_stats_all(hyps, refs)?.iter().map(|s| compute_bleu(s, true)).collect())
}

/// The statistics of every segment ([`crate::cancel`]led between segments).
fn segment_stats_all(hyps: &[&str], refs: &[Vec<&str>]) -> Result<Vec<BleuStats>, EvalError> {
    hyps.iter()
        .enumerate()
        .map(|(i, h)| {
            crate::cancel::check()?;
            let seg_refs: Vec<&str> = refs.iter().map(|r| r[i]).collect();
            Ok(segment_stats(h, &seg_refs))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identical_sentences_score_100() {
        let s = corpus_bleu(&["the cat sat on the mat"], &[vec!["the cat sat on the mat"]]).unwrap();
        assert!((s.score - 100.0).abs() < 1e-12);
    }

    #[test]
    fn no_match_scores_zero() {
        let s = corpus_bleu(&["a b c d"], &[vec!["w x y z"]]).unwrap();
        assert_eq!(s.score, 0.0);
    }

    #[test]
    fn mismatched_streams_are_an_error() {
        assert!(corpus_bleu(&["a", "b"], &[vec!["a"]]).is_err());
    }
}
