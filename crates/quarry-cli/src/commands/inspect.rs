//! `quarry inspect`: INSPECT probing datasets (label checking, generation).

use std::path::PathBuf;

use clap::ValueEnum;
use clap::{Args, Subcommand};
use quarry_data::shard::Shard;
use quarry_probe::corpus::{collect_listed, CorpusLimits};
use quarry_probe::generate::{generate, GenerateConfig};
use quarry_probe::hub::{write_generated, DatasetFormat};
use quarry_probe::shards::{build_shard, Settings};
use quarry_probe::{check_labels_with, LabelCheck, NptLabels, Task};
use serde::Serialize;

use super::input::Format;
use super::output::{report_error, with_stdout, write_json};

/// Arguments of `quarry inspect`.
#[derive(Args)]
pub struct InspectArgs {
    #[command(subcommand)]
    command: InspectCommand,
}

#[derive(Subcommand)]
enum InspectCommand {
    /// Recompute the labels of a dataset of a deterministic task (LEN, OCU, VCU, CSC, MXN, CPX, NPT) and compare.
    Label(LabelArgs),
    /// Generate task datasets from Java methods (a folder of .java files or a JDK src.zip).
    Generate(GenerateArgs),
}

/// How NPT labels are written.
#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum NptScheme {
    /// Exact NPath values 1-10, as in INSPECT's released files.
    Exact,
    /// The paper's bins: 1, 2, 3, 4-6, 7-8, 9-10, 11-15, 16-20, 21-30, 31-100.
    Binned,
}

impl NptScheme {
    fn labels(self) -> NptLabels {
        match self {
            NptScheme::Exact => NptLabels::Exact,
            NptScheme::Binned => NptLabels::Binned,
        }
    }
}

/// Arguments of `quarry inspect generate`.
#[derive(Args)]
struct GenerateArgs {
    /// A folder of .java files or a zip archive of them (such as a JDK's lib/src.zip).
    #[arg(long)]
    corpus: PathBuf,
    /// Task code, or `all`.
    #[arg(long)]
    task: String,
    /// Samples per dataset, split equally over the classes.
    #[arg(value_parser = crate::commands::numbers::amount, long, default_value_t = 1000)]
    size: usize,
    /// Output folder; files go to DIR/datasets_TASK/TASK_ORIG_<size>.txt.
    #[arg(long, value_parser = super::folder_arg::folder_output())]
    out: PathBuf,
    /// Seed of every random choice.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// NPT labels.
    #[arg(long, value_enum, default_value_t = NptScheme::Binned)]
    npt_labels: NptScheme,
    /// Read at most this many files of the corpus.
    #[arg(long)]
    max_files: Option<usize>,
    /// `txt` (INSPECT's format, `OUT/datasets_TASK/TASK_ORIG_<size>.txt`) or `parquet`
    /// (the Hugging Face Hub layout, `OUT/data/TASK/{split}-00000-of-00001.parquet`, with a
    /// dataset card; one config per task).
    #[arg(long, default_value = "txt")]
    format: DatasetFormat,
    /// Read the corpus's files from this list (one path relative to --corpus, or one zip
    /// member name, a line) instead of all of them.
    #[arg(long)]
    files_from: Option<PathBuf>,
    /// Read only shard I of N (0-based) of the corpus's files (a stable hash of their
    /// names); `quarry dataset finalize OUT` then merges the N shards and generates. A
    /// rerun of a finished shard does nothing.
    #[arg(long)]
    shard: Option<Shard>,
}

/// Arguments of `quarry inspect label`.
#[derive(Args)]
struct LabelArgs {
    /// Task code.
    #[arg(long)]
    task: String,
    /// Dataset file in INSPECT's format (`split<TAB>label<TAB>tokens`).
    #[arg(long)]
    data: PathBuf,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Pretty)]
    format: Format,
    /// NPT labels of the file.
    #[arg(long, value_enum, default_value_t = NptScheme::Exact)]
    npt_labels: NptScheme,
}

/// Runs `quarry inspect`.
pub fn run(args: InspectArgs) -> i32 {
    match args.command {
        InspectCommand::Label(args) => label(args),
        InspectCommand::Generate(args) => generate_datasets(args),
    }
}

