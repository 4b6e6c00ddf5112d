//! `quarry query`: runs queries over Python files and directories, in
//! parallel, and prints findings as diagnostics, JSON Lines or SARIF.
//!
//! The command only parses options and prints: configuration, suppression
//! comments, baselines, triage and the output formats are in
//! `quarry_workspace::{config, check, suppression, baseline, triage, output}`; the
//! printing itself is in `query_print`. The analysis is one library call,
//! `quarry_query::run::analyze_files_in` over the run's project (and
//! `analyze_source_within` for standard input).

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::Instant;

use clap::Args;
use quarry_query::cache::run::analyze_files_cached;
use quarry_query::project::Project;
use quarry_query::report::analyze_source_within;
use quarry_query::run::analyze_files_in;
use quarry_query::{find_query, Query};
use quarry_syntax::{SourceFile, DEFAULT_TIME_BUDGET};
use quarry_workspace::baseline::{Baseline, BaselineWriter};
use quarry_workspace::check::{per_file_ignore_option, polarities, settings_for, ConfigChoice, Plan, CHUNK};
use quarry_workspace::config::{selected_queries, Settings};
use quarry_workspace::output::{Palette, Tally, DEFAULT_MAX_FINDINGS_SHOWN};
use quarry_workspace::triage::Policy;

use super::output::{report_error, EXIT_INPUT_ERROR, EXIT_OK};
use super::query_print::{colour, progress_bar, ColorChoice, PrintOptions, Printer, Sink};
pub(crate) use super::query_print::{emit, Collected, QueryFormat};

/// Exit code of a run with findings (ruff's).
pub const EXIT_FINDINGS: i32 = 1;

/// Arguments of `quarry query`.
#[derive(Args)]
pub struct QueryArgs {
    /// Python files and directories (searched recursively, honouring .gitignore
    /// and `exclude`); `-` reads one file from standard input. Default: `.`.
    paths: Vec<PathBuf>,
    /// Queries to run, by id, exact name, paper index (Q16), CodeQL id
    /// (py/unused-import) or ruff code (F401); repeatable or comma-separated.
    /// Default: all, or the configuration's `select`.
    #[arg(long = "select", visible_alias = "query", value_delimiter = ',')]
    select: Vec<String>,
    /// Queries to run in addition to `--select`.
    #[arg(long, value_delimiter = ',')]
    extend_select: Vec<String>,
    /// Queries not to run.
    #[arg(long, value_delimiter = ',')]
    ignore: Vec<String>,
    /// Path patterns left out of directory walks, replacing the defaults
    /// (.venv, venv, node_modules, build, dist, __pypackages__, .git, ...).
    #[arg(long, value_delimiter = ',')]
    exclude: Option<Vec<String>>,
    /// Path patterns left out in addition to `--exclude`.
    #[arg(long, value_delimiter = ',')]
    extend_exclude: Vec<String>,
    /// Apply the excludes to paths named on the command line too.
    #[arg(long)]
    force_exclude: bool,
    /// Queries not reported in files matching a pattern: `PATTERN:ID[,ID]`; repeatable.
    #[arg(long)]
    per_file_ignores: Vec<String>,
    /// The Python version the code targets (`3.12` or `py312`); drops
    /// queries that do not apply to it.
    #[arg(long)]
    python_version: Option<String>,
    /// Skip files larger than this many bytes.
    #[arg(long)]
    max_file_bytes: Option<u64>,
    /// The configuration file (`quarry.toml` or a `pyproject.toml` with
    /// `[tool.quarry]`); default: the nearest one above the first path.
    #[arg(long, conflicts_with = "isolated")]
    config: Option<PathBuf>,
    /// Read no configuration file.
    #[arg(long)]
    isolated: bool,
    /// Report the negative form (plausible but not actual answers) instead of the positive.
    #[arg(long, conflicts_with = "both")]
    negative: bool,
    /// Report both the positive and the negative form.
    #[arg(long)]
    both: bool,
    /// Output format.
    #[arg(long, visible_alias = "output-format", value_enum, default_value_t = QueryFormat::Pretty)]
    format: QueryFormat,
    /// Write the output to this file instead of standard output.
    #[arg(long, short = 'o', visible_alias = "out")]
    output_file: Option<PathBuf>,
    /// Findings in the baseline FILE are not reported; only new ones fail the run.
    #[arg(long, value_name = "FILE")]
    baseline: Option<PathBuf>,
    /// Write every current finding to the `--baseline` file (exit code 0).
    #[arg(long, requires = "baseline")]
    write_baseline: bool,
    /// Report `# noqa: ID` / `# codeql[ID]` / `# lgtm[ID]` comments that
    /// suppressed nothing (they fail the run, like ruff's RUF100).
    #[arg(long)]
    report_unused_suppressions: bool,
    /// Ignore every suppression comment.
    #[arg(long)]
    ignore_noqa: bool,
    /// Exit with 0 even when there are findings.
    #[arg(long)]
    exit_zero: bool,
    /// Print findings only: no progress bar, no summary.
    #[arg(long, short = 'q')]
    quiet: bool,
    /// Print the number of findings per query instead of the findings.
    #[arg(long)]
    statistics: bool,
    /// When to use colours.
    #[arg(long, value_enum, default_value_t = ColorChoice::Auto)]
    color: ColorChoice,
    /// The file name standard input (`-`) stands for.
    #[arg(long)]
    stdin_filename: Option<PathBuf>,
    /// Seconds allowed per file for parsing and queries; a file that takes
    /// longer is reported and skipped. 0: no limit.
    #[arg(long, default_value_t = DEFAULT_TIME_BUDGET.as_secs_f64())]
    time_budget: f64,
    /// Pretty output: findings shown per file; the rest are counted.
    #[arg(long, default_value_t = DEFAULT_MAX_FINDINGS_SHOWN)]
    max_shown: usize,
    /// Analyse every file again: neither read nor write the analysis cache
    /// (`.quarry_cache/` beside the configuration, or `QUARRY_CACHE_DIR`).
    #[arg(long)]
    no_cache: bool,
    /// Worker threads (default: all cores).
    #[arg(value_parser = crate::commands::numbers::jobs, long)]
    jobs: Option<usize>,
}

