//! The papers' experimental protocols run end to end from a corpus and a model: datasets
//! built, models trained and evaluated in every setting, and a report in the papers' table
//! layout whose every row says what produced it. Every stage is resumable.

#![warn(missing_docs)]

pub mod codeqa;
pub mod codequeries;
pub mod cs1qa;
pub mod error;
pub mod html;
pub mod inspect;
pub mod report;
pub mod runs;
pub mod sample;
pub mod stages;

pub use error::{ExperimentError, Result};
