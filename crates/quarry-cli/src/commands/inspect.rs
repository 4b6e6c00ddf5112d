//! `quarry inspect`: INSPECT probing datasets (label checking, generation).

use std::path::PathBuf;

use clap::ValueEnum;
use clap::{Args, Subcommand};
use quarry_probe::corpus::{collect_with_progress, CorpusLimits};
use quarry_probe::dataset::write_dataset_file;
use quarry_probe::generate::{dataset_path, generate, GenerateConfig};
use quarry_probe::{check_labels_with, Dataset, LabelCheck, NptLabels, Task};
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

/// The file format of generated datasets.
#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum DatasetFormat {
    /// INSPECT's released text format, `DIR/datasets_TASK/TASK_ORIG_<size>.txt`.
    Txt,
    /// The Hugging Face Hub layout, `DIR/data/TASK/{train,validation,test}-00000-of-00001.parquet`,
    /// with a `README.md` dataset card (one config per task).
    Parquet,
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
    #[arg(long)]
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
    /// `txt` (INSPECT's format) or `parquet` (the Hugging Face Hub layout).
    #[arg(long, value_enum, default_value_t = DatasetFormat::Txt)]
    format: DatasetFormat,
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
        limits.max_files = max;
    }
    eprintln!("quarry: reading {} ...", args.corpus.display());
    let show_progress = std::io::IsTerminal::is_terminal(&std::io::stderr());
    let mut progress = |files: usize| {
        if show_progress && files.checked_rem(100) == Some(0) {
            eprint!("\r{files} files read");
        }
    };
    let corpus = match collect_with_progress(&args.corpus, &limits, &mut progress) {
        Ok(corpus) => corpus,
        Err(e) => return report_error(&e.to_string()),
    };
    if show_progress {
        eprint!("\r");
    }
    eprintln!(
        "{} files, {} methods, {} identifiers, {} unreadable files",
        corpus.files,
        corpus.methods.len(),
        corpus.identifiers.len(),
        corpus.errors.len()
    );
    if corpus.methods.is_empty() {
        return report_error(&format!("{}: no Java method found", args.corpus.display()));
    }
    let config = GenerateConfig { size: args.size, seed: args.seed, npt_labels: args.npt_labels.labels() };
    let mut code = super::output::EXIT_OK;
    for task in tasks {
        let generated = match generate(task, &corpus, &config) {
            Ok(generated) => generated,
            Err(e) => {
                code = report_error(&format!("{task}: {e}"));
                continue;
            }
        };
        let written = match args.format {
            DatasetFormat::Txt => {
                let path = args.out.join(dataset_path(task, args.size));
                write_dataset_file(&path, &generated.samples).map(|()| path)
            }
            DatasetFormat::Parquet => quarry_probe::hub::write_task(&args.out, task, &generated.samples)
                .and_then(|_| quarry_probe::hub::write_card(&args.out))
                .map(|()| args.out.join("data").join(task.code())),
        };
        let path = match written {
            Ok(path) => path,
            Err(e) => {
                code = report_error(&e.to_string());
                continue;
            }
        };
        let short: Vec<String> =
            generated.shortfalls.iter().map(|s| format!("{} {}/{}", s.label, s.found, s.wanted)).collect();
        println!(
            "{task}\t{}\t{} samples{}",
            path.display(),
            generated.samples.len(),
            if short.is_empty() { String::new() } else { format!("\tshort: {}", short.join(", ")) }
        );
    }
    code
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
    let dataset = match Dataset::read(&args.data) {
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
