//! `quarry queries`: the registry of queries.

use clap::Args;
use quarry_query::rule_ids::{codeql_id, ruff_code};
use quarry_query::{all_queries, QueryMeta};
use serde::Serialize;

use super::input::Format;
use super::output::{with_stdout, write_json};

/// Arguments of `quarry queries`.
#[derive(Args)]
pub struct QueriesArgs {
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Pretty)]
    format: Format,
}

/// A query as listed: its description and the other names it answers to
/// (in `--select`, `# noqa: ...`, `# codeql[...]`).
#[derive(Serialize)]
struct Listed {
    #[serde(flatten)]
    meta: QueryMeta,
    codeql_id: Option<&'static str>,
    ruff_code: Option<&'static str>,
}

/// Lists every query with its id, paper index, hops, CodeQL id and name.
pub fn run(args: QueriesArgs) -> i32 {
    let listed: Vec<Listed> = all_queries()
        .iter()
        .map(|q| Listed { meta: q.meta, codeql_id: codeql_id(q.meta.id), ruff_code: ruff_code(q.meta.id) })
        .collect();
    with_stdout(|out| match args.format {
        Format::Json => write_json(out, &listed),
        Format::Pretty => {
            for l in &listed {
                let m = &l.meta;
                let hops = match m.hops {
                    quarry_query::Hops::Single => "single",
                    quarry_query::Hops::Multi => "multi",
                };
                let aliases = [l.codeql_id, l.ruff_code].iter().flatten().copied().collect::<Vec<_>>().join(" ");
                writeln!(out, "Q{:<3} {:<38} {:<7} {:<44} {}", m.index, m.id, hops, aliases, m.name)?;
            }
            Ok(())
        }
    })
}
