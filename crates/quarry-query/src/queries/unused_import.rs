//! Q1 "Unused import": a module-level import whose names are never used;
//! it slows start-up, adds a dependency and hides real ones.
//!
//! ```python
//! import os, sys       # answer: the statement (sys is never used)
//! print(os.getcwd())
//! ```
//!
//! As in CodeQL, a name counts as used when any scope reads the global,
//! when `__all__` lists it (or `__all__` cannot be read), when a doctest,
//! a `# type:` comment, a string annotation or an epytext `L{name}` comment
//! mentions it, or when its name marks it as deliberately unused. Strings
//! that are type hints outside annotations (the value of `X: TypeAlias =
//! ...`, the first argument of `cast(...)`) count too, which CodeQL's
//! annotation check misses. Imports
//! in functions and classes, `from __future__`, `import *`, imports under
//! `if False:` and package `__init__.py` files are left out. The
//! module-level block and every block using an import are relevant.
//! Negative form: module-level import statements whose names are all used.

use std::collections::HashMap;

use crate::context::FileContext;
use crate::finding::{Polarity, RawFinding};
use crate::imports::ImportedName;
use crate::query::{Hops, Query, QueryMeta};

/// The query.
pub static QUERY: Query = Query {
    meta: QueryMeta {
        id: "unused-import",
        name: "Unused import",
        index: 1,
        hops: Hops::Multi,
        description: "Import is not required as it is not used",
        codeql: "python/ql/src/Imports/UnusedImport.ql",
    },
    find,
};

fn find(cx: &FileContext<'_>, polarity: Polarity) -> Vec<RawFinding> {
    if cx.file().source().path().file_name().is_some_and(|n| n == "__init__.py") {
        return Vec::new();
    }
    let imports = cx.imports();
    let mut context = imports.uses_of_imports();
    if let Some(module) = cx.blocks().module_level() {
        if let Some(run) = module.lines.first() {
            let lines = cx.file().source().lines();
            if let Some(range) = lines.line_range(run.start) {
                context.push(cx.file().span(range.start, range.end));
            }
        }
    }
    let mut findings = Vec::new();
    let mut statements: Vec<_> = imports.names.iter().map(|n| n.statement).collect();
    statements.dedup_by_key(|s| s.id());
    let names_by_statement = names_by_statement(&imports.names);
    for statement in statements {
        let Some(names) = names_by_statement.get(&statement.id()) else { continue };
        let unused: Vec<&str> = names.iter().copied().filter(|n| !imports.is_used(n)).collect();
        let message = match polarity {
            Polarity::Positive if !unused.is_empty() => format!("Import of '{}' is not used.", unused.join("', '")),
            Polarity::Negative if unused.is_empty() => format!("Import of '{}' is used.", names.join("', '")),
            _ => continue,
        };
        findings.push(RawFinding::answer(cx.location(statement), message).with_context(context.iter().copied()));
    }
    findings
}

/// The names each import statement binds, by statement id, in order.
fn names_by_statement<'a>(names: &'a [ImportedName<'_>]) -> HashMap<usize, Vec<&'a str>> {
    let mut by_statement: HashMap<usize, Vec<&str>> = HashMap::new();
    for name in names {
        by_statement.entry(name.statement.id()).or_default().push(name.name.as_str());
    }
    by_statement
}
