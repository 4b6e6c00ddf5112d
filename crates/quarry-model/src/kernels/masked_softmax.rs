//! Attention's softmax with its padding mask, on every device: the CPU's fused kernel
//! ([`super::ops::MaskedSoftmax`]); on a GPU one kernel forward (`cuda/quarry.cu`'s
//! `masked_softmax_f32`, the mask added as the row is read) and one backward
//! (`softmax_backward_f32`), where composed the mask is a broadcast addition over the whole
//! score tensor (candle's broadcasting kernel divides every index by every dimension) and the
//! backward pass four kernels; composed operations elsewhere. The CPU versions of the GPU
//! operations are the CUDA kernels' loops, which the tests check against the composed ones.

use candle_core::{CpuStorage, CustomOp2, DType, Layout, Result, Shape, Tensor};

use super::ops::{fused_softmax, rows_and_cols, trained_softmax, MaskedSoftmax};
use crate::nn::autocast::{cast, widen};

/// `softmax(scores + bias)` over the last dimension; `scores` is `(b, heads, q, k)` and
/// `bias` `(b, k)` (0 for real tokens, a large negative for padding). No gradient reaches `bias`.
/// Off the CPU it runs in f32 whatever the scores' dtype, as autocast runs softmax.
pub(crate) fn masked_softmax(scores: &Tensor, bias: &Tensor) -> Result<Tensor> {
    if scores.device().is_cpu() && scores.dtype() == DType::F32 {
        scores.contiguous()?.apply_op2(&bias.detach().contiguous()?, MaskedSoftmax)
    } else if scores.device().is_cuda() && [scores, bias].iter().all(|t| t.dtype() != DType::F64) {
        cast(&gpu_masked_softmax(&widen(scores)?, &widen(&bias.detach())?)?, scores.dtype())
    } else {
        // candle's fused `softmax_last_dim` has no backward pass, so a pass that records
        // gradients takes the composed softmax, which has one.
        let (b, k) = bias.dims2()?;
        let x = widen(scores)?.broadcast_add(&widen(&bias.detach())?.reshape((b, 1, 1, k))?)?;
        let probs = if x.track_op() { trained_softmax(&x)? } else { fused_softmax(&x)? };
        cast(&probs, scores.dtype())
    }
}

/// `softmax(scores + bias[b])` over the last dimension of f32 `scores` `(b, ..., k)`, with
/// `bias` `(b, k)` (no gradient), one graph node whose backward pass is softmax's: quarry's
/// CUDA kernels on a GPU, their loops on the CPU.
pub(crate) fn gpu_masked_softmax(scores: &Tensor, bias: &Tensor) -> Result<Tensor> {
    scores.contiguous()?.apply_op2(&bias.detach().contiguous()?, MaskedSoftmaxOp)
}

/// The forward pass: `(scores, bias) -> probabilities`.
struct MaskedSoftmaxOp;

/// `(rows, cols, rows per bias row)` of scores under `layout` with a `(b, k)` bias.
fn shape_of(scores: &Layout, bias: &Layout) -> Result<(usize, usize, usize)> {
    let (b, k) = bias.shape().dims2()?;
    let n = scores.shape().elem_count();
    if scores.shape().dims().last() != Some(&k) || b == 0 || !n.is_multiple_of(b * k) {
        candle_core::bail!("masked softmax: scores {:?} do not match the mask {:?}", scores.shape(), bias.shape())
    }
    Ok((n / k, k, n / (b * k)))
}

impl CustomOp2 for MaskedSoftmaxOp {
    fn name(&self) -> &'static str {
        "masked-softmax-gpu"
    }

    fn cpu_fwd(&self, x: &CpuStorage, xl: &Layout, bias: &CpuStorage, bl: &Layout) -> Result<(CpuStorage, Shape)> {
        let (_, cols, rows_per_batch) = shape_of(xl, bl)?;
        let x = super::ops::contiguous_f32(x, xl, self.name())?;
        let bias = super::ops::contiguous_f32(bias, bl, self.name())?;
        let mut y = Vec::with_capacity(x.len());
        for (r, row) in x.chunks(cols).enumerate() {
            let b = &bias[r / rows_per_batch * cols..][..cols];
            let max = row.iter().zip(b).map(|(x, b)| x + b).fold(f32::NEG_INFINITY, f32::max);
            let start = y.len();
            y.extend(row.iter().zip(b).map(|(x, b)| (x + b - max).exp()));
            let inv = 1.0 / y[start..].iter().sum::<f32>();
            y[start..].iter_mut().for_each(|v| *v *= inv);
        }
        Ok((CpuStorage::F32(y), xl.shape().clone()))
    }

    #[cfg(feature = "cuda")]
    fn cuda_fwd(
        &self,
        x: &candle_core::CudaStorage,
        xl: &Layout,
        bias: &candle_core::CudaStorage,
        bl: &Layout,
    ) -> Result<(candle_core::CudaStorage, Shape)> {
        use super::cuda_kernels::{launch_per_row, view};

        let (rows, cols, rows_per_batch) = shape_of(xl, bl)?;
        let device = x.device.clone();
        let y = device.alloc_zeros::<f32>(rows * cols)?;
        let buffers = [view(x, xl, self.name())?, view(bias, bl, self.name())?, y.slice(..)];
        let ints = [cols as u32, rows_per_batch as u32];
        // SAFETY: `masked_softmax_f32(x, bias, y, cols, rows_per_batch)`: `rows` rows of `cols`
        // f32s in `x` and `y`, `rows / rows_per_batch` in `bias` (checked by `shape_of`).
        unsafe { launch_per_row(&device, "masked_softmax_f32", rows, &buffers, &ints, &[])? };
        Ok((candle_core::CudaStorage::wrap_cuda_slice(y, device), xl.shape().clone()))
    }

    fn bwd(&self, _x: &Tensor, _bias: &Tensor, y: &Tensor, dy: &Tensor) -> Result<(Option<Tensor>, Option<Tensor>)> {
        Ok((Some(y.apply_op2_no_bwd(&dy.contiguous()?, &SoftmaxGrad)?), None))
    }
}

