//! Training: the one loop every model trains in ([`train::fit`], exactly resumable), AdamW
//! with its learning-rate schedule ([`optim`]), and the span and relevance examples it reads,
//! encodes and batches ([`data`]).

pub mod data;
mod json_float;
pub mod optim;
pub mod train;
