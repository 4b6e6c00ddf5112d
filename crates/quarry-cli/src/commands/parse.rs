//! `quarry parse`: the syntax tree of a file and its error regions.

use clap::Args;
use std::io::{self, Write};

use quarry_syntax::tree_dump::{write_tree, DumpError};
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
    match args.format {
        Format::Json => with_stdout(|out| {
            write_json(
                out,
                &ParseDocument {
                    file: args.input.file.display().to_string(),
                    language: file.language(),
                    has_errors: !regions.is_empty(),
                    error_regions: regions,
                },
            )
        }),
        Format::Pretty => {
            let mut stopped = None;
            let code = with_stdout(|out| match write_tree(&file, out, &deadline) {
                Ok(()) => write_regions(out, &regions),
                Err(DumpError::Write(e)) => Err(e),
                Err(DumpError::Budget(e)) => {
                    stopped = Some(e);
                    Ok(())
                }
            });
            match stopped {
                Some(e) => report_error(&e.to_string()),
                None => code,
            }
        }
    }
}

/// The error regions after the tree, one per line, 1-based as people read
/// positions (JSON keeps 0-based spans).
fn write_regions(out: &mut dyn Write, regions: &[ErrorRegion]) -> io::Result<()> {
    writeln!(out, "-- {} error region(s)", regions.len())?;
    for region in regions {
        let s = &region.span;
        let what = match &region.expected {
            Some(expected) => format!("missing {expected}"),
            None => format!("unexpected {:?}", s.span.chars().take(40).collect::<String>()),
        };
        let (start, end) = (s.start_line + 1, s.end_line + 1);
        writeln!(out, "{start}:{}-{end}:{}\t{what}", s.start_column + 1, s.end_column + 1)?;
    }
    Ok(())
}
