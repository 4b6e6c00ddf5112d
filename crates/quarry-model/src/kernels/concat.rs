//! Three tensors concatenated along their first dimension as one graph node: on CUDA one
//! kernel (`cuda/quarry.cu`'s `concat3_f32`) where candle's `cat` launches a copy per part,
//! which for the attention's query, key and value weights and biases is six small launches a
//! layer in every pass; elsewhere candle's `cat`. The backward pass hands each part its rows of
//! the gradient.

use candle_core::{bail, CpuStorage, CustomOp3, DType, Layout, Result, Shape, Tensor};

/// `cat([a, b, c], 0)`; gradients reach all three.
pub(crate) fn concat3(a: &Tensor, b: &Tensor, c: &Tensor) -> Result<Tensor> {
    let f32s = [a, b, c].iter().all(|t| t.dtype() == DType::F32);
    if a.device().is_cuda() && f32s {
        a.contiguous()?.apply_op3(&b.contiguous()?, &c.contiguous()?, Concat3)
    } else {
        Tensor::cat(&[a, b, c], 0)
    }
}

/// `(a, b, c) -> [a; b; c]`.
struct Concat3;

/// The concatenation's shape, checked: the same trailing dimensions for all three.
fn joined(a: &Layout, b: &Layout, c: &Layout) -> Result<Shape> {
    let tail = |l: &Layout| l.shape().dims().get(1..).map(<[usize]>::to_vec);
    let (ta, tb, tc) = (tail(a), tail(b), tail(c));
    if ta.is_none() || ta != tb || ta != tc {
        bail!("concat3: {:?}, {:?} and {:?} differ past their first dimension", a.shape(), b.shape(), c.shape())
    }
    let mut dims = a.shape().dims().to_vec();
    dims[0] += b.shape().dims()[0] + c.shape().dims()[0];
    Ok(Shape::from(dims))
}

impl CustomOp3 for Concat3 {
    fn name(&self) -> &'static str {
        "concat3"
    }

    fn cpu_fwd(
        &self,
        a: &CpuStorage,
        al: &Layout,
        b: &CpuStorage,
        bl: &Layout,
        c: &CpuStorage,
        cl: &Layout,
    ) -> Result<(CpuStorage, Shape)> {
        let shape = joined(al, bl, cl)?;
        let [a, b, c] = super::ops::contiguous_f32_3((a, al), (b, bl), (c, cl), self.name())?;
        Ok((CpuStorage::F32([a, b, c].concat()), shape))
    }

    #[cfg(feature = "cuda")]
    fn cuda_fwd(
        &self,
        a: &candle_core::CudaStorage,
        al: &Layout,
        b: &candle_core::CudaStorage,
        bl: &Layout,
        c: &candle_core::CudaStorage,
        cl: &Layout,
    ) -> Result<(candle_core::CudaStorage, Shape)> {
        use super::cuda_kernels::{elementwise, view, MODULE, PTX};
        use candle_core::cuda_backend::cudarc::driver::PushKernelArg;
        use candle_core::cuda_backend::WrapErr;

        let shape = joined(al, bl, cl)?;
        let name = self.name();
        let device = a.device.clone();
        let (a, b, c) = (view::<f32>(a, al, name)?, view::<f32>(b, bl, name)?, view::<f32>(c, cl, name)?);
        let (na, nb, nc) = (a.len(), b.len(), c.len());
        // SAFETY: the kernel writes every element.
        let out = unsafe { device.alloc::<f32>(na + nb + nc)? };
        if na + nb + nc > 0 {
            let func = device.get_or_load_custom_func("concat3_f32", MODULE, PTX)?;
            let mut builder = func.builder();
            builder.arg(&a);
            builder.arg(&b);
            builder.arg(&c);
            builder.arg(&out);
            candle_core::builder_arg!(builder, na, nb, nc);
            // SAFETY: `a`, `b` and `c` hold na, nb and nc elements and `out` their sum.
            unsafe { builder.launch(elementwise(na + nb + nc)) }.w()?;
        }
        Ok((candle_core::CudaStorage::wrap_cuda_slice(out, device), shape))
    }

    fn bwd(
        &self,
        a: &Tensor,
        b: &Tensor,
        c: &Tensor,
        _res: &Tensor,
        grad: &Tensor,
    ) -> Result<(Option<Tensor>, Option<Tensor>, Option<Tensor>)> {
        let (ra, rb, rc) = (a.dim(0)?, b.dim(0)?, c.dim(0)?);
        Ok((Some(grad.narrow(0, 0, ra)?), Some(grad.narrow(0, ra, rb)?), Some(grad.narrow(0, ra + rb, rc)?)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use candle_core::{Device, Var};

    #[test]
    fn the_cpu_loop_equals_cat_forward_and_backward() {
        let dev = Device::Cpu;
        let parts: Vec<Var> = [2usize, 3, 1]
            .iter()
            .enumerate()
            .map(|(i, &rows)| {
                Var::from_tensor(&(Tensor::ones((rows, 4), DType::F32, &dev).unwrap() * i as f64).unwrap()).unwrap()
            })
            .collect();
        let [a, b, c] = [0, 1, 2].map(|i| parts[i].as_tensor());
        let ours = a.apply_op3(b, c, Concat3).unwrap();
        let theirs = Tensor::cat(&[a, b, c], 0).unwrap();
        assert_eq!(ours.to_vec2::<f32>().unwrap(), theirs.to_vec2::<f32>().unwrap());
        let weight = Tensor::arange(0f32, 24., &dev).unwrap().reshape((6, 4)).unwrap();
        let grads = (ours * &weight).unwrap().sum_all().unwrap().backward().unwrap();
        assert_eq!(grads.get(c).unwrap().to_vec2::<f32>().unwrap(), [[20f32, 21., 22., 23.]]);
        assert_eq!(grads.get(b).unwrap().dims(), [3, 4]);
        let wrong = Tensor::zeros((1, 5), DType::F32, &dev).unwrap();
        assert!(a.apply_op3(b, &wrong, Concat3).is_err(), "trailing dimensions must agree");
    }
}
