//! Dropout masks from a counter-based generator, and dropout as one operation on the CPU and
//! on CUDA (`cuda/dropout.cuh`, the same masks).
//!
//! A mask is a [`DropoutKey`]: one 64-bit key drawn from the model's shared generator per
//! application, and the keep decision of element `i` (row-major) a pure function of the key
//! and `i`. A kernel can so compute any block of the mask where and when it needs it, on
//! any thread: the fused attention draws each (sequence, head) block of its probability
//! mask inside its task and again in its backward pass, and the fused residual layer norm
//! draws its rows the same way, so no mask tensor is stored, and drawing runs in parallel
//! instead of through the shared generator's lock. CUDA's kernels draw the same elements
//! (the attention's and dropout's); on other devices the same mask is built as a tensor
//! ([`DropoutKey::tensor`]), so a seed gives the same masks everywhere.

use candle_core::{CpuStorage, CustomOp1, DType, Device, Layout, Result, Shape, Tensor};
use rayon::prelude::*;

use crate::kernels::fast_math::widest_simd;
use crate::kernels::ops::{contiguous_f32, zeroed};

/// SplitMix64's increment.
const GOLDEN: u64 = 0x9E37_79B9_7F4A_7C15;

/// SplitMix64's output function at counter `pair` of stream `key`: the `pair`-th number of
/// a SplitMix64 generator started at state `key`, computed without the numbers before it.
#[inline(always)]
fn bits(key: u64, pair: u64) -> u64 {
    let mut z = key.wrapping_add(pair.wrapping_add(1).wrapping_mul(GOLDEN));
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// One application's inverted-dropout mask: element `i` is `0` with probability `p`, else
/// `1 / (1 - p)`. Elements `2j` and `2j + 1` take the low and high 32 bits of the `j`-th
/// number of the key's SplitMix64 stream; an element is dropped when its 32 bits are below
/// `p * 2^32`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct DropoutKey {
    key: u64,
    threshold: u64,
    scale: f32,
}

#[inline(always)]
#[allow(clippy::needless_range_loop)]
fn fill_body(k: DropoutKey, start: usize, out: &mut [f32]) {
    let pick = |half: u64| if half < k.threshold { 0.0 } else { k.scale };
    let mut out = out;
    let mut start = start;
    if start % 2 == 1 && !out.is_empty() {
        out[0] = pick(bits(k.key, (start / 2) as u64) >> 32);
        out = &mut out[1..];
        start += 1;
    }
    let first = (start / 2) as u64;
    let pairs = out.len() / 2;
    let (whole, tail) = out.split_at_mut(2 * pairs);
    for j in 0..pairs {
        let b = bits(k.key, first + j as u64);
        whole[2 * j] = pick(b & 0xFFFF_FFFF);
        whole[2 * j + 1] = pick(b >> 32);
    }
    if let Some(last) = tail.first_mut() {
        *last = pick(bits(k.key, first + pairs as u64) & 0xFFFF_FFFF);
    }
}

widest_simd! {
    /// [`fill_body`] for the widest vector instructions the CPU has.
    fn fill_simd(k: DropoutKey, start: usize, out: &mut [f32]) => fill_body
}

impl DropoutKey {
    /// The mask of key `key` for dropout probability `p` (in `[0, 1)`).
    pub(crate) fn new(key: u64, p: f32) -> Self {
        DropoutKey { key, threshold: (p as f64 * (1u64 << 32) as f64) as u64, scale: 1.0 / (1.0 - p) }
    }

    /// The stream key, the drop threshold and the scale of kept elements, for a kernel that
    /// draws the mask itself (`cuda/dropout.cuh`'s `dropout_mask`).
    #[cfg_attr(not(feature = "cuda"), allow(dead_code))]
    pub(crate) fn parts(&self) -> (u64, u64, f32) {
        (self.key, self.threshold, self.scale)
    }

