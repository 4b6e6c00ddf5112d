//! Compares quarry with CodeQL on CodeQL's own query tests. Each directory
//! `tests/codeql/<query-id>/` holds CodeQL test inputs (`.py`) and the
//! `.expected` results of the CodeQL query that `<query-id>` mirrors. For
//! every query the test prints how many locations CodeQL reports, how many
//! quarry reports, the share of CodeQL's that quarry finds (recall) and the
//! share of quarry's that CodeQL reports (precision), matching locations by
//! file, start line and start column. The starred columns match loosely:
//! a CodeQL result counts as found when its location is any of quarry's
//! answer or fact spans, and a quarry answer counts as reported when it is
//! any location a CodeQL result names (CodeQL versions differ in which of
//! a class and its method they report first). Run with
//! `cargo test -p quarry-query --test codeql_compare -- --nocapture`.
//! Skips with a message when the directory is absent.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use quarry_query::{find_query, run_query, FileContext, Polarity};
use quarry_syntax::{Language, LoadOptions, ParsedFile};

/// `(file name, 1-based line, 1-based column)`.
type Location = (String, usize, usize);

/// The primary location of each `.expected` row (`| file.py:l:c:el:ec | ...`)
/// and every location the rows name, related ones included.
fn expected_locations(path: &Path) -> (BTreeSet<Location>, BTreeSet<Location>) {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let mut primary = BTreeSet::new();
    let mut named = BTreeSet::new();
    for line in text.lines() {
        let fields: Vec<&str> = line.trim_start_matches('|').split('|').map(str::trim).collect();
        primary.extend(fields.first().and_then(|f| parse_location(f)));
        named.extend(fields.iter().filter_map(|f| parse_location(f)));
    }
    (primary, named)
}

fn parse_location(text: &str) -> Option<Location> {
    let mut parts = text.rsplitn(5, ':');
    let _end_column = parts.next()?;
    let _end_line = parts.next()?;
    let column = parts.next()?.parse().ok()?;
    let line = parts.next()?.parse().ok()?;
    Some((parts.next()?.to_string(), line, column))
}

/// quarry's positive answer locations, and answer and fact locations, on
/// every `.py` file of the directory.
fn quarry_locations(dir: &Path, query_id: &str) -> (BTreeSet<Location>, BTreeSet<Location>) {
    let query = find_query(query_id).unwrap_or_else(|| panic!("no query with id {query_id}"));
    let mut found = BTreeSet::new();
    let mut all_spans = BTreeSet::new();
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir).unwrap().filter_map(|e| Some(e.ok()?.path())).collect();
    files.sort();
    for path in files.iter().filter(|p| p.extension().is_some_and(|e| e == "py")) {
        let file = ParsedFile::load(path, Some(Language::Python), &LoadOptions::default()).unwrap();
        let context = FileContext::new(&file);
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        for finding in run_query(&context, query, Polarity::Positive) {
            for span in &finding.answers {
                found.insert((name.clone(), span.start.line + 1, span.start.column + 1));
            }
            for span in finding.answers.iter().chain(&finding.facts) {
                all_spans.insert((name.clone(), span.start.line + 1, span.start.column + 1));
            }
        }
    }
    (found, all_spans)
}

fn share(part: usize, whole: usize) -> String {
    if whole == 0 {
        "n/a".to_string()
    } else {
        format!("{:.1}%", 100.0 * part as f64 / whole as f64)
    }
}

#[test]
fn quarry_agrees_with_codeql_expected_results() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests").join("codeql");
    let Ok(entries) = std::fs::read_dir(&root) else {
        eprintln!("skipped: {} is absent", root.display());
        return;
    };
    let mut dirs: Vec<PathBuf> = entries.filter_map(|e| Some(e.ok()?.path())).filter(|p| p.is_dir()).collect();
    dirs.sort();
    println!(
        "{:<24} {:>6} {:>6} {:>5} {:>7} {:>9} {:>8} {:>8}",
        "query", "codeql", "quarry", "both", "recall", "precision", "recall*", "precis.*"
    );
    let (mut total_codeql, mut total_quarry, mut total_both) = (0, 0, 0);
    let (mut total_loose_recall, mut total_loose_precision) = (0, 0);
    for dir in dirs {
        let id = dir.file_name().unwrap().to_string_lossy().to_string();
        let (mut codeql, mut codeql_named) = (BTreeSet::new(), BTreeSet::new());
        for entry in std::fs::read_dir(&dir).unwrap().filter_map(|e| e.ok()) {
            if entry.path().extension().is_some_and(|e| e == "expected") {
                let (primary, named) = expected_locations(&entry.path());
                codeql.extend(primary);
                codeql_named.extend(named);
            }
        }
        let (quarry, quarry_spans) = quarry_locations(&dir, &id);
        let both = codeql.intersection(&quarry).count();
        let loose_recall = codeql.intersection(&quarry_spans).count();
        let loose_precision = quarry.intersection(&codeql_named).count();
        println!(
            "{:<24} {:>6} {:>6} {:>5} {:>7} {:>9} {:>8} {:>8}",
            id,
            codeql.len(),
            quarry.len(),
            both,
            share(both, codeql.len()),
            share(both, quarry.len()),
            share(loose_recall, codeql.len()),
            share(loose_precision, quarry.len())
        );
        for missed in codeql.difference(&quarry) {
            println!("    only codeql: {}:{}:{}", missed.0, missed.1, missed.2);
        }
        for extra in quarry.difference(&codeql) {
            println!("    only quarry: {}:{}:{}", extra.0, extra.1, extra.2);
        }
        total_codeql += codeql.len();
        total_quarry += quarry.len();
        total_both += both;
        total_loose_recall += loose_recall;
        total_loose_precision += loose_precision;
    }
    println!(
        "{:<24} {:>6} {:>6} {:>5} {:>7} {:>9}",
        "all",
        total_codeql,
        total_quarry,
        total_both,
        share(total_both, total_codeql),
        share(total_both, total_quarry)
    );
    let ratio = |part: usize, whole: usize| if whole == 0 { 1.0 } else { part as f64 / whole as f64 };
    assert!(ratio(total_both, total_codeql) >= 0.95, "strict recall below 95%");
    assert!(ratio(total_both, total_quarry) >= 0.95, "strict precision below 95%");
    assert!(ratio(total_loose_recall, total_codeql) >= 0.97, "loose recall below 97%");
    assert!(ratio(total_loose_precision, total_quarry) >= 0.97, "loose precision below 97%");
}
