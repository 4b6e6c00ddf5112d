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

/// The queries named by `keys`, each resolved with [`find_query`], in the
/// order first named: a query named twice (`Q20,equals-none,E711` are one
/// query) is listed once, so it does not run, and report, once per name.
pub fn resolve_all(keys: &[String]) -> Result<Vec<&'static Query>, String> {
    let mut queries: Vec<&'static Query> = Vec::with_capacity(keys.len());
    for key in keys {
        let query = find_query(key).ok_or_else(|| format!("unknown query `{key}` (see `quarry queries`)"))?;
        if !queries.iter().any(|q| q.meta.id == query.meta.id) {
            queries.push(query);
        }
    }
    Ok(queries)
}
