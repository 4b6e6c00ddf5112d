//! The building blocks models are made of: the parameter store ([`params`]) and the shared
//! random source ([`rng`]), trainable layers, layer norms and mixed precision, the encoder
//! (`bert`: BERT, RoBERTa and BART; T5's layers in `t5`), the Transformer decoder, and the task
//! heads with their losses and the `head_config.json` they are saved with.

pub(crate) mod autocast;
pub(crate) mod bert;
pub(crate) mod decoder;
pub(crate) mod head_config;
pub mod heads;
pub(crate) mod layer_norm;
pub(crate) mod layers;
pub(crate) mod lstm;
pub mod params;
pub mod rng;
pub(crate) mod t5;
