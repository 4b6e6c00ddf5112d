//! `quarry dataset`: build datasets from corpora.

use std::io::IsTerminal;
use std::path::PathBuf;

use clap::{Args, Subcommand};
use indicatif::{ProgressBar, ProgressStyle};
use quarry_data::codequeries::build::{build, build_shard, BuildOptions, BuildSummary, CutPositives, ShardSummary};
use quarry_data::codequeries::finalize::finalize;
use quarry_data::codequeries::labels::Subtokenizer;
use quarry_data::codequeries::manifest::Manifest;
use quarry_data::codequeries::perturb::{perturb_file, PerturbOptions};
use quarry_data::codequeries::selection::Negatives;
use quarry_data::codequeries::split::Ratios;
use quarry_data::codequeries::split::Split;
use quarry_data::hub::Format;
use quarry_data::shard::Shard;
use quarry_query::all_queries;
use quarry_query::resolve_all;
use quarry_syntax::DEFAULT_MAX_FILE_BYTES;

use super::output::{report_error, EXIT_INPUT_ERROR, EXIT_OK};

/// Arguments of `quarry dataset`.
#[derive(Args)]
pub struct DatasetArgs {
    #[command(subcommand)]
    command: DatasetCommand,
}

#[derive(Subcommand)]
enum DatasetCommand {
    /// Build the CodeQueries dataset from a corpus of Python files.
    Codequeries(CodeQueriesArgs),
    /// Add minor syntax errors to examples, keeping every span correct.
    Perturb(PerturbArgs),
    /// Write the dataset of the shards built with `quarry dataset codequeries|codeqa --shard
    /// I/N` or `quarry inspect generate --shard I/N`: checks that all N are present and
    /// agree, samples negatives (CodeQueries), balances Yes/No (CodeQA) or samples the
    /// tasks' methods (INSPECT) over all of them, and writes the files and the card.
    Finalize(FinalizeArgs),
    /// Build a CodeQA dataset: pairs from the docstrings (Python) or Javadoc
    /// (Java) of a source tree, in the released parallel-file layout.
    Codeqa(CodeqaBuildArgs),
}

#[derive(Args)]
struct CodeqaBuildArgs {
    /// Source tree (files or directories; searched recursively, honouring .gitignore).
    #[arg(long, required = true)]
    corpus: Vec<PathBuf>,
    /// `python` or `java`.
    #[arg(long)]
    lang: String,
    #[command(flatten)]
    parser: super::codeqa::ParserArgs,
    /// Output directory.
    #[arg(long, value_parser = super::folder_arg::folder_output())]
    out: PathBuf,
    /// Seed of the Yes/No choice and the split shuffle.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Most pairs per comment.
    #[arg(long, default_value_t = quarry_data::codeqa::DEFAULT_MAX_PAIRS)]
    max_pairs: usize,
    /// Comments parsed per batch.
    #[arg(value_parser = crate::commands::numbers::size, long, default_value_t = 256)]
    batch: usize,
    #[command(flatten)]
    scale: ScaleArgs,
}

/// How a dataset build is written and split up, shared by `dataset codequeries` and
/// `dataset codeqa`.
#[derive(Args)]
struct ScaleArgs {
    /// `jsonl` (one file per setting and split; CodeQA: the released parallel files) or
    /// `parquet` (the Hugging Face Hub layout, `data/{config}/{split}-{I:05}-of-{N:05}.parquet`,
    /// with a `README.md` dataset card that `datasets.load_dataset(OUT)` reads).
    #[arg(long, default_value = "jsonl")]
    format: Format,
    /// Build only shard I of N (0-based) of the corpus's files, partitioned by a stable hash
    /// of their relative paths; `quarry dataset finalize OUT` then writes the dataset once
    /// the N shards are built. A rerun of a finished shard does nothing.
    #[arg(long)]
    shard: Option<Shard>,
    /// Read the corpus's files from this list (one path relative to the (first) --corpus a
    /// line) instead of walking --corpus.
    #[arg(long)]
    files_from: Option<PathBuf>,
    /// Seconds allowed per file; a file that takes longer is reported and
    /// skipped. 0: no limit. The default is generous so that the output
    /// depends on the input only, not on the machine's speed.
    #[arg(long, default_value_t = 60.0)]
    time_budget: f64,
}

