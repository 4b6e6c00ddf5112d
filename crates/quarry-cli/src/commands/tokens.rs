//! `quarry tokens`: the lexical tokens of a Python or Java file.

use clap::Args;
use quarry_syntax::{tokenize, Language, SourceFile, TokenRecord};
use serde::Serialize;

use super::input::{FileArgs, Format};
use super::output::{report_error, with_stdout, write_json};

/// Arguments of `quarry tokens`.
#[derive(Args)]
pub struct TokensArgs {
    #[command(flatten)]
    input: FileArgs,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Pretty)]
    format: Format,
}

#[derive(Serialize)]
struct TokensDocument {
    file: String,
    language: Language,
    tokens: Vec<TokenRecord>,
}

/// Prints the tokens of one file.
pub fn run(args: TokensArgs) -> i32 {
    let path = &args.input.file;
    let Some(language) = args.input.lang.or_else(|| Language::from_path(path)) else {
        return report_error(&format!("{}: unknown language (use --lang python|java)", path.display()));
    };
    let deadline = match args.input.deadline() {
        Ok(deadline) => deadline,
        Err(message) => return report_error(&message),
    };
    let source = match SourceFile::load(path, &args.input.load_options()) {
        Ok(source) => source,
        Err(e) => return report_error(&e.to_string()),
    };
    // Tokenizing shares the file's time budget, as parsing does in the other commands.
    let records = deadline.run_bounded(path, "tokenizing", move || {
        let text = source.text();
        Ok(tokenize(text, language)
            .iter()
            .map(|t| TokenRecord { kind: t.kind, span: t.span(text, source.lines()).to_record(text) })
            .collect::<Vec<_>>())
    });
    let records = match records {
        Ok(records) => records,
        Err(e) => return report_error(&e.to_string()),
    };
    with_stdout(|out| match args.format {
        Format::Json => {
            write_json(out, &TokensDocument { file: path.display().to_string(), language, tokens: records })
        }
        Format::Pretty => {
            for t in &records {
                let kind =
                    serde_json::to_value(t.kind).ok().and_then(|v| v.as_str().map(str::to_string)).unwrap_or_default();
                writeln!(
                    out,
                    "{}:{}-{}:{}\t{kind}\t{:?}",
                    t.span.start_line + 1,
                    t.span.start_column + 1,
                    t.span.end_line + 1,
                    t.span.end_column + 1,
                    t.span.span
                )?;
            }
            Ok(())
        }
    })
}
