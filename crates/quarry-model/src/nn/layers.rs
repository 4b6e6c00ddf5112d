//! Basic trainable layers: linear, embedding and dropout.

use std::sync::Arc;

use candle_core::{DType, Result, Tensor};

use crate::kernels::dropout::DropoutKey;
use crate::nn::autocast::{cast, Autocast};
use crate::nn::params::{Init, ParamStore};
use crate::nn::rng::SeededRng;

/// Standard deviation of BERT's normal initialization.
pub(crate) const INIT_STD: f64 = 0.02;

/// A trainable parameter: the variable itself, recorded in the gradient graph, and a
/// detached view of the same storage for inference, which records nothing and so lets
/// every intermediate tensor be freed as soon as it is used.
#[derive(Debug, Clone)]
pub(crate) struct Param {
    tracked: Tensor,
    detached: Tensor,
}

impl Param {
    /// Wraps a variable-backed tensor.
    pub(crate) fn new(t: Tensor) -> Self {
        let detached = t.detach();
        Param { tracked: t, detached }
    }

    /// The tensor to use: tracked when training, detached otherwise.
    pub(crate) fn get(&self, train: bool) -> &Tensor {
        if train {
            &self.tracked
        } else {
            &self.detached
        }
    }
}

/// A fully connected layer `y = x W^T + b` over the last dimension, computed in the
/// precision of its model's [`Autocast`] setting.
#[derive(Debug, Clone)]
pub(crate) struct Linear {
    weight: Param,
    bias: Param,
    autocast: Arc<Autocast>,
}

impl Linear {
    /// Loads or initializes `{prefix}.weight` (`out x in`) and `{prefix}.bias`.
    pub(crate) fn new(
        store: &mut ParamStore,
        prefix: &str,
        in_dim: usize,
        out_dim: usize,
        required: bool,
    ) -> crate::error::Result<Self> {
        let weight = store.get(&format!("{prefix}.weight"), (out_dim, in_dim), Init::Normal(INIT_STD), required)?;
        let bias = store.get(&format!("{prefix}.bias"), out_dim, Init::Zeros, required)?;
        Ok(Linear { weight: Param::new(weight), bias: Param::new(bias), autocast: store.autocast().clone() })
    }

    /// A linear layer without bias (T5's), whose constant zero bias is no parameter: it is
    /// neither trained nor saved.
    pub(crate) fn without_bias(
        store: &mut ParamStore,
        prefix: &str,
        in_dim: usize,
        out_dim: usize,
    ) -> crate::error::Result<Self> {
        let weight = store.get(&format!("{prefix}.weight"), (out_dim, in_dim), Init::Normal(INIT_STD), true)?;
        let bias = Tensor::zeros(out_dim, weight.dtype(), store.device())?;
        Ok(Linear { weight: Param::new(weight), bias: Param::new(bias), autocast: store.autocast().clone() })
    }

    /// Applies the layer to `x` of shape `(..., in)`; only with `train` does the result
    /// record gradients for the parameters. Under bf16 autocast the result is bf16.
    pub(crate) fn forward(&self, x: &Tensor, train: bool) -> Result<Tensor> {
        self.forward_with_bias(x, self.bias.get(train), train)
    }

    /// [`Linear::forward`] with `bias` in place of the layer's own (e.g. one whose gradient
    /// is held at zero).
    pub(crate) fn forward_with_bias(&self, x: &Tensor, bias: &Tensor, train: bool) -> Result<Tensor> {
        autocast_affine(x, self.weight.get(train), bias, self.compute_dtype())
    }

    /// The dtype the layer's products run in under autocast, `None` for plain f32.
    pub(crate) fn compute_dtype(&self) -> Option<DType> {
        self.autocast.compute_dtype()
    }

    /// The weight `(out, in)`: tracked when `train`, detached otherwise.
    pub(crate) fn weight(&self, train: bool) -> &Tensor {
        self.weight.get(train)
    }

    /// The bias `(out,)`: tracked when `train`, detached otherwise.
    pub(crate) fn bias(&self, train: bool) -> &Tensor {
        self.bias.get(train)
    }
}