#[derive(Args)]
struct CodeQueriesArgs {
    /// Directory of Python files (searched recursively, honouring .gitignore).
    #[arg(long)]
    corpus: PathBuf,
    /// Output directory.
    #[arg(long, value_parser = super::folder_arg::folder_output())]
    out: PathBuf,
    /// Queries to run (id, exact name or Q-index); repeatable or
    /// comma-separated. Default: all.
    #[arg(long = "select", visible_alias = "query", value_delimiter = ',')]
    queries: Vec<String>,
    /// Hugging Face tokenizer (directory with tokenizer.json) for subtokens and labels.
    #[arg(long)]
    tokenizer: Option<PathBuf>,
    /// Maximum subtoken length; longer inputs are pruned.
    #[arg(value_parser = crate::commands::numbers::length, long, default_value_t = 512)]
    max_len: usize,
    /// Split ratios train,valid,test.
    #[arg(long, default_value = "0.8,0.1,0.1")]
    split: Ratios,
    /// Seed for the split and the budget sample.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Keep at most N ideal training examples per query, half positive, half negative.
    #[arg(long)]
    budget: Option<usize>,
    /// Negatives kept per query and split: `paper` (positives times the query's ratio in
    /// the paper's Tables 6-7, a seeded sample), `all` (every negative found), or one ratio
    /// for every query (e.g. `1.4`).
    #[arg(long, default_value = "paper")]
    negatives: Negatives,
    /// A positive whose answer spans `--max-len` cuts all: `drop` it (counted in the
    /// statistics) or `keep` it as the reference code does (counted all the same).
    #[arg(long, default_value = "drop")]
    cut_positives: CutPositives,
    /// Write gzip-compressed JSON Lines.
    #[arg(long)]
    gzip: bool,
    #[command(flatten)]
    scale: ScaleArgs,
    /// Files per chunk (the unit of resumption).
    #[arg(long, default_value_t = 128)]
    chunk_size: usize,
    /// Skip files larger than this many bytes.
    #[arg(long, default_value_t = DEFAULT_MAX_FILE_BYTES)]
    max_file_bytes: u64,
}

#[derive(Args)]
struct FinalizeArgs {
    /// The output directory the shards were built in (their `--out`).
    dir: PathBuf,
}

#[derive(Args)]
struct PerturbArgs {
    /// Examples (JSON Lines, optionally .gz), e.g. ideal_test.jsonl.
    #[arg(long = "in")]
    input: PathBuf,
    /// Output file (JSON Lines; .gz compresses).
    #[arg(long)]
    out: PathBuf,
    /// Re-subtokenize and relabel with this tokenizer.
    #[arg(long)]
    tokenizer: Option<PathBuf>,
    /// Maximum subtoken length when relabelling.
    #[arg(value_parser = crate::commands::numbers::length, long, default_value_t = 512)]
    max_len: usize,
    /// At most this many edits per example.
    #[arg(long, default_value_t = 3)]
    max_edits: usize,
    /// Attempts per example before it is dropped.
    #[arg(long, default_value_t = 5)]
    retries: usize,
    /// Random seed.
    #[arg(long, default_value_t = 0)]
    seed: u64,
}

/// Runs a dataset subcommand.
pub fn run(args: DatasetArgs) -> i32 {
    match args.command {
        DatasetCommand::Codequeries(args) => codequeries(args),
        DatasetCommand::Perturb(args) => perturb(args),
        DatasetCommand::Codeqa(args) => codeqa(args),
        DatasetCommand::Finalize(args) => finalize_command(args),
    }
}

fn load_tokenizer(path: &Option<PathBuf>) -> Result<Option<Subtokenizer>, String> {
    path.as_ref().map(|p| Subtokenizer::load(p).map_err(|e| e.to_string())).transpose()
}

