//! N-gram counting shared by the BLEU implementations, with a fast
//! non-cryptographic hasher for the short keys involved.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// The multiply-rotate hasher of the Rust compiler ("FxHash"): fast on short
/// keys; not resistant to adversarial collisions, which metric inputs are not.
#[derive(Default, Clone, Copy)]
pub struct FxHasher {
    hash: u64,
}

const SEED: u64 = 0x51_7c_c1_b7_27_22_0a_95;

impl FxHasher {
    #[inline]
    fn add(&mut self, word: u64) {
        self.hash = (self.hash.rotate_left(5) ^ word).wrapping_mul(SEED);
    }
}

impl Hasher for FxHasher {
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            self.add(u64::from_le_bytes(c.try_into().unwrap_or([0; 8])));
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            let mut buf = [0u8; 8];
            buf[..rest.len()].copy_from_slice(rest);
            self.add(u64::from_le_bytes(buf));
        }
    }

    #[inline]
    fn write_u8(&mut self, i: u8) {
        self.add(i as u64);
    }

    #[inline]
    fn write_usize(&mut self, i: usize) {
        self.add(i as u64);
    }

    #[inline]
    fn finish(&self) -> u64 {
        self.hash
    }
}

/// A `HashMap` using [`FxHasher`].
pub type FastMap<K, V> = HashMap<K, V, BuildHasherDefault<FxHasher>>;

/// Counts of n-grams, keyed by token slices borrowed from the sentence.
pub type NgramCounts<'a> = FastMap<&'a [&'a str], usize>;

/// Counts every n-gram of `tokens` with `min_n <= n <= max_n`.
pub fn count_ngrams<'a>(tokens: &'a [&'a str], min_n: usize, max_n: usize) -> NgramCounts<'a> {
    let mut counts = NgramCounts::default();
    counts.reserve(tokens.len() * (max_n + 1 - min_n));
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
