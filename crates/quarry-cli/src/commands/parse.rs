//! `quarry parse`: the syntax tree of a file and its error regions.

use clap::Args;
use quarry_syntax::tree_dump::write_tree;
use quarry_syntax::{ErrorRegion, Language};
use serde::Serialize;

use super::input::{FileArgs, Format};
use super::output::{report_error, with_stdout, write_json};

/// Arguments of `quarry parse`.
#[derive(Args)]
pub struct ParseArgs {
    #[command(flatten)]
    input: FileArgs,
    /// Output format: pretty prints the tree, json the error regions.
    #[arg(long, value_enum, default_value_t = Format::Pretty)]
    format: Format,
}

#[derive(Serialize)]
struct ParseDocument {
    file: String,
    language: Language,
    has_errors: bool,
    error_regions: Vec<ErrorRegion>,
}

/// Prints the tree and the error regions of one file.
pub fn run(args: ParseArgs) -> i32 {
    let deadline = match args.input.deadline() {
        Ok(deadline) => deadline,
        Err(message) => return report_error(&message),
    };
    let file = match args.input.parse(&deadline) {
        Ok(file) => file,
        Err(e) => return report_error(&e.to_string()),
    };
    let (file, regions) = match deadline.run_bounded(&args.input.file, "finding error regions", move || {
        let regions = file.error_regions();
        Ok((file, regions))
    }) {
        Ok(done) => done,
        Err(e) => return report_error(&e.to_string()),
    };
    with_stdout(|out| match args.format {
        Format::Json => write_json(
            out,
            &ParseDocument {
                file: args.input.file.display().to_string(),
                language: file.language(),
                has_errors: !regions.is_empty(),
                error_regions: regions,
            },
        ),
        Format::Pretty => {
            write_tree(&file, out)?;
            writeln!(out, "-- {} error region(s)", regions.len())?;
            for region in &regions {
                let s = &region.span;
                let what = match &region.expected {
                    Some(expected) => format!("missing {expected}"),
                    None => format!("unexpected {:?}", s.span.chars().take(40).collect::<String>()),
                };
                // 1-based, as people read positions (JSON keeps 0-based spans).
                let (start, end) = (s.start_line + 1, s.end_line + 1);
                writeln!(out, "{start}:{}-{end}:{}\t{what}", s.start_column + 1, s.end_column + 1)?;
            }
            Ok(())
        }
    })
}
