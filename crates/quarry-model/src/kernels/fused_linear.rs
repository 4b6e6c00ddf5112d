//! The fully connected layer `x W^T + b` as one CPU operation with its backward pass.
//!
//! candle's backward pass gives every input of every operation a zero-filled gradient
//! buffer and adds the incoming gradient into it: a pass over memory per edge of the graph.
//! The composed layer (reshape, product with the transposed weight, broadcast bias add,
//! reshape) has four such edges on tensors of the layer's input or output size, and a
//! separate pass for the bias in each direction. As one operation it has one large edge,
//! its input; the bias is added by the product itself (which starts from the bias rows) and
//! its gradient, the column sums of the output gradient, is summed in one pass.

use candle_core::{bail, CpuStorage, CustomOp1, CustomOp3, DType, Layout, Result, Shape, Tensor};
use rayon::prelude::*;

use crate::kernels::matrix_product::{candle_parallelism, product_into};

use crate::kernels::ops::{contiguous_f32, contiguous_f32_3, zeroed};

struct FusedLinear;

impl CustomOp3 for FusedLinear {
    fn name(&self) -> &'static str {
        "fused-linear"
    }

    /// `x` `(..., in)`, `w` `(out, in)`, `b` `(out,)`.
    fn cpu_fwd(
        &self,
        s1: &CpuStorage,
        l1: &Layout,
        s2: &CpuStorage,
        l2: &Layout,
        s3: &CpuStorage,
        l3: &Layout,
    ) -> Result<(CpuStorage, Shape)> {
        let [x, w, b] = contiguous_f32_3((s1, l1), (s2, l2), (s3, l3), self.name())?;
        let (out_dim, in_dim) = l2.shape().dims2()?;
        let dims = l1.shape().dims();
        if dims.last() != Some(&in_dim) || b.len() != out_dim {
            bail!("fused-linear: shapes {:?}, {:?}, {:?} do not fit", l1.shape(), l2.shape(), l3.shape());
        }
        let rows = x.len() / in_dim.max(1);
        // The product starts from the bias rows.
        let mut out = zeroed(rows * out_dim);
        if out_dim > 0 {
            out.par_chunks_mut(out_dim * 64).for_each(|c| c.chunks_mut(out_dim).for_each(|r| r.copy_from_slice(b)));
        }
        let parallelism = candle_parallelism();
        if rows > 0 && out_dim > 0 && in_dim > 0 {
            // SAFETY: `x` is `rows x in`, `w` is `out x in` (read as its transpose `in x out`
            // through the strides) and `out` is `rows x out`, all row-major and unaliased.
            unsafe {
                product_into(
                    (rows, out_dim, in_dim),
                    out.as_mut_ptr(),
                    out_dim,
                    (x.as_ptr(), in_dim, 1),
                    (w.as_ptr(), 1, in_dim),
                    1.0,
                    true,
                    parallelism,
                )
            }
        }
        let mut out_dims = dims.to_vec();
        let last = out_dims.len() - 1;
        out_dims[last] = out_dim;
        Ok((CpuStorage::F32(out), Shape::from(out_dims)))
    }

    fn bwd(
        &self,
        x: &Tensor,
        w: &Tensor,
        _b: &Tensor,
        _res: &Tensor,
        grad: &Tensor,
    ) -> Result<(Option<Tensor>, Option<Tensor>, Option<Tensor>)> {
        let (out_dim, in_dim) = w.dims2()?;
        let rows = x.elem_count() / in_dim.max(1);
        let g = grad.detach().contiguous()?.reshape((rows, out_dim))?;
        let both = x.detach().apply_op3_no_bwd(&w.detach(), &g, &LinearGrad)?;
        let dx = both.narrow(0, 0, rows * in_dim)?.reshape(x.shape())?;
        // A copy, so that the weight gradient does not keep the input gradient's buffer alive.
        let dw = both.narrow(0, rows * in_dim, out_dim * in_dim)?.reshape((out_dim, in_dim))?.copy()?;
        let db = g.apply_op1_no_bwd(&ColumnSums)?;
        Ok((Some(dx), Some(dw), Some(db)))
    }
}

/// The input and weight gradients of the layer, `dx = g W` `(rows, in)` and `dw = g^T x`
/// `(out, in)`, from `x` `(rows, in)`, `w` `(out, in)` and the output gradient `g`
/// `(rows, out)`, as one flat buffer `[dx, dw]`: two products written straight into one
/// output, without the zero-filled buffers and transposed views of two candle products.
struct LinearGrad;

