//! Fused multi-head self-attention with its backward pass: on the CPU here; on CUDA the same
//! op launches `cuda/attention.cuh`'s kernels ([`super::attention_cuda`], with the `cuda`
//! feature), which the CPU loops below check.
//!
//! The queries, keys and values stay where the one fused projection put them, column blocks
//! of a `(batch, seq, 3 * hidden)` tensor, each head a `head_dim`-wide block inside them.
//! One task per (sequence, head) multiplies its blocks in place with `gemm` (the strides
//! select the block, so there is no head split or merge copy, and no per-product thread
//! hand-off as in a batched product of many small matrices), applies the masked softmax
//! and writes its block of the context `(batch, seq, hidden)`. The backward pass recomputes
//! the attention probabilities from the queries and keys instead of keeping them: one more
//! small product per head, and no layer holds a `(batch, heads, seq, seq)` tensor for the
//! backward pass.
//!
//! The arithmetic is BERT's: `softmax(q k^T / sqrt(head_dim) + mask) v`, with the scale
//! applied to the product as PyTorch's eager attention does.

use candle_core::{bail, CpuStorage, CustomOp1, CustomOp2, Layout, Result, Shape, Storage, Tensor};
use rayon::prelude::*;

use crate::kernels::attention_blocks::Blocks;
use crate::kernels::dropout::DropoutKey;
use crate::kernels::fast_math::{exp_fast, lanes};
use crate::kernels::matrix_product::product;
use crate::kernels::ops::{contiguous_f32, zeroed};

/// A raw pointer that tasks writing disjoint blocks of one buffer share.
#[derive(Clone, Copy)]
pub(crate) struct SharedMut(pub(crate) *mut f32);

impl SharedMut {
    /// The pointer (a method, so that closures capture the whole `Sync` wrapper).
    pub(crate) fn ptr(&self) -> *mut f32 {
        self.0
    }
}

// SAFETY: every task writes only the block of its own (sequence, head) pair; the blocks of
// different tasks do not overlap (see `Blocks`).
unsafe impl Send for SharedMut {}
unsafe impl Sync for SharedMut {}

/// Runs `f` on the contiguous f32 data of a CPU tensor.
pub(crate) fn with_cpu_f32<R>(t: &Tensor, what: &str, f: impl FnOnce(&[f32]) -> Result<R>) -> Result<R> {
    let (storage, layout) = t.storage_and_layout();
    match &*storage {
        Storage::Cpu(s) => f(contiguous_f32(s, layout, what)?),
        _ => bail!("{what}: tensor must be on the CPU"),
    }
}

/// Constants of one attention call: the mask and the dropout of the probabilities.
#[derive(Clone)]
struct Masks {
    heads: usize,
    /// `(batch, seq)`: 0 for real keys, a large negative for padding.
    bias: Tensor,
    /// The inverted-dropout mask of the `(batch, heads, seq, seq)` probabilities, or none.
    dropout: Option<DropoutKey>,
}

impl Masks {
    fn blocks(&self, qkv: &Layout, name: &str) -> Result<Blocks> {
        let (batch, seq, width) = qkv.shape().dims3()?;
        if self.heads == 0 || width % (3 * self.heads) != 0 {
            bail!("{name}: {width} projection columns do not split into q, k, v of {} heads", self.heads);
        }
        if self.bias.dims() != [batch, seq] {
            bail!("{name}: mask {:?} does not fit ({batch}, {seq})", self.bias.dims());
        }
        Ok(Blocks { batch, seq, heads: self.heads, head_dim: width / (3 * self.heads) })
    }

    /// Runs `run` for every (sequence, head) task of `g` in parallel ([`for_each_block_task`]
    /// with `seq x seq` blocks).
    fn for_each_task(&self, g: Blocks, buffers: usize, run: impl Fn(usize, Option<&[f32]>, &mut [f32]) + Sync) {
        for_each_block_task(g.tasks(), g.seq * g.seq, buffers, self.dropout, run)
    }
}

