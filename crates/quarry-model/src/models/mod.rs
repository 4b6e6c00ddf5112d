//! One file or folder per model, each an encoder from [`crate::nn`] with its head, trained by
//! [`crate::training`]: the span model and the relevance classifier of CodeQueries, CodeQA's
//! encoder-decoder answer generator and its recurrent baselines ([`answer`]) and CS1QA's models ([`cs1qa`]).

pub mod answer;
pub mod cs1qa;
pub mod relevance;
pub(crate) mod span;
