//! What a query is: its static description (stable id, exact CodeQueries
//! name, paper index, hop class, the CodeQL query it mirrors) and the
//! function that evaluates it. Each query file defines one; `registry`
//! lists them.

use serde::Serialize;

use crate::context::FileContext;
use crate::finding::{Polarity, RawFinding};

/// Single-hop queries reason within one code block; multi-hop across several
/// (Tables 6 and 7 of the CodeQueries paper).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Hops {
    /// One code block suffices.
    Single,
    /// Several code blocks are needed.
    Multi,
}

/// Static description of a query.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct QueryMeta {
    /// Stable kebab-case identifier, e.g. `unused-local-variable`.
    pub id: &'static str,
    /// The exact CodeQueries query name.
    pub name: &'static str,
    /// Index in the paper, 1 to 52 (Q1–Q52).
    pub index: u8,
    /// Single- or multi-hop.
    pub hops: Hops,
    /// What the query finds.
    pub description: &'static str,
    /// Path of the CodeQL query it mirrors, in github/codeql.
    pub codeql: &'static str,
}

/// A query: its description and the function that evaluates it on a file.
pub struct Query {
    /// Static description.
    pub meta: QueryMeta,
    /// Evaluates the positive or the negative form on one file.
    pub find: fn(&FileContext<'_>, Polarity) -> Vec<RawFinding>,
}
