//! `quarry blocks`: the CodeQueries code blocks of a Python file.

use clap::Args;
use quarry_syntax::{code_blocks, BlockKind, Language, LineRun};
use serde::Serialize;

use super::input::{FileArgs, Format};
use super::output::{report_error, with_stdout, write_json};

/// Arguments of `quarry blocks`.
#[derive(Args)]
pub struct BlocksArgs {
    #[command(flatten)]
    input: FileArgs,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Pretty)]
    format: Format,
}

#[derive(Serialize)]
struct BlockRecord {
    index: usize,
    kind: BlockKind,
    name: String,
    metadata: String,
    header: String,
    lines: Vec<LineRun>,
    content: String,
}

#[derive(Serialize)]
struct BlocksDocument {
    file: String,
    language: Language,
    blocks: Vec<BlockRecord>,
}

/// Prints the blocks of one file. Parsing and finding the blocks share the file's time budget.
pub fn run(args: BlocksArgs) -> i32 {
    let deadline = match args.input.deadline() {
        Ok(deadline) => deadline,
        Err(message) => return report_error(&message),
    };
    let file = match args.input.parse(&deadline) {
        Ok(file) => file,
        Err(e) => return report_error(&e.to_string()),
    };
    let language = file.language();
    if language != Language::Python {
        return report_error(&format!("{}: code blocks are defined for Python files only", args.input.file.display()));
    }
    let records = deadline.run_bounded(&args.input.file, "finding code blocks", move || {
        let blocks = code_blocks(&file);
        Ok(blocks
            .all()
            .iter()
            .map(|b| BlockRecord {
                index: b.index,
                kind: b.kind,
                name: b.name.clone(),
                metadata: b.metadata(),
                header: b.header().to_string(),
                lines: b.lines.clone(),
                content: b.content(&file),
            })
            .collect::<Vec<_>>())
    });
    let records = match records {
        Ok(records) => records,
        Err(e) => return report_error(&e.to_string()),
    };
    with_stdout(|out| match args.format {
        Format::Json => {
            write_json(out, &BlocksDocument { file: args.input.file.display().to_string(), language, blocks: records })
        }
        Format::Pretty => {
            for record in &records {
                // 1-based line numbers for people; JSON keeps 0-based runs.
                let runs: Vec<String> = record.lines.iter().map(|r| format!("{}-{}", r.start + 1, r.end + 1)).collect();
                writeln!(
                    out,
                    "── block {} · {} · {} · lines {}",
                    record.index,
                    record.kind.codequeries_name(),
                    record.metadata,
                    runs.join(",")
                )?;
                write!(out, "{}", record.content)?;
                if !record.content.ends_with('\n') {
                    writeln!(out)?;
                }
            }
            Ok(())
        }
    })
}
