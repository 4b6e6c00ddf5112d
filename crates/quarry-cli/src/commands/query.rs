//! `quarry query`: runs queries over Python files and directories, in
//! parallel, printing findings as JSON Lines, diagnostics or SARIF.

use std::io::{IsTerminal, Write};
use std::path::PathBuf;

use clap::{Args, ValueEnum};
use indicatif::{ProgressBar, ProgressStyle};
use quarry_query::project::Project;
use quarry_query::report::{analyze_file_in, FileReport, WorkLimits};
use quarry_query::{all_queries, find_query, Polarity, Query};
use quarry_syntax::corpus::source_files;
use quarry_syntax::{Language, LoadOptions, DEFAULT_MAX_FILE_BYTES, DEFAULT_TIME_BUDGET};
use rayon::prelude::*;

use super::diagnostics::DEFAULT_MAX_FINDINGS_SHOWN;
use super::output::{report_error, with_stdout, EXIT_INPUT_ERROR, EXIT_OK};
use super::{diagnostics, sarif};

/// Output format of `quarry query`.
#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum QueryFormat {
    /// Code with answer and fact spans marked, compiler-diagnostic style.
    Pretty,
    /// One finding per line as JSON, in the CodeQueries span schema.
    Jsonl,
    /// SARIF 2.1.0, for code-scanning tools.
    Sarif,
}

/// Arguments of `quarry query`.
#[derive(Args)]
pub struct QueryArgs {
    /// Python files and directories (searched recursively, honouring .gitignore).
    #[arg(required = true)]
    paths: Vec<PathBuf>,
    /// A query to run, by id, exact name or paper index (Q16); repeatable. Default: all.
    #[arg(long = "query", short = 'q')]
    queries: Vec<String>,
    /// Report the negative form (plausible but not actual answers) instead of the positive.
    #[arg(long, conflicts_with = "both")]
    negative: bool,
    /// Report both the positive and the negative form.
    #[arg(long)]
    both: bool,
    /// Output format.
    #[arg(long, value_enum, default_value_t = QueryFormat::Pretty)]
    format: QueryFormat,
    /// Skip files larger than this many bytes.
    #[arg(long, default_value_t = DEFAULT_MAX_FILE_BYTES)]
    max_file_bytes: u64,
    /// Seconds allowed per file for parsing and queries; a file that takes
    /// longer is reported and skipped. 0: no limit.
    #[arg(long, default_value_t = DEFAULT_TIME_BUDGET.as_secs_f64())]
    time_budget: f64,
    /// Pretty output: findings shown per file; the rest are counted.
    #[arg(long, default_value_t = DEFAULT_MAX_FINDINGS_SHOWN)]
    max_shown: usize,
    /// Worker threads (default: all cores).
    #[arg(long)]
    jobs: Option<usize>,
}

/// A `--time-budget` in seconds as a budget (none for 0).
pub(crate) fn time_budget(seconds: f64) -> Result<Option<std::time::Duration>, String> {
    if seconds == 0.0 {
        return Ok(None);
    }
    std::time::Duration::try_from_secs_f64(seconds)
        .map(Some)
        .map_err(|_| format!("--time-budget must be a number of seconds, not {seconds}"))
}

/// Files are analysed in chunks of this many, and each chunk is printed in
/// order before the next starts: output is deterministic and memory stays
/// bounded on large corpora.
const CHUNK: usize = 256;

/// Runs the selected queries over every file and prints the findings.
pub fn run(args: QueryArgs) -> i32 {
    let queries = match select_queries(&args.queries) {
        Ok(queries) => queries,
        Err(message) => return report_error(&message),
    };
    let polarities: &[Polarity] = if args.both {
        &[Polarity::Positive, Polarity::Negative]
    } else if args.negative {
        &[Polarity::Negative]
    } else {
        &[Polarity::Positive]
    };
    let limits = match time_budget(args.time_budget) {
        Ok(time_budget) => WorkLimits { time_budget, ..WorkLimits::default() },
        Err(message) => return report_error(&message),
    };
    let (files, walk_errors) = source_files(&args.paths, Language::Python);
    let mut failed = walk_errors.len();
    for error in &walk_errors {
        eprintln!("quarry: error: {error}");
    }
    if let Some(jobs) = args.jobs {
        let _ = rayon::ThreadPoolBuilder::new().num_threads(jobs.max(1)).build_global();
    }
    let options = LoadOptions { max_file_bytes: args.max_file_bytes };
    let project = Project::new(&files, &options);
    let progress = progress_bar(files.len() as u64);
    let mut sarif_results = Vec::new();
    let status = with_stdout(|out| {
        for chunk in files.chunks(CHUNK) {
            let reports: Vec<_> = chunk
                .par_iter()
                .map(|path| {
                    let report = analyze_file_in(&project, path, &queries, polarities, &options, &limits);
                    progress.inc(1);
                    report
                })
                .collect();
            for report in reports {
                match report {
                    Ok(report) => emit(out, args.format, args.max_shown, &report, &mut sarif_results)?,
                    Err(error) => {
                        failed += 1;
                        progress.suspend(|| eprintln!("quarry: error: {error} (skipped)"));
                    }
                }
            }
        }
        if args.format == QueryFormat::Sarif {
            sarif::write(out, &queries, &sarif_results)?;
        }
        Ok(())
    });
    progress.finish_and_clear();
    if status != EXIT_OK {
        return status;
    }
    if failed > 0 {
        eprintln!("quarry: {failed} file(s) could not be analysed");
        return EXIT_INPUT_ERROR;
    }
    EXIT_OK
}

pub(crate) fn emit(
    out: &mut dyn Write,
    format: QueryFormat,
    max_shown: usize,
    report: &FileReport,
    sarif_results: &mut Vec<sarif::Result>,
) -> std::io::Result<()> {
    match format {
        QueryFormat::Jsonl => {
            for finding in &report.findings {
                serde_json::to_writer(&mut *out, finding).map_err(std::io::Error::other)?;
                writeln!(out)?;
            }
            Ok(())
        }
        QueryFormat::Pretty => diagnostics::write(out, report, max_shown),
        QueryFormat::Sarif => {
            sarif_results.extend(report.findings.iter().map(sarif::Result::from_finding));
            Ok(())
        }
    }
}

pub(crate) fn select_queries(keys: &[String]) -> Result<Vec<&'static Query>, String> {
    if keys.is_empty() {
        return Ok(all_queries());
    }
    let mut selected: Vec<&'static Query> = Vec::new();
    for key in keys {
        let query = find_query(key).ok_or_else(|| format!("unknown query `{key}` (see `quarry queries`)"))?;
        if !selected.iter().any(|q| q.meta.id == query.meta.id) {
            selected.push(query);
        }
    }
    selected.sort_by_key(|q| q.meta.index);
    Ok(selected)
}

fn progress_bar(total: u64) -> ProgressBar {
    if !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::new(total);
    if let Ok(style) = ProgressStyle::with_template("{spinner} {pos}/{len} files {wide_bar} {per_sec} eta {eta}") {
        bar.set_style(style);
    }
    bar
}