/// A `--time-budget` in seconds as a budget (none for 0).
pub(crate) fn time_budget(seconds: f64) -> Result<Option<std::time::Duration>, String> {
    quarry_syntax::time_budget_from_secs(seconds).map_err(|e| format!("--time-budget: {e}"))
}

/// Rewrites `-q QUERY` (the old spelling of `--select`) to `--select QUERY`
/// with a deprecation note: `-q` means `--quiet` across the CLI. In
/// `quarry query` a value after `-q` is taken as a query only when it names
/// one and is no path; in the commands without `--quiet` (`predict`,
/// `dataset codequeries`, `experiment codequeries`) `-q` is always the old
/// `--query`.
pub fn rewrite_legacy_args(args: Vec<OsString>) -> Vec<OsString> {
    let word = |i: usize| args.get(i).and_then(|a| a.to_str());
    let without_quiet =
        matches!((word(1), word(2)), (Some("predict"), _) | (Some("dataset" | "experiment"), Some("codequeries")));
    if !without_quiet && word(1) != Some("query") {
        return args;
    }
    let mut out = Vec::with_capacity(args.len());
    let mut iter = args.into_iter().peekable();
    while let Some(arg) = iter.next() {
        let legacy = arg == "-q"
            && iter.peek().and_then(|v| v.to_str()).is_some_and(|v| {
                without_quiet || (!v.starts_with('-') && find_query(v).is_some() && !Path::new(v).exists())
            });
        if legacy {
            let value = iter.next().unwrap_or_default();
            crate::commands::output::warning(&format!(
                "`-q {}` is deprecated: `-q` now means --quiet; use `--select {}`",
                value.to_string_lossy(),
                value.to_string_lossy()
            ));
            out.push(OsString::from("--select"));
            out.push(value);
        } else {
            out.push(arg);
        }
    }
    out
}

/// What is analysed: files found on disk, or standard input.
enum Input {
    Files(Vec<PathBuf>),
    Stdin(SourceFile),
}

/// Runs the selected queries over every file and prints the findings.
pub fn run(args: QueryArgs) -> i32 {
    let started = Instant::now();
    match run_inner(&args, started) {
        Ok(code) => code,
        Err(message) => report_error(&message),
    }
}

