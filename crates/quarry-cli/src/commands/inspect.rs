//! `quarry inspect`: INSPECT probing datasets (label checking, generation).

use std::path::PathBuf;

use clap::{Args, Subcommand};
use quarry_probe::{check_labels, Dataset, LabelCheck, Task};
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
}

/// Runs `quarry inspect`.
pub fn run(args: InspectArgs) -> i32 {
    match args.command {
        InspectCommand::Label(args) => label(args),
    }
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
    let check = match check_labels(task, &dataset) {
        Ok(check) => check,
        Err(e) => return report_error(&format!("{}: {e}", args.data.display())),
    };
    let file = args.data.display().to_string();
    with_stdout(|out| match args.format {
        Format::Json => write_json(out, &LabelDocument { file: file.clone(), check: &check }),
        Format::Pretty => {
            writeln!(out, "{file}: task {task}")?;
            writeln!(
                out,
                "samples {}  agreeing {}  agreement {:.2}%  out of range {}  malformed lines {} (continued {}, skipped {})",
                check.samples,
                check.agreeing,
                100.0 * check.agreement,
                check.out_of_range,
                check.malformed_lines,
                dataset.malformed.iter().filter(|m| m.action == quarry_probe::dataset::MalformedAction::Continued).count(),
                dataset.malformed.iter().filter(|m| m.action == quarry_probe::dataset::MalformedAction::Skipped).count(),
            )?;
            if let Some(count) = check.irreproducible {
                writeln!(
                    out,
                    "{count} samples hold more distinct unambiguous operators than their label: no operator count reproduces them"
                )?;
            }
            writeln!(out, "confusion (rows: released label, columns: recomputed):")?;
            write!(out, "{}", check.confusion.to_table())?;
            if !check.disagreeing_lines.is_empty() {
                let lines: Vec<String> = check.disagreeing_lines.iter().map(|l| l.to_string()).collect();
                writeln!(out, "first disagreeing lines: {}", lines.join(", "))?;
            }
            Ok(())
        }
    })
}
