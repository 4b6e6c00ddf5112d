//! N-gram counting shared by the BLEU implementations.

use std::collections::HashMap;

/// Counts of n-grams, keyed by token slices borrowed from the sentence.
pub type NgramCounts<'a> = HashMap<&'a [&'a str], usize>;

/// Counts every n-gram of `tokens` with `min_n <= n <= max_n`.
pub fn count_ngrams<'a>(tokens: &'a [&'a str], min_n: usize, max_n: usize) -> NgramCounts<'a> {
    let mut counts = NgramCounts::with_capacity(tokens.len() * (max_n + 1 - min_n));
    for n in min_n..=max_n {
        if n == 0 || n > tokens.len() {
            continue;
        }
        for gram in tokens.windows(n) {
            *counts.entry(gram).or_insert(0) += 1;
        }
    }
    counts
}