fn run_inner(args: &QueryArgs, started: Instant) -> Result<i32, String> {
    let stdin = args.paths.iter().any(|p| p.as_os_str() == "-");
    if stdin && args.paths.len() > 1 {
        return Err("`-` (standard input) cannot be combined with other paths".into());
    }
    if args.stdin_filename.is_some() && !stdin {
        return Err("--stdin-filename needs `-` as the path".into());
    }
    let paths: Vec<PathBuf> = if args.paths.is_empty() { vec![PathBuf::from(".")] } else { args.paths.clone() };
    let anchor = match (&args.stdin_filename, stdin) {
        (Some(name), _) => name.clone(),
        (None, true) => PathBuf::from("."),
        (None, false) => paths[0].clone(),
    };
    let choice = ConfigChoice::from_options(args.config.as_deref(), args.isolated);
    let (settings, root) = settings_for(&choice, &anchor, command_line_settings(args)?)?;
    let plan = plan(args, &settings, &root)?;
    if let Some(jobs) = args.jobs {
        rayon::ThreadPoolBuilder::new()
            .num_threads(jobs)
            .build_global()
            .map_err(|e| format!("--jobs {jobs}: cannot start the threads: {e}"))?;
    }
    let mut failed = 0usize;
    let force_exclude = plan.force_exclude;
    let input = if stdin {
        let bytes = quarry_stdx::read::read_stdin(plan.load.max_file_bytes).map_err(|e| {
            let hint = if e.source.kind() == std::io::ErrorKind::InvalidData { " (--max-file-bytes)" } else { "" };
            format!("cannot read standard input: {}{hint}", e.source)
        })?;
        let name = args.stdin_filename.clone().unwrap_or_else(|| PathBuf::from("-"));
        if force_exclude && args.stdin_filename.is_some() && plan.exclude.matches_within_root(&name) {
            Input::Files(Vec::new())
        } else {
            Input::Stdin(SourceFile::from_bytes(name, bytes).map_err(|e| e.to_string())?)
        }
    } else {
        let (files, walk_errors) = plan.files(&paths);
        failed += walk_errors.len();
        for error in &walk_errors {
            crate::commands::output::error(error);
        }
        if files.is_empty() && walk_errors.is_empty() && !force_exclude {
            let shown: Vec<String> = paths.iter().map(|p| p.display().to_string()).collect();
            crate::commands::output::warning(&format!("no Python files found under {}", shown.join(", ")));
        }
        Input::Files(files)
    };
    let mut baseline = match (&args.baseline, args.write_baseline) {
        (Some(path), false) => Some(Baseline::load(path)?),
        _ => None,
    };
    let mut writer = args.baseline.as_ref().filter(|_| args.write_baseline).map(|p| BaselineWriter::new(p));
    let mut policy = Policy {
        per_file_ignores: &plan.per_file_ignores,
        honour_comments: !args.ignore_noqa,
        baseline: baseline.as_mut(),
        writer: writer.as_mut(),
        queries: &plan.queries,
    };
    let palette = Palette::new(colour(args.color, args.output_file.is_some()));
    let mut sink = Sink::open(args.output_file.as_deref())?;
    let total = match &input {
        Input::Files(files) => files.len(),
        Input::Stdin(_) => 1,
    };
    let cache = match (&input, args.no_cache) {
        (Input::Files(_), false) => quarry_workspace::cache_dir::open(&root)
            .inspect_err(|e| crate::commands::output::warning(&format!("no analysis cache: {e}")))
            .ok(),
        _ => None,
    };
    let progress = progress_bar(total as u64, args.quiet);
    let mut tally = Tally::default();
    // Paths the walk could not read (loops, devices) count among the skipped files.
    (0..failed).for_each(|_| tally.add_failed());
    let mut collected = Collected::default();
    let options = PrintOptions {
        format: args.format,
        max_shown: args.max_shown,
        statistics: args.statistics,
        quiet: args.quiet,
        report_unused: args.report_unused_suppressions,
    };
    let mut printer = Printer { options, palette, tally: &mut tally, collected: &mut collected };
    let written: std::io::Result<()> = (|| {
        match input {
            Input::Stdin(source) => {
                let report = analyze_source_within(source, &plan.queries, &plan.polarities, &plan.limits);
                progress.inc(1);
                printer.handle(&mut sink, &progress, &mut policy, report, &mut failed)?;
            }
            Input::Files(files) => {
                let run = plan.run_options(CHUNK);
                let project = Project::new(&files, &plan.load);
                let each = |_: &Path, report| printer.handle(&mut sink, &progress, &mut policy, report, &mut failed);
                match &cache {
                    Some(cache) => {
                        let counts = analyze_files_cached(&project, &files, &run, cache, &|_| progress.inc(1), each)?;
                        if counts.write_errors > 0 && !args.quiet {
                            crate::commands::output::warning(&format!(
                                "{} analysis cache entries could not be written",
                                counts.write_errors
                            ));
                        }
                    }
                    None => analyze_files_in(&project, &files, &run, &|_| progress.inc(1), each)?,
                }
            }
        }
        progress.finish_and_clear();
        printer.finish(&mut sink, &plan.queries, args.baseline.is_some(), started)
    })();
    progress.finish_and_clear();
    let sink_name = sink.name();
    if let Err(error) = written.and_then(|()| sink.finish()) {
        if error.kind() != std::io::ErrorKind::BrokenPipe {
            return Err(format!("cannot write {sink_name}: {error}"));
        }
    }
    if let (Some(writer), Some(path)) = (&writer, &args.baseline) {
        writer.write()?;
        if !args.quiet {
            eprintln!("quarry: wrote {} finding(s) to the baseline {}", writer.len(), path.display());
        }
    }
    if let (Some(baseline), Some(path)) = (&baseline, &args.baseline) {
        let gone = baseline.unmatched();
        if gone > 0 && !args.quiet {
            crate::commands::output::note(&format!(
                "{gone} baseline finding(s) are gone; `--write-baseline` shrinks {}",
                path.display()
            ));
        }
    }
    if failed > 0 {
        crate::commands::output::error(&format!("{failed} file(s) could not be analysed"));
        return Ok(EXIT_INPUT_ERROR);
    }
    let failing = tally.reported_positive + if args.report_unused_suppressions { tally.unused_suppressions } else { 0 };
    Ok(if failing > 0 && !args.exit_zero { EXIT_FINDINGS } else { EXIT_OK })
}

