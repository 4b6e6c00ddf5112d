//! Neural encoders of source code on candle: BERT/RoBERTa encoders loaded from Hugging Face
//! checkpoints or initialized from scratch, per-layer hidden states for probing, span and
//! relevance heads, training and exact-match evaluation.

pub mod bert;
pub mod config;
pub mod error;
pub mod layer_norm;
pub mod layers;
pub mod loading;
pub mod params;
pub mod rng;
pub mod tokenizer;
pub mod weights;

pub use bert::{Encoder, EncoderOutput};
pub use config::{EncoderConfig, Family, HiddenAct, ScratchSpec};
pub use error::{ModelError, Result};
pub use tokenizer::{Encoded, Tokenizer};
