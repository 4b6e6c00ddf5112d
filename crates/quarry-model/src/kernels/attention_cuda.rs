//! The CUDA side of [`super::attention`]: launches `cuda/attention.cuh`'s fused attention
//! kernels (one forward; a per-query dot product, a keys-and-values pass and a queries pass
//! backward) on the projections in f32 or bf16, for head dimensions up to
//! [`MAX_HEAD_DIM`]. The forward pass returns each query's log-sum-exp beside the context,
//! which the backward pass needs to recompute the probabilities.

use candle_core::backend::BackendStorage;
use candle_core::cuda_backend::cudarc::driver::{
    CudaSlice, CudaView, DeviceRepr, LaunchConfig, PushKernelArg, ValidAsZeroBits,
};
use candle_core::cuda_backend::{CudaDType, WrapErr};
use candle_core::{bail, CudaDevice, CudaStorage, DType, Layout, Result, Storage, Tensor};

use super::attention_blocks::Blocks;
use super::cuda_kernels::{elementwise, view, MODULE, PTX};
use super::dropout::DropoutKey;

/// The largest head dimension the kernels take (their shared memory holds rows this wide).
pub(crate) const MAX_HEAD_DIM: usize = 64;

/// Queries (or keys) per block of the backward kernels, `ATTN_ROWS` in `attention.cuh`.
const ROWS_PER_BLOCK: usize = 32;

/// Queries per block of the forward kernel, `ATTN_FWD_ROWS` in `attention.cuh`.
const FORWARD_ROWS_PER_BLOCK: usize = 64;

/// One block per `rows` rows of every (sequence, head) pair, four warps each: the pairs along
/// x, the rows along y (at most 65,535 blocks, so sequences of up to two million tokens).
fn head_blocks(g: Blocks, rows: usize) -> LaunchConfig {
    LaunchConfig {
        grid_dim: ((g.batch * g.heads) as u32, g.seq.div_ceil(rows) as u32, 1),
        block_dim: (128, 1, 1),
        shared_mem_bytes: 0,
    }
}

/// The kernels' name parts for `dtype` and `g`'s head dimension: `f32` or `bf16`, and `d32`
/// or `d64` (the largest head dimension of the instance).
fn variant(dtype: DType, g: Blocks) -> Result<(&'static str, &'static str)> {
    let dtype = match dtype {
        DType::F32 => "f32",
        DType::BF16 => "bf16",
        other => bail!("fused attention on CUDA: {other:?} projections (f32 or bf16 only)"),
    };
    match g.head_dim {
        1..=32 => Ok((dtype, "d32")),
        33..=MAX_HEAD_DIM => Ok((dtype, "d64")),
        d => bail!("fused attention on CUDA: head dimension {d} is over {MAX_HEAD_DIM}"),
    }
}

/// The kernels' shape and dropout parameters, in their order.
struct Params {
    seq: u32,
    heads: u32,
    head_dim: u32,
    scale: f32,
    dropping: u32,
    key: u64,
    threshold: u64,
    keep_scale: f32,
}

impl Params {
    fn new(g: Blocks, dropout: Option<DropoutKey>) -> Self {
        let (key, threshold, keep_scale) = dropout.map(|k| k.parts()).unwrap_or((0, 0, 1.0));
        Params {
            seq: g.seq as u32,
            heads: g.heads as u32,
            head_dim: g.head_dim as u32,
            scale: 1.0 / (g.head_dim as f32).sqrt(),
            dropping: u32::from(dropout.is_some()),
            key,
            threshold,
            keep_scale,
        }
    }

    fn push<'a>(&'a self, builder: &mut candle_core::cuda_backend::cudarc::driver::LaunchArgs<'a>) {
        builder.arg(&self.seq);
        builder.arg(&self.heads);
        builder.arg(&self.head_dim);
        builder.arg(&self.scale);
        builder.arg(&self.dropping);
        builder.arg(&self.key);
        builder.arg(&self.threshold);
        builder.arg(&self.keep_scale);
    }
}

