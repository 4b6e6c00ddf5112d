//! `quarry predict`: answers queries on Python files with a trained span model instead of
//! the symbolic engine, printing findings in the formats of `quarry query`.

use std::path::PathBuf;

use anyhow::{Context, Result};
use clap::Args;
use quarry_data::codequeries::labels::TokenCache;
use quarry_model::evaluation::file_level::{Runner, Setting};
use quarry_model::evaluation::predict::predict_file;
use quarry_model::evaluation::span_eval::subtokenizer_of;
use quarry_query::report::{BlockRef, FileReport, FindingRecord};
use quarry_query::Query;
use quarry_syntax::corpus::source_files;
use quarry_syntax::{code_blocks, Language, LoadOptions, ParsedFile, DEFAULT_MAX_FILE_BYTES};
use quarry_workspace::output::{Palette, DEFAULT_MAX_FINDINGS_SHOWN};
use quarry_workspace::triage::TriagedFile;

use super::model_arg::{load_selector, load_span_model, DeviceArgs};
use super::output::{report_error, with_stdout, EXIT_INPUT_ERROR, EXIT_OK};
use super::query::{emit, select_queries, Collected, QueryFormat};

/// Arguments of `quarry predict`.
#[derive(Args)]
pub struct PredictArgs {
    /// Python files and directories (searched recursively, honouring .gitignore).
    #[arg(required = true)]
    paths: Vec<PathBuf>,
    /// A span checkpoint written by `quarry train span`.
    #[arg(long)]
    model: String,
    /// Queries to answer, by id, exact name, paper index (Q16), CodeQL id or
    /// ruff code; repeatable or comma-separated.
    #[arg(long = "select", visible_alias = "query", value_delimiter = ',', required = true)]
    queries: Vec<String>,
    /// A relevance checkpoint (`quarry train relevance`): blocks are picked first (two-step).
    #[arg(long)]
    relevance_model: Option<String>,
    /// How files longer than the model's input are read: sliding-window, prefix or two-step
    /// (default: two-step with --relevance-model, else sliding-window).
    #[arg(long)]
    setting: Option<String>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = QueryFormat::Pretty)]
    format: QueryFormat,
    /// Maximum model input in sub-tokens.
    #[arg(value_parser = crate::commands::numbers::length, long, default_value_t = 512)]
    max_len: usize,
    /// Model inputs per forward pass.
    #[arg(value_parser = crate::commands::numbers::size, long, default_value_t = 16)]
    batch_size: usize,
    /// Skip files larger than this many bytes.
    #[arg(long, default_value_t = DEFAULT_MAX_FILE_BYTES)]
    max_file_bytes: u64,
    /// Device and precision.
    #[command(flatten)]
    device: DeviceArgs,
}

/// Runs `quarry predict`.
pub fn run(args: PredictArgs) -> i32 {
    match predict(&args) {
        Ok(code) => code,
        Err(e) => report_error(&crate::commands::output::describe(&e)),
    }
}

fn predict(args: &PredictArgs) -> Result<i32> {
    let queries = select_queries(&args.queries).map_err(anyhow::Error::msg)?;
    let setting = match &args.setting {
        Some(name) => name.parse()?,
        None if args.relevance_model.is_some() => Setting::TwoStep,
        None => Setting::SlidingWindow,
    };
    if matches!(setting, Setting::Ideal | Setting::FileIdeal) {
        anyhow::bail!("--setting {}: new code has no ground truth to pick relevant blocks", setting.name());
    }
    let model = load_span_model(&args.model, &args.device)?;
    let subtokenizer = subtokenizer_of(&model)?;
    let selector = load_selector(args.relevance_model.as_deref(), &args.device)?;
    let runner = Runner {
        span: &model,
        subtokenizer: &subtokenizer,
        selector: selector.as_deref(),
        max_len: args.max_len.min(model.model.config.max_input_len()),
        batch_size: args.batch_size,
    };
    let (files, walk_errors) = source_files(&args.paths, Language::Python);
    let mut failed = walk_errors.len();
    for error in &walk_errors {
        crate::commands::output::error(&error.to_string());
    }
    let options = LoadOptions { max_file_bytes: args.max_file_bytes };
    let mut collected = Collected::default();
    let status = with_stdout(|out| {
        for path in &files {
            match answer_file(&runner, setting, path, &queries, &options, &args.model) {
                Ok(report) => emit(
                    out,
                    args.format,
                    DEFAULT_MAX_FINDINGS_SHOWN,
                    &TriagedFile::unfiltered(report),
                    &mut collected,
                    Palette::plain(),
                )?,
                Err(error) => {
                    failed += 1;
                    crate::commands::output::skipped(&crate::commands::output::describe(&error));
                }
            }
        }
        collected.write_end(out, args.format, &queries, false)
    });
    if status != EXIT_OK {
        return Ok(status);
    }
    if failed > 0 {
        crate::commands::output::error(&format!("{failed} file(s) could not be answered"));
        return Ok(EXIT_INPUT_ERROR);
    }
    Ok(EXIT_OK)
}

/// One finding per query with predicted answers: all its answer and fact spans on the file.
fn answer_file(
    runner: &Runner<'_>,
    setting: Setting,
    path: &std::path::Path,
    queries: &[&'static Query],
    options: &LoadOptions,
    model_name: &str,
) -> Result<FileReport> {
    let file = ParsedFile::load(path, Some(Language::Python), options)?;
    let blocks = code_blocks(&file);
    let mut findings = Vec::new();
    let mut cache = TokenCache::default();
    for query in queries {
        let prediction = predict_file(runner, setting, &file, &blocks, query.meta.name, &mut cache)
            .with_context(|| format!("{}: query {}", path.display(), query.meta.name))?;
        if prediction.answers.is_empty() {
            continue;
        }
        findings.push(FindingRecord {
            file: path.display().to_string(),
            query: query.meta.name,
            query_id: query.meta.id,
            example_type: 1,
            message: format!(
                "predicted by {model_name} ({}): {} answer span(s), {} supporting fact(s)",
                setting.name(),
                prediction.answers.len(),
                prediction.facts.len()
            ),
            answer_spans: prediction.answers,
            supporting_fact_spans: prediction.facts,
            relevant_blocks: prediction
                .blocks
                .iter()
                .filter_map(|&i| blocks.all().get(i))
                .map(BlockRef::from)
                .collect(),
        });
    }
    Ok(FileReport {
        path: path.to_path_buf(),
        text: file.text().to_string(),
        has_syntax_errors: file.has_errors(),
        findings,
        suppressions: Default::default(),
    })
}
