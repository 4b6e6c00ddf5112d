//! Fused CPU kernels with backward passes: masked softmax, GELU and layer norm.
//!
//! Each forward runs in one pass over contiguous f32 data, and so does each backward on the
//! CPU (a fused gradient kernel per operation, which records no graph of its own: these
//! operations have first derivatives only). GELU and its gradient also run on CUDA, in f32
//! and bf16 (`gelu_cuda`). Other devices and dtypes use the equivalent composed operations,
//! backward passes included.

use candle_core::{bail, CpuStorage, CustomOp1, CustomOp2, CustomOp3, DType, Layout, Result, Shape, Tensor, D};
use rayon::prelude::*;

use crate::kernels::fast_math::{exp_fast, widest_simd};

/// The f32 data of a contiguous CPU tensor's storage, or an error naming the operation.
pub(crate) fn contiguous_f32<'a>(storage: &'a CpuStorage, layout: &Layout, what: &str) -> Result<&'a [f32]> {
    let data = match storage {
        CpuStorage::F32(v) => v,
        _ => bail!("{what}: only f32 is supported"),
    };
    match layout.contiguous_offsets() {
        Some((start, end)) => Ok(&data[start..end]),
        None => bail!("{what}: input must be contiguous"),
    }
}

/// The f32 data of a three-argument CPU op's contiguous inputs ([`contiguous_f32`] of each).
pub(crate) fn contiguous_f32_3<'a>(
    (s1, l1): (&'a CpuStorage, &Layout),
    (s2, l2): (&'a CpuStorage, &Layout),
    (s3, l3): (&'a CpuStorage, &Layout),
    what: &str,
) -> Result<[&'a [f32]; 3]> {
    Ok([contiguous_f32(s1, l1, what)?, contiguous_f32(s2, l2, what)?, contiguous_f32(s3, l3, what)?])
}

/// `(rows, cols)` of a tensor taken as rows of its last dimension (1 column for a scalar).
pub(crate) fn rows_and_cols(layout: &Layout) -> (usize, usize) {
    let cols = layout.shape().dims().last().copied().unwrap_or(1).max(1);
    (layout.shape().elem_count() / cols, cols)
}

/// The sums over the rows of `x` taken as `(rows, cols)`: a bias's or a norm's gradient. On
/// CUDA, in f32 or bf16, one product with a row of ones, which cuBLAS computes at the memory's
/// bandwidth with f32 accumulation (candle's strided reduction took 66 launches and 1.4 ms of a
/// MiniLM training step on an H100); elsewhere candle's sum.
pub(crate) fn column_sums(x: &Tensor, cols: usize) -> Result<Tensor> {
    let x = x.reshape(((), cols))?;
    if x.device().is_cuda() && matches!(x.dtype(), DType::F32 | DType::BF16) {
        let ones = Tensor::ones((1, x.dim(0)?), x.dtype(), x.device())?;
        ones.matmul(&x.contiguous()?)?.reshape(cols)
    } else {
        x.sum(0)
    }
}

/// Rows per parallel task: enough work to amortize scheduling.
pub(crate) fn rows_per_task(row_len: usize) -> usize {
    (16_384 / row_len.max(1)).max(1)
}

/// Below this many elements, handing work to other threads costs more than it saves.
const PARALLEL_MIN: usize = 1 << 17;

/// `len` zeros, written in parallel chunks when `len` is large: the kernels' output buffers
/// are, and `vec![0.0; len]` zero-fills on the calling thread alone while the others wait.
pub(crate) fn zeroed(len: usize) -> Vec<f32> {
    if len < PARALLEL_MIN {
        return vec![0f32; len];
    }
    let mut v: Vec<f32> = Vec::with_capacity(len);
    v.spare_capacity_mut()[..len].par_chunks_mut(1 << 16).for_each(|c| {
        c.iter_mut().for_each(|x| {
            x.write(0.0);
        })
    });
    // SAFETY: the first `len` elements were all written just above.
    unsafe { v.set_len(len) };
    v
}

/// Applies `f(chunk_index, out_chunk, in_chunk)` over matching chunks of `out` and `inp`,
/// in parallel when the data is large enough.
fn for_chunks(out: &mut [f32], inp: &[f32], chunk: usize, f: impl Fn(usize, &mut [f32], &[f32]) + Sync) {
    if out.len() < PARALLEL_MIN {
        for (i, (o, x)) in out.chunks_mut(chunk).zip(inp.chunks(chunk)).enumerate() {
            f(i, o, x);
        }
    } else {
        out.par_chunks_mut(chunk).zip(inp.par_chunks(chunk)).enumerate().for_each(|(i, (o, x))| f(i, o, x));
    }
}

pub(crate) struct MaskedSoftmax;

impl CustomOp2 for MaskedSoftmax {
    fn name(&self) -> &'static str {
        "masked-softmax"
    }

    /// `scores` `(b, heads, q, k)`, `bias` `(b, k)`: softmax over k of `scores + bias`.
    fn cpu_fwd(&self, s1: &CpuStorage, l1: &Layout, s2: &CpuStorage, l2: &Layout) -> Result<(CpuStorage, Shape)> {
        let scores = contiguous_f32(s1, l1, self.name())?;
        let bias = contiguous_f32(s2, l2, self.name())?;
        let dims = l1.shape().dims();
        let (b, k) = l2.shape().dims2()?;
        if dims.len() != 4 || dims[0] != b || dims[3] != k {
            bail!("masked-softmax: scores {dims:?} do not fit bias ({b}, {k})");
        }
        let rows_per_batch = dims[1] * dims[2];
        let mut out = zeroed(scores.len());
        let chunk = rows_per_task(k) * k;
        for_chunks(&mut out, scores, chunk, |ci, o, s| {
            let first_row = ci * chunk / k;
            for (r, (orow, srow)) in o.chunks_mut(k).zip(s.chunks(k)).enumerate() {
                let bi = (first_row + r) / rows_per_batch;
                let brow = &bias[bi * k..(bi + 1) * k];
                let mut max = f32::NEG_INFINITY;
                for (x, (&sv, &bv)) in orow.iter_mut().zip(srow.iter().zip(brow)) {
                    *x = sv + bv;
                    max = max.max(*x);
                }
                let mut sum = 0f32;
                for x in orow.iter_mut() {
                    *x = (*x - max).exp();
                    sum += *x;
                }
                let inv = 1.0 / sum;
                orow.iter_mut().for_each(|x| *x *= inv);
            }
        });
        Ok((CpuStorage::F32(out), l1.shape().clone()))
    }

    fn bwd(
        &self,
        _scores: &Tensor,
        _bias: &Tensor,
        res: &Tensor,
        grad: &Tensor,
    ) -> Result<(Option<Tensor>, Option<Tensor>)> {
        if res.device().is_cpu() && res.dtype() == DType::F32 && grad.dtype() == DType::F32 {
            let d = res.contiguous()?.apply_op2_no_bwd(&grad.contiguous()?, &SoftmaxGrad)?;
            return Ok((Some(d), None));
        }
        let dot = (grad * res)?.sum_keepdim(D::Minus1)?;
        Ok((Some(res.mul(&grad.broadcast_sub(&dot)?)?), None))
    }
}

/// The softmax input gradient `y * (g - sum(g * y))` per row, in one pass.
struct SoftmaxGrad;

impl CustomOp2 for SoftmaxGrad {
    fn name(&self) -> &'static str {
        "softmax-grad"
    }

    fn cpu_fwd(&self, s1: &CpuStorage, l1: &Layout, s2: &CpuStorage, l2: &Layout) -> Result<(CpuStorage, Shape)> {
        let y = contiguous_f32(s1, l1, self.name())?;
        let g = contiguous_f32(s2, l2, self.name())?;
        if l1.shape() != l2.shape() {
            bail!("softmax-grad: shapes {:?} and {:?} differ", l1.shape(), l2.shape());
        }
        let k = *l1.shape().dims().last().unwrap_or(&1);
        let mut out = zeroed(y.len());
        let chunk = rows_per_task(k) * k;
        for_chunks(&mut out, y, chunk, |ci, o, y| {
            let g = &g[ci * chunk..ci * chunk + o.len()];
            for ((orow, yrow), grow) in o.chunks_mut(k).zip(y.chunks(k)).zip(g.chunks(k)) {
                let dot: f32 = yrow.iter().zip(grow).map(|(a, b)| a * b).sum();
                for ((o, &y), &g) in orow.iter_mut().zip(yrow).zip(grow) {
                    *o = y * (g - dot);
                }
            }
        });
        Ok((CpuStorage::F32(out), l1.shape().clone()))
    }
}

