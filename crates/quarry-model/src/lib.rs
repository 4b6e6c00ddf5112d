//! Neural encoders of source code on candle: BERT/RoBERTa encoders loaded from Hugging Face
//! checkpoints or initialized from scratch, per-layer hidden states for probing, span and
//! relevance heads, an encoder-decoder answer generator with beam search, training, and
//! exact-match and relevance evaluation; CS1QA's type, line-selection and dual-encoder
//! retrieval models ([`cs1qa`]).

pub mod adamw_cpu;
pub mod adamw_flat;
pub mod answer_model;
pub mod answer_selection;
pub mod answer_text;
pub mod attention;
pub mod autocast;
pub mod beam;
pub mod bert;
pub mod checkpoint;
pub mod config;
pub mod cs1qa;
pub mod data;
pub mod decoder;
pub mod decoder_attention;
pub mod device;
pub mod dropout;
pub mod error;
pub mod eval_checks;
mod fast_math;
pub mod features;
pub mod file_level;
pub mod fused_linear;
pub mod head_config;
pub mod heads;
pub mod layer_norm;
pub mod layers;
pub mod loading;
mod matrix_product;
pub mod ops;
pub mod optim;
pub mod output_loss;
pub mod params;
pub mod predict;
pub mod relevance_model;
pub mod residual_norm;
pub mod rng;
pub mod span_eval;
pub mod span_model;
pub mod spans;
pub mod speed;
pub mod tokenizer;
pub mod train;
pub mod weights;

pub use answer_model::{AnswerConfig, AnswerModel, DecodeOptions, EncodedAnswer};
pub use answer_selection::{AnswerSelection, Candidate};
pub use autocast::Precision;
pub use bert::{Encoder, EncoderOutput};
pub use config::{EncoderConfig, Family, HiddenAct, ScratchSpec};
pub use error::{ModelError, Result};
pub use loading::{load_model, LoadedModel, ModelSource};
pub use relevance_model::{RelevanceEvaluation, RelevanceModel};
pub use span_model::SpanModel;
pub use tokenizer::{Encoded, Tokenizer};
