//! `quarry nlp parse --model DIR [--file F] [--format conllu|json]`: runs
//! spaCy's English pipeline (quarry-nlp) on each input line.

use std::io::{BufWriter, Write};
use std::path::PathBuf;

use clap::{Args, Subcommand, ValueEnum};
use quarry_nlp::{conllu, Pipeline};

/// `quarry nlp` subcommands.
#[derive(Subcommand, Debug)]
pub enum NlpCommand {
    /// Tokenize, tag, lemmatize and parse English text, one text per line.
    Parse(ParseArgs),
}

/// Output formats of `quarry nlp parse`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// CoNLL-U, one block per sentence.
    Conllu,
    /// One JSON object (a quarry-nlp `Doc`) per input line.
    Json,
}

/// Arguments of `quarry nlp parse`.
#[derive(Args, Debug)]
pub struct ParseArgs {
    /// spaCy model directory (en_core_web_sm 3.8: the folder with config.cfg or the package folder above it).
    #[arg(long)]
    model: PathBuf,
    /// Input file, one text per line (standard input when absent or `-`).
    #[arg(long)]
    file: Option<PathBuf>,
    /// Refuse input larger than this many bytes (standard input included).
    #[arg(long, default_value_t = quarry_stdx::read::MAX_TEXT_FILE_BYTES)]
    max_bytes: u64,
    /// Output format.
    #[arg(long, value_enum, default_value = "conllu")]
    format: Format,
}

/// Runs a `quarry nlp` subcommand.
pub fn run(cmd: NlpCommand) -> i32 {
    match cmd {
        NlpCommand::Parse(args) => parse(args),
    }
}

fn parse(args: ParseArgs) -> i32 {
    let pipeline = match Pipeline::load(&args.model) {
        Ok(p) => p,
        Err(e) => {
            crate::commands::output::error(&e.to_string());
            return 2;
        }
    };
    let (name, bytes) = match &args.file {
        Some(f) if f.as_os_str() != "-" => match quarry_stdx::read::read_bytes(f, args.max_bytes) {
            Ok(b) => (f.display().to_string(), b),
            Err(e) => {
                crate::commands::output::error(&e.to_string());
                return 2;
            }
        },
        _ => match quarry_stdx::read::read_stdin(args.max_bytes) {
            Ok(b) => ("<stdin>".to_string(), b),
            Err(e) => {
                crate::commands::output::error(&e.to_string());
                return 2;
            }
        },
    };
    let stdout = std::io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    let mut code = 0;
    let mut lines: Vec<&[u8]> = bytes.split(|&b| b == b'\n').collect();
    if bytes.ends_with(b"\n") || bytes.is_empty() {
        lines.pop();
    }
    for (no, line) in lines.into_iter().enumerate() {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        let result = match std::str::from_utf8(line) {
            Ok(text) => pipeline.parse(text).map_err(|e| e.to_string()),
            Err(e) => Err(format!("invalid UTF-8 at byte {}", e.valid_up_to())),
        };
        let written = match result {
            Ok(doc) => match args.format {
                Format::Json => {
                    serde_json::to_string(&doc).map_err(std::io::Error::other).and_then(|s| writeln!(out, "{s}"))
                }
                Format::Conllu => out.write_all(conllu::to_conllu(&doc, &(no + 1).to_string()).as_bytes()),
            },
            Err(e) => {
                crate::commands::output::error(&format!("{name}:{}: {e}", no + 1));
                code = 2;
                match args.format {
                    // Keep one JSON line per input line.
                    Format::Json => writeln!(out, "null"),
                    Format::Conllu => Ok(()),
                }
            }
        };
        if let Err(e) = written {
            crate::commands::output::error(&format!("writing output: {e}"));
            return 2;
        }
    }
    if let Err(e) = out.flush() {
        crate::commands::output::error(&format!("writing output: {e}"));
        return 2;
    }
    code
}
