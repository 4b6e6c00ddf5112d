//! A transformer sub-layer's end, `layer_norm(dropout(a) + residual)`, as one CPU operation
//! with its backward pass.
//!
//! Composed, it is three graph nodes (dropout, addition, layer norm) whose backward passes
//! each zero-fill and add a full-size gradient buffer per input, plus a stored mask. Fused,
//! the forward pass makes one pass over the rows, and the backward pass recomputes each
//! row's sum (the dropout mask is recomputed from its key, [`crate::kernels::dropout`]) and writes
//! the input gradients, `d residual` and `d a = d residual * mask`, in one pass.
//!
//! On CUDA (with the `cuda` feature) the same two passes are one kernel each,
//! `cuda/quarry.cu`'s `residual_layer_norm_f32` and `residual_layer_norm_backward_f32`, one
//! block per row, drawing the mask in the kernel (`cuda/dropout.cuh`); the backward kernel
//! writes each row's `dy * xhat` and `dy` side by side, whose column sums (one product with a
//! row of ones, [`crate::kernels::ops::column_sums`]) are the scale's and shift's gradients.

use candle_core::{bail, CpuStorage, CustomOp3, Layout, Result, Shape, Storage, Tensor};
use rayon::prelude::*;

#[cfg(feature = "cuda")]
use crate::kernels::cuda_kernels::{launch_per_row, view};
use crate::kernels::dropout::DropoutKey;
use crate::kernels::ops::{contiguous_f32, contiguous_f32_3, norm_grad_row, norm_row, rows_per_task, zeroed};

/// `z = a * mask + residual` for rows starting at element `start`, into `z`.
fn residual_sum(a: &[f32], r: &[f32], dropout: Option<DropoutKey>, start: usize, z: &mut [f32]) {
    match dropout {
        Some(key) => {
            key.fill(start, z);
            z.iter_mut().zip(a).zip(r).for_each(|((z, &a), &r)| *z = a * *z + r);
        }
        None => z.iter_mut().zip(a).zip(r).for_each(|((z, &a), &r)| *z = a + r),
    }
}

/// The operation's arguments: `a`, `residual` (same shape `(..., h)`) and the scale and
/// shift side by side, `(2h,)`.
struct Args<'a> {
    a: &'a [f32],
    r: &'a [f32],
    wb: &'a [f32],
    h: usize,
}

