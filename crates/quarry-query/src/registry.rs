//! The registry of queries: stable ids, exact CodeQueries names, paper
//! indices, hop classes and the CodeQL query each mirrors.

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

/// Every query quarry implements, ordered by paper index.
pub fn all_queries() -> Vec<&'static Query> {
    let mut queries: Vec<&'static Query> = crate::queries::ALL.to_vec();
    queries.sort_by_key(|q| q.meta.index);
    queries
}

/// Finds a query by id, exact name, paper index (`Q16` or `16`), CodeQL
/// `@id` (`py/unused-import`) or the code of the ruff rule that finds the
/// same problem (`F401`), see [`crate::rule_ids`].
pub fn find_query(key: &str) -> Option<&'static Query> {
    // No leading zero: `Q003` is flake8-quotes' code, not paper query 3.
    let digits = key.strip_prefix(['Q', 'q']).unwrap_or(key);
    let index = if digits.starts_with('0') { None } else { digits.parse::<u8>().ok() };
    let alias = crate::rule_ids::quarry_id_of_alias(key);
    crate::queries::ALL
        .iter()
        .copied()
        .find(|q| q.meta.id == key || q.meta.name == key || Some(q.meta.index) == index || Some(q.meta.id) == alias)
}
