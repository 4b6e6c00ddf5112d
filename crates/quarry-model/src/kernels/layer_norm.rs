//! Layer norm that trains on a GPU in two kernels, one forward and one backward
//! (`cuda/quarry.cu`'s `layer_norm_f32` and `layer_norm_backward_f32`). Composed of candle's
//! operations a training layer norm is about ten kernels forward and twenty-five backward;
//! candle's fused kernel has no backward pass. The CPU has its own fused kernel
//! ([`super::ops::layer_norm`]); the CPU versions here are the CUDA kernels' loops, which the
//! tests check against the composed operations.

use candle_core::{CpuStorage, CustomOp3, Layout, Result, Shape, Tensor};

#[cfg(feature = "cuda")]
use super::cuda_kernels::{launch_per_row, view};
use super::ops::rows_and_cols;

/// `(x - mean) / sqrt(var + eps) * w + b` over the last dimension of f32 `x`, one graph node
/// whose backward pass gives `x`, `w` and `b` their gradients.
pub(crate) fn layer_norm(x: &Tensor, w: &Tensor, b: &Tensor, eps: f64) -> Result<Tensor> {
    x.contiguous()?.apply_op3(w, b, LayerNormOp { eps: eps as f32 })
}

/// The forward pass: `(x, w, b) -> y`.
struct LayerNormOp {
    eps: f32,
}

/// Mean and `1 / sqrt(var + eps)` of `row`, the variance about the mean.
fn moments(row: &[f32], eps: f32) -> (f32, f32) {
    let n = row.len() as f32;
    let mean = row.iter().sum::<f32>() / n;
    let var = row.iter().map(|x| (x - mean) * (x - mean)).sum::<f32>() / n;
    (mean, 1.0 / (var + eps).sqrt())
}

impl CustomOp3 for LayerNormOp {
    fn name(&self) -> &'static str {
        "layer-norm-trained"
    }

    fn cpu_fwd(
        &self,
        x: &CpuStorage,
        xl: &Layout,
        w: &CpuStorage,
        wl: &Layout,
        b: &CpuStorage,
        bl: &Layout,
    ) -> Result<(CpuStorage, Shape)> {
        let [x, w, b] = super::ops::contiguous_f32_3((x, xl), (w, wl), (b, bl), self.name())?;
        let (_, cols) = rows_and_cols(xl);
        let mut y = Vec::with_capacity(x.len());
        for row in x.chunks(cols) {
            let (mean, rstd) = moments(row, self.eps);
            y.extend(row.iter().zip(w).zip(b).map(|((x, w), b)| (x - mean) * rstd * w + b));
        }
        Ok((CpuStorage::F32(y), xl.shape().clone()))
    }

    #[cfg(feature = "cuda")]
    fn cuda_fwd(
        &self,
        x: &candle_core::CudaStorage,
        xl: &Layout,
        w: &candle_core::CudaStorage,
        wl: &Layout,
        b: &candle_core::CudaStorage,
        bl: &Layout,
    ) -> Result<(candle_core::CudaStorage, Shape)> {
        let (rows, cols) = rows_and_cols(xl);
        let device = x.device.clone();
        let y = device.alloc_zeros::<f32>(rows * cols)?;
        let name = self.name();
        let buffers = [view(x, xl, name)?, view(w, wl, name)?, view(b, bl, name)?, y.slice(..)];
        // SAFETY: `layer_norm_f32(x, w, b, y, cols, eps)` over `rows` rows of `cols` f32s (`cols`
        // in `w` and `b`), which the buffers hold.
        unsafe { launch_per_row(&device, "layer_norm_f32", rows, &buffers, &[cols as u32], &[self.eps])? };
        Ok((candle_core::CudaStorage::wrap_cuda_slice(y, device), xl.shape().clone()))
    }

    fn bwd(
        &self,
        x: &Tensor,
        w: &Tensor,
        _b: &Tensor,
        _y: &Tensor,
        dy: &Tensor,
    ) -> Result<(Option<Tensor>, Option<Tensor>, Option<Tensor>)> {
        let both = x.apply_op3_no_bwd(w, &dy.contiguous()?, &LayerNormGrad { eps: self.eps })?;
        let cols = w.elem_count();
        let dx = both.get(0)?.reshape(x.shape())?;
        let dw = super::ops::column_sums(&both.get(1)?, cols)?;
        let db = super::ops::column_sums(dy, cols)?;
        Ok((Some(dx), Some(dw), Some(db)))
    }
}

/// The backward pass: `(x, w, dy) -> [dx, dy * xhat]`, stacked.
struct LayerNormGrad {
    eps: f32,
}