/// The backward pass: `(y, dy) -> y * (dy - sum(dy * y))` over each row.
struct SoftmaxGrad;

impl CustomOp2 for SoftmaxGrad {
    fn name(&self) -> &'static str {
        "softmax-gpu-backward"
    }

    fn cpu_fwd(&self, y: &CpuStorage, yl: &Layout, dy: &CpuStorage, dyl: &Layout) -> Result<(CpuStorage, Shape)> {
        let (_, cols) = rows_and_cols(yl);
        let y = super::ops::contiguous_f32(y, yl, self.name())?;
        let dy = super::ops::contiguous_f32(dy, dyl, self.name())?;
        let mut dx = Vec::with_capacity(y.len());
        for (y, dy) in y.chunks(cols).zip(dy.chunks(cols)) {
            let d: f32 = y.iter().zip(dy).map(|(y, dy)| y * dy).sum();
            dx.extend(y.iter().zip(dy).map(|(y, dy)| y * (dy - d)));
        }
        Ok((CpuStorage::F32(dx), yl.shape().clone()))
    }

    #[cfg(feature = "cuda")]
    fn cuda_fwd(
        &self,
        y: &candle_core::CudaStorage,
        yl: &Layout,
        dy: &candle_core::CudaStorage,
        dyl: &Layout,
    ) -> Result<(candle_core::CudaStorage, Shape)> {
        use super::cuda_kernels::{launch_per_row, view};

        let (rows, cols) = rows_and_cols(yl);
        let device = y.device.clone();
        let dx = device.alloc_zeros::<f32>(rows * cols)?;
        let buffers = [view(y, yl, self.name())?, view(dy, dyl, self.name())?, dx.slice(..)];
        // SAFETY: `softmax_backward_f32(y, dy, dx, cols)`: `rows` rows of `cols` f32s in each.
        unsafe { launch_per_row(&device, "softmax_backward_f32", rows, &buffers, &[cols as u32], &[])? };
        Ok((candle_core::CudaStorage::wrap_cuda_slice(dx, device), yl.shape().clone()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use candle_core::{Device, Var, D};

    #[test]
    fn kernels_match_the_composed_masked_softmax_and_its_gradient() {
        let dev = Device::Cpu;
        let scores = Var::from_tensor(&Tensor::randn(0f32, 2., (2, 3, 4, 5), &dev).unwrap()).unwrap();
        let bias = Tensor::new(&[[0f32, 0., 0., -1e9, -1e9], [0., 0., 0., 0., -1e9]], &dev).unwrap();
        let target = Tensor::randn(0f32, 1., (2, 3, 4, 5), &dev).unwrap();
        let ours = gpu_masked_softmax(scores.as_tensor(), &bias).unwrap();
        let shifted = scores.as_tensor().broadcast_add(&bias.reshape((2, 1, 1, 5)).unwrap()).unwrap();
        let theirs = candle_nn::ops::softmax(&shifted, D::Minus1).unwrap();
        let diff =
            |a: &Tensor, b: &Tensor| -> f32 { (a - b).unwrap().abs().unwrap().max_all().unwrap().to_scalar().unwrap() };
        assert!(diff(&ours, &theirs) < 1e-6, "forward {}", diff(&ours, &theirs));
        let masked: f32 = ours.narrow(3, 4, 1).unwrap().abs().unwrap().max_all().unwrap().to_scalar().unwrap();
        assert_eq!(masked, 0.0, "padding gets no weight");
        let ours = (ours * &target).unwrap().sum_all().unwrap().backward().unwrap();
        let theirs = (theirs * &target).unwrap().sum_all().unwrap().backward().unwrap();
        let (a, e) = (ours.get(scores.as_tensor()).unwrap(), theirs.get(scores.as_tensor()).unwrap());
        assert!(diff(a, e) < 1e-5, "backward {}", diff(a, e));
    }

    #[test]
    fn a_mask_that_does_not_fit_is_an_error() {
        let scores = Tensor::zeros((2, 3, 4), candle_core::DType::F32, &Device::Cpu).unwrap();
        let bias = Tensor::zeros((2, 3), candle_core::DType::F32, &Device::Cpu).unwrap();
        assert!(gpu_masked_softmax(&scores, &bias).is_err());
    }
}