/// [`affine`] in `compute` (autocast: input, weight and bias cast to it, gradients flowing
/// back to the f32 originals), or as given when `compute` is `None`.
pub(crate) fn autocast_affine(x: &Tensor, weight: &Tensor, bias: &Tensor, compute: Option<DType>) -> Result<Tensor> {
    match compute {
        None => affine(x, weight, bias),
        Some(dtype) => affine(&cast(x, dtype)?, &cast(weight, dtype)?, &cast(bias, dtype)?),
    }
}

/// `x W^T + b` over the last dimension of `x` `(..., in)`, for `weight` `(out, in)` and
/// `bias` `(out,)`: one fused operation for f32 on the CPU, one cuBLASLt call on CUDA
/// (`kernels::linear_lt`; where it does not apply, a product and quarry's bias kernel),
/// composed operations elsewhere.
pub(crate) fn affine(x: &Tensor, weight: &Tensor, bias: &Tensor) -> Result<Tensor> {
    let f32s = [x.dtype(), weight.dtype(), bias.dtype()].iter().all(|d| *d == DType::F32);
    if x.device().is_cpu() && f32s {
        return crate::kernels::fused_linear::linear(x, weight, bias);
    }
    let dims = x.dims().to_vec();
    let in_dim = dims[dims.len() - 1];
    let rows = x.elem_count() / in_dim;
    let mut out_dims = dims;
    let last = out_dims.len() - 1;
    out_dims[last] = weight.dim(0)?;
    #[cfg(feature = "cuda")]
    if let Some(y) = crate::kernels::linear_lt::linear(&x.reshape((rows, in_dim))?, weight, bias)? {
        return y.reshape(out_dims);
    }
    let product = x.reshape((rows, in_dim))?.matmul(&weight.t()?)?;
    let y = if crate::kernels::bias_add::applies(&product, bias) {
        crate::kernels::bias_add::bias_add(&product, bias)?
    } else {
        product.broadcast_add(bias)?
    };
    y.reshape(out_dims)
}

/// A lookup table of learned vectors.
#[derive(Debug, Clone)]
pub(crate) struct Embedding {
    weight: Param,
    dim: usize,
}

impl Embedding {
    /// Loads or initializes `{prefix}.weight` (`count x dim`).
    pub(crate) fn new(
        store: &mut ParamStore,
        prefix: &str,
        count: usize,
        dim: usize,
        required: bool,
    ) -> crate::error::Result<Self> {
        let weight = store.get(&format!("{prefix}.weight"), (count, dim), Init::Normal(INIT_STD), required)?;
        Ok(Embedding { weight: Param::new(weight), dim })
    }

    /// The table `(count, dim)`: tracked when `train`, detached otherwise.
    pub(crate) fn weight(&self, train: bool) -> &Tensor {
        self.weight.get(train)
    }

    /// Looks up `ids` (any shape, u32) and appends the vector dimension; only with `train`
    /// does the result record gradients.
    pub(crate) fn forward(&self, ids: &Tensor, train: bool) -> Result<Tensor> {
        let mut dims = ids.dims().to_vec();
        let flat = ids.flatten_all()?;
        let out = if train {
            crate::kernels::embedding::lookup(self.weight.get(true), &flat)?
        } else {
            self.weight.get(false).index_select(&flat, 0)?
        };
        dims.push(self.dim);
        out.reshape(dims)
    }
}

/// Inverted dropout that acts only in training mode, with seeded masks.
#[derive(Debug, Clone)]
pub(crate) struct Dropout {
    p: f32,
    rng: Arc<SeededRng>,
}

impl Dropout {
    /// Dropout with probability `p`, drawing masks from `rng`.
    pub(crate) fn new(p: f64, rng: Arc<SeededRng>) -> Self {
        Dropout { p: p as f32, rng }
    }

    /// A fresh mask (a key drawn from the generator) when `train` and `p > 0`, else none:
    /// what a fused kernel that applies dropout itself takes.
    pub(crate) fn key(&self, train: bool) -> Option<DropoutKey> {
        (train && self.p > 0.0).then(|| self.rng.dropout_key(self.p))
    }

    /// Zeroes elements with probability `p` and rescales the rest when `train`; identity otherwise.
    pub(crate) fn forward(&self, x: &Tensor, train: bool) -> Result<Tensor> {
        match self.key(train) {
            Some(key) => crate::kernels::dropout::dropout(x, key),
            None => Ok(x.clone()),
        }
    }
}
