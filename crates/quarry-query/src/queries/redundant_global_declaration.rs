//! Q49 "Use of 'global' at module level": a `global` statement in module
//! scope does nothing, since every name there is already global; it
//! suggests a misunderstanding or code moved out of a function.
//!
//! ```python
//! global counter      # answer: the statement
//! counter = 0
//! ```
//!
//! Class bodies are their own scope, so `global` there is not reported.
//! Negative form: `global` statements inside functions and classes, where
//! they do change what the names refer to.

use crate::context::FileContext;
use crate::finding::{Polarity, RawFinding};
use crate::query::{Hops, Query, QueryMeta};
use crate::syntax::{Kind, SyntaxNode};

/// The query.
pub static QUERY: Query = Query {
    meta: QueryMeta {
        id: "redundant-global-declaration",
        name: "Use of 'global' at module level",
        index: 49,
        hops: Hops::Single,
        description: "Use of the 'global' statement at module level",
        codeql: "python/ql/src/Variables/GlobalAtModuleLevel.ql",
    },
    find,
};

fn find(cx: &FileContext<'_>, polarity: Polarity) -> Vec<RawFinding> {
    let mut findings = Vec::new();
    for &statement in cx.nodes(Kind::GlobalStatement) {
        let at_module = cx.syntax().enclosing_scope(statement).is_some_and(|s| s.py_kind() == Kind::Module);
        if at_module != (polarity == Polarity::Positive) {
            continue;
        }
        let names: Vec<&str> = crate::ast::named_children(statement)
            .into_iter()
            .filter(|c| c.py_kind() == Kind::Identifier)
            .map(|c| cx.text(c))
            .collect();
        // CodeQL reports the statement once per name, at the same location.
        let name = names.join("', '");
        let message = if at_module {
            format!("Declaring '{name}' as global at module-level is redundant.")
        } else {
            format!("Declaring '{name}' as global makes it refer to the module-level variable.")
        };
        findings.push(RawFinding::answer(cx.location(statement), message));
    }
    findings
}
