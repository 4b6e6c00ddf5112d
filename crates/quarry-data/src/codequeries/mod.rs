//! The CodeQueries dataset: examples in the public dataset's schema, built
//! from a Python corpus by quarry's query engine (paper Section 3, Section
//! 5.2 and Appendices E and F).

pub mod build;
pub mod candidates;
pub mod columns;
pub mod examples;
pub mod finalize;
pub mod labels;
pub mod manifest;
pub mod paper;
pub mod perturb;
pub mod schema;
pub mod selection;
pub mod split;
pub mod stats;

pub use schema::{BlockSpan, ContextBlock, Example, RelevanceRow};
