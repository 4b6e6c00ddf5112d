//! The other names a query goes by: the `@id` of the CodeQL query it
//! mirrors (`py/unused-import`), as written in `# codeql[...]` and
//! `# lgtm[...]` comments and in SARIF from CodeQL, and the code of the ruff
//! rule that finds the same problem (`F401`), as written in `# noqa: F401`.
//!
//! The CodeQL ids are copied from the `@id` line of each query file named by
//! [`crate::QueryMeta::codeql`]. A ruff code is listed only where the ruff
//! rule reports the same construct; ruff has no rule for most queries.

/// `(quarry id, CodeQL @id)` for every query.
const CODEQL_IDS: &[(&str, &str)] = &[
    ("call-to-non-callable", "py/call-to-non-callable"),
    ("catching-base-exception", "py/catch-base-exception"),
    ("comparison-of-constants", "py/comparison-of-constants"),
    ("comparison-of-identical-expressions", "py/comparison-of-identical-expressions"),
    ("comparison-using-is", "py/comparison-using-is"),
    ("conflicting-attributes", "py/conflicting-attributes"),
    ("constant-conditional-expression", "py/constant-conditional-expression"),
    ("deprecated-slice-method", "py/deprecated-slice-method"),
    ("duplicate-key-in-dict-literal", "py/duplicate-key-dict-literal"),
    ("equals-hash-mismatch", "py/equals-hash-mismatch"),
    ("equals-none", "py/test-equals-none"),
    ("flask-debug", "py/flask-debug"),
    ("illegal-raise", "py/illegal-raise"),
    ("implicit-string-concatenation-in-list", "py/implicit-string-concatenation-in-list"),
    ("import-and-import-from", "py/import-and-import-from"),
    ("import-deprecated-module", "py/import-deprecated-module"),
    ("imprecise-assert", "py/imprecise-assert"),
    ("incomplete-ordering", "py/incomplete-ordering"),
    ("incomplete-url-substring-sanitization", "py/incomplete-url-substring-sanitization"),
    ("init-calls-subclass", "py/init-calls-subclass"),
    ("insecure-temporary-file", "py/insecure-temporary-file"),
    ("iter-returns-non-iterator", "py/iter-returns-non-iterator"),
    ("missing-call-to-init", "py/missing-call-to-init"),
    ("missing-equals", "py/missing-equals"),
    ("modification-of-default-value", "py/modification-of-default-value"),
    ("modification-of-locals", "py/modification-of-locals"),
    ("multiple-definition", "py/multiple-definition"),
    ("nested-loops-with-same-variable", "py/nested-loops-with-same-variable"),
    ("non-self", "py/not-named-self"),
    ("not-implemented-is-not-an-exception", "py/raise-not-implemented"),
    ("polluting-import", "py/polluting-import"),
    ("procedure-return-value-used", "py/procedure-return-value-used"),
    ("redundant-assignment", "py/redundant-assignment"),
    ("redundant-comparison", "py/redundant-comparison"),
    ("redundant-global-declaration", "py/redundant-global-declaration"),
    ("repeated-import", "py/repeated-import"),
    ("should-use-with", "py/should-use-with"),
    ("side-effect-in-assert", "py/side-effect-in-assert"),
    ("signature-mismatch", "py/inheritance/signature-mismatch"),
    ("special-method-wrong-signature", "py/special-method-wrong-signature"),
    ("super-not-enclosing-class", "py/super-not-enclosing-class"),
    ("unexpected-raise-in-special-method", "py/unexpected-raise-in-special-method"),
    ("unguarded-next-in-generator", "py/unguarded-next-in-generator"),
    ("unnecessary-delete", "py/unnecessary-delete"),
    ("unnecessary-else-clause-in-loop", "py/redundant-else"),
    ("unnecessary-pass", "py/unnecessary-pass"),
    ("unreachable-statement", "py/unreachable-statement"),
    ("unused-import", "py/unused-import"),
    ("unused-local-variable", "py/unused-local-variable"),
    ("unused-loop-variable", "py/unused-loop-variable"),
    ("wrong-number-arguments", "py/call/wrong-arguments"),
    ("wrong-number-class-arguments", "py/call/wrong-number-class-arguments"),
];

/// `(quarry id, ruff rule code)` where a ruff rule reports the same thing.
const RUFF_CODES: &[(&str, &str)] = &[
    ("catching-base-exception", "E722"),
    ("comparison-of-constants", "PLR0133"),
    ("comparison-of-identical-expressions", "PLR0124"),
    ("comparison-using-is", "F632"),
    ("duplicate-key-in-dict-literal", "F601"),
    ("equals-hash-mismatch", "PLW1641"),
    ("equals-none", "E711"),
    ("flask-debug", "S201"),
    ("insecure-temporary-file", "S306"),
    ("nested-loops-with-same-variable", "PLW2901"),
    ("non-self", "N805"),
    ("not-implemented-is-not-an-exception", "F901"),
    ("polluting-import", "F403"),
    ("redundant-assignment", "PLW0127"),
    ("redundant-global-declaration", "PLW0604"),
    ("repeated-import", "F811"),
    ("special-method-wrong-signature", "PLE0302"),
    ("unnecessary-else-clause-in-loop", "PLW0120"),
    ("unnecessary-pass", "PIE790"),
    ("unused-import", "F401"),
    ("unused-local-variable", "F841"),
    ("unused-loop-variable", "B007"),
];

/// The CodeQL `@id` of the query with quarry id `query_id`.
pub fn codeql_id(query_id: &str) -> Option<&'static str> {
    CODEQL_IDS.iter().find(|(id, _)| *id == query_id).map(|(_, codeql)| *codeql)
}

/// The code of the ruff rule that finds what query `query_id` finds.
pub fn ruff_code(query_id: &str) -> Option<&'static str> {
    RUFF_CODES.iter().find(|(id, _)| *id == query_id).map(|(_, code)| *code)
}

/// Whether `code` is one of the ruff codes quarry understands (`F401`).
pub fn is_ruff_code(code: &str) -> bool {
    RUFF_CODES.iter().any(|(_, ruff)| ruff.eq_ignore_ascii_case(code))
}

/// The quarry id named by a CodeQL `@id` (case-insensitive) or a ruff code.
pub fn quarry_id_of_alias(alias: &str) -> Option<&'static str> {
    CODEQL_IDS
        .iter()
        .find(|(_, codeql)| codeql.eq_ignore_ascii_case(alias))
        .or_else(|| RUFF_CODES.iter().find(|(_, code)| code.eq_ignore_ascii_case(alias)))
        .map(|(id, _)| *id)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_query_has_a_codeql_id_and_aliases_resolve() {
        for query in crate::all_queries() {
            let codeql = codeql_id(query.meta.id).unwrap_or_else(|| panic!("{} has no CodeQL id", query.meta.id));
            assert!(codeql.starts_with("py/"));
            assert_eq!(quarry_id_of_alias(codeql), Some(query.meta.id));
        }
        assert_eq!(CODEQL_IDS.len(), crate::all_queries().len());
        for (id, code) in RUFF_CODES {
            assert!(crate::all_queries().iter().any(|q| q.meta.id == *id), "{id}");
            assert_eq!(quarry_id_of_alias(&code.to_lowercase()), Some(*id));
        }
    }
}