/// Runs `run` for tasks `0..tasks` in parallel, each with its own `block`-sized piece of the
/// dropout mask (task `t` holds elements `t * block ..`, drawn inside the task) when there is
/// one, and `buffers` scratch blocks of `block` (the thread's own, reused from task to task,
/// their contents undefined: every task overwrites what it reads).
pub(crate) fn for_each_block_task(
    tasks: usize,
    block: usize,
    buffers: usize,
    dropout: Option<DropoutKey>,
    run: impl Fn(usize, Option<&[f32]>, &mut [f32]) + Sync,
) {
    (0..tasks).into_par_iter().for_each(|t| {
        SCRATCH.with(|cell| {
            // A task runs no parallel work of its own, so no other task of this thread can
            // start while it holds the scratch.
            let mut scratch = cell.borrow_mut();
            if scratch.len() < (buffers + 1) * block {
                scratch.resize((buffers + 1) * block, 0.0);
            }
            let (mask, rest) = scratch.split_at_mut(block);
            let rest = &mut rest[..buffers * block];
            match dropout {
                Some(key) => {
                    key.fill(t * block, mask);
                    run(t, Some(mask), rest)
                }
                None => run(t, None, rest),
            }
        })
    });
}

thread_local! {
    /// Per-thread scratch of the attention tasks: a dropout mask block and probability blocks.
    static SCRATCH: std::cell::RefCell<Vec<f32>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// `probs (seq x seq) = softmax(scale * q k^T + bias)` of task `t`, row by row.
///
/// # Safety
/// `qkv` must hold the whole projection tensor of `g`.
unsafe fn probabilities(g: Blocks, t: usize, qkv: &[f32], bias: &[f32], scale: f32, probs: &mut [f32]) {
    let (s, d, row) = (g.seq, g.head_dim, g.qkv_row());
    let q = qkv.as_ptr().add(g.qkv_offset(t, 0));
    let k = qkv.as_ptr().add(g.qkv_offset(t, 1));
    // k^T (d x s): element (c, r) is k[r][c].
    product((s, s, d), probs.as_mut_ptr(), s, (q, row, 1), (k, 1, row), scale);
    let bias = &bias[(t / g.heads) * s..(t / g.heads + 1) * s];
    softmax_rows(probs, bias);
}

/// Softmax of every row (`bias.len()` wide) of `probs` plus `bias`, in place. The row's
/// maximum and sum are accumulated in 16 interleaved lanes (vector registers, not one
/// serial chain of dependent additions).
#[inline(always)]
fn softmax_rows_body(probs: &mut [f32], bias: &[f32]) {
    for prow in probs.chunks_mut(bias.len()) {
        prow.iter_mut().zip(bias).for_each(|(p, &b)| *p += b);
        let max = lanes(prow, f32::NEG_INFINITY, f32::max).into_iter().fold(f32::NEG_INFINITY, f32::max);
        prow.iter_mut().for_each(|p| *p = exp_fast(*p - max));
        let sum: f32 = lanes(prow, 0.0, |a, b| a + b).iter().sum();
        let inv = 1.0 / sum;
        prow.iter_mut().for_each(|p| *p *= inv);
    }
}

crate::kernels::fast_math::widest_simd! {
    /// [`softmax_rows_body`] for the widest vector instructions the CPU has.
    pub(crate) fn softmax_rows(probs: &mut [f32], bias: &[f32]) => softmax_rows_body
}

struct Attention {
    masks: Masks,
    /// Each query's log-sum-exp from the CUDA forward pass, which its backward pass reads.
    #[cfg(feature = "cuda")]
    lse: std::sync::Mutex<Option<std::sync::Arc<candle_core::cuda_backend::cudarc::driver::CudaSlice<f32>>>>,
}

impl CustomOp1 for Attention {
    fn name(&self) -> &'static str {
        "fused-attention"
    }

    fn cpu_fwd(&self, storage: &CpuStorage, layout: &Layout) -> Result<(CpuStorage, Shape)> {
        let qkv = contiguous_f32(storage, layout, self.name())?;
        let g = self.masks.blocks(layout, self.name())?;
        let (s, d) = (g.seq, g.head_dim);
        let scale = 1.0 / (d as f32).sqrt();
        let mut out = zeroed(g.batch * s * g.hidden());
        let dst = SharedMut(out.as_mut_ptr());
        with_cpu_f32(&self.masks.bias, self.name(), |bias| {
            let run = |t: usize, drop: Option<&[f32]>, probs: &mut [f32]| {
                // SAFETY: `qkv` is the whole projection tensor; task `t` writes only its own
                // block of `out` (rows of sequence t / heads, columns of head t % heads).
                unsafe {
                    probabilities(g, t, qkv, bias, scale, probs);
                    if let Some(m) = drop {
                        probs.iter_mut().zip(m).for_each(|(p, m)| *p *= m);
                    }
                    let v = qkv.as_ptr().add(g.qkv_offset(t, 2));
                    product(
                        (s, d, s),
                        dst.ptr().add(g.ctx_offset(t)),
                        g.hidden(),
                        (probs.as_ptr(), s, 1),
                        (v, g.qkv_row(), 1),
                        1.0,
                    );
                }
            };
            self.masks.for_each_task(g, 1, run);
            Ok(())
        })?;
        Ok((CpuStorage::F32(out), Shape::from((g.batch, s, g.hidden()))))
    }

    #[cfg(feature = "cuda")]
    fn cuda_fwd(
        &self,
        storage: &candle_core::CudaStorage,
        layout: &Layout,
    ) -> Result<(candle_core::CudaStorage, Shape)> {
        let g = self.masks.blocks(layout, self.name())?;
        let (ctx, lse) = super::attention_cuda::forward(storage, layout, &self.masks.bias, g, self.masks.dropout)?;
        *self.lse.lock().unwrap_or_else(|e| e.into_inner()) = Some(std::sync::Arc::new(lse));
        Ok((ctx, Shape::from((g.batch, g.seq, g.hidden()))))
    }

    #[cfg_attr(not(feature = "cuda"), allow(unused_variables))]
    fn bwd(&self, arg: &Tensor, res: &Tensor, grad: &Tensor) -> Result<Option<Tensor>> {
        let grad = grad.contiguous()?;
        let op = AttentionGrad {
            masks: self.masks.clone(),
            #[cfg(feature = "cuda")]
            forward: self.lse.lock().unwrap_or_else(|e| e.into_inner()).clone().map(|lse| (res.clone(), lse)),
        };
        Ok(Some(arg.apply_op2_no_bwd(&grad, &op)?))
    }
}

