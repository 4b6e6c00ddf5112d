//! CodeQA's data: parallel `{split}.code`, `.code.original`, `.question` and `.answer` files,
//! one example per line (see [`parallel`]).

pub mod parallel;

pub use parallel::{read_lines, read_split, write_split, CodeQaExample, Field, SplitFiles};