    /// Writes mask elements `start .. start + out.len()` into `out`.
    pub(crate) fn fill(&self, start: usize, out: &mut [f32]) {
        fill_simd(*self, start, out)
    }

    /// `out[j] = x[j] * mask[start + j]`; `out` and `x` have the same length.
    pub(crate) fn apply(&self, start: usize, x: &[f32], out: &mut [f32]) {
        self.fill(start, out);
        out.iter_mut().zip(x).for_each(|(o, &x)| *o *= x);
    }

    /// The whole mask of a tensor of `shape` as a tensor on `device`.
    pub(crate) fn tensor(&self, shape: &Shape, device: &Device) -> Result<Tensor> {
        let mut data = vec![0f32; shape.elem_count()];
        self.fill(0, &mut data);
        Tensor::from_vec(data, shape, device)
    }
}

/// Elements per parallel task of [`Dropout`] (even, so that tasks start on whole pairs).
const CHUNK: usize = 1 << 15;

/// `x * mask` on contiguous f32 CPU data; its backward pass is the same operation on the
/// gradient (the mask is constant).
struct Dropout {
    key: DropoutKey,
}

impl CustomOp1 for Dropout {
    fn name(&self) -> &'static str {
        "dropout"
    }

    fn cpu_fwd(&self, storage: &CpuStorage, layout: &Layout) -> Result<(CpuStorage, Shape)> {
        let x = contiguous_f32(storage, layout, self.name())?;
        let mut out = zeroed(x.len());
        out.par_chunks_mut(CHUNK)
            .zip(x.par_chunks(CHUNK))
            .enumerate()
            .for_each(|(i, (o, x))| self.key.apply(i * CHUNK, x, o));
        Ok((CpuStorage::F32(out), layout.shape().clone()))
    }

    #[cfg(feature = "cuda")]
    fn cuda_fwd(&self, x: &candle_core::CudaStorage, layout: &Layout) -> Result<(candle_core::CudaStorage, Shape)> {
        use super::cuda_kernels::{elementwise, view, MODULE, PTX};
        use candle_core::backend::BackendStorage;
        use candle_core::cuda_backend::cudarc::driver::{DeviceRepr, PushKernelArg};
        use candle_core::cuda_backend::{CudaDType, WrapErr};

        fn run<T: CudaDType + DeviceRepr>(
            x: &candle_core::CudaStorage,
            layout: &Layout,
            key: DropoutKey,
            kernel: &str,
        ) -> Result<candle_core::CudaStorage> {
            let n = layout.shape().elem_count();
            let device = x.device.clone();
            // SAFETY: the kernel writes every element.
            let y = unsafe { device.alloc::<T>(n)? };
            if n > 0 {
                let x = view::<T>(x, layout, "dropout")?;
                let func = device.get_or_load_custom_func(kernel, MODULE, PTX)?;
                let mut builder = func.builder();
                builder.arg(&x);
                builder.arg(&y);
                builder.arg(&n);
                let (k, threshold, scale) = key.parts();
                candle_core::builder_arg!(builder, k, threshold, scale);
                // SAFETY: `x` and `y` hold `n` elements; the parameters are the kernel's.
                unsafe { builder.launch(elementwise(n)) }.w()?;
            }
            Ok(candle_core::CudaStorage::wrap_cuda_slice(y, device))
        }

        let y = match x.dtype() {
            DType::F32 => run::<f32>(x, layout, self.key, "dropout_f32")?,
            DType::BF16 => run::<half::bf16>(x, layout, self.key, "dropout_bf16")?,
            other => candle_core::bail!("dropout: {other:?} on CUDA (f32 or bf16 only)"),
        };
        Ok((y, layout.shape().clone()))
    }

    fn bwd(&self, _arg: &Tensor, _res: &Tensor, grad: &Tensor) -> Result<Option<Tensor>> {
        Ok(Some(dropout_no_grad(grad, self.key)?))
    }
}