/// The gradient of the projections `(batch, seq, 3 * hidden)` from the gradient of the
/// context `(batch, seq, hidden)`.
struct AttentionGrad {
    masks: Masks,
    /// The CUDA forward pass's context and log-sum-exp per query.
    #[cfg(feature = "cuda")]
    forward: Option<(Tensor, std::sync::Arc<candle_core::cuda_backend::cudarc::driver::CudaSlice<f32>>)>,
}

impl CustomOp2 for AttentionGrad {
    fn name(&self) -> &'static str {
        "fused-attention-grad"
    }

    fn cpu_fwd(&self, s1: &CpuStorage, l1: &Layout, s2: &CpuStorage, l2: &Layout) -> Result<(CpuStorage, Shape)> {
        let qkv = contiguous_f32(s1, l1, self.name())?;
        let dctx = contiguous_f32(s2, l2, self.name())?;
        let g = self.masks.blocks(l1, self.name())?;
        if l2.shape().dims() != [g.batch, g.seq, g.hidden()] {
            bail!("{}: gradient {:?} does not fit the projections {:?}", self.name(), l2.shape(), l1.shape());
        }
        let (s, d, row) = (g.seq, g.head_dim, g.qkv_row());
        let scale = 1.0 / (d as f32).sqrt();
        let mut out = zeroed(qkv.len());
        let dst = SharedMut(out.as_mut_ptr());
        with_cpu_f32(&self.masks.bias, self.name(), |bias| {
            let run = |t: usize, drop: Option<&[f32]>, scratch: &mut [f32]| {
                let (probs, rest) = scratch.split_at_mut(s * s);
                let (dprobs, dropped) = rest.split_at_mut(s * s);
                // SAFETY: `qkv` and `dctx` are whole tensors of the checked shapes; task `t`
                // writes only its own q, k and v blocks of `out`.
                unsafe {
                    probabilities(g, t, qkv, bias, scale, probs);
                    let q = qkv.as_ptr().add(g.qkv_offset(t, 0));
                    let k = qkv.as_ptr().add(g.qkv_offset(t, 1));
                    let v = qkv.as_ptr().add(g.qkv_offset(t, 2));
                    let dc = dctx.as_ptr().add(g.ctx_offset(t));
                    let (dq, dk, dv) = (
                        dst.ptr().add(g.qkv_offset(t, 0)),
                        dst.ptr().add(g.qkv_offset(t, 1)),
                        dst.ptr().add(g.qkv_offset(t, 2)),
                    );
                    // d(dropped probs) = dctx v^T.
                    product((s, s, d), dprobs.as_mut_ptr(), s, (dc, g.hidden(), 1), (v, 1, row), 1.0);
                    // dv = (dropped probs)^T dctx.
                    match drop {
                        Some(m) => {
                            dropped.iter_mut().zip(probs.iter().zip(m)).for_each(|(o, (p, m))| *o = p * m);
                            product((s, d, s), dv, row, (dropped.as_ptr(), 1, s), (dc, g.hidden(), 1), 1.0);
                            dprobs.iter_mut().zip(m).for_each(|(dp, m)| *dp *= m);
                        }
                        None => product((s, d, s), dv, row, (probs.as_ptr(), 1, s), (dc, g.hidden(), 1), 1.0),
                    }
                    // d(scores) = probs * (dprobs - sum(dprobs * probs)), row by row.
                    for (dprow, prow) in dprobs.chunks_mut(s).zip(probs.chunks(s)) {
                        let dot: f32 = dprow.iter().zip(prow).map(|(a, b)| a * b).sum();
                        dprow.iter_mut().zip(prow).for_each(|(dp, p)| *dp = p * (*dp - dot));
                    }
                    // dq = scale dscores k; dk = scale dscores^T q.
                    product((s, d, s), dq, row, (dprobs.as_ptr(), s, 1), (k, row, 1), scale);
                    product((s, d, s), dk, row, (dprobs.as_ptr(), 1, s), (q, row, 1), scale);
                }
            };
            self.masks.for_each_task(g, 3, run);
            Ok(())
        })?;
        Ok((CpuStorage::F32(out), l1.shape().clone()))
    }

    #[cfg(feature = "cuda")]
    fn cuda_fwd(
        &self,
        s1: &candle_core::CudaStorage,
        l1: &Layout,
        s2: &candle_core::CudaStorage,
        l2: &Layout,
    ) -> Result<(candle_core::CudaStorage, Shape)> {
        let g = self.masks.blocks(l1, self.name())?;
        if l2.shape().dims() != [g.batch, g.seq, g.hidden()] {
            bail!("{}: gradient {:?} does not fit the projections {:?}", self.name(), l2.shape(), l1.shape());
        }
        let Some((ctx, lse)) = &self.forward else { bail!("{}: the forward pass did not run on CUDA", self.name()) };
        let saved = super::attention_cuda::Saved { ctx, lse, bias: &self.masks.bias, dropout: self.masks.dropout };
        Ok((super::attention_cuda::backward((s1, l1), (s2, l2), &saved, g)?, l1.shape().clone()))
    }
}