/// Softmax over the last dimension by candle's fused kernel (which records no gradient),
/// composed where the kernel does not run.
pub(crate) fn fused_softmax(x: &Tensor) -> Result<Tensor> {
    candle_nn::ops::softmax_last_dim(x).or_else(|_| candle_nn::ops::softmax(x, D::Minus1))
}

/// Softmax over the last dimension that trains: the fused kernel's result, made a graph node
/// of `x` whose backward pass is softmax's ([`SoftmaxOf`]). Two kernels forward and three
/// backward, against five and about ten for the composed softmax.
pub(crate) fn trained_softmax(x: &Tensor) -> Result<Tensor> {
    let y = fused_softmax(&x.detach())?.contiguous()?;
    x.apply_op2(&y, SoftmaxOf)
}

/// `softmax(x)` given as its second input `y`, computed elsewhere without a gradient: the
/// forward pass copies `y`, the backward pass gives `x` softmax's gradient
/// `y * (g - sum(g * y))`.
struct SoftmaxOf;

impl CustomOp2 for SoftmaxOf {
    fn name(&self) -> &'static str {
        "softmax-of"
    }

    fn cpu_fwd(&self, _: &CpuStorage, _: &Layout, y: &CpuStorage, layout: &Layout) -> Result<(CpuStorage, Shape)> {
        use candle_core::backend::BackendStorage;
        Ok((y.try_clone(layout)?, layout.shape().clone()))
    }

    #[cfg(feature = "cuda")]
    fn cuda_fwd(
        &self,
        _: &candle_core::CudaStorage,
        _: &Layout,
        y: &candle_core::CudaStorage,
        layout: &Layout,
    ) -> Result<(candle_core::CudaStorage, Shape)> {
        use candle_core::backend::BackendStorage;
        Ok((y.try_clone(layout)?, layout.shape().clone()))
    }

    fn bwd(&self, _x: &Tensor, _y: &Tensor, res: &Tensor, grad: &Tensor) -> Result<(Option<Tensor>, Option<Tensor>)> {
        let dot = (grad * res)?.sum_keepdim(D::Minus1)?;
        Ok((Some(res.mul(&grad.broadcast_sub(&dot)?)?), None))
    }
}

