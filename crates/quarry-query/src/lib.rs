//! quarry-query: Python semantic analysis and the CodeQueries queries.
//!
//! Each query lives in its own file under [`queries`] and reports findings
//! made of answer spans, supporting-fact spans and the code blocks that hold
//! them, in a positive form (the CodeQL query's results) and a negative form
//! (plausible but not actual answers). Parsing, blocks and analyses are done
//! once per file in a [`FileContext`] and shared by every query.

pub mod ast;
pub mod builtins;
pub mod calls;
pub mod classes;
pub mod context;
pub mod engine;
pub mod finding;
pub mod flow;
pub mod imports;
pub mod methods;
pub mod parameters;
pub mod project;
pub mod queries;
pub mod reachability;
pub mod registry;
pub mod relevance;
pub mod render;
pub mod report;
pub mod run;
pub mod scopes;
pub mod signatures;
pub mod syntax;
pub mod syntax_kinds;

pub use context::FileContext;
pub use engine::run_query;
pub use finding::{Finding, Polarity, RawFinding};
pub use registry::{all_queries, find_query, Hops, Query, QueryMeta};
