//! Mixed precision as PyTorch's CUDA autocast does it: parameters, optimizer state, the
//! residual stream, layer norms, softmax and losses stay in f32, and the matrix products of
//! linear layers run in a lower precision (bf16), their weights cast on the way in.
//!
//! bf16 keeps f32's exponent range, so gradients need no loss scaling (PyTorch's
//! `GradScaler` is for f16, which quarry does not offer). The setting is shared by every
//! layer of one model ([`crate::nn::params::ParamStore::autocast`]), so it can be chosen after
//! the model is loaded.

use std::sync::atomic::{AtomicU8, Ordering};

use candle_core::{DType, Result, Tensor};

/// The precision a model computes in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Precision {
    /// Everything in f32 (the default, and the only choice that matches PyTorch to 1e-4).
    #[default]
    F32,
    /// Linear layers in bf16, the rest in f32 (autocast).
    Bf16,
    /// Every parameter and activation in f64: inference and parity checks against PyTorch
    /// in double precision, where float32's rounding (about 1e-6 on values near 10) would
    /// hide a real difference. Set when the model is built ([`crate::load_model_in`]).
    F64,
}

impl std::str::FromStr for Precision {
    type Err = String;

    /// Parses `f32` or `bf16`.
    fn from_str(text: &str) -> std::result::Result<Self, String> {
        match text {
            "f32" | "fp32" | "float32" => Ok(Precision::F32),
            "bf16" | "bfloat16" => Ok(Precision::Bf16),
            "f64" | "fp64" | "float64" => Ok(Precision::F64),
            _ => Err(format!("dtype `{text}`: expected `f32`, `bf16` or `f64`")),
        }
    }
}

impl std::fmt::Display for Precision {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Precision::F32 => "f32",
            Precision::Bf16 => "bf16",
            Precision::F64 => "f64",
        })
    }
}

/// The precision one model's linear layers compute in, settable after they are built.
#[derive(Debug, Default)]
pub struct Autocast(AtomicU8);

impl Autocast {
    /// The current precision.
    pub fn precision(&self) -> Precision {
        match self.0.load(Ordering::Relaxed) {
            1 => Precision::Bf16,
            2 => Precision::F64,
            _ => Precision::F32,
        }
    }

    /// Sets the precision of every layer sharing this setting.
    pub fn set(&self, precision: Precision) {
        self.0.store(precision as u8, Ordering::Relaxed);
    }

    /// The dtype matrix products run in, or `None` where they take their inputs' dtype
    /// (f32, or f64 whose parameters are f64 already).
    pub fn compute_dtype(&self) -> Option<DType> {
        match self.precision() {
            Precision::F32 | Precision::F64 => None,
            Precision::Bf16 => Some(DType::BF16),
        }
    }
}

/// `t` in `dtype`, without a copy when it already is.
pub(crate) fn cast(t: &Tensor, dtype: DType) -> Result<Tensor> {
    if t.dtype() == dtype {
        Ok(t.clone())
    } else {
        t.to_dtype(dtype)
    }
}

/// `t` in the model's full precision, as losses, softmax and layer norms take it under
/// autocast: a bf16 or f16 product back in f32; f32 and f64 as they are.
pub(crate) fn widen(t: &Tensor) -> Result<Tensor> {
    match t.dtype() {
        DType::BF16 | DType::F16 => t.to_dtype(DType::F32),
        _ => Ok(t.clone()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_shares_the_setting() {
        assert_eq!("bf16".parse::<Precision>().unwrap(), Precision::Bf16);
        assert_eq!("f32".parse::<Precision>().unwrap(), Precision::F32);
        assert_eq!("float64".parse::<Precision>().unwrap(), Precision::F64);
        assert!("f16".parse::<Precision>().unwrap_err().contains("expected `f32`, `bf16` or `f64`"));
        let a = std::sync::Arc::new(Autocast::default());
        let b = a.clone();
        assert_eq!(b.compute_dtype(), None);
        a.set(Precision::Bf16);
        assert_eq!(b.compute_dtype(), Some(DType::BF16));
        assert_eq!(b.precision().to_string(), "bf16");
    }
}
