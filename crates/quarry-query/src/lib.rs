//! quarry-query: Python semantic analysis and the CodeQueries queries.
//!
//! Each query lives in its own file under [`queries`] and reports findings
//! made of answer spans, supporting-fact spans and the code blocks that hold
//! them, in a positive form (the CodeQL query's results) and a negative form
//! (plausible but not actual answers). Parsing, blocks and analyses are done
//! once per file in a [`FileContext`] and shared by every query.
//!
//! [`run`] analyses a project's files in parallel, [`cache`] keeps files'
//! findings and module summaries between runs, and each file's report
//! carries its [`suppression_comments`] as read within its time budget.
//! What a linter run does with the findings (configuration, applying
//! suppressions, baselines, triage, output formats) is the quarry-workspace
//! crate's.

pub mod allocator;
pub mod ast;
pub mod builtins;
pub mod cache;
pub mod calls;
pub mod class_syntax;
pub mod classes;
pub mod context;
pub mod engine;
pub mod file_syntax;
pub mod finding;
pub mod flow;
pub mod import_statements;
pub mod imports;
pub mod methods;
pub mod node_tree;
pub mod parameters;
pub mod project;
pub mod queries;
pub mod query;
pub mod reachability;
pub mod registry;
pub mod relevance;
pub mod render;
pub mod report;
pub mod rule_ids;
pub mod run;
pub mod scopes;
pub mod signatures;
pub mod suppression_comments;
pub mod syntax;

pub use context::FileContext;
pub use engine::run_query;
pub use finding::{Finding, Polarity, RawFinding};
pub use registry::{all_queries, find_query, resolve_all, Hops, Query, QueryMeta};
