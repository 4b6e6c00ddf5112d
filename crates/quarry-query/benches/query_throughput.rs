//! Throughput of the query engine on a real corpus, single-threaded and
//! in-process: parse only, parse plus blocks, and parse plus every query in
//! positive and negative form. Files are read into memory first.
//! Run: `cargo bench -p quarry-query --bench query_throughput [-- DIR]`
//! (default: the local CPython 3.11 standard library).

use std::path::PathBuf;
use std::time::Instant;

use quarry_query::report::analyze_parsed;
use quarry_query::{all_queries, Polarity};
use quarry_syntax::corpus::source_files;
use quarry_syntax::{code_blocks, Language, ParsedFile, SourceFile};

fn main() {
    let dir = std::env::args()
        .skip(1)
        .find(|a| !a.starts_with("--"))
        .map(PathBuf::from)
        .or_else(quarry_syntax::corpus::default_stdlib)
        .expect("give the standard library folder, or set QUARRY_STDLIB");
    let (files, _) = source_files(std::slice::from_ref(&dir), Language::Python);
    let sources: Vec<SourceFile> = files
        .iter()
        .filter(|p| !p.to_string_lossy().contains("-packages"))
        .filter_map(|p| SourceFile::load(p, &Default::default()).ok())
        .collect();
    if sources.is_empty() {
        eprintln!("{}: no Python sources found", dir.display());
        return;
    }
    let bytes: usize = sources.iter().map(|s| s.text().len()).sum();
    let queries = all_queries();
    println!("{} ({} files, {:.1} MB), {} queries", dir.display(), sources.len(), bytes as f64 / 1e6, queries.len());
    let parse = time("parse only", &sources, bytes, None, |s| {
        usize::from(ParsedFile::parse(s.clone(), Language::Python).unwrap().has_errors())
    });
    time("parse + blocks", &sources, bytes, Some(parse), |s| {
        code_blocks(&ParsedFile::parse(s.clone(), Language::Python).unwrap()).all().len()
    });
    time("parse + queries (pos+neg)", &sources, bytes, Some(parse), |s| {
        let file = ParsedFile::parse(s.clone(), Language::Python).unwrap();
        analyze_parsed(&file, &queries, &[Polarity::Positive, Polarity::Negative]).findings.len()
    });
}

fn time(
    label: &str,
    sources: &[SourceFile],
    bytes: usize,
    base: Option<f64>,
    work: impl Fn(&SourceFile) -> usize,
) -> f64 {
    let start = Instant::now();
    let checksum: usize = sources.iter().map(&work).sum();
    let seconds = start.elapsed().as_secs_f64();
    let ratio = base.map(|b| format!("  {:.2}x parse-only time", seconds / b)).unwrap_or_default();
    println!(
        "  {label:<28} {seconds:>7.2} s {:>8.0} files/s {:>6.1} MB/s (checksum {checksum}){ratio}",
        sources.len() as f64 / seconds,
        bytes as f64 / 1e6 / seconds
    );
    seconds
}