/// The command-line options that are also configuration settings.
fn command_line_settings(args: &QueryArgs) -> Result<Settings, String> {
    let non_empty = |values: &[String]| (!values.is_empty()).then(|| values.to_vec());
    let mut per_file = std::collections::BTreeMap::new();
    for entry in &args.per_file_ignores {
        let (pattern, ids) = per_file_ignore_option(entry)?;
        per_file.insert(pattern, ids);
    }
    Ok(Settings {
        select: non_empty(&args.select),
        extend_select: non_empty(&args.extend_select),
        ignore: non_empty(&args.ignore),
        exclude: args.exclude.clone(),
        extend_exclude: non_empty(&args.extend_exclude),
        force_exclude: args.force_exclude.then_some(true),
        per_file_ignores: (!per_file.is_empty()).then_some(per_file),
        python_version: args.python_version.clone(),
        max_file_bytes: args.max_file_bytes,
    })
}

fn plan(args: &QueryArgs, settings: &Settings, root: &Path) -> Result<Plan, String> {
    if args.statistics && args.format == QueryFormat::Sarif {
        return Err("--statistics prints a table or JSON, not SARIF".into());
    }
    Plan::new(settings, root, polarities(args.negative, args.both), time_budget(args.time_budget)?)
}

/// The queries named by `keys` (all when none), in registry order.
pub(crate) fn select_queries(keys: &[String]) -> Result<Vec<&'static Query>, String> {
    let select = (!keys.is_empty()).then(|| keys.to_vec());
    selected_queries(&Settings { select, ..Settings::default() })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rewritten(args: &[&str]) -> Vec<String> {
        let args = args.iter().map(OsString::from).collect();
        rewrite_legacy_args(args).into_iter().map(|a| a.to_string_lossy().into_owned()).collect()
    }

    #[test]
    fn dash_q_is_quiet_and_the_old_query_spelling_becomes_select() {
        // `quarry query`: `-q` before a query name is the old spelling; alone it is --quiet.
        assert_eq!(
            rewritten(&["quarry", "query", "a.py", "-q", "Q20"]),
            ["quarry", "query", "a.py", "--select", "Q20"]
        );
        assert_eq!(rewritten(&["quarry", "query", ".", "-q"]), ["quarry", "query", ".", "-q"]);
        // Commands without --quiet: `-q VALUE` is always the old --query.
        for command in [&["dataset", "codequeries"][..], &["experiment", "codequeries"], &["predict"]] {
            let args = [&["quarry"][..], command, &["-q", "Unused import"]].concat();
            let expected = [&["quarry"][..], command, &["--select", "Unused import"]].concat();
            assert_eq!(rewritten(&args), expected);
        }
        // Other commands are left alone.
        assert_eq!(rewritten(&["quarry", "metrics", "-q", "x"]), ["quarry", "metrics", "-q", "x"]);
    }
}
