//! Prints every finding of every query on a directory as one line
//! (`query_id, file, answer spans, fact spans`), sorted, so two builds of
//! the engine can be compared by `diff`. The directory is analysed as one
//! project (`quarry query`'s entry point), or each file alone with
//! `--alone`; `--jsonl` prints the records instead, in file order.
//! Run: `cargo run --release -p quarry-query --example findings_digest -- DIR [--both]`

use std::path::PathBuf;

use quarry_query::project::Project;
use quarry_query::report::WorkLimits;
use quarry_query::run::{analyze_files_in, RunOptions};
use quarry_query::{all_queries, Polarity};
use quarry_syntax::corpus::source_files;
use quarry_syntax::{Language, SpanRecord};

/// The engine's allocator, as in the `quarry` binary (see
/// [`quarry_query::allocator`]).
#[global_allocator]
static GLOBAL: quarry_query::allocator::MiMalloc = quarry_query::allocator::MiMalloc;

fn spans(spans: &[SpanRecord]) -> String {
    let parts: Vec<String> =
        spans.iter().map(|s| format!("{}:{}-{}:{}", s.start_line, s.start_column, s.end_line, s.end_column)).collect();
    parts.join(";")
}

fn main() {
    // SAFETY: first thing in main, before tree-sitter allocates anything.
    unsafe { quarry_query::allocator::route_tree_sitter_allocations() };
    quarry_query::allocator::keep_freed_memory();
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(dir) = args.iter().find(|a| !a.starts_with("--")).map(PathBuf::from) else {
        eprintln!("usage: findings_digest DIR [--both]");
        std::process::exit(2);
    };
    let polarities: &[Polarity] = if args.iter().any(|a| a == "--both") {
        &[Polarity::Positive, Polarity::Negative]
    } else {
        &[Polarity::Positive]
    };
    let jsonl = args.iter().any(|a| a == "--jsonl");
    let (files, _) = source_files(std::slice::from_ref(&dir), Language::Python);
    let files: Vec<PathBuf> = files.into_iter().filter(|p| !p.to_string_lossy().contains("-packages")).collect();
    let options = RunOptions {
        queries: all_queries(),
        polarities: polarities.to_vec(),
        load: Default::default(),
        limits: WorkLimits { time_budget: None, ..WorkLimits::default() },
        chunk: 256,
    };
    let mut lines = Vec::new();
    // `--alone`: every file on its own, as before the project model.
    let alone = args.iter().any(|a| a == "--alone");
    let project = Project::new(if alone { &[] } else { &files[..] }, &options.load);
    let _ = analyze_files_in(&project, &files, &options, &|_| {}, |path, report| -> Result<(), ()> {
        let Ok(report) = report else { return Ok(()) };
        let relative = path.strip_prefix(&dir).unwrap_or(path).display().to_string();
        for mut record in report.findings {
            if jsonl {
                record.file = relative.clone();
                record.relevant_blocks.clear();
                println!("{}", serde_json::to_string(&record).unwrap_or_default());
                continue;
            }
            lines.push(format!(
                "{}\t{}\t{}\t{}\t{}",
                record.query_id,
                record.example_type,
                relative,
                spans(&record.answer_spans),
                spans(&record.supporting_fact_spans)
            ));
        }
        Ok(())
    });
    eprintln!(
        "{} files, {} module summaries read, {} files parsed twice",
        files.len(),
        project.summaries_read(),
        project.second_parses()
    );
    lines.sort();
    for line in lines {
        println!("{line}");
    }
}
