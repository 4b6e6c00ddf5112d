//! Runs queries on a file and attaches relevant blocks to their results.

use crate::context::FileContext;
use crate::finding::{Finding, Polarity};
use crate::registry::Query;

/// Runs `query` in the given polarity on one file. Findings are sorted by
/// their first answer span, and each carries the blocks that hold its spans.
/// Type stubs (`.pyi`) declare interfaces, not code that runs, and get no
/// findings, as CodeQL analyses none.
pub fn run_query(context: &FileContext<'_>, query: &Query, polarity: Polarity) -> Vec<Finding> {
    if context.file().source().path().extension().is_some_and(|e| e == "pyi") {
        return Vec::new();
    }
    let mut findings: Vec<Finding> = (query.find)(context, polarity)
        .into_iter()
        .map(|raw| {
            let spans: Vec<_> = raw.answers.iter().chain(&raw.facts).copied().collect();
            let mut relevant_blocks = context.blocks_of(&spans);
            relevant_blocks.extend(context.blocks_within(&raw.context));
            relevant_blocks.sort_unstable();
            relevant_blocks.dedup();
            Finding { polarity, relevant_blocks, answers: raw.answers, facts: raw.facts, message: raw.message }
        })
        .collect();
    findings.sort_by_key(|f| (f.answers.first().map(|s| s.start_byte), f.facts.first().map(|s| s.start_byte)));
    findings.dedup();
    findings
}
