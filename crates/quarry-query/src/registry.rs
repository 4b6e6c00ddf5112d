//! The registry of queries: every query quarry implements, and lookup by
//! id, name, paper index, CodeQL id or ruff code.

pub use crate::query::{Hops, Query, QueryMeta};

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
