//! The seeded random generators of the workspace, so that splits, samples,
//! perturbations, probes and training runs depend only on the seed and the data, on
//! every platform.
//!
//! - [`SplitMix64`]: small and fast; datasets (quarry-data) and probing (quarry-probe)
//!   draw from it.
//! - [`Xoshiro256`]: xoshiro256** seeded through SplitMix64; quarry-model's initialization,
//!   dropout and data order draw from it (behind a mutex there, with tensor samplers).
//! - [`stable_hash`]: FNV-1a, for seeding per-item choices.
//! - [`sample_per_key`]: a seeded sample of at most N items per key.
//!
//! Every sequence is pinned by a test: datasets, training resume and the determinism tests
//! of the crates above depend on them staying bit-identical.

/// The golden-ratio increment of SplitMix64.
const GOLDEN: u64 = 0x9E37_79B9_7F4A_7C15;

/// SplitMix64 (Steele, Lea and Flood): one `u64` of state.
#[derive(Debug, Clone)]
pub struct SplitMix64 {
    state: u64,
}

impl SplitMix64 {
    /// A generator from a seed (the state is `seed ^ 0x9E37_79B9_7F4A_7C15`).
    pub fn new(seed: u64) -> Self {
        SplitMix64 { state: seed ^ GOLDEN }
    }

    /// A generator starting from exactly `state`; a crate that mixes its seeds with a
    /// salt of its own passes `seed ^ SALT`.
    pub fn from_state(state: u64) -> Self {
        SplitMix64 { state }
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(GOLDEN);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A uniform integer in `0..n` (`n` > 0) from the top 53 bits, by multiply and shift.
    pub fn below(&mut self, n: usize) -> usize {
        (((self.next_u64() >> 11) as u128 * n as u128) >> 53) as usize
    }

    /// An integer in `0..n` (`n` > 0) as the remainder of 64 bits; the datasets of
    /// quarry-data were drawn this way, so it stays for them.
    pub fn below_modulo(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }

    /// A uniform float in `[0, 1)`.
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// Shuffles `items` in place (Fisher–Yates, indices from [`SplitMix64::below`]).
    pub fn shuffle<T>(&mut self, items: &mut [T]) {
        for i in (1..items.len()).rev() {
            let j = self.below(i + 1);
            items.swap(i, j);
        }
    }

    /// Shuffles `items` in place (Fisher–Yates, indices from
    /// [`SplitMix64::below_modulo`]).
    pub fn shuffle_modulo<T>(&mut self, items: &mut [T]) {
        for i in (1..items.len()).rev() {
            let j = self.below_modulo(i + 1);
            items.swap(i, j);
        }
    }
}

/// xoshiro256** (Blackman and Vigna), its four words seeded by SplitMix64 from the seed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Xoshiro256 {
    state: [u64; 4],
}

impl Xoshiro256 {
    /// A generator whose whole sequence is determined by `seed`.
    pub fn new(seed: u64) -> Self {
        let mut s = SplitMix64::from_state(seed);
        Xoshiro256 { state: [s.next_u64(), s.next_u64(), s.next_u64(), s.next_u64()] }
    }

    /// Continues from a state returned by [`Xoshiro256::state`].
    pub fn from_state(state: [u64; 4]) -> Self {
        Xoshiro256 { state }
    }

    /// The whole state, to be saved (for instance with a training checkpoint).
    pub fn state(&self) -> [u64; 4] {
        self.state
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        let s = &mut self.state;
        let result = s[1].wrapping_mul(5).rotate_left(7).wrapping_mul(9);
        let t = s[1] << 17;
        s[2] ^= s[0];
        s[3] ^= s[1];
        s[1] ^= s[2];
        s[0] ^= s[3];
        s[2] ^= t;
        s[3] = s[3].rotate_left(45);
        result
    }

    /// A permutation of `0..n` (Fisher–Yates, indices as remainders of 64 bits).
    pub fn permutation(&mut self, n: usize) -> Vec<usize> {
        let mut v: Vec<usize> = (0..n).collect();
        for i in (1..n).rev() {
            let j = (self.next_u64() % (i as u64 + 1)) as usize;
            v.swap(i, j);
        }
        v
    }
}