/// The identity whose backward pass gives a gradient of exactly zero.
struct ZeroGradient;

impl CustomOp1 for ZeroGradient {
    fn name(&self) -> &'static str {
        "zero-gradient"
    }

    fn cpu_fwd(&self, storage: &CpuStorage, layout: &Layout) -> Result<(CpuStorage, Shape)> {
        let x = contiguous_f32(storage, layout, self.name())?;
        Ok((CpuStorage::F32(x.to_vec()), layout.shape().clone()))
    }

    fn bwd(&self, arg: &Tensor, _res: &Tensor, _grad: &Tensor) -> Result<Option<Tensor>> {
        Ok(Some(arg.zeros_like()?))
    }
}

/// `t` itself, with a gradient of exactly zero where `t` is a parameter whose true gradient
/// is zero but differentiating through the graph would give rounding noise. f32 on the CPU;
/// elsewhere `t` detached (no gradient, which leaves AdamW's update the same: none).
pub(crate) fn with_zero_gradient(t: &Tensor) -> Result<Tensor> {
    if t.device().is_cpu() && t.dtype() == DType::F32 {
        t.contiguous()?.apply_op1(ZeroGradient)
    } else {
        Ok(t.detach())
    }
}

const SQRT_2_INV: f32 = std::f32::consts::FRAC_1_SQRT_2;
const INV_SQRT_2PI: f32 = 0.398_942_3;