fn check<'a>(
    name: &str,
    (s1, l1): (&'a CpuStorage, &Layout),
    (s2, l2): (&'a CpuStorage, &Layout),
    (s3, l3): (&'a CpuStorage, &Layout),
) -> Result<Args<'a>> {
    let [a, r, wb] = contiguous_f32_3((s1, l1), (s2, l2), (s3, l3), name)?;
    let h = wb.len() / 2;
    if h == 0 || wb.len() != 2 * h || l1.shape() != l2.shape() || l1.shape().dims().last() != Some(&h) {
        bail!("{name}: shapes {:?}, {:?}, {:?} do not fit", l1.shape(), l2.shape(), l3.shape());
    }
    Ok(Args { a, r, wb, h })
}

struct ResidualNorm {
    eps: f32,
    dropout: Option<DropoutKey>,
}

/// A CUDA launch's rows and row length `h` (the shapes checked as [`check`] checks the
/// CPU's), its integer parameters (`h`, whether to drop, the dropout key's low and high halves
/// and the threshold, below 2^32 for a probability below 1) and the scale of kept elements.
#[cfg(feature = "cuda")]
fn cuda_args(
    name: &str,
    (l1, l2, l3): (&Layout, &Layout, &Layout),
    dropout: Option<DropoutKey>,
) -> Result<(usize, usize, [u32; 5], f32)> {
    let n = l3.shape().elem_count();
    let h = n / 2;
    if h == 0 || n != 2 * h || l1.shape() != l2.shape() || l1.shape().dims().last() != Some(&h) {
        bail!("{name}: shapes {:?}, {:?}, {:?} do not fit", l1.shape(), l2.shape(), l3.shape());
    }
    let rows = l1.shape().elem_count() / h;
    let (Ok(h32), Ok(_)) = (u32::try_from(h), u32::try_from(rows)) else {
        bail!("{name}: shape {:?} is too large for one launch", l1.shape())
    };
    let Some(key) = dropout else { return Ok((rows, h, [h32, 0, 0, 0, 0], 1.0)) };
    let (k, threshold, scale) = key.parts();
    let Ok(threshold) = u32::try_from(threshold) else {
        bail!("{name}: dropout threshold {threshold} does not fit the kernel")
    };
    Ok((rows, h, [h32, 1, k as u32, (k >> 32) as u32, threshold], scale))
}

impl CustomOp3 for ResidualNorm {
    fn name(&self) -> &'static str {
        "residual-layer-norm"
    }

    fn cpu_fwd(
        &self,
        s1: &CpuStorage,
        l1: &Layout,
        s2: &CpuStorage,
        l2: &Layout,
        s3: &CpuStorage,
        l3: &Layout,
    ) -> Result<(CpuStorage, Shape)> {
        let Args { a, r, wb, h } = check(self.name(), (s1, l1), (s2, l2), (s3, l3))?;
        let (w, b) = wb.split_at(h);
        let mut out = zeroed(a.len());
        let chunk = rows_per_task(h) * h;
        out.par_chunks_mut(chunk).enumerate().for_each(|(ci, o)| {
            let start = ci * chunk;
            let mut z = vec![0f32; o.len()];
            residual_sum(&a[start..start + o.len()], &r[start..start + o.len()], self.dropout, start, &mut z);
            for (orow, zrow) in o.chunks_mut(h).zip(z.chunks(h)) {
                norm_row(zrow, w, b, self.eps, orow);
            }
        });
        Ok((CpuStorage::F32(out), l1.shape().clone()))
    }

    #[cfg(feature = "cuda")]
    fn cuda_fwd(
        &self,
        s1: &candle_core::CudaStorage,
        l1: &Layout,
        s2: &candle_core::CudaStorage,
        l2: &Layout,
        s3: &candle_core::CudaStorage,
        l3: &Layout,
    ) -> Result<(candle_core::CudaStorage, Shape)> {
        let name = self.name();
        let (rows, h, ints, scale) = cuda_args(name, (l1, l2, l3), self.dropout)?;
        let device = s1.device.clone();
        // SAFETY: the kernel writes every element of every row.
        let y = unsafe { device.alloc::<f32>(rows * h)? };
        let buffers = [view(s1, l1, name)?, view(s2, l2, name)?, view(s3, l3, name)?, y.slice(..)];
        // SAFETY: `residual_layer_norm_f32(a, r, wb, y, cols, dropping, key_lo, key_hi,
        // threshold, eps, keep_scale)` over `rows` rows of `h` f32s (`2 h` in `wb`), which the
        // buffers hold (`cuda_args`, `view`).
        unsafe { launch_per_row(&device, "residual_layer_norm_f32", rows, &buffers, &ints, &[self.eps, scale])? };
        Ok((candle_core::CudaStorage::wrap_cuda_slice(y, device), l1.shape().clone()))
    }

    fn bwd(
        &self,
        a: &Tensor,
        r: &Tensor,
        wb: &Tensor,
        _res: &Tensor,
        grad: &Tensor,
    ) -> Result<(Option<Tensor>, Option<Tensor>, Option<Tensor>)> {
        let h = wb.elem_count() / 2;
        let rows = a.elem_count() / h.max(1);
        let op = ResidualNormGrad { eps: self.eps, dropout: self.dropout, grad: grad.contiguous()? };
        let out = a.apply_op3_no_bwd(r, wb, &op)?;
        let dr = out.narrow(0, 0, rows)?.reshape(a.shape())?;
        let da = match self.dropout {
            Some(_) => out.narrow(0, rows, rows)?.reshape(a.shape())?,
            None => dr.clone(),
        };
        let blocks = if self.dropout.is_some() { 2 } else { 1 };
        let dwb = if out.device().is_cuda() {
            // Each row's `dy * xhat` and `dy` side by side: their column sums.
            let sides = out.narrow(0, blocks * rows, 2 * rows)?.reshape((rows, 2 * h))?;
            crate::kernels::ops::column_sums(&sides, 2 * h)?
        } else {
            // A copy, so that the small parameter gradient does not keep the whole buffer alive.
            out.narrow(0, blocks * rows, 2)?.flatten_all()?.copy()?
        };
        Ok((Some(da), Some(dr), Some(dwb)))
    }
}

/// The gradients of [`ResidualNorm`] from the output gradient `grad`: a `(k * rows + 2, h)`
/// result holding the rows of `d residual`, then (with dropout, `k = 2`) those of `d a`,
/// then the scale's gradient and the shift's. On CUDA the result is `((k + 2) * rows, h)`:
/// the last `2 * rows` rows, taken as `(rows, 2h)`, hold each row's `grad * xhat` and `grad`,
/// whose column sums are the scale's and shift's gradients.
struct ResidualNormGrad {
    eps: f32,
    dropout: Option<DropoutKey>,
    grad: Tensor,
}

