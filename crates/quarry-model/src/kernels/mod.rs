//! quarry's fused kernels, private to the crate. On the CPU each is one operation over
//! contiguous f32 data with its backward pass (linear layers, softmax, GELU, layer norm, the
//! residual sub-layer end, self- and cross-attention, dropout, the tied output loss), with the
//! matrix product and vector arithmetic they share. On CUDA, quarry's own kernels
//! (`cuda/quarry.cu`, with the `cuda` feature) run the embedding gradient, training layer norm,
//! the residual sub-layer end (dropout, addition and layer norm in one kernel each way),
//! masked softmax, bias addition, dropout, concatenation, GELU, fused self-attention and
//! AdamW (in place), each op with a CPU loop the tests check (and the kernels' source run on the CPU by
//! `cuda/emulation/`), and cuBLASLt the linear layers; AdamW's update runs per tensor on the
//! CPU and on flat tensors elsewhere. Every kernel gives the composed candle path's
//! results; the layers in [`crate::nn`] choose between them.

pub(crate) mod adamw_cpu;
pub(crate) mod adamw_flat;
#[cfg(feature = "cuda")]
pub(crate) mod adamw_multi;
pub(crate) mod attention;
pub(crate) mod attention_blocks;
#[cfg(feature = "cuda")]
pub(crate) mod attention_cuda;
pub(crate) mod bias_add;
pub(crate) mod concat;
#[cfg(test)]
mod cuda_emulation;
#[cfg(feature = "cuda")]
pub(crate) mod cuda_kernels;
#[cfg(all(test, feature = "cuda"))]
mod cuda_tests;
pub(crate) mod decoder_attention;
pub(crate) mod dropout;
pub(crate) mod embedding;
pub(crate) mod fast_math;
pub(crate) mod fused_linear;
#[cfg(feature = "cuda")]
pub(crate) mod gelu_cuda;
pub(crate) mod layer_norm;
#[cfg(feature = "cuda")]
pub(crate) mod linear_lt;
pub(crate) mod lstm_cell;
pub(crate) mod masked_softmax;
pub(crate) mod matrix_product;
pub(crate) mod ops;
pub(crate) mod output_loss;
pub(crate) mod residual_norm;