/// erf with absolute error below 3e-7 (Numerical Recipes' erfc Chebyshev fit, whose own
/// error is 1.2e-7, evaluated in f32), in arithmetic that compiles to vector instructions of
/// full f32 width.
#[inline(always)]
fn erf(x: f32) -> f32 {
    let z = x.abs();
    let t = 1.0 / (1.0 + 0.5 * z);
    let poly = -z * z - 1.265_512_2
        + t * (1.000_023_7
            + t * (0.374_091_96
                + t * (0.096_784_18
                    + t * (-0.186_288_06
                        + t * (0.278_868_07
                            + t * (-1.135_204 + t * (1.488_515_9 + t * (-0.822_152_2 + t * 0.170_872_77))))))));
    let r = 1.0 - t * exp_fast(poly);
    if x >= 0.0 {
        r
    } else {
        -r
    }
}

fn map_f32(
    storage: &CpuStorage,
    layout: &Layout,
    name: &str,
    f: impl Fn(f32) -> f32 + Sync,
) -> Result<(CpuStorage, Shape)> {
    let x = contiguous_f32(storage, layout, name)?;
    let mut out = zeroed(x.len());
    for_chunks(&mut out, x, 16_384, |_, o, x| o.iter_mut().zip(x).for_each(|(o, &x)| *o = f(x)));
    Ok((CpuStorage::F32(out), layout.shape().clone()))
}

struct Gelu;
struct GeluDerivative;

impl CustomOp1 for Gelu {
    fn name(&self) -> &'static str {
        "gelu-erf"
    }

    fn cpu_fwd(&self, storage: &CpuStorage, layout: &Layout) -> Result<(CpuStorage, Shape)> {
        let x = contiguous_f32(storage, layout, self.name())?;
        let mut out = zeroed(x.len());
        for_chunks(&mut out, x, 16_384, |_, o, x| gelu_slice(o, x));
        Ok((CpuStorage::F32(out), layout.shape().clone()))
    }

    #[cfg(feature = "cuda")]
    fn cuda_fwd(&self, x: &candle_core::CudaStorage, layout: &Layout) -> Result<(candle_core::CudaStorage, Shape)> {
        super::gelu_cuda::gelu(x, layout)
    }

    fn bwd(&self, arg: &Tensor, _res: &Tensor, grad: &Tensor) -> Result<Option<Tensor>> {
        if grad.dtype() == arg.dtype() && (grad.dtype() == DType::F32 || grad.device().is_cuda()) {
            return Ok(Some(arg.contiguous()?.apply_op2_no_bwd(&grad.contiguous()?, &GeluGrad)?));
        }
        let d = arg.contiguous()?.apply_op1_no_bwd(&GeluDerivative)?;
        Ok(Some(grad.mul(&d)?))
    }
}

/// The derivative of exact GELU at `x`.
#[inline(always)]
fn gelu_derivative(x: f32) -> f32 {
    0.5 * (1.0 + erf(x * SQRT_2_INV)) + x * INV_SQRT_2PI * exp_fast(-0.5 * x * x)
}