/// Runs `f` on the contiguous f32 data of the CUDA tensor `t` (the padding mask).
fn with_cuda_f32<R>(t: &Tensor, what: &str, f: impl FnOnce(CudaView<'_, f32>) -> Result<R>) -> Result<R> {
    let (storage, layout) = t.storage_and_layout();
    match &*storage {
        Storage::Cuda(s) => f(view::<f32>(s, layout, what)?),
        _ => bail!("{what}: the mask must be an f32 tensor on the projections' device"),
    }
}

/// The context `(batch, seq, hidden)` of the projections `qkv` and each query's log-sum-exp
/// `(batch * heads, seq)`; `bias` is the `(batch, seq)` f32 padding mask.
pub(crate) fn forward(
    qkv: &CudaStorage,
    layout: &Layout,
    bias: &Tensor,
    g: Blocks,
    dropout: Option<DropoutKey>,
) -> Result<(CudaStorage, CudaSlice<f32>)> {
    fn run<T: CudaDType + DeviceRepr + ValidAsZeroBits>(
        qkv: &CudaStorage,
        layout: &Layout,
        bias: &Tensor,
        g: Blocks,
        params: &Params,
        name: &str,
    ) -> Result<(CudaStorage, CudaSlice<f32>)> {
        let device = qkv.device().clone();
        let ctx = device.alloc_zeros::<T>(g.batch * g.seq * g.hidden())?;
        let lse = device.alloc_zeros::<f32>(g.tasks() * g.seq)?;
        if g.seq > 0 && g.tasks() > 0 {
            let qkv = view::<T>(qkv, layout, name)?;
            with_cuda_f32(bias, name, |bias| {
                let func = device.get_or_load_custom_func(name, MODULE, PTX)?;
                let mut builder = func.builder();
                builder.arg(&qkv);
                builder.arg(&bias);
                builder.arg(&ctx);
                builder.arg(&lse);
                params.push(&mut builder);
                // SAFETY: `qkv` holds (batch, seq, 3 * heads * head_dim) elements, `bias`
                // (batch, seq), `ctx` (batch, seq, heads * head_dim) and `lse` (batch * heads,
                // seq) (checked by `Masks::blocks`); the kernel's parameters are these.
                unsafe { builder.launch(head_blocks(g, FORWARD_ROWS_PER_BLOCK)) }.w()?;
                Ok(())
            })?;
        }
        Ok((CudaStorage::wrap_cuda_slice(ctx, device), lse))
    }

    let params = Params::new(g, dropout);
    let (dtype, dmax) = variant(qkv.dtype(), g)?;
    let name = format!("attention_forward_{dtype}_{dmax}");
    match qkv.dtype() {
        DType::F32 => run::<f32>(qkv, layout, bias, g, &params, &name),
        _ => run::<half::bf16>(qkv, layout, bias, g, &params, &name),
    }
}

/// What the backward pass reads besides the projections and the context's gradient.
pub(crate) struct Saved<'a> {
    /// The forward pass's context.
    pub(crate) ctx: &'a Tensor,
    /// The forward pass's log-sum-exp per query.
    pub(crate) lse: &'a CudaSlice<f32>,
    /// The `(batch, seq)` f32 padding mask.
    pub(crate) bias: &'a Tensor,
    /// The dropout mask of the probabilities, if any.
    pub(crate) dropout: Option<DropoutKey>,
}

/// The gradient of the projections `(batch, seq, 3 * hidden)` from the context's gradient
/// `dctx` `(batch, seq, hidden)`.
pub(crate) fn backward(
    (qkv, ql): (&CudaStorage, &Layout),
    (dctx, dl): (&CudaStorage, &Layout),
    saved: &Saved<'_>,
    g: Blocks,
) -> Result<CudaStorage> {
    fn run<T: CudaDType + DeviceRepr + ValidAsZeroBits>(
        (qkv, ql): (&CudaStorage, &Layout),
        (dctx, dl): (&CudaStorage, &Layout),
        saved: &Saved<'_>,
        g: Blocks,
        (dtype, dmax): (&str, &str),
    ) -> Result<CudaStorage> {
        let device: CudaDevice = qkv.device().clone();
        let dqkv = device.alloc_zeros::<T>(ql.shape().elem_count())?;
        if g.seq == 0 || g.tasks() == 0 {
            return Ok(CudaStorage::wrap_cuda_slice(dqkv, device));
        }
        let name = "fused attention backward";
        let params = Params::new(g, saved.dropout);
        let (qkv, dctx) = (view::<T>(qkv, ql, name)?, view::<T>(dctx, dl, name)?);
        let delta = device.alloc_zeros::<f32>(g.tasks() * g.seq)?;
        let (ctx_storage, ctx_layout) = saved.ctx.storage_and_layout();
        let Storage::Cuda(ctx) = &*ctx_storage else { bail!("{name}: the context must be on the GPU") };
        let ctx = view::<T>(ctx, ctx_layout, name)?;
        let func = device.get_or_load_custom_func(&format!("attention_delta_{dtype}"), MODULE, PTX)?;
        let mut builder = func.builder();
        builder.arg(&ctx);
        builder.arg(&dctx);
        builder.arg(&delta);
        candle_core::builder_arg!(builder, g.batch as u32, params.seq, params.heads, params.head_dim);
        // SAFETY: `ctx` and `dctx` hold (batch, seq, hidden) elements and `delta` one per
        // (sequence, head, query); the kernel's parameters are these.
        unsafe { builder.launch(elementwise(g.tasks() * g.seq)) }.w()?;
        with_cuda_f32(saved.bias, name, |bias| {
            for pass in ["attention_backward_kv", "attention_backward_q"] {
                let func = device.get_or_load_custom_func(&format!("{pass}_{dtype}_{dmax}"), MODULE, PTX)?;
                let mut builder = func.builder();
                builder.arg(&qkv);
                builder.arg(&bias);
                builder.arg(&dctx);
                builder.arg(saved.lse);
                builder.arg(&delta);
                builder.arg(&dqkv);
                params.push(&mut builder);
                // SAFETY: the shapes of the forward pass (checked there and by the caller);
                // the keys-and-values pass writes the k and v blocks of `dqkv` and the
                // queries pass its q blocks, each element once.
                unsafe { builder.launch(head_blocks(g, ROWS_PER_BLOCK)) }.w()?;
            }
            Ok(())
        })?;
        Ok(CudaStorage::wrap_cuda_slice(dqkv, device))
    }

    if dctx.dtype() != qkv.dtype() {
        bail!("fused attention backward: gradient {:?} and projections {:?} differ", dctx.dtype(), qkv.dtype())
    }
    let names = variant(qkv.dtype(), g)?;
    match qkv.dtype() {
        DType::F32 => run::<f32>((qkv, ql), (dctx, dl), saved, g, names),
        _ => run::<half::bf16>((qkv, ql), (dctx, dl), saved, g, names),
    }
}
