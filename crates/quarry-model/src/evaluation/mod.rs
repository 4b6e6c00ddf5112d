//! Evaluation: B/I/O/F labels, their spans and exact match ([`spans`]), the paper's
//! file-level settings ([`file_level`]), the figures that go beside an exact match
//! ([`eval_checks`]), the `quarry evaluate` drivers ([`span_eval`]) and answering a query on
//! a source file ([`predict`]).

pub mod eval_checks;
pub mod file_level;
pub mod predict;
pub mod span_eval;
pub mod spans;