impl CustomOp3 for LinearGrad {
    fn name(&self) -> &'static str {
        "fused-linear-grad"
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
        let [x, w, g] = contiguous_f32_3((s1, l1), (s2, l2), (s3, l3), self.name())?;
        let (out_dim, in_dim) = l2.shape().dims2()?;
        let rows = x.len() / in_dim.max(1);
        if x.len() != rows * in_dim || g.len() != rows * out_dim {
            bail!("{}: shapes {:?}, {:?}, {:?} do not fit", self.name(), l1.shape(), l2.shape(), l3.shape());
        }
        let mut out = zeroed((rows + out_dim) * in_dim);
        let parallelism = candle_parallelism();
        if rows > 0 && out_dim > 0 && in_dim > 0 {
            let (dx, dw) = out.split_at_mut(rows * in_dim);
            // SAFETY: `g` is `rows x out`, `w` is `out x in`, `x` is `rows x in` (`g^T` is read
            // through the strides), `dx` is `rows x in` and `dw` is `out x in`, all row-major,
            // the destinations disjoint from each other and from the operands.
            unsafe {
                product_into(
                    (rows, in_dim, out_dim),
                    dx.as_mut_ptr(),
                    in_dim,
                    (g.as_ptr(), out_dim, 1),
                    (w.as_ptr(), in_dim, 1),
                    1.0,
                    false,
                    parallelism,
                );
                product_into(
                    (out_dim, in_dim, rows),
                    dw.as_mut_ptr(),
                    in_dim,
                    (g.as_ptr(), 1, out_dim),
                    (x.as_ptr(), in_dim, 1),
                    1.0,
                    false,
                    parallelism,
                );
            }
        }
        Ok((CpuStorage::F32(out), Shape::from((rows + out_dim) * in_dim)))
    }
}

/// Sums of the columns of a `(rows, cols)` matrix.
struct ColumnSums;

impl CustomOp1 for ColumnSums {
    fn name(&self) -> &'static str {
        "column-sums"
    }

    fn cpu_fwd(&self, storage: &CpuStorage, layout: &Layout) -> Result<(CpuStorage, Shape)> {
        let g = contiguous_f32(storage, layout, self.name())?;
        let (_, cols) = layout.shape().dims2()?;
        let mut sums = vec![0f32; cols];
        if cols > 0 {
            // Each block of rows sums its share; the shares are added in block order, so the
            // result does not depend on the thread count.
            let shares: Vec<Vec<f32>> = g
                .par_chunks(cols * 64)
                .map(|block| {
                    let mut share = vec![0f32; cols];
                    for row in block.chunks(cols) {
                        share.iter_mut().zip(row).for_each(|(s, v)| *s += v);
                    }
                    share
                })
                .collect();
            for share in shares {
                sums.iter_mut().zip(share).for_each(|(s, v)| *s += v);
            }
        }
        Ok((CpuStorage::F32(sums), Shape::from(cols)))
    }
}

/// `x W^T + b` over the last dimension of `x` `(..., in)` for `weight` `(out, in)` and `bias`
/// `(out,)`, all f32 on the CPU, in one operation with gradients for all three.
pub(crate) fn linear(x: &Tensor, weight: &Tensor, bias: &Tensor) -> Result<Tensor> {
    if [x.dtype(), weight.dtype(), bias.dtype()].iter().any(|d| *d != DType::F32) {
        bail!("fused-linear: only f32 is supported");
    }
    x.contiguous()?.apply_op3(&weight.contiguous()?, &bias.contiguous()?, FusedLinear)
}

#[cfg(test)]
mod tests {
    use super::*;
    use candle_core::{Device, Var};

    fn max_diff(a: &Tensor, b: &Tensor) -> f32 {
        (a - b).unwrap().abs().unwrap().max_all().unwrap().to_scalar().unwrap()
    }

    #[test]
    fn matches_composed_layer_with_gradients() {
        let dev = Device::Cpu;
        let rng = crate::nn::rng::SeededRng::new(9);
        let var = |shape: &[usize]| Var::from_tensor(&rng.normal(&Shape::from(shape), 1.0, &dev).unwrap()).unwrap();
        let (x, w, b) = (var(&[3, 70, 5]), var(&[6, 5]), var(&[6]));
        let fused = linear(x.as_tensor(), w.as_tensor(), b.as_tensor()).unwrap();
        let composed = x
            .as_tensor()
            .reshape((210, 5))
            .unwrap()
            .matmul(&w.as_tensor().t().unwrap())
            .unwrap()
            .broadcast_add(b.as_tensor())
            .unwrap()
            .reshape((3, 70, 6))
            .unwrap();
        assert_eq!(fused.dims(), &[3, 70, 6]);
        assert!(max_diff(&fused, &composed) < 1e-5);
        let target = rng.normal(&Shape::from((3, 70, 6)), 1.0, &dev).unwrap();
        let g1 = (fused * &target).unwrap().sum_all().unwrap().backward().unwrap();
        let g2 = (composed * &target).unwrap().sum_all().unwrap().backward().unwrap();
        for v in [&x, &w, &b] {
            let d = max_diff(g1.get(v.as_tensor()).unwrap(), g2.get(v.as_tensor()).unwrap());
            assert!(d < 1e-4, "gradient difference {d}");
        }
    }
}
