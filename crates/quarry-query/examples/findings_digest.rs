//! Prints every finding of every query on a directory as one line
//! (`query_id, file, answer spans, fact spans`), sorted, so two builds of
//! the engine can be compared by `diff`.
//! Run: `cargo run --release -p quarry-query --example findings_digest -- DIR [--both]`

use std::path::PathBuf;

use quarry_query::report::analyze_parsed;
use quarry_query::{all_queries, Polarity};
use quarry_syntax::corpus::source_files;
use quarry_syntax::{Language, ParsedFile, SourceFile, SpanRecord};

fn spans(spans: &[SpanRecord]) -> String {
    let parts: Vec<String> =
        spans.iter().map(|s| format!("{}:{}-{}:{}", s.start_line, s.start_column, s.end_line, s.end_column)).collect();
    parts.join(";")
}

fn main() {
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
    let (files, _) = source_files(std::slice::from_ref(&dir), Language::Python);
    let queries = all_queries();
    let mut lines = Vec::new();
    for path in files.iter().filter(|p| !p.to_string_lossy().contains("-packages")) {
        let Ok(source) = SourceFile::load(path, &Default::default()) else { continue };
        let Ok(file) = ParsedFile::parse(source, Language::Python) else { continue };
        let relative = path.strip_prefix(&dir).unwrap_or(path).display().to_string();
        for record in analyze_parsed(&file, &queries, polarities).findings {
            lines.push(format!(
                "{}\t{}\t{}\t{}\t{}",
                record.query_id,
                record.example_type,
                relative,
                spans(&record.answer_spans),
                spans(&record.supporting_fact_spans)
            ));
        }
    }
    lines.sort();
    for line in lines {
        println!("{line}");
    }
}