/// Whether the [`Dropout`] op runs on `x`: f32 on the CPU; f32 or bf16 on CUDA (`cuda/dropout.cuh`),
/// where the mask was otherwise drawn on the host and copied over for every application.
fn fused(x: &Tensor) -> bool {
    match x.dtype() {
        DType::F32 => x.device().is_cpu() || x.device().is_cuda(),
        DType::BF16 => x.device().is_cuda(),
        _ => false,
    }
}

fn dropout_no_grad(x: &Tensor, key: DropoutKey) -> Result<Tensor> {
    if fused(x) {
        x.contiguous()?.apply_op1_no_bwd(&Dropout { key })
    } else {
        x.mul(&key.tensor(x.shape(), x.device())?.to_dtype(x.dtype())?)
    }
}

/// `x` times the mask of `key` (element `i` of `x` in row-major order takes mask element
/// `i`); gradients reach `x`. One pass with the mask computed on the fly for f32 on the CPU and
/// f32 or bf16 on CUDA.
pub(crate) fn dropout(x: &Tensor, key: DropoutKey) -> Result<Tensor> {
    if fused(x) {
        x.contiguous()?.apply_op1(Dropout { key })
    } else {
        x.mul(&key.tensor(x.shape(), x.device())?.to_dtype(x.dtype())?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use candle_core::Var;

    #[test]
    fn any_block_of_the_mask_equals_the_same_slice_of_the_whole() {
        let k = DropoutKey::new(0x1234_5678_9abc_def0, 0.1);
        let mut whole = vec![0f32; 1001];
        k.fill(0, &mut whole);
        for (start, len) in [(0, 1001), (1, 10), (7, 0), (8, 1), (333, 500), (1000, 1)] {
            let mut part = vec![0f32; len];
            k.fill(start, &mut part);
            assert_eq!(part, whole[start..start + len]);
        }
        let kept = whole.iter().filter(|&&m| m > 0.0).count() as f64 / whole.len() as f64;
        assert!((kept - 0.9).abs() < 0.03, "kept {kept}");
        assert!(whole.iter().all(|&m| m == 0.0 || (m - 1.0 / 0.9).abs() < 1e-6));
        let other = DropoutKey::new(0x1234_5678_9abc_def1, 0.1).tensor(&Shape::from(1001), &Device::Cpu).unwrap();
        assert_ne!(other.to_vec1::<f32>().unwrap(), whole, "a different key gives a different mask");
    }

    #[test]
    fn large_masks_keep_the_expected_share() {
        let k = DropoutKey::new(99, 0.3);
        let mut m = vec![0f32; 1 << 20];
        k.fill(0, &mut m);
        let kept = m.iter().filter(|&&v| v > 0.0).count() as f64 / m.len() as f64;
        assert!((kept - 0.7).abs() < 0.002, "kept {kept}");
    }

    #[test]
    fn fused_dropout_matches_the_mask_product_with_gradients() {
        let rng = crate::nn::rng::SeededRng::new(3);
        let shape = Shape::from((3, CHUNK / 2 + 5));
        let x = Var::from_tensor(&rng.normal(&shape, 1.0, &Device::Cpu).unwrap()).unwrap();
        let key = DropoutKey::new(77, 0.25);
        let mask = key.tensor(&shape, &Device::Cpu).unwrap();
        let y = dropout(x.as_tensor(), key).unwrap();
        let want = (x.as_tensor() * &mask).unwrap();
        let d: f32 = (&y - &want).unwrap().abs().unwrap().max_all().unwrap().to_scalar().unwrap();
        assert_eq!(d, 0.0);
        let target = rng.normal(&shape, 1.0, &Device::Cpu).unwrap();
        let g = (y * &target).unwrap().sum_all().unwrap().backward().unwrap();
        let d: f32 = (g.get(x.as_tensor()).unwrap() - (&target * &mask).unwrap())
            .unwrap()
            .abs()
            .unwrap()
            .max_all()
            .unwrap()
            .to_scalar()
            .unwrap();
        assert_eq!(d, 0.0);
    }
}
