//! Q24 "Module is imported with 'import' and 'import from'": importing a
//! module both as `import m` and `from m import x` is inconsistent and makes
//! readers wonder whether the two refer to the same thing.
//!
//! ```python
//! import os                   # answer: this import statement
//! from os import path
//! ```
//!
//! As in CodeQL, the `import` statement is reported when anywhere in the
//! same file a `from ... import` statement names the same module (full
//! dotted name; relative imports are left out). CodeQL also needs the
//! module itself in its database; common third-party packages (`numpy`,
//! `django`, ...) usually are not, and are left out. Negative form: `import`
//! statements whose modules are not also imported with `from ... import`.

use crate::context::FileContext;
use crate::finding::{Polarity, RawFinding};
use crate::import_statements::{imported_modules, is_common_third_party};
use crate::query::{Hops, Query, QueryMeta};
use crate::syntax::Kind;

/// The query.
pub static QUERY: Query = Query {
    meta: QueryMeta {
        id: "import-and-import-from",
        name: "Module is imported with 'import' and 'import from'",
        index: 24,
        hops: Hops::Single,
        description: "A module is imported with the \"import\" and \"import from\" statements",
        codeql: "python/ql/src/Imports/ImportandImportFrom.ql",
    },
    find,
};

fn find(cx: &FileContext<'_>, polarity: Polarity) -> Vec<RawFinding> {
    let file = cx.file();
    let from_imported: Vec<String> = cx
        .nodes(Kind::ImportFromStatement)
        .iter()
        .flat_map(|&s| imported_modules(file, s))
        .map(|(name, _)| name)
        .collect();
    let mut findings = Vec::new();
    for &statement in cx.nodes(Kind::ImportStatement) {
        let modules: Vec<(String, _)> =
            imported_modules(file, statement).into_iter().filter(|(name, _)| !is_common_third_party(name)).collect();
        let both = modules.iter().find(|(name, _)| from_imported.contains(name));
        let message = match (polarity, both) {
            (Polarity::Positive, Some((name, _))) => {
                format!("Module '{name}' is imported with both 'import' and 'import from'")
            }
            (Polarity::Negative, None) if !modules.is_empty() => "Module is imported only with 'import'".to_string(),
            _ => continue,
        };
        findings.push(RawFinding::answer(cx.location(statement), message));
    }
    findings
}
