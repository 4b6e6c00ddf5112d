//! A linear layer's bias added on a GPU in one kernel (`cuda/quarry.cu`'s `bias_add_f32` and
//! `bias_add_bf16`) that indexes the bias by column. candle's broadcasting addition uploads the
//! shapes and strides and divides every index by every dimension; in a MiniLM inference pass
//! on an H100 its additions took a third of the kernel time. The CPU has its own fused linear
//! kernel ([`super::fused_linear`]); the CPU version here is the CUDA kernel's loop.

use candle_core::{CpuStorage, CustomOp2, DType, Layout, Result, Shape, Tensor};

/// Whether [`bias_add`] runs for `x` and `bias`: on a GPU, in f32 or bf16, the same for both.
pub(crate) fn applies(x: &Tensor, bias: &Tensor) -> bool {
    x.device().is_cuda() && matches!(x.dtype(), DType::F32 | DType::BF16) && bias.dtype() == x.dtype()
}

/// `x + bias` for `x` `(rows, cols)` and `bias` `(cols,)`, one graph node.
pub(crate) fn bias_add(x: &Tensor, bias: &Tensor) -> Result<Tensor> {
    x.contiguous()?.apply_op2(&bias.contiguous()?, BiasAdd)
}

/// `(x, bias) -> x + bias`.
struct BiasAdd;

/// The number of columns of `x`, checked against `bias`.
fn columns(x: &Layout, bias: &Layout) -> Result<usize> {
    let cols = bias.shape().elem_count();
    if x.shape().dims().last() != Some(&cols) {
        candle_core::bail!("bias add: {:?} plus a bias of {:?}", x.shape(), bias.shape())
    }
    Ok(cols)
}

impl CustomOp2 for BiasAdd {
    fn name(&self) -> &'static str {
        "bias-add"
    }

    fn cpu_fwd(&self, x: &CpuStorage, xl: &Layout, bias: &CpuStorage, bl: &Layout) -> Result<(CpuStorage, Shape)> {
        let cols = columns(xl, bl)?;
        let x = super::ops::contiguous_f32(x, xl, self.name())?;
        let bias = super::ops::contiguous_f32(bias, bl, self.name())?;
        let y = x.chunks(cols).flat_map(|row| row.iter().zip(bias).map(|(x, b)| x + b)).collect();
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
        use super::cuda_kernels::{elementwise, view, MODULE, PTX};
        use candle_core::cuda_backend::cudarc::driver::PushKernelArg;
        use candle_core::cuda_backend::{CudaDType, WrapErr};
        use candle_core::{backend::BackendStorage, CudaStorage};

        fn run<T: CudaDType + candle_core::cuda_backend::cudarc::driver::DeviceRepr>(
            name: &str,
            (x, xl): (&CudaStorage, &Layout),
            (bias, bl): (&CudaStorage, &Layout),
            cols: usize,
        ) -> Result<CudaStorage> {
            let n = xl.shape().elem_count();
            let device = x.device.clone();
            // SAFETY: the kernel writes every element before anything reads it.
            let y = unsafe { device.alloc::<T>(n)? };
            if n > 0 {
                let (x, bias) = (view::<T>(x, xl, "bias add")?, view::<T>(bias, bl, "bias add")?);
                let func = device.get_or_load_custom_func(name, MODULE, PTX)?;
                let mut builder = func.builder();
                builder.arg(&x);
                builder.arg(&bias);
                builder.arg(&y);
                candle_core::builder_arg!(builder, n, cols as u32);
                // SAFETY: `n` elements in `x` and `y`, `cols` in `bias`, and `n` a multiple of it.
                unsafe { builder.launch(elementwise(n)) }.w()?;
            }
            Ok(CudaStorage::wrap_cuda_slice(y, device))
        }

        let cols = columns(xl, bl)?;
        let y = match x.dtype() {
            DType::F32 => run::<f32>("bias_add_f32", (x, xl), (bias, bl), cols)?,
            DType::BF16 => run::<half::bf16>("bias_add_bf16", (x, xl), (bias, bl), cols)?,
            other => candle_core::bail!("bias add: {other:?} is not supported"),
        };
        Ok((y, xl.shape().clone()))
    }

    fn bwd(&self, _x: &Tensor, bias: &Tensor, _y: &Tensor, dy: &Tensor) -> Result<(Option<Tensor>, Option<Tensor>)> {
        let cols = bias.elem_count();
        Ok((Some(dy.clone()), Some(super::ops::column_sums(dy, cols)?)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use candle_core::{Device, Var};

    #[test]
    fn adds_the_bias_to_every_row_and_sums_its_gradient() {
        let dev = Device::Cpu;
        let x = Var::new(&[[1f32, 2., 3.], [4., 5., 6.]], &dev).unwrap();
        let b = Var::new(&[10f32, 20., 30.], &dev).unwrap();
        let y = bias_add(x.as_tensor(), b.as_tensor()).unwrap();
        assert_eq!(y.to_vec2::<f32>().unwrap(), [[11., 22., 33.], [14., 25., 36.]]);
        let w = Tensor::new(&[[1f32, 2., 3.], [4., 5., 6.]], &dev).unwrap();
        let grads = (y * &w).unwrap().sum_all().unwrap().backward().unwrap();
        assert_eq!(grads.get(x.as_tensor()).unwrap().to_vec2::<f32>().unwrap(), w.to_vec2::<f32>().unwrap());
        assert_eq!(grads.get(b.as_tensor()).unwrap().to_vec1::<f32>().unwrap(), [5., 7., 9.]);
        assert!(bias_add(x.as_tensor(), &Tensor::zeros(2, DType::F32, &dev).unwrap()).is_err());
        assert!(!applies(x.as_tensor(), b.as_tensor()), "the CPU has its own fused linear kernel");
    }
}