/// At most `limit` items of every key, chosen in the order of `Xoshiro256::new(seed)`'s
/// permutation; the kept items stay in input order.
pub fn sample_per_key<T, K: std::hash::Hash + Eq>(
    items: Vec<T>,
    limit: usize,
    seed: u64,
    key: impl Fn(&T) -> K,
) -> Vec<T> {
    let order = Xoshiro256::new(seed).permutation(items.len());
    let mut taken = std::collections::HashMap::<K, usize>::new();
    let mut keep = vec![false; items.len()];
    for i in order {
        let count = taken.entry(key(&items[i])).or_default();
        if *count < limit {
            *count += 1;
            keep[i] = true;
        }
    }
    items.into_iter().zip(keep).filter_map(|(item, k)| k.then_some(item)).collect()
}

/// FNV-1a 64-bit hash of a string: stable across runs and platforms.
pub fn stable_hash(text: &str) -> u64 {
    stable_hash_bytes(text.as_bytes())
}

/// FNV-1a 64-bit hash of bytes (a file's content, for a cache key).
pub fn stable_hash_bytes(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, b| (h ^ u64::from(*b)).wrapping_mul(0x0100_0000_01b3))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The sequences before the generators were shared (quarry-data's, quarry-probe's and
    /// quarry-model's own copies), seed 7: they must never change.
    #[test]
    fn sequences_are_pinned() {
        let mut data = SplitMix64::new(7);
        assert_eq!(
            [data.next_u64(), data.next_u64(), data.next_u64()],
            [0xec77_9c36_93f8_8501, 0xfed9_eeb4_936d_e39d, 0x6f9f_b04b_092b_d30a]
        );
        let mut data = SplitMix64::new(7);
        assert_eq!((0..5).map(|_| data.below_modulo(10)).collect::<Vec<_>>(), [9, 9, 4, 9, 6]);
        assert_eq!(SplitMix64::new(7).unit(), 0.9237001069304558);

        let probe = || SplitMix64::from_state(7 ^ 0x5DEE_CE66_D1CE_4E5B);
        let mut p = probe();
        assert_eq!(
            [p.next_u64(), p.next_u64(), p.next_u64()],
            [0xd814_e58a_040f_45a8, 0x0c9d_2ae6_cb41_9e52, 0x7683_78ca_9282_f31c]
        );
        let mut p = probe();
        assert_eq!((0..5).map(|_| p.below(10)).collect::<Vec<_>>(), [8, 0, 4, 1, 0]);
        let mut items: Vec<u32> = (0..10).collect();
        probe().shuffle(&mut items);
        assert_eq!(items, [1, 2, 4, 5, 7, 6, 9, 3, 0, 8]);

        let mut x = Xoshiro256::new(7);
        assert_eq!(
            [x.next_u64(), x.next_u64(), x.next_u64()],
            [0xb358_faf7_4ef9_765a, 0x475c_3d96_4f48_2cd2, 0xd6f1_d349_952c_7996]
        );
        assert_eq!(x.permutation(10), [6, 0, 2, 8, 3, 9, 7, 1, 5, 4]);

        assert_eq!(stable_hash("a/b.py"), 0x5811_ede6_3c29_c8aa);
    }

    #[test]
    fn ranges_and_state_round_trip() {
        let mut r = SplitMix64::new(3);
        for n in 1..50 {
            assert!(r.below(n) < n);
            assert!(r.below_modulo(n) < n);
            let u = r.unit();
            assert!((0.0..1.0).contains(&u));
        }
        let mut a = Xoshiro256::new(9);
        a.next_u64();
        let mut b = Xoshiro256::from_state(a.state());
        assert_eq!(a.next_u64(), b.next_u64());
        let mut p = Xoshiro256::new(1).permutation(50);
        p.sort();
        assert_eq!(p, (0..50).collect::<Vec<_>>());
        let kept = sample_per_key((0..20).collect(), 3, 5, |i: &i32| i % 2);
        assert_eq!(kept.len(), 6);
        assert!(kept.windows(2).all(|w| w[0] < w[1]));
    }
}