// Index loops, not iterator adaptors: an adaptor's `fold` is a function of its own that is
// not inlined into the SIMD-dispatched caller, and so runs without its vector instructions.
#[inline(always)]
#[allow(clippy::needless_range_loop)]
fn gelu_body(out: &mut [f32], x: &[f32]) {
    let n = out.len().min(x.len());
    let (out, x) = (&mut out[..n], &x[..n]);
    for i in 0..n {
        out[i] = 0.5 * x[i] * (1.0 + erf(x[i] * SQRT_2_INV));
    }
}

#[inline(always)]
#[allow(clippy::needless_range_loop)]
fn gelu_grad_body(out: &mut [f32], x: &[f32], g: &[f32]) {
    let n = out.len().min(x.len()).min(g.len());
    let (out, x, g) = (&mut out[..n], &x[..n], &g[..n]);
    for i in 0..n {
        out[i] = g[i] * gelu_derivative(x[i]);
    }
}

widest_simd! {
    /// Exact GELU of `x` into `out`.
    fn gelu_slice(out: &mut [f32], x: &[f32]) => gelu_body
}

widest_simd! {
    /// `g * gelu'(x)` into `out`.
    fn gelu_grad_slice(out: &mut [f32], x: &[f32], g: &[f32]) => gelu_grad_body
}

/// GELU's input gradient `g * gelu'(x)` in one pass.
struct GeluGrad;

impl CustomOp2 for GeluGrad {
    fn name(&self) -> &'static str {
        "gelu-erf-grad"
    }

    fn cpu_fwd(&self, s1: &CpuStorage, l1: &Layout, s2: &CpuStorage, l2: &Layout) -> Result<(CpuStorage, Shape)> {
        let x = contiguous_f32(s1, l1, self.name())?;
        let g = contiguous_f32(s2, l2, self.name())?;
        if l1.shape() != l2.shape() {
            bail!("gelu-erf-grad: shapes {:?} and {:?} differ", l1.shape(), l2.shape());
        }
        let mut out = zeroed(x.len());
        for_chunks(&mut out, x, 16_384, |ci, o, x| {
            gelu_grad_slice(o, x, &g[ci * 16_384..ci * 16_384 + o.len()]);
        });
        Ok((CpuStorage::F32(out), l1.shape().clone()))
    }

    #[cfg(feature = "cuda")]
    fn cuda_fwd(
        &self,
        x: &candle_core::CudaStorage,
        xl: &Layout,
        dy: &candle_core::CudaStorage,
        dl: &Layout,
    ) -> Result<(candle_core::CudaStorage, Shape)> {
        super::gelu_cuda::gelu_grad(x, xl, dy, dl)
    }
}

impl CustomOp1 for GeluDerivative {
    fn name(&self) -> &'static str {
        "gelu-erf-derivative"
    }

    fn cpu_fwd(&self, storage: &CpuStorage, layout: &Layout) -> Result<(CpuStorage, Shape)> {
        map_f32(storage, layout, self.name(), gelu_derivative)
    }
}

/// Exact (erf) GELU: quarry's op for f32 on the CPU and f32 or bf16 on CUDA, candle's
/// `gelu_erf` otherwise.
pub(crate) fn gelu(x: &Tensor) -> Result<Tensor> {
    let cuda = x.device().is_cuda() && matches!(x.dtype(), DType::F32 | DType::BF16);
    if cuda || (x.device().is_cpu() && x.dtype() == DType::F32) {
        x.contiguous()?.apply_op1(Gelu)
    } else {
        x.gelu_erf()
    }
}

struct LayerNormOp {
    eps: f32,
}