impl CustomOp3 for ResidualNormGrad {
    fn name(&self) -> &'static str {
        "residual-layer-norm-grad"
    }

    fn cpu_fwd(
        &self,
        s1: &CpuStorage,
        l1: &Layout,
        s2: &CpuStorage,
        l2: &Layout,
        s3: &CpuStorage,
        l3: &Layout,
    ) -> Result<(CpuStorage, Shape)> {
        let Args { a, r, wb, h } = check(self.name(), (s1, l1), (s2, l2), (s3, l3))?;
        let w = &wb[..h];
        let (storage, layout) = self.grad.storage_and_layout();
        let g = match &*storage {
            Storage::Cpu(s) => contiguous_f32(s, layout, self.name())?,
            _ => bail!("{}: the gradient must be on the CPU", self.name()),
        };
        if g.len() != a.len() {
            bail!("{}: gradient {:?} does not fit {:?}", self.name(), layout.shape(), l1.shape());
        }
        let rows = a.len() / h;
        let blocks = if self.dropout.is_some() { 2 } else { 1 };
        let mut out = zeroed((blocks * rows + 2) * h);
        let (grads, params) = out.split_at_mut(blocks * rows * h);
        let (dr, da) = grads.split_at_mut(rows * h);
        let chunk = rows_per_task(h) * h;
        // One chunk of rows: its input gradients, and its share of the parameter gradients.
        let run = |ci: usize, dr: &mut [f32], da: Option<&mut [f32]>| {
            let start = ci * chunk;
            let (a, r, g) = (&a[start..start + dr.len()], &r[start..start + dr.len()], &g[start..start + dr.len()]);
            let mut z = vec![0f32; dr.len()];
            residual_sum(a, r, self.dropout, start, &mut z);
            let mut share = vec![0f32; 2 * h];
            let (dw, db) = share.split_at_mut(h);
            for ((dzrow, zrow), grow) in dr.chunks_mut(h).zip(z.chunks(h)).zip(g.chunks(h)) {
                norm_grad_row(zrow, grow, w, self.eps, dzrow, dw, db);
            }
            if let (Some(da), Some(key)) = (da, self.dropout) {
                key.apply(start, dr, da);
            }
            share
        };
        // The shares are added in chunk order, so the result does not depend on the threads.
        let shares: Vec<Vec<f32>> = if self.dropout.is_some() {
            dr.par_chunks_mut(chunk)
                .zip(da.par_chunks_mut(chunk))
                .enumerate()
                .map(|(ci, (dr, da))| run(ci, dr, Some(da)))
                .collect()
        } else {
            dr.par_chunks_mut(chunk).enumerate().map(|(ci, dr)| run(ci, dr, None)).collect()
        };
        for share in shares {
            params.iter_mut().zip(share).for_each(|(p, s)| *p += s);
        }
        Ok((CpuStorage::F32(out), Shape::from((blocks * rows + 2, h))))
    }

    #[cfg(feature = "cuda")]
    fn cuda_fwd(
        &self,
        s1: &candle_core::CudaStorage,
        l1: &Layout,
        s2: &candle_core::CudaStorage,
        l2: &Layout,
        s3: &candle_core::CudaStorage,
        l3: &Layout,
    ) -> Result<(candle_core::CudaStorage, Shape)> {
        let name = self.name();
        let (rows, h, ints, scale) = cuda_args(name, (l1, l2, l3), self.dropout)?;
        let (storage, layout) = self.grad.storage_and_layout();
        let candle_core::Storage::Cuda(g) = &*storage else { bail!("{name}: the gradient must be on the CUDA device") };
        if layout.shape().elem_count() != rows * h {
            bail!("{name}: gradient {:?} does not fit {:?}", layout.shape(), l1.shape());
        }
        let blocks = if self.dropout.is_some() { 2 } else { 1 };
        let n = rows * h;
        let device = s1.device.clone();
        // SAFETY: the kernel writes every element: `d residual`, `d a` when dropping (only then
        // is it part of the result) and both halves of each parameter row.
        let out = unsafe { device.alloc::<f32>((blocks + 2) * n)? };
        let dr = out.slice(..n);
        // Without dropout the kernel never writes `da`; `d residual` stands in for the pointer.
        let da = if self.dropout.is_some() { out.slice(n..2 * n) } else { out.slice(..n) };
        let params = out.slice(blocks * n..);
        let w = view(s3, l3, name)?.slice(..h);
        let buffers = [view(s1, l1, name)?, view(s2, l2, name)?, w, view(g, layout, name)?, dr, da, params];
        // SAFETY: `residual_layer_norm_backward_f32(a, r, w, dy, dr, da, params, cols, dropping,
        // key_lo, key_hi, threshold, eps, keep_scale)` over `rows` rows of `h` f32s (`h` in `w`,
        // `2 h` per row in `params`), which the buffers hold (`cuda_args`, `view`, the checked
        // gradient); `da` is written only when dropping, when it is its own block.
        let kernel = "residual_layer_norm_backward_f32";
        unsafe { launch_per_row(&device, kernel, rows, &buffers, &ints, &[self.eps, scale])? };
        Ok((candle_core::CudaStorage::wrap_cuda_slice(out, device), Shape::from(((blocks + 2) * rows, h))))
    }
}

