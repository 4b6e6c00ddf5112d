//! `quarry corpus`: assemble corpora of source files to build datasets from.

use std::path::PathBuf;

use clap::{Args, Subcommand};
use quarry_data::corpus::pypi::fetch::Http;
use quarry_data::corpus::pypi::manifest::read_manifest;
use quarry_data::corpus::pypi::requirements::parse_requirements;
use quarry_data::corpus::pypi::{build_corpus, Event, Options, Wanted};

use super::output::{report_error, EXIT_OK};

/// Subcommands of `quarry corpus`.
#[derive(Subcommand)]
pub enum CorpusCommand {
    /// A Python corpus from the source distributions of PyPI packages, deduplicated by
    /// content, with a manifest (name, version, sdist URL, sha256, licence) to rebuild it.
    Pypi(PypiArgs),
}

/// Arguments of `quarry corpus pypi`.
#[derive(Args)]
pub struct PypiArgs {
    /// Package list: one `name` or `name==version` a line, `#` for comments (`-`: stdin).
    #[arg(long, required_unless_present = "manifest", conflicts_with = "manifest")]
    packages: Option<PathBuf>,
    /// Fetch exactly the releases of an earlier run's `manifest.json`.
    #[arg(long)]
    manifest: Option<PathBuf>,
    /// Output folder, replaced whole: `NAME-VERSION/` folders and `manifest.json`.
    #[arg(long, value_parser = super::folder_arg::folder_output())]
    out: PathBuf,
    /// Base URL of PyPI's JSON API.
    #[arg(long, default_value = quarry_data::corpus::pypi::fetch::PYPI_JSON_API)]
    index: String,
}

/// Runs a `quarry corpus` subcommand.
pub fn run(command: CorpusCommand) -> i32 {
    match command {
        CorpusCommand::Pypi(args) => pypi(args),
    }
}

/// Largest package list read.
const MAX_LIST_BYTES: u64 = 16 * 1024 * 1024;

fn pypi(args: PypiArgs) -> i32 {
    let wanted = match (&args.packages, &args.manifest) {
        (_, Some(path)) => match read_manifest(path) {
            Ok(manifest) => Wanted::Releases(manifest.packages.iter().map(|p| p.release()).collect()),
            Err(e) => return report_error(&e.to_string()),
        },
        (Some(path), None) => {
            let parsed = quarry_stdx::read::read_text(path, MAX_LIST_BYTES)
                .map_err(|e| e.to_string())
                .and_then(|text| parse_requirements(path, &text).map_err(|e| e.to_string()));
            match parsed {
                Ok(list) => Wanted::Requirements(list),
                Err(e) => return report_error(&e),
            }
        }
        (None, None) => return report_error("give --packages FILE or --manifest FILE"),
    };
    let options = Options { api: args.index.trim_end_matches('/').to_string(), ..Options::default() };
    let mut progress = |event: Event| match event {
        Event::Done(p) => {
            eprintln!("{} {}: {} files kept, {} duplicate", p.name, p.version, p.files_kept, p.files_duplicate)
        }
        Event::Failed(f) => crate::commands::output::warning(&format!(
            "skipped {}: {}",
            crate::stdio::visible(&f.requirement),
            crate::stdio::visible(&f.reason)
        )),
    };
    match build_corpus(&args.out, wanted, &Http::default(), &options, &mut progress) {
        Ok(manifest) => {
            eprintln!(
                "{}: {} packages, {} files ({} bytes), {} duplicate files skipped, {} packages failed",
                args.out.display(),
                manifest.packages.len(),
                manifest.files_kept,
                manifest.bytes_kept,
                manifest.files_duplicate,
                manifest.failed.len()
            );
            EXIT_OK
        }
        Err(e) => report_error(&e.to_string()),
    }
}