impl CustomOp3 for LayerNormOp {
    fn name(&self) -> &'static str {
        "layer-norm"
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
        let [x, w, b] = contiguous_f32_3((s1, l1), (s2, l2), (s3, l3), self.name())?;
        let h = w.len();
        if b.len() != h || l1.shape().dims().last() != Some(&h) {
            bail!("layer-norm: shapes {:?}, {:?}, {:?} do not fit", l1.shape(), l2.shape(), l3.shape());
        }
        let mut out = zeroed(x.len());
        let chunk = rows_per_task(h) * h;
        out.par_chunks_mut(chunk).zip(x.par_chunks(chunk)).for_each(|(o, x)| {
            for (orow, xrow) in o.chunks_mut(h).zip(x.chunks(h)) {
                norm_row(xrow, w, b, self.eps, orow);
            }
        });
        Ok((CpuStorage::F32(out), l1.shape().clone()))
    }

    fn bwd(
        &self,
        x: &Tensor,
        w: &Tensor,
        _b: &Tensor,
        _res: &Tensor,
        grad: &Tensor,
    ) -> Result<(Option<Tensor>, Option<Tensor>, Option<Tensor>)> {
        let h = w.dim(0)?;
        let rows = grad.elem_count() / h;
        if grad.dtype() == DType::F32 && w.dtype() == DType::F32 {
            let out = x.contiguous()?.apply_op3_no_bwd(
                &w.contiguous()?,
                &grad.contiguous()?,
                &LayerNormGrad { eps: self.eps },
            )?;
            let dx = out.narrow(0, 0, rows)?.reshape(x.shape())?;
            // Copies, so that the small parameter gradients do not keep the whole buffer alive.
            let dw = out.narrow(0, rows, 1)?.squeeze(0)?.copy()?;
            let db = out.narrow(0, rows + 1, 1)?.squeeze(0)?.copy()?;
            return Ok((Some(dx), Some(dw), Some(db)));
        }
        let mean = x.mean_keepdim(D::Minus1)?;
        let centered = x.broadcast_sub(&mean)?;
        let var = centered.sqr()?.mean_keepdim(D::Minus1)?;
        let inv = (var + self.eps as f64)?.sqrt()?.recip()?;
        let xhat = centered.broadcast_mul(&inv)?;
        let gw = grad.broadcast_mul(w)?;
        let mean_gw = gw.mean_keepdim(D::Minus1)?;
        let mean_gwx = (&gw * &xhat)?.mean_keepdim(D::Minus1)?;
        let dx = gw.broadcast_sub(&mean_gw)?.sub(&xhat.broadcast_mul(&mean_gwx)?)?.broadcast_mul(&inv)?;
        let dw = (grad * &xhat)?.reshape((rows, h))?.sum(0)?;
        let db = grad.reshape((rows, h))?.sum(0)?;
        Ok((Some(dx), Some(dw), Some(db)))
    }
}

/// One row of layer norm: `out = (x - mean) / sqrt(var + eps) * w + b`.
pub(crate) fn norm_row(x: &[f32], w: &[f32], b: &[f32], eps: f32, out: &mut [f32]) {
    let h = w.len();
    let mean = x.iter().sum::<f32>() / h as f32;
    let var = x.iter().map(|v| (v - mean) * (v - mean)).sum::<f32>() / h as f32;
    let inv = 1.0 / (var + eps).sqrt();
    for i in 0..h {
        out[i] = (x[i] - mean) * inv * w[i] + b[i];
    }
}

/// The layer-norm input gradient of one row `x` with output gradient `g` into `dx`, adding
/// the row's share of the scale and shift gradients to `dw` and `db`.
pub(crate) fn norm_grad_row(x: &[f32], g: &[f32], w: &[f32], eps: f32, dx: &mut [f32], dw: &mut [f32], db: &mut [f32]) {
    let h = w.len();
    let mean = x.iter().sum::<f32>() / h as f32;
    let var = x.iter().map(|v| (v - mean) * (v - mean)).sum::<f32>() / h as f32;
    let inv = 1.0 / (var + eps).sqrt();
    let (mut sum_gw, mut sum_gwx) = (0f32, 0f32);
    for i in 0..h {
        let xhat = (x[i] - mean) * inv;
        let gw = g[i] * w[i];
        sum_gw += gw;
        sum_gwx += gw * xhat;
        dw[i] += g[i] * xhat;
        db[i] += g[i];
    }
    let (mean_gw, mean_gwx) = (sum_gw / h as f32, sum_gwx / h as f32);
    for i in 0..h {
        let xhat = (x[i] - mean) * inv;
        dx[i] = (g[i] * w[i] - mean_gw - xhat * mean_gwx) * inv;
    }
}

