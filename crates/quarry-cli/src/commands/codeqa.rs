//! `quarry codeqa`: CodeQA question–answer pairs from comments, scoring
//! against the authors' output, and dataset statistics.

use std::path::{Path, PathBuf};

use clap::{Args, Subcommand};
use quarry_data::codeqa::score::{read_gold, score_generator};
use quarry_data::codeqa::stats::{render, stats};
use quarry_data::codeqa::{
    generate, load_parser, read_comments, texts_to_parse, CommentParser, Outcome, Pair, DEFAULT_MAX_PAIRS,
};
use quarry_stdx::AtomicFile;
use serde::Serialize;

use super::input::Format;
use super::output::{report_error, with_stdout, write_json, EXIT_INPUT_ERROR, EXIT_OK};

/// Arguments of `quarry codeqa`.
#[derive(Args)]
pub struct CodeqaArgs {
    #[command(subcommand)]
    command: CodeqaCommand,
}

#[derive(Subcommand)]
enum CodeqaCommand {
    /// Question–answer pairs from comments (JSON Lines `{"comment": ...}`),
    /// one output line per input line.
    Qa(QaArgs),
    /// Exact pair, question and answer recall against the authors' output
    /// (generation-gold/python_dev.jsonl), pairs per docstring and speed.
    Score(ScoreArgs),
    /// The texts the generator parses for each comment (JSON Lines
    /// `{"text"}`), to make stored parses with another parser.
    Texts(TextsArgs),
    /// The paper's Tables 3, 4 and 6 for a CodeQA-format directory.
    Stats(StatsArgs),
    /// The comments of a source tree's documented functions, as JSON Lines
    /// `{"comment", "file", "line", "name"}` (input of `qa` and `texts`).
    Comments(CommentsArgs),
}

#[derive(Args)]
struct CommentsArgs {
    /// Source tree (files or directories).
    #[arg(long, required = true)]
    corpus: Vec<PathBuf>,
    /// `python` or `java`.
    #[arg(long)]
    lang: String,
    /// Seconds allowed per file; a file that takes longer is reported and skipped. 0: no limit.
    #[arg(long, default_value_t = 60.0)]
    time_budget: f64,
}

/// Where parses come from.
#[derive(Args, Clone)]
pub struct ParserArgs {
    /// spaCy English model directory (en_core_web_sm layout) that quarry-nlp
    /// runs.
    #[arg(long, conflicts_with = "parses")]
    pub parser: Option<PathBuf>,
    /// Stored parses instead of a model: JSON Lines of parsed docs looked up
    /// by text (e.g. made by scripts/codeqa/spacy_docs.py from `quarry
    /// codeqa texts`).
    #[arg(long)]
    pub parses: Option<PathBuf>,
}

impl ParserArgs {
    /// The parser these arguments name ([`quarry_data::codeqa::load_parser`]).
    pub fn load(&self) -> Result<Box<dyn CommentParser>, String> {
        load_parser(self.parser.as_deref(), self.parses.as_deref())
    }

    /// The parser as a shard manifest records it: `model:NAME` or `parses:NAME`, the
    /// folder's or file's name (shards may run on machines with other paths).
    pub fn describe(&self) -> String {
        let name = |p: &std::path::Path| p.file_name().map_or_else(String::new, |n| n.to_string_lossy().into_owned());
        match (&self.parser, &self.parses) {
            (Some(model), _) => format!("model:{}", name(model)),
            (None, Some(parses)) => format!("parses:{}", name(parses)),
            (None, None) => String::new(),
        }
    }
}

/// How question–answer pairs are generated (`codeqa qa`, `codeqa score`).
#[derive(Args)]
struct GenerationArgs {
    #[command(flatten)]
    parser: ParserArgs,
    /// Most pairs per comment (docstring).
    #[arg(long, default_value_t = DEFAULT_MAX_PAIRS)]
    max_pairs: usize,
}

#[derive(Args)]
struct QaArgs {
    #[command(flatten)]
    generation: GenerationArgs,
    /// Comments, one JSON object `{"comment": ...}` per line.
    #[arg(long)]
    comments: PathBuf,
    /// Output file (default: stdout).
    #[arg(long)]
    out: Option<PathBuf>,
}

#[derive(Args)]
struct ScoreArgs {
    #[command(flatten)]
    generation: GenerationArgs,
    /// The gold file: `{"docstring", "pairs": [{"question", "answer"}]}` per line.
    #[arg(long)]
    gold: PathBuf,
    /// Output format (`text` is accepted for `pretty`).
    #[arg(long, value_enum, default_value_t = Format::Pretty)]
    format: Format,
}

#[derive(Args)]
struct TextsArgs {
    /// JSON Lines with a `comment` or `docstring` field per line.
    #[arg(long)]
    comments: PathBuf,
}

#[derive(Args)]
struct StatsArgs {
    /// A directory of `{split}.question`/`.answer` (and `.code`, `.code.original`) files.
    dir: PathBuf,
    /// Output format (`text` is accepted for `pretty`).
    #[arg(long, value_enum, default_value_t = Format::Pretty)]
    format: Format,
}

/// Runs a codeqa subcommand.
pub fn run(args: CodeqaArgs) -> i32 {
    match args.command {
        CodeqaCommand::Qa(a) => qa(a),
        CodeqaCommand::Score(a) => score_cmd(a),
        CodeqaCommand::Texts(a) => texts(a),
        CodeqaCommand::Stats(a) => stats_cmd(a),
        CodeqaCommand::Comments(a) => comments_cmd(a),
    }
}

