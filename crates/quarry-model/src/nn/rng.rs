//! The model's shared random source for initialization, dropout masks and data order: the
//! workspace's xoshiro256** ([`quarry_stdx::rng::Xoshiro256`]) behind a mutex, with the
//! tensor samplers the layers need.
//!
//! candle's CPU device cannot be seeded, so every random number the crate needs is drawn
//! here, making runs with the same seed reproducible on every device.

use std::sync::Mutex;

use candle_core::{Device, Result, Shape, Tensor};
use quarry_stdx::rng::Xoshiro256;

use crate::kernels::dropout::DropoutKey;

/// A seeded xoshiro256** generator behind a mutex, shared by the layers of a model.
#[derive(Debug)]
pub struct SeededRng {
    state: Mutex<Xoshiro256>,
}

impl SeededRng {
    /// A generator whose whole sequence is determined by `seed`.
    pub fn new(seed: u64) -> Self {
        SeededRng { state: Mutex::new(Xoshiro256::new(seed)) }
    }

    /// The generator's whole state, to be saved with a training checkpoint.
    pub fn state(&self) -> [u64; 4] {
        self.with_state(|s| s.state())
    }

    /// Continues from a state returned by [`SeededRng::state`]: the following numbers are
    /// those the saved generator would have drawn next.
    pub fn set_state(&self, state: [u64; 4]) {
        self.with_state(|s| *s = Xoshiro256::from_state(state));
    }

    fn with_state<T>(&self, f: impl FnOnce(&mut Xoshiro256) -> T) -> T {
        let mut guard = self.state.lock().unwrap_or_else(|p| p.into_inner());
        f(&mut guard)
    }

    /// A uniform number in `[0, 1)`.
    pub fn uniform(&self) -> f32 {
        self.with_state(|s| (s.next_u64() >> 40) as f32 / (1u64 << 24) as f32)
    }

    /// A permutation of `0..n` (Fisher-Yates).
    pub fn permutation(&self, n: usize) -> Vec<usize> {
        self.with_state(|s| s.permutation(n))
    }

    /// A tensor of normal samples with mean 0 and standard deviation `std`.
    pub fn normal(&self, shape: &Shape, std: f64, device: &Device) -> Result<Tensor> {
        let n = shape.elem_count();
        let data = self.with_state(|s| {
            let mut out = Vec::with_capacity(n + 1);
            while out.len() < n {
                let u1 = ((s.next_u64() >> 11) as f64 + 1.0) / (1u64 << 53) as f64;
                let u2 = (s.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
                let r = (-2.0 * u1.ln()).sqrt() * std;
                let theta = 2.0 * std::f64::consts::PI * u2;
                out.push((r * theta.cos()) as f32);
                out.push((r * theta.sin()) as f32);
            }
            out.truncate(n);
            out
        });
        Tensor::from_vec(data, shape, device)
    }

    /// A fresh inverted-dropout mask for probability `p` (one 64-bit key drawn from the
    /// generator; see [`crate::kernels::dropout`] for how the key determines the mask).
    pub(crate) fn dropout_key(&self, p: f32) -> DropoutKey {
        DropoutKey::new(self.with_state(|s| s.next_u64()), p)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_seed_same_numbers_and_sane_statistics() {
        let a = SeededRng::new(7);
        let b = SeededRng::new(7);
        let shape = Shape::from((1000, 10));
        let x = a.normal(&shape, 0.5, &Device::Cpu).unwrap();
        let y = b.normal(&shape, 0.5, &Device::Cpu).unwrap();
        let diff: f32 = (&x - &y).unwrap().abs().unwrap().sum_all().unwrap().to_scalar().unwrap();
        assert_eq!(diff, 0.0);
        let mean: f32 = x.mean_all().unwrap().to_scalar().unwrap();
        let std: f32 = x.sqr().unwrap().mean_all().unwrap().to_scalar::<f32>().unwrap().sqrt();
        assert!(mean.abs() < 0.02, "mean {mean}");
        assert!((std - 0.5).abs() < 0.02, "std {std}");
        let m = a.dropout_key(0.1).tensor(&shape, &Device::Cpu).unwrap();
        let kept: f32 =
            m.gt(0f32).unwrap().to_dtype(candle_core::DType::F32).unwrap().mean_all().unwrap().to_scalar().unwrap();
        assert!((kept - 0.9).abs() < 0.01, "kept {kept}");
        let saved = a.state();
        let first = a.uniform();
        b.set_state(saved);
        assert_eq!(b.uniform(), first);
        let mut p = a.permutation(50);
        p.sort();
        assert_eq!(p, (0..50).collect::<Vec<_>>());
    }
}