/// The layer-norm gradients of rows `x` with scale `w` and output gradient `g`, in one pass
/// over the rows: a `(rows + 2, h)` result holding the rows of the input gradient, then the
/// scale's gradient, then the shift's.
struct LayerNormGrad {
    eps: f32,
}

impl CustomOp3 for LayerNormGrad {
    fn name(&self) -> &'static str {
        "layer-norm-grad"
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
        let h = w.len();
        if h == 0 || x.len() != g.len() || x.len() % h != 0 {
            bail!("layer-norm-grad: shapes {:?}, {:?}, {:?} do not fit", l1.shape(), l2.shape(), l3.shape());
        }
        let rows = x.len() / h;
        let mut out = zeroed((rows + 2) * h);
        let (dx, params) = out.split_at_mut(rows * h);
        let chunk_rows = rows_per_task(h);
        // Each chunk of rows sums its own share of the parameter gradients; the shares are
        // added in chunk order, so the result does not depend on the thread count.
        let shares: Vec<Vec<f32>> = dx
            .par_chunks_mut(chunk_rows * h)
            .enumerate()
            .map(|(ci, dx)| {
                let mut share = vec![0f32; 2 * h];
                let (dw, db) = share.split_at_mut(h);
                let first = ci * chunk_rows * h;
                for (r, dxrow) in dx.chunks_mut(h).enumerate() {
                    let xrow = &x[first + r * h..first + (r + 1) * h];
                    let grow = &g[first + r * h..first + (r + 1) * h];
                    norm_grad_row(xrow, grow, w, self.eps, dxrow, dw, db);
                }
                share
            })
            .collect();
        for share in shares {
            params.iter_mut().zip(share).for_each(|(p, s)| *p += s);
        }
        Ok((CpuStorage::F32(out), Shape::from((rows + 2, h))))
    }
}

/// Layer norm over the last dimension in one fused pass, with a full backward pass.
pub(crate) fn layer_norm(x: &Tensor, w: &Tensor, b: &Tensor, eps: f64) -> Result<Tensor> {
    x.contiguous()?.apply_op3(w, b, LayerNormOp { eps: eps as f32 })
}

#[cfg(test)]
mod tests {
    #[test]
    fn trained_softmax_has_softmax_values_and_gradient() {
        let dev = candle_core::Device::Cpu;
        let x = candle_core::Var::from_tensor(
            &Tensor::arange(0f32, 24., &dev).unwrap().reshape((2, 3, 4)).unwrap().sin().unwrap(),
        )
        .unwrap();
        let target = Tensor::arange(0f32, 24., &dev).unwrap().reshape((2, 3, 4)).unwrap().cos().unwrap();
        let ours = trained_softmax(x.as_tensor()).unwrap();
        let composed = candle_nn::ops::softmax(x.as_tensor(), D::Minus1).unwrap();
        let diff = |a: &Tensor, b: &Tensor| -> f32 {
            (a - b).unwrap().abs().unwrap().flatten_all().unwrap().max(0).unwrap().to_scalar().unwrap()
        };
        assert!(diff(&ours, &composed) < 1e-6);
        let g1 = (ours * &target).unwrap().sum_all().unwrap().backward().unwrap();
        let g2 = (composed * &target).unwrap().sum_all().unwrap().backward().unwrap();
        let (g1, g2) = (g1.get(x.as_tensor()).unwrap(), g2.get(x.as_tensor()).unwrap());
        assert!(diff(g1, g2) < 1e-6, "gradients differ by {}", diff(g1, g2));
        assert!(g1.abs().unwrap().sum_all().unwrap().to_scalar::<f32>().unwrap() > 1e-3);
    }

