//! Writing `quarry query` results for people and tools: compiler-style
//! diagnostics ([`pretty`]), SARIF 2.1.0 ([`sarif`]), the closing summary
//! and per-query statistics ([`summary`]), in colour or not ([`style`]).

pub mod pretty;
pub mod sarif;
pub mod style;
pub mod summary;

pub use pretty::DEFAULT_MAX_FINDINGS_SHOWN;
pub use style::Palette;
pub use summary::{Statistic, Tally};