/// Multi-head self-attention `softmax(q k^T / sqrt(head_dim) + mask) v` with the heads
/// merged back, `(batch, seq, hidden)`, from the projections `qkv` `(batch, seq, 3 * hidden)`
/// (queries, keys, values side by side) on the CPU in f32. `mask_bias` `(batch, seq)` is 0
/// for real keys and a large negative for padding; `dropout`, when given, is the mask of the
/// `(batch, heads, seq, seq)` probabilities. Gradients reach `qkv`. On CUDA the projections
/// may be bf16 (the context then is too; the arithmetic is f32) and the head dimension at
/// most [`fuses`] allows.
pub(crate) fn self_attention(
    qkv: &Tensor,
    heads: usize,
    mask_bias: &Tensor,
    dropout: Option<DropoutKey>,
) -> Result<Tensor> {
    let bias = mask_bias.detach().to_dtype(candle_core::DType::F32)?.contiguous()?;
    let masks = Masks { heads, bias, dropout };
    qkv.contiguous()?.apply_op1(Attention {
        masks,
        #[cfg(feature = "cuda")]
        lse: std::sync::Mutex::new(None),
    })
}

/// The environment variable that, set to `0`, turns the fused attention off on every device
/// (the layers then compose it of candle operations): the before of a before-and-after
/// measurement, and a way around the kernel should it ever fail on some GPU.
pub(crate) const FUSED_ATTENTION_ENV: &str = "QUARRY_FUSED_ATTENTION";