fn generate_datasets(args: GenerateArgs) -> i32 {
    let tasks: Vec<Task> = if args.task.eq_ignore_ascii_case("all") {
        Task::ALL.to_vec()
    } else {
        match args.task.parse() {
            Ok(task) => vec![task],
            Err(e) => return report_error(&format!("{e}")),
        }
    };
    if args.size == 0 {
        return report_error("--size must be positive");
    }
    let mut limits = CorpusLimits::default();
    if let Some(max) = args.max_files {
        if args.shard.is_some() {
            return report_error(
                "--max-files counts files in reading order, which shards do not share; leave it out with --shard",
            );
        }
        limits.max_files = max;
    }
    eprintln!("quarry: reading {} ...", args.corpus.display());
    let show_progress = std::io::IsTerminal::is_terminal(&std::io::stderr());
    let mut progress = |files: usize| {
        if show_progress && files.checked_rem(100) == Some(0) {
            eprint!("\r{files} files read");
        }
    };
    if let Some(shard) = args.shard {
        let settings = Settings {
            tasks: tasks.iter().map(|t| t.code().to_string()).collect(),
            size: args.size,
            seed: args.seed,
            npt_labels: args.npt_labels.labels(),
            format: args.format,
            corpus: args.corpus.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default(),
            max_method_tokens: limits.max_method_tokens,
            max_file_bytes: limits.max_file_bytes,
            files_from: match &args.files_from {
                None => None,
                Some(list) => match std::fs::read(list) {
                    Ok(bytes) => Some(format!("{:016x}", quarry_stdx::rng::stable_hash_bytes(&bytes))),
                    Err(e) => return report_error(&format!("{}: {e}", list.display())),
                },
            },
        };
        return match build_shard(&args.corpus, &args.out, shard, &settings, args.files_from.as_deref(), &mut progress) {
            Ok((_, true)) => {
                eprintln!("quarry: shard {shard} is built already with the same options; nothing to do");
                super::output::EXIT_OK
            }
            Ok((manifest, false)) => {
                eprintln!(
                    "quarry: shard {shard}: {} files, {} methods; `quarry dataset finalize {}` once all {} shards are built",
                    manifest.files,
                    manifest.methods,
                    args.out.display(),
                    shard.count
                );
                super::output::EXIT_OK
            }
            Err(e) => report_error(&e.to_string()),
        };
    }
    let corpus = match collect_listed(&args.corpus, &limits, args.files_from.as_deref(), &mut progress) {
        Ok(corpus) => corpus,
        Err(e) => return report_error(&e.to_string()),
    };
    if show_progress {
        eprint!("\r");
    }
    report_corpus(&corpus);
    if corpus.methods.is_empty() {
        return report_error(&format!("{}: no Java method found", args.corpus.display()));
    }
    let config = GenerateConfig { size: args.size, seed: args.seed, npt_labels: args.npt_labels.labels() };
    let mut code = super::output::EXIT_OK;
    for task in tasks {
        let written = generate(task, &corpus, &config).and_then(|generated| {
            write_generated(&args.out, task, args.size, args.format, &generated.samples).map(|path| (generated, path))
        });
        match written {
            Ok((generated, path)) => print_dataset(&generated, &path),
            Err(e) => code = report_error(&format!("{task}: {e}")),
        }
    }
    code
}

/// Prints what was read of a corpus.
pub fn report_corpus(corpus: &quarry_probe::corpus::Corpus) {
    eprintln!(
        "{} files, {} methods, {} identifiers, {} unreadable files",
        corpus.files,
        corpus.methods.len(),
        corpus.identifiers.len(),
        corpus.errors.len()
    );
}

/// Prints one generated dataset: task, where it went, samples and the classes left short.
pub fn print_dataset(generated: &quarry_probe::generate::Generated, path: &std::path::Path) {
    let short: Vec<String> =
        generated.shortfalls.iter().map(|s| format!("{} {}/{}", s.label, s.found, s.wanted)).collect();
    println!(
        "{}\t{}\t{} samples{}",
        generated.task,
        path.display(),
        generated.samples.len(),
        if short.is_empty() { String::new() } else { format!("\tshort: {}", short.join(", ")) }
    );
}

#[derive(Serialize)]
struct LabelDocument<'a> {
    file: String,
    #[serde(flatten)]
    check: &'a LabelCheck,
}

fn label(args: LabelArgs) -> i32 {
    let task: Task = match args.task.parse() {
        Ok(task) => task,
        Err(e) => return report_error(&e.to_string()),
    };
    let dataset = match quarry_probe::hub::read_any(&args.data) {
        Ok(dataset) => dataset,
        Err(e) => return report_error(&e.to_string()),
    };
    if dataset.samples.is_empty() {
        return report_error(&format!("{}: no valid sample", args.data.display()));
    }
    let check = match check_labels_with(task, &dataset, args.npt_labels.labels()) {
        Ok(check) => check,
        Err(e) => return report_error(&format!("{}: {e}", args.data.display())),
    };
    let file = args.data.display().to_string();
    with_stdout(|out| match args.format {
        Format::Json => write_json(out, &LabelDocument { file: file.clone(), check: &check }),
        Format::Pretty => out.write_all(check.to_text(&file, &dataset).as_bytes()),
    })
}
