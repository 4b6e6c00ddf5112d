//! quarry-data: dataset schemas, readers and writers, and the builders that
//! make datasets from corpora.
//!
//! [`codequeries`] builds the CodeQueries dataset from any Python corpus with
//! quarry's query engine, in the public dataset's format.

pub mod atomic;
pub mod codeqa;
pub mod codequeries;
pub mod error;
pub mod rng;

pub use error::DataError;