/// The language a `--lang` value names.
pub fn language(name: &str) -> Result<quarry_syntax::Language, String> {
    match name {
        "python" => Ok(quarry_syntax::Language::Python),
        "java" => Ok(quarry_syntax::Language::Java),
        other => Err(format!("--lang {other}: expected python or java")),
    }
}

fn comments_cmd(args: CommentsArgs) -> i32 {
    let lang = match language(&args.lang) {
        Ok(l) => l,
        Err(e) => return report_error(&e),
    };
    let time_budget = match super::query::time_budget(args.time_budget) {
        Ok(budget) => budget,
        Err(message) => return report_error(&message),
    };
    let found = quarry_data::codeqa::dataset::documented_functions(&args.corpus, lang, time_budget);
    for bad in &found.bad_files {
        crate::commands::output::skipped(&bad.to_string());
    }
    with_stdout(|out| {
        for (path, f) in &found.functions {
            let line = serde_json::json!({
                "comment": f.comment,
                "file": path.display().to_string(),
                "line": f.line,
                "name": f.name,
            });
            writeln!(out, "{line}")?;
        }
        Ok(())
    })
}

/// One input line: its comment, or why it is unusable.
/// The comments of `path` ([`quarry_data::codeqa::read_comments`]), errors as messages.
fn comments_of(path: &Path) -> Result<Vec<Result<String, String>>, String> {
    let comments = read_comments(path).map_err(|e| e.to_string())?;
    Ok(comments.into_iter().map(|c| c.map_err(|e| e.to_string())).collect())
}

#[derive(Serialize)]
struct QaLine<'a> {
    comment: Option<&'a str>,
    pairs: &'a [Pair],
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<&'a str>,
}

fn qa(args: QaArgs) -> i32 {
    let mut parser = match args.generation.parser.load() {
        Ok(p) => p,
        Err(e) => return report_error(&e),
    };
    let comments = match comments_of(&args.comments) {
        Ok(c) => c,
        Err(e) => return report_error(&e),
    };
    let good: Vec<&str> = comments.iter().filter_map(|c| c.as_ref().ok().map(String::as_str)).collect();
    let mut outcomes = generate(&good, parser.as_mut(), args.generation.max_pairs).into_iter();
    let mut failed = 0usize;
    let mut lines = Vec::with_capacity(comments.len());
    for c in &comments {
        let line = match c {
            Ok(text) => match outcomes.next() {
                Some(Outcome::Pairs(pairs)) => {
                    serde_json::to_string(&QaLine { comment: Some(text), pairs: &pairs, error: None })
                }
                Some(Outcome::ParseError(e)) => {
                    failed += 1;
                    crate::commands::output::error(&format!("{}: cannot parse comment: {e}", args.comments.display()));
                    serde_json::to_string(&QaLine { comment: Some(text), pairs: &[], error: Some(&e) })
                }
                None => serde_json::to_string(&QaLine { comment: Some(text), pairs: &[], error: None }),
            },
            Err(e) => {
                failed += 1;
                crate::commands::output::skipped(&e.to_string());
                serde_json::to_string(&QaLine { comment: None, pairs: &[], error: Some(e) })
            }
        };
        lines.push(line.unwrap_or_default());
    }
    let text = lines.join("\n") + if lines.is_empty() { "" } else { "\n" };
    let status = match &args.out {
        Some(path) => {
            let written = AtomicFile::create(path).and_then(|mut f| {
                f.write_all(text.as_bytes())?;
                f.commit()
            });
            match written {
                Ok(()) => EXIT_OK,
                Err(e) => return report_error(&e.to_string()),
            }
        }
        None => with_stdout(|out| out.write_all(text.as_bytes())),
    };
    if failed > 0 {
        EXIT_INPUT_ERROR
    } else {
        status
    }
}

fn score_cmd(args: ScoreArgs) -> i32 {
    let mut parser = match args.generation.parser.load() {
        Ok(p) => p,
        Err(e) => return report_error(&e),
    };
    let gold = match read_gold(&args.gold) {
        Ok(g) => g,
        Err(e) => return report_error(&e.to_string()),
    };
    let report = score_generator(&gold, parser.as_mut(), args.generation.max_pairs, &mut |e| {
        crate::commands::output::error(&format!("cannot parse: {e}"));
    });
    with_stdout(|out| {
        if args.format == Format::Json {
            return write_json(out, &report);
        }
        out.write_all(report.to_text().as_bytes())
    })
}

fn texts(args: TextsArgs) -> i32 {
    let comments = match comments_of(&args.comments) {
        Ok(c) => c,
        Err(e) => return report_error(&e),
    };
    let mut bad = 0;
    let status = with_stdout(|out| {
        for c in &comments {
            match c {
                Ok(text) => {
                    for t in texts_to_parse(text) {
                        writeln!(out, "{}", serde_json::json!({ "text": t }))?;
                    }
                }
                Err(e) => {
                    bad += 1;
                    crate::commands::output::skipped(&e.to_string());
                }
            }
        }
        Ok(())
    });
    if bad > 0 {
        EXIT_INPUT_ERROR
    } else {
        status
    }
}

fn stats_cmd(args: StatsArgs) -> i32 {
    match stats(&args.dir) {
        Ok(s) => with_stdout(|out| {
            if args.format == Format::Json {
                write_json(out, &s)
            } else {
                out.write_all(render(&s).as_bytes())
            }
        }),
        Err(e) => report_error(&e.to_string()),
    }
}
