//! `quarry queries`: the registry of queries.

use clap::Args;
use quarry_query::{all_queries, QueryMeta};

use super::input::Format;
use super::output::{with_stdout, write_json};

/// Arguments of `quarry queries`.
#[derive(Args)]
pub struct QueriesArgs {
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Pretty)]
    format: Format,
}

/// Lists every query with its id, paper index, hops and name.
pub fn run(args: QueriesArgs) -> i32 {
    let metas: Vec<QueryMeta> = all_queries().iter().map(|q| q.meta).collect();
    with_stdout(|out| match args.format {
        Format::Json => write_json(out, &metas),
        Format::Pretty => {
            for m in &metas {
                let hops = match m.hops {
                    quarry_query::Hops::Single => "single",
                    quarry_query::Hops::Multi => "multi",
                };
                writeln!(out, "Q{:<3} {:<38} {:<7} {}", m.index, m.id, hops, m.name)?;
            }
            Ok(())
        }
    })
}