/// Whether [`self_attention`] runs on `x`'s device for projections computed in `compute`
/// (`None`: f32) with heads of `head_dim`: f32 on the CPU; f32 or bf16 on CUDA with heads of
/// at most 64; never when [`FUSED_ATTENTION_ENV`] is `0`.
pub(crate) fn fuses(x: &Tensor, compute: Option<candle_core::DType>, head_dim: usize) -> bool {
    static TURNED_OFF: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    if *TURNED_OFF.get_or_init(|| std::env::var(FUSED_ATTENTION_ENV).is_ok_and(|v| v.trim() == "0")) {
        return false;
    }
    let f32_input = x.dtype() == candle_core::DType::F32;
    match x.device() {
        candle_core::Device::Cpu => f32_input && compute.is_none(),
        #[cfg(feature = "cuda")]
        candle_core::Device::Cuda(_) => {
            f32_input
                && matches!(compute, None | Some(candle_core::DType::BF16))
                && head_dim <= super::attention_cuda::MAX_HEAD_DIM
        }
        _ => {
            let _ = head_dim;
            false
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use candle_core::{Device, Var, D};

    /// The same attention composed of candle operations.
    fn composed(qkv: &Tensor, heads: usize, bias: &Tensor, dropout: Option<&Tensor>) -> Tensor {
        let (b, s, w) = qkv.dims3().unwrap();
        let h = w / 3;
        let d = h / heads;
        let split = |i: usize| {
            qkv.narrow(2, i * h, h)
                .unwrap()
                .reshape((b, s, heads, d))
                .unwrap()
                .transpose(1, 2)
                .unwrap()
                .contiguous()
                .unwrap()
        };
        let (q, k, v) = (split(0), split(1), split(2));
        let scores = (q.matmul(&k.t().unwrap()).unwrap() / (d as f64).sqrt()).unwrap();
        let scores = scores.broadcast_add(&bias.reshape((b, 1, 1, s)).unwrap()).unwrap();
        let mut probs = candle_nn::ops::softmax(&scores, D::Minus1).unwrap();
        if let Some(m) = dropout {
            probs = (probs * m).unwrap();
        }
        probs.matmul(&v).unwrap().transpose(1, 2).unwrap().reshape((b, s, h)).unwrap()
    }

    fn max_diff(a: &Tensor, b: &Tensor) -> f32 {
        (a - b).unwrap().abs().unwrap().max_all().unwrap().to_scalar().unwrap()
    }

    #[test]
    fn matches_composed_attention_with_gradients() {
        let dev = Device::Cpu;
        let rng = crate::nn::rng::SeededRng::new(5);
        let (b, s, heads, d) = (2, 7, 3, 4);
        let qkv = Var::from_tensor(&rng.normal(&Shape::from((b, s, 3 * heads * d)), 1.0, &dev).unwrap()).unwrap();
        let bias = Tensor::new(&[[0f32, 0., 0., 0., 0., -1e9, -1e9], [0.; 7]], &dev).unwrap();
        let target = rng.normal(&Shape::from((b, s, heads * d)), 1.0, &dev).unwrap();
        let key = rng.dropout_key(0.3);
        let keep = key.tensor(&Shape::from((b, heads, s, s)), &dev).unwrap();
        for (key, mask) in [(None, None), (Some(key), Some(&keep))] {
            let fused = self_attention(qkv.as_tensor(), heads, &bias, key).unwrap();
            let reference = composed(qkv.as_tensor(), heads, &bias, mask);
            assert!(max_diff(&fused, &reference) < 1e-5);
            let g1 = (fused * &target).unwrap().sum_all().unwrap().backward().unwrap();
            let g2 = (reference * &target).unwrap().sum_all().unwrap().backward().unwrap();
            let d = max_diff(g1.get(qkv.as_tensor()).unwrap(), g2.get(qkv.as_tensor()).unwrap());
            assert!(d < 1e-5, "gradient difference {d}");
        }
    }

    #[test]
    fn rejects_projections_that_do_not_split_into_heads() {
        let dev = Device::Cpu;
        let qkv = Tensor::zeros((1, 2, 10), candle_core::DType::F32, &dev).unwrap();
        let bias = Tensor::zeros((1, 2), candle_core::DType::F32, &dev).unwrap();
        assert!(self_attention(&qkv, 3, &bias, None).is_err());
    }
}