fn codequeries(args: CodeQueriesArgs) -> i32 {
    let mut queries = match resolve_all(&args.queries) {
        Ok(queries) => queries,
        Err(message) => return report_error(&message),
    };
    if queries.is_empty() {
        queries = all_queries();
    }
    if !args.corpus.is_dir() {
        return report_error(&format!("{}: not a directory", args.corpus.display()));
    }
    let tokenizer = match load_tokenizer(&args.tokenizer) {
        Ok(t) => t,
        Err(e) => return report_error(&e),
    };
    let time_budget = match super::query::time_budget(args.scale.time_budget) {
        Ok(budget) => budget,
        Err(message) => return report_error(&message),
    };
    let options = BuildOptions {
        corpus: args.corpus,
        out: args.out.clone(),
        queries,
        tokenizer,
        max_len: args.max_len,
        ratios: args.split,
        seed: args.seed,
        budget: args.budget,
        negatives: args.negatives,
        cut_positives: args.cut_positives,
        gzip: args.gzip,
        format: args.scale.format,
        shard: args.scale.shard.unwrap_or_default(),
        files_from: args.scale.files_from,
        chunk_size: args.chunk_size,
        max_file_bytes: args.max_file_bytes,
        time_budget,
    };
    let bar = if std::io::stderr().is_terminal() { ProgressBar::new(0) } else { ProgressBar::hidden() };
    if let Ok(style) = ProgressStyle::with_template("{spinner} {pos}/{len} files {wide_bar} {per_sec} eta {eta}") {
        bar.set_style(style);
    }
    let start = std::time::Instant::now();
    let progress = |done: usize, total: usize| {
        bar.set_length(total as u64);
        bar.set_position(done as u64);
    };
    if args.scale.shard.is_some() {
        let result = build_shard(&options, &progress);
        bar.finish_and_clear();
        return match result {
            Ok(shard) => report_shard(&shard, &args.out, start.elapsed().as_secs_f64()),
            Err(e) => report_error(&e.to_string()),
        };
    }
    let result = build(&options, &progress);
    bar.finish_and_clear();
    match result {
        Ok(summary) => report_dataset(&summary, &args.out, Some(args.max_len), start.elapsed().as_secs_f64()),
        Err(e) => report_error(&e.to_string()),
    }
}

/// Prints what a shard built.
fn report_shard(shard: &ShardSummary, out: &std::path::Path, seconds: f64) -> i32 {
    let manifest = &shard.manifest;
    if shard.already_done {
        eprintln!(
            "quarry: shard {} is built already ({}); nothing to do",
            manifest.shard,
            Manifest::path(out, manifest.shard).display()
        );
        return EXIT_OK;
    }
    for failure in &manifest.failed_files {
        crate::commands::output::skipped(&failure.to_string());
    }
    let candidates: usize = manifest.counts.values().sum();
    eprintln!(
        "quarry: shard {}: {} of {} files in {seconds:.1} s, {} skipped, {} chunk(s) resumed, {candidates} candidate \
         rows; once every shard is built: quarry dataset finalize {}",
        manifest.shard,
        manifest.inputs.len(),
        manifest.corpus_files,
        manifest.failed_files.len(),
        shard.resumed_chunks,
        out.display()
    );
    EXIT_OK
}

/// Prints the statistics, the warnings and the sizes of a written dataset.
fn report_dataset(summary: &BuildSummary, out: &std::path::Path, max_len: Option<usize>, seconds: f64) -> i32 {
    if summary.unchanged {
        eprintln!(
            "quarry: {} is built already from the same files and options; nothing to do (its statistics follow)",
            out.display()
        );
    }
    for failure in &summary.failed_files {
        crate::commands::output::skipped(&failure.to_string());
    }
    print!("{}", summary.stats.render());
    warn_about(summary, max_len);
    eprintln!(
        "quarry: {} files in {seconds:.1} s ({:.0} files/s), {} skipped, {} chunk(s) resumed; \
         {} bytes written ({:.0} per file); output in {}",
        summary.files,
        summary.files as f64 / seconds.max(1e-9),
        summary.failed_files.len(),
        summary.resumed_chunks,
        summary.bytes_written,
        summary.bytes_per_file,
        out.display()
    );
    EXIT_OK
}