/// The environment variable that, set to `0`, keeps [`residual_layer_norm`] off CUDA (the layer
/// then composes dropout, addition and layer norm): the before of a before-and-after
/// measurement, and a way around the kernels should they fail on some GPU.
pub(crate) const FUSED_RESIDUAL_NORM_ENV: &str = "QUARRY_FUSED_RESIDUAL_NORM";

/// Whether CUDA tensors take [`residual_layer_norm`]: unless [`FUSED_RESIDUAL_NORM_ENV`] is `0`.
pub(crate) fn fuses_on_cuda() -> bool {
    static TURNED_OFF: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    !*TURNED_OFF.get_or_init(|| std::env::var(FUSED_RESIDUAL_NORM_ENV).is_ok_and(|v| v.trim() == "0"))
}

/// `layer_norm(a * mask + residual)` over the last dimension for f32 tensors on the CPU or
/// (with the `cuda` feature) on CUDA, with
/// gradients for `a`, `residual`, `weight` and `bias`; `dropout` gives the mask of `a`
/// (none: `a + residual`). The arithmetic per element is that of the composed operations.
pub(crate) fn residual_layer_norm(
    a: &Tensor,
    residual: &Tensor,
    weight: &Tensor,
    bias: &Tensor,
    eps: f64,
    dropout: Option<DropoutKey>,
) -> Result<Tensor> {
    let wb = Tensor::cat(&[weight, bias], 0)?;
    a.contiguous()?.apply_op3(&residual.contiguous()?, &wb, ResidualNorm { eps: eps as f32, dropout })
}

#[cfg(test)]
mod tests {
    use super::*;
    use candle_core::{Device, Var};

    fn max_diff(a: &Tensor, b: &Tensor) -> f32 {
        (a - b).unwrap().abs().unwrap().max_all().unwrap().to_scalar().unwrap()
    }

    #[test]
    fn matches_composed_dropout_add_and_layer_norm_with_gradients() {
        let rng = crate::nn::rng::SeededRng::new(11);
        let dev = Device::Cpu;
        // 100 rows of 48: several parallel chunks, the last one partial.
        let shape = Shape::from((4, 25, 48));
        let var = |s: &Shape| Var::from_tensor(&rng.normal(s, 1.0, &dev).unwrap()).unwrap();
        let (a, r, w, b) = (var(&shape), var(&shape), var(&Shape::from(48)), var(&Shape::from(48)));
        let target = rng.normal(&shape, 1.0, &dev).unwrap();
        let norm = crate::nn::layer_norm::LayerNorm::new(w.as_tensor().clone(), b.as_tensor().clone(), 1e-12);
        for key in [None, Some(rng.dropout_key(0.2))] {
            let fused =
                residual_layer_norm(a.as_tensor(), r.as_tensor(), w.as_tensor(), b.as_tensor(), 1e-12, key).unwrap();
            let dropped = match key {
                Some(k) => (a.as_tensor() * k.tensor(&shape, &dev).unwrap()).unwrap(),
                None => a.as_tensor().clone(),
            };
            let composed = norm.forward_composed(&(dropped + r.as_tensor()).unwrap(), true).unwrap();
            assert!(max_diff(&fused, &composed) < 1e-5);
            let g1 = (fused * &target).unwrap().sum_all().unwrap().backward().unwrap();
            let g2 = (composed * &target).unwrap().sum_all().unwrap().backward().unwrap();
            for v in [&a, &r, &w, &b] {
                let d = max_diff(g1.get(v.as_tensor()).unwrap(), g2.get(v.as_tensor()).unwrap());
                assert!(d < 1e-4, "gradient difference {d}");
            }
        }
    }

    #[test]
    fn rejects_mismatched_shapes() {
        let dev = Device::Cpu;
        let a = Tensor::zeros((2, 4), candle_core::DType::F32, &dev).unwrap();
        let r = Tensor::zeros((2, 5), candle_core::DType::F32, &dev).unwrap();
        let w = Tensor::ones(4, candle_core::DType::F32, &dev).unwrap();
        assert!(residual_layer_norm(&a, &r, &w, &w, 1e-5, None).is_err());
    }
}
