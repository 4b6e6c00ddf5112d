//! quarry's fused CPU kernels, private to the crate: each is one operation over contiguous
//! f32 data with its backward pass (linear layers, softmax, GELU, layer norm, the residual
//! sub-layer end, self- and cross-attention, dropout, the tied output loss), the matrix
//! product and vector arithmetic they share, and AdamW's update on the CPU and on flat
//! tensors elsewhere. Every kernel gives the composed candle path's results; the layers in
//! [`crate::nn`] choose between them.

pub(crate) mod adamw_cpu;
pub(crate) mod adamw_flat;
pub(crate) mod attention;
pub(crate) mod decoder_attention;
pub(crate) mod dropout;
pub(crate) mod fast_math;
pub(crate) mod fused_linear;
pub(crate) mod lstm_cell;
pub(crate) mod matrix_product;
pub(crate) mod ops;
pub(crate) mod output_loss;
pub(crate) mod residual_norm;