fn finalize_command(args: FinalizeArgs) -> i32 {
    let start = std::time::Instant::now();
    if quarry_probe::shards::has_manifests(&args.dir) {
        return match quarry_probe::shards::finalize(&args.dir) {
            Ok(done) => {
                super::inspect::report_corpus(&done.corpus);
                for (generated, path) in &done.datasets {
                    super::inspect::print_dataset(generated, path);
                }
                for (task, why) in &done.failures {
                    crate::commands::output::error(&format!("{task}: {why}"));
                }
                if done.failures.is_empty() {
                    EXIT_OK
                } else {
                    EXIT_INPUT_ERROR
                }
            }
            Err(e) => report_error(&e.to_string()),
        };
    }
    if quarry_data::codeqa::shards::has_manifests(&args.dir) {
        return match quarry_data::codeqa::shards::finalize(&args.dir) {
            Ok(summary) => report_codeqa(&summary, &args.dir, start.elapsed().as_secs_f64()),
            Err(e) => report_error(&e.to_string()),
        };
    }
    // The length the shards pruned to, for the warnings about cut spans.
    let max_len = quarry_data::codequeries::manifest::read_all(&args.dir)
        .ok()
        .and_then(|found| found.first().map(|(_, manifest)| manifest.settings.max_len));
    match finalize(&args.dir) {
        Ok(Some(summary)) => report_dataset(&summary, &args.dir, max_len, start.elapsed().as_secs_f64()),
        Ok(None) => {
            eprintln!("quarry: {} is finalized already from the same shards; nothing to do", args.dir.display());
            EXIT_OK
        }
        Err(e) => report_error(&e.to_string()),
    }
}

/// Warnings a researcher must see: spans cut by the maximum length, empty splits, and
/// splits without positives (whose exact match would measure negatives only).
fn warn_about(summary: &BuildSummary, max_len: Option<usize>) {
    let stats = &summary.stats;
    let all_cut: usize = stats.cut.values().map(|c| c.positives_all_cut).sum();
    let dropped: usize = stats.cut.values().map(|c| c.positives_dropped).sum();
    if stats.spans_cut() > 0 || all_cut > 0 {
        crate::commands::output::warning(&format!(
            "--max-len {} cut {} answer/fact span(s); {all_cut} positive example(s) lost \
             every answer span ({dropped} dropped, {} kept as positives without answers)",
            max_len.map_or_else(|| "N".to_string(), |n| n.to_string()),
            stats.spans_cut(),
            all_cut - dropped
        ));
    }
    let any: usize = stats.splits.values().map(|c| c.iter().sum::<usize>()).sum();
    for split in Split::ALL {
        let written: usize = stats.splits.get(split.name()).map_or(0, |c| c.iter().sum());
        if written == 0 && any > 0 {
            crate::commands::output::warning(&format!(
                "the {} split is empty: no example of the corpus's {} file(s) fell into it (files are \
                 split by a hash of their path, see --split); the dataset card leaves it out",
                split.name(),
                summary.files
            ));
        } else if stats.positives(split) == 0 {
            crate::commands::output::warning(&format!(
                "the {} split has no positive example ({written} negatives): its exact match \
                 would measure negatives only",
                split.name()
            ));
        }
    }
}

