//! Differentiable layer normalization, and T5's RMS norm ([`RmsNorm`]).
//!
//! candle's fused layer-norm kernel has no backward pass, so a model built on it
//! silently stops gradients at every normalization. This one trains its input, scale
//! and shift: on CPU through a fused kernel with a backward pass (`ops::layer_norm`), on CUDA
//! through quarry's two kernels when training (`kernels::layer_norm`) and candle's fused kernel
//! for inference, elsewhere (other dtypes) through composed tensor operations. A sub-layer's
//! end, `layer_norm(dropout(a) + residual)`, is one fused operation for f32 on the CPU and on
//! CUDA ([`LayerNorm::forward_residual`]).

use candle_core::{Result, Tensor, D};

use crate::kernels::dropout::DropoutKey;
use crate::nn::layers::Param;

/// Layer normalization over the last dimension with a learned scale and shift.
#[derive(Debug, Clone)]
pub(crate) struct LayerNorm {
    weight: Param,
    bias: Param,
    eps: f64,
}

impl LayerNorm {
    /// A layer norm with the given scale (`weight`), shift (`bias`) and epsilon.
    pub(crate) fn new(weight: Tensor, bias: Tensor, eps: f64) -> Self {
        LayerNorm { weight: Param::new(weight), bias: Param::new(bias), eps }
    }

    /// Normalizes `x` over its last dimension; with `train`, gradients flow to `x`, scale
    /// and shift.
    pub(crate) fn forward(&self, x: &Tensor, train: bool) -> Result<Tensor> {
        let (w, b) = (self.weight.get(train), self.bias.get(train));
        let f32s = [x, w, b].iter().all(|t| t.dtype() == candle_core::DType::F32);
        if x.device().is_cpu() && f32s {
            crate::kernels::ops::layer_norm(x, w, b, self.eps)
        } else if x.device().is_cuda() && f32s && train {
            crate::kernels::layer_norm::layer_norm(x, w, b, self.eps)
        } else if f32s && ![x, w, b].iter().any(|t| t.track_op()) {
            // Inference elsewhere: candle's fused kernel, which has no backward pass.
            candle_nn::ops::layer_norm(&x.contiguous()?, w, b, self.eps as f32)
        } else {
            self.forward_composed(x, train)
        }
    }

    /// `layer_norm(dropout(a) + residual)`, the end of a transformer sub-layer, with the
    /// mask of `dropout` (none: no dropout): one fused operation for f32 on the CPU and on
    /// CUDA ([`crate::kernels::residual_norm`]; `QUARRY_FUSED_RESIDUAL_NORM=0` keeps it off
    /// CUDA), composed operations elsewhere (other dtypes, autocast's bf16 sub-layer outputs,
    /// other devices).
    pub(crate) fn forward_residual(
        &self,
        a: &Tensor,
        residual: &Tensor,
        dropout: Option<DropoutKey>,
        train: bool,
    ) -> Result<Tensor> {
        let (w, b) = (self.weight.get(train), self.bias.get(train));
        let f32s = [a, residual, w, b].iter().all(|t| t.dtype() == candle_core::DType::F32);
        let fused = a.device().is_cpu() || (a.device().is_cuda() && crate::kernels::residual_norm::fuses_on_cuda());
        if f32s && fused {
            return crate::kernels::residual_norm::residual_layer_norm(a, residual, w, b, self.eps, dropout);
        }
        let a = match dropout {
            Some(key) => crate::kernels::dropout::dropout(a, key)?,
            None => a.clone(),
        };
        // Under autocast the sub-layer's output is bf16 and the residual stream f32: the sum
        // and its normalization are f32, as PyTorch's type promotion makes them.
        let a = crate::nn::autocast::cast(&a, residual.dtype())?;
        self.forward(&(a + residual)?, train)
    }

    /// The same normalization composed of basic tensor operations (any device and dtype).
    pub(crate) fn forward_composed(&self, x: &Tensor, train: bool) -> Result<Tensor> {
        let mean = x.mean_keepdim(D::Minus1)?;
        let centered = x.broadcast_sub(&mean)?;
        let var = centered.sqr()?.mean_keepdim(D::Minus1)?;
        let normed = centered.broadcast_div(&(var + self.eps)?.sqrt()?)?;
        normed.broadcast_mul(self.weight.get(train))?.broadcast_add(self.bias.get(train))
    }
}

/// T5's layer norm: `x / sqrt(mean(x^2) + eps) * weight`, no centring and no shift, in f32
/// whatever the input's dtype (composed of tensor operations, so it trains everywhere).
#[derive(Debug, Clone)]
pub(crate) struct RmsNorm {
    weight: Param,
    eps: f64,
}

impl RmsNorm {
    /// An RMS norm with the given scale and epsilon.
    pub(crate) fn new(weight: Tensor, eps: f64) -> Self {
        RmsNorm { weight: Param::new(weight), eps }
    }

    /// Normalizes `x` over its last dimension; with `train`, gradients flow to `x` and the scale.
    pub(crate) fn forward(&self, x: &Tensor, train: bool) -> Result<Tensor> {
        let x = crate::nn::autocast::widen(x)?;
        let var = x.sqr()?.mean_keepdim(D::Minus1)?;
        x.broadcast_div(&(var + self.eps)?.sqrt()?)?.broadcast_mul(self.weight.get(train))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use candle_core::{Device, Var};

    #[test]
    fn matches_fused_kernel_and_propagates_gradients() {
        let dev = Device::Cpu;
        let x = Var::from_tensor(&Tensor::arange(0f32, 24., &dev).unwrap().reshape((2, 3, 4)).unwrap().sqr().unwrap())
            .unwrap();
        let w = Var::from_tensor(&Tensor::new(&[1f32, 2., 0.5, -1.], &dev).unwrap()).unwrap();
        let b = Var::from_tensor(&Tensor::new(&[0f32, 1., 0., 2.], &dev).unwrap()).unwrap();
        let ln = LayerNorm::new(w.as_tensor().clone(), b.as_tensor().clone(), 1e-5);
        let y = ln.forward(x.as_tensor(), true).unwrap();
        let fused = candle_nn::ops::layer_norm(x.as_tensor(), w.as_tensor(), b.as_tensor(), 1e-5).unwrap();
        let diff: f32 = (&y - &fused).unwrap().abs().unwrap().max_all().unwrap().to_scalar().unwrap();
        assert!(diff < 1e-5, "diff {diff}");
        let target = Tensor::arange(0f32, 24., &dev).unwrap().reshape((2, 3, 4)).unwrap();
        let loss = (y * target).unwrap().sum_all().unwrap();
        let grads = loss.backward().unwrap();
        for v in [&x, &w, &b] {
            let g = grads.get(v.as_tensor()).expect("gradient present");
            let n: f32 = g.abs().unwrap().sum_all().unwrap().to_scalar().unwrap();
            assert!(n > 0.0);
        }
    }
}
