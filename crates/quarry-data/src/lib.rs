//! quarry-data: dataset schemas, readers and writers, and the builders that
//! make datasets from corpora.
//!
//! [`codequeries`] builds the CodeQueries dataset from any Python corpus with
//! quarry's query engine, in the public dataset's format. [`cs1qa`] reads and writes
//! CS1QA's annotated rows and answer-retrieval files. [`hub`], [`shard`] and
//! [`parquet_file`] lay datasets out as the Hugging Face Hub does, in Parquet, built in
//! shards. [`corpus`] assembles corpora
//! to build from: the source distributions of PyPI packages.

pub mod codeqa;
pub mod codequeries;
pub mod corpus;
pub mod cs1qa;
pub mod error;
pub mod hub;
pub mod jsonl;
pub mod parquet_file;
pub mod records;
pub mod shard;
mod temporaries;

pub use error::DataError;