fn codeqa(args: CodeqaBuildArgs) -> i32 {
    let language = match super::codeqa::language(&args.lang) {
        Ok(l) => l,
        Err(e) => return report_error(&e),
    };
    let time_budget = match super::query::time_budget(args.scale.time_budget) {
        Ok(budget) => budget,
        Err(message) => return report_error(&message),
    };
    let mut parser = match args.parser.load() {
        Ok(p) => p,
        Err(e) => return report_error(&e),
    };
    let options = quarry_data::codeqa::dataset::BuildOptions {
        corpus: args.corpus,
        language,
        out: args.out.clone(),
        seed: args.seed,
        max_pairs: args.max_pairs,
        batch: args.batch,
        format: args.scale.format,
        files_from: args.scale.files_from,
        parser: args.parser.describe(),
        time_budget,
    };
    let bar = if std::io::stderr().is_terminal() { ProgressBar::new(0) } else { ProgressBar::hidden() };
    if let Ok(style) = ProgressStyle::with_template("{spinner} {pos}/{len} comments {wide_bar} {per_sec} eta {eta}") {
        bar.set_style(style);
    }
    let start = std::time::Instant::now();
    let progress = |done: usize, total: usize| {
        bar.set_length(total as u64);
        bar.set_position(done as u64);
    };
    if let Some(shard) = args.scale.shard {
        let result = quarry_data::codeqa::shards::build_shard(&options, shard, parser.as_mut(), &progress);
        bar.finish_and_clear();
        return match result {
            Ok(run) if run.already_done => {
                eprintln!("quarry: shard {shard} is built already with the same options; nothing to do");
                EXIT_OK
            }
            Ok(run) => {
                for bad in &run.manifest.bad_files {
                    crate::commands::output::skipped(bad);
                }
                let count = |key: &str| run.manifest.counts.get(key).copied().unwrap_or(0);
                eprintln!(
                    "quarry: shard {shard}: {} files, {} documented functions, {} pairs ({} Yes, {} No) in {:.1} s; \
                     `quarry dataset finalize {}` once all {} shards are built",
                    count("files"),
                    count("functions"),
                    count("pairs"),
                    count("yes"),
                    count("no"),
                    start.elapsed().as_secs_f64(),
                    args.out.display(),
                    shard.count
                );
                EXIT_OK
            }
            Err(e) => report_error(&e.to_string()),
        };
    }
    let result = quarry_data::codeqa::shards::build(&options, parser.as_mut(), &progress);
    bar.finish_and_clear();
    match result {
        Ok(s) => report_codeqa(&s, &args.out, start.elapsed().as_secs_f64()),
        Err(e) => report_error(&e.to_string()),
    }
}

/// Prints what a CodeQA build wrote, after the files it skipped.
fn report_codeqa(s: &quarry_data::codeqa::dataset::BuildSummary, out: &std::path::Path, seconds: f64) -> i32 {
    for bad in &s.bad_files {
        crate::commands::output::skipped(bad);
    }
    eprintln!(
        "quarry: {} files, {} documented functions, {} pairs generated ({} Yes, {} No, {} comments unparsed); written train {} / dev {} / test {} in {seconds:.1} s; output in {}",
        s.files,
        s.functions,
        s.pairs_generated,
        s.yes,
        s.no,
        s.parse_errors,
        s.split_sizes[0],
        s.split_sizes[1],
        s.split_sizes[2],
        out.display()
    );
    EXIT_OK
}

fn perturb(args: PerturbArgs) -> i32 {
    let tokenizer = match load_tokenizer(&args.tokenizer) {
        Ok(t) => t,
        Err(e) => return report_error(&e),
    };
    let options = PerturbOptions { max_edits: args.max_edits, retries: args.retries };
    let labels = tokenizer.as_ref().map(|t| (t, args.max_len));
    let result = perturb_file(&args.input, &args.out, args.seed, &options, labels, &mut |e| {
        crate::commands::output::skipped(&e.to_string());
        Ok(())
    });
    let s = match result {
        Ok(s) => s,
        Err(e) => return report_error(&e.to_string()),
    };
    eprintln!(
        "quarry: {} examples perturbed, {} dropped (no valid perturbation), {} unreadable",
        s.perturbed, s.dropped, s.bad
    );
    if s.bad > 0 {
        EXIT_INPUT_ERROR
    } else {
        EXIT_OK
    }
}