    use super::*;
    use candle_core::{Device, Var};

    fn max_diff(a: &Tensor, b: &Tensor) -> f32 {
        (a - b).unwrap().abs().unwrap().max_all().unwrap().to_scalar().unwrap()
    }

    fn sample(shape: &[usize], seed: u64) -> Var {
        let rng = crate::nn::rng::SeededRng::new(seed);
        Var::from_tensor(&rng.normal(&Shape::from(shape), 1.5, &Device::Cpu).unwrap()).unwrap()
    }

    #[test]
    fn erf_is_accurate() {
        for i in -400..=400 {
            let x = i as f32 / 100.0;
            let t = Tensor::new(&[x], &Device::Cpu).unwrap().erf().unwrap().to_vec1::<f32>().unwrap()[0];
            assert!((erf(x) - t).abs() < 3e-7, "erf({x}) = {} vs {t}", erf(x));
        }
    }

    #[test]
    fn masked_softmax_matches_composed_ops_with_gradients() {
        let s = sample(&[2, 3, 4, 5], 1);
        let bias = Tensor::new(&[[0f32, 0., 0., -1e9, -1e9], [0., 0., 0., 0., 0.]], &Device::Cpu).unwrap();
        let fused = s.as_tensor().apply_op2(&bias, MaskedSoftmax).unwrap();
        let reference = candle_nn::ops::softmax(
            &s.as_tensor().broadcast_add(&bias.reshape((2, 1, 1, 5)).unwrap()).unwrap(),
            D::Minus1,
        )
        .unwrap();
        assert!(max_diff(&fused, &reference) < 1e-6);
        let weights = sample(&[2, 3, 4, 5], 2);
        let g1 = (fused * weights.as_tensor()).unwrap().sum_all().unwrap().backward().unwrap();
        let g2 = (reference * weights.as_tensor()).unwrap().sum_all().unwrap().backward().unwrap();
        assert!(max_diff(g1.get(s.as_tensor()).unwrap(), g2.get(s.as_tensor()).unwrap()) < 1e-5);
    }

    #[test]
    fn gelu_matches_candle_with_gradients() {
        let x = sample(&[7, 33], 3);
        let fused = gelu(x.as_tensor()).unwrap();
        let reference = x.as_tensor().gelu_erf().unwrap();
        assert!(max_diff(&fused, &reference) < 1e-6);
        let g1 = fused.sum_all().unwrap().backward().unwrap();
        let g2 = reference.sum_all().unwrap().backward().unwrap();
        assert!(max_diff(g1.get(x.as_tensor()).unwrap(), g2.get(x.as_tensor()).unwrap()) < 1e-5);
    }

    #[test]
    fn layer_norm_matches_composed_ops_with_gradients() {
        let x = sample(&[3, 4, 16], 4);
        let w = sample(&[16], 5);
        let b = sample(&[16], 6);
        let fused = layer_norm(x.as_tensor(), w.as_tensor(), b.as_tensor(), 1e-5).unwrap();
        let reference = crate::nn::layer_norm::LayerNorm::new(w.as_tensor().clone(), b.as_tensor().clone(), 1e-5)
            .forward_composed(x.as_tensor(), true)
            .unwrap();
        assert!(max_diff(&fused, &reference) < 1e-5);
        let target = sample(&[3, 4, 16], 7);
        let g1 = (fused * target.as_tensor()).unwrap().sum_all().unwrap().backward().unwrap();
        let g2 = (reference * target.as_tensor()).unwrap().sum_all().unwrap().backward().unwrap();
        for v in [&x, &w, &b] {
            let d = max_diff(g1.get(v.as_tensor()).unwrap(), g2.get(v.as_tensor()).unwrap());
            assert!(d < 1e-4, "gradient difference {d}");
        }
    }
}
