//! The CUDA side of exact GELU and its input gradient (`ops.rs`'s `Gelu` and `GeluGrad`):
//! one kernel each (`gelu_{f32,bf16}`, `gelu_grad_{f32,bf16}` in `cuda/quarry.cu`), where
//! candle's `gelu_erf` composes its backward pass of about ten elementwise operations
//! (erf, exp, squares, products, affine maps), each a launch over the whole intermediate
//! activation.

use candle_core::backend::BackendStorage;
use candle_core::cuda_backend::cudarc::driver::{DeviceRepr, PushKernelArg};
use candle_core::cuda_backend::{CudaDType, WrapErr};
use candle_core::{CudaStorage, DType, Layout, Result, Shape};

use super::cuda_kernels::{elementwise, view, MODULE, PTX};

/// The kernel name for `base` and `dtype` (`f32` or `bf16`).
fn kernel(base: &str, dtype: DType) -> Result<String> {
    match dtype {
        DType::F32 => Ok(format!("{base}_f32")),
        DType::BF16 => Ok(format!("{base}_bf16")),
        other => candle_core::bail!("{base} on CUDA: {other:?} (f32 or bf16 only)"),
    }
}

/// Launches `name` over `inputs` (each contiguous, `n` elements) into a new buffer of `n`.
fn run<T: CudaDType + DeviceRepr>(name: &str, inputs: &[(&CudaStorage, &Layout)], n: usize) -> Result<CudaStorage> {
    let device = inputs[0].0.device().clone();
    // SAFETY: the kernel writes every element.
    let out = unsafe { device.alloc::<T>(n)? };
    if n > 0 {
        let views = inputs.iter().map(|(s, l)| view::<T>(s, l, name)).collect::<Result<Vec<_>>>()?;
        let func = device.get_or_load_custom_func(name, MODULE, PTX)?;
        let mut builder = func.builder();
        for v in &views {
            builder.arg(v);
        }
        builder.arg(&out);
        builder.arg(&n);
        // SAFETY: every input and the output hold `n` elements; the parameters are the kernel's.
        unsafe { builder.launch(elementwise(n)) }.w()?;
    }
    Ok(CudaStorage::wrap_cuda_slice(out, device))
}

/// Exact GELU of `x`.
pub(crate) fn gelu(x: &CudaStorage, layout: &Layout) -> Result<(CudaStorage, Shape)> {
    let n = layout.shape().elem_count();
    let name = kernel("gelu", x.dtype())?;
    let y = match x.dtype() {
        DType::F32 => run::<f32>(&name, &[(x, layout)], n)?,
        _ => run::<half::bf16>(&name, &[(x, layout)], n)?,
    };
    Ok((y, layout.shape().clone()))
}

/// `dy * gelu'(x)`, for `x` and `dy` of one shape and dtype.
pub(crate) fn gelu_grad(x: &CudaStorage, xl: &Layout, dy: &CudaStorage, dl: &Layout) -> Result<(CudaStorage, Shape)> {
    if xl.shape() != dl.shape() || x.dtype() != dy.dtype() {
        candle_core::bail!(
            "gelu-erf-grad: {:?} {:?} and {:?} {:?} differ",
            xl.shape(),
            x.dtype(),
            dl.shape(),
            dy.dtype()
        );
    }
    let n = xl.shape().elem_count();
    let name = kernel("gelu_grad", x.dtype())?;
    let dx = match x.dtype() {
        DType::F32 => run::<f32>(&name, &[(x, xl), (dy, dl)], n)?,
        _ => run::<half::bf16>(&name, &[(x, xl), (dy, dl)], n)?,
    };
    Ok((dx, xl.shape().clone()))
}
