//! quarry-stdx: the mechanisms every quarry crate shares, each in one place, as
//! rust-analyzer's `stdx` holds what its crates wish `std` had.
//!
//! - [`rng`]: the seeded random generators (SplitMix64 and xoshiro256**) and a stable
//!   string hash, so datasets, samples, probes and training runs depend only on their seed.
//! - [`atomic`]: writing a file through a temporary beside it and a rename, so no reader
//!   ever sees half a file.
//! - [`read`]: the one reader of input files and standard input: regular files only,
//!   under a size limit.
//! - [`io_error`]: an I/O error with the path it concerns, the one way every crate's error
//!   type names the file that failed.
//! - [`json_surrogates`]: lone UTF-16 surrogate escapes in JSON text, found to be named or
//!   replaced.
//! - [`stale_temporaries`]: the temporaries outputs are written under, and what killed runs
//!   left of them.
//! - [`skip`]: how a test whose downloaded asset is missing says it is skipped.
//!
//! It depends on no other quarry crate and knows nothing of code, text or models.

#![warn(missing_docs)]

pub mod atomic;
pub mod io_error;
pub mod json_surrogates;
pub mod read;
pub mod rng;
pub mod skip;
pub mod stale_temporaries;
pub mod typed_index;

pub use atomic::{write_atomically, AtomicFile};
pub use io_error::{IoError, IoResultExt};
pub use rng::{sample_per_key, stable_hash, SplitMix64, Xoshiro256};
