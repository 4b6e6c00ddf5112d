//! Neural encoders of source code on candle: BERT/RoBERTa encoders, and the encoders of T5
//! (CodeT5) and BART (PLBART), loaded from Hugging Face checkpoints, or BERT initialized from
//! scratch, per-layer hidden states for probing, span and
//! relevance heads, an encoder-decoder answer generator with beam search (and CodeQA's LSTM
//! baselines, [`models::answer::recurrent`]), training, and
//! exact-match and relevance evaluation; CS1QA's type, line-selection and dual-encoder
//! retrieval models ([`models::cs1qa`]).
//!
//! The crate's shape, from the bottom up:
//! - `kernels` (private): quarry's fused CPU operations with their backward passes, and
//!   AdamW's update kernels.
//! - [`nn`]: the building blocks models are made of: the parameter store and random source,
//!   layers, mixed precision, the BERT encoder, the Transformer decoder and task heads.
//! - The files at the top: what loading and saving a model needs: `--model` and `--device`
//!   arguments, configuration, tokenizers, checkpoint tensors and directories, errors,
//!   per-layer features and the speed measurement.
//! - [`models`]: one file or folder per model: span, relevance, CodeQA's answer generators
//!   (Transformer decoder; Seq2seq and Dual Encoder) and CS1QA's models.
//! - [`training`]: the one training loop, the optimizer and the examples it reads.
//! - [`evaluation`]: labels and exact match, the paper's file-level settings, evaluation
//!   drivers and prediction on a file.

pub mod checkpoint;
mod config;
pub mod device;
mod error;
pub mod evaluation;
mod family_config;
mod features;
mod fingerprint;
pub(crate) mod kernels;
mod loading;
pub mod models;
pub mod nn;
mod sentencepiece;
mod sharded;
pub mod speed;
mod tokenizer;
pub mod training;
mod weights;

pub use config::{EncoderConfig, Family, HiddenAct, ScratchSpec};
pub use error::{ModelError, Result};
pub use fingerprint::files_fingerprint;
pub use loading::{load_model, load_model_in, LoadedModel, ModelSource};
pub use models::answer::selection::{AnswerSelection, Candidate};
pub use models::answer::{AnswerConfig, AnswerModel, DecodeOptions, EncodedAnswer};
pub use models::relevance::{RelevanceEvaluation, RelevanceModel};
pub use models::span::{balanced_class_weights, LabelWeighting, SpanModel};
pub use nn::autocast::Precision;
pub use nn::bert::{Encoder, EncoderOutput};
pub use tokenizer::{Encoded, Tokenizer};