impl CustomOp3 for LayerNormGrad {
    fn name(&self) -> &'static str {
        "layer-norm-trained-backward"
    }

    fn cpu_fwd(
        &self,
        x: &CpuStorage,
        xl: &Layout,
        w: &CpuStorage,
        wl: &Layout,
        dy: &CpuStorage,
        dyl: &Layout,
    ) -> Result<(CpuStorage, Shape)> {
        let [x, w, dy] = super::ops::contiguous_f32_3((x, xl), (w, wl), (dy, dyl), self.name())?;
        let (rows, cols) = rows_and_cols(xl);
        let mut out = vec![0f32; 2 * rows * cols];
        let (dx, dy_xh) = out.split_at_mut(rows * cols);
        for r in 0..rows {
            let span = r * cols..(r + 1) * cols;
            let (xr, dyr) = (&x[span.clone()], &dy[span.clone()]);
            let (mean, rstd) = moments(xr, self.eps);
            let xh: Vec<f32> = xr.iter().map(|x| (x - mean) * rstd).collect();
            let g: Vec<f32> = dyr.iter().zip(w).map(|(dy, w)| dy * w).collect();
            let mean_g = g.iter().sum::<f32>() / cols as f32;
            let mean_g_xh = g.iter().zip(&xh).map(|(g, xh)| g * xh).sum::<f32>() / cols as f32;
            for c in 0..cols {
                dx[span.start + c] = rstd * (g[c] - mean_g - xh[c] * mean_g_xh);
                dy_xh[span.start + c] = dyr[c] * xh[c];
            }
        }
        Ok((CpuStorage::F32(out), Shape::from((2, rows, cols))))
    }

    #[cfg(feature = "cuda")]
    fn cuda_fwd(
        &self,
        x: &candle_core::CudaStorage,
        xl: &Layout,
        w: &candle_core::CudaStorage,
        wl: &Layout,
        dy: &candle_core::CudaStorage,
        dyl: &Layout,
    ) -> Result<(candle_core::CudaStorage, Shape)> {
        let (rows, cols) = rows_and_cols(xl);
        let device = x.device.clone();
        let out = device.alloc_zeros::<f32>(2 * rows * cols)?;
        let name = self.name();
        let (dx, dy_xh) = (out.slice(..rows * cols), out.slice(rows * cols..));
        let buffers = [view(x, xl, name)?, view(w, wl, name)?, view(dy, dyl, name)?, dx, dy_xh];
        // SAFETY: `layer_norm_backward_f32(x, w, dy, dx, dy_xh, cols, eps)` over `rows` rows of
        // `cols` f32s (`cols` in `w`), which the buffers hold.
        let kernel = "layer_norm_backward_f32";
        unsafe { launch_per_row(&device, kernel, rows, &buffers, &[cols as u32], &[self.eps])? };
        Ok((candle_core::CudaStorage::wrap_cuda_slice(out, device), Shape::from((2, rows, cols))))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use candle_core::{Device, Var, D};

    fn composed(x: &Tensor, w: &Tensor, b: &Tensor, eps: f64) -> Tensor {
        let mean = x.mean_keepdim(D::Minus1).unwrap();
        let centered = x.broadcast_sub(&mean).unwrap();
        let var = centered.sqr().unwrap().mean_keepdim(D::Minus1).unwrap();
        let normed = centered.broadcast_div(&(var + eps).unwrap().sqrt().unwrap()).unwrap();
        normed.broadcast_mul(w).unwrap().broadcast_add(b).unwrap()
    }

    fn max_diff(a: &Tensor, b: &Tensor) -> f32 {
        (a - b).unwrap().abs().unwrap().max_all().unwrap().to_scalar().unwrap()
    }

    #[test]
    fn kernels_match_the_composed_layer_norm_and_its_gradients() {
        let dev = Device::Cpu;
        let x = Var::from_tensor(&(Tensor::randn(0f32, 3., (2, 5, 7), &dev).unwrap() + 4.0).unwrap()).unwrap();
        let w = Var::from_tensor(&Tensor::randn(1f32, 0.3, 7, &dev).unwrap()).unwrap();
        let b = Var::from_tensor(&Tensor::randn(0f32, 0.3, 7, &dev).unwrap()).unwrap();
        let target = Tensor::randn(0f32, 1., (2, 5, 7), &dev).unwrap();
        let ours = layer_norm(x.as_tensor(), w.as_tensor(), b.as_tensor(), 1e-5).unwrap();
        let theirs = composed(x.as_tensor(), w.as_tensor(), b.as_tensor(), 1e-5);
        assert!(max_diff(&ours, &theirs) < 1e-5, "forward {}", max_diff(&ours, &theirs));
        let ours = (ours * &target).unwrap().sum_all().unwrap().backward().unwrap();
        let theirs = (theirs * &target).unwrap().sum_all().unwrap().backward().unwrap();
        for (name, v) in [("x", &x), ("w", &w), ("b", &b)] {
            let (a, e) = (ours.get(v.as_tensor()).unwrap(), theirs.get(v.as_tensor()).unwrap());
            assert_eq!(a.dims(), e.dims(), "{name}");
            assert!(max_diff(a, e) < 1e-4, "{name}: {}", max_diff(a, e));
        }
    }
}
