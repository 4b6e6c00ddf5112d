//! Work bounds: deep nesting is refused with a clear error, the time budget
//! stops a file between queries, and both name the file.

use std::time::{Duration, Instant};

use quarry_query::report::{analyze_file_within, analyze_parsed_within, WorkLimits};
use quarry_query::{all_queries, Polarity};
use quarry_syntax::{Deadline, Language, LoadOptions, ParsedFile, SourceFile, SyntaxError, DEFAULT_MAX_DEPTH};

fn temp_file(name: &str, text: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("quarry-work-bounds-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

#[test]
fn a_hundred_thousand_nested_parentheses_are_refused_quickly() {
    let depth = 100_000;
    let path = temp_file("nested.py", &format!("x = {}1{}\n", "(".repeat(depth), ")".repeat(depth)));
    let start = Instant::now();
    let err = analyze_file_within(
        &path,
        &all_queries(),
        &[Polarity::Positive, Polarity::Negative],
        &LoadOptions::default(),
        &WorkLimits::default(),
    )
    .err()
    .unwrap();
    assert!(matches!(err, SyntaxError::TooDeep { limit: DEFAULT_MAX_DEPTH, line: 0, .. }), "{err}");
    assert!(err.to_string().starts_with(&format!("{}: nesting ", path.display())), "{err}");
    assert!(start.elapsed() < Duration::from_secs(20), "{:?}", start.elapsed());
}

#[test]
fn nesting_under_the_limit_is_answered() {
    // 150 nested brackets, within what CPython accepts (200).
    let text = format!("x = None\ny = {}x == None{}\n", "(".repeat(150), ")".repeat(150));
    let file = ParsedFile::parse(SourceFile::from_text("ok.py", text), Language::Python).unwrap();
    let queries = [quarry_query::find_query("equals-none").unwrap()];
    let report =
        analyze_parsed_within(&file, &queries, &[Polarity::Positive], DEFAULT_MAX_DEPTH, &Deadline::unlimited())
            .unwrap();
    assert_eq!(report.findings.len(), 1);
    assert_eq!(report.findings[0].answer_spans[0].span, "x == None");
}

#[test]
fn an_expired_budget_names_the_query_it_stopped_at() {
    let file = ParsedFile::parse(SourceFile::from_text("slow.py", "x = 1\n"), Language::Python).unwrap();
    let deadline = Deadline::after(Duration::ZERO);
    std::thread::sleep(Duration::from_millis(2));
    let queries = all_queries();
    let err =
        analyze_parsed_within(&file, &queries, &[Polarity::Positive], DEFAULT_MAX_DEPTH, &deadline).err().unwrap();
    let first = queries[0].meta.id;
    assert_eq!(
        err.to_string(),
        format!("slow.py: skipped after the per-file time budget of 0.0 s ran out while running query {first}")
    );
}

#[test]
fn a_query_that_overruns_the_budget_is_abandoned_in_time() {
    // Thousands of comparisons on one line: some analyses grow faster than the input.
    let path = temp_file("one_line.py", &format!("{}\n", "x = a == a;      ".repeat(6000)));
    let limits = WorkLimits { time_budget: Some(Duration::from_millis(300)), ..WorkLimits::default() };
    let start = Instant::now();
    let result = analyze_file_within(&path, &all_queries(), &[Polarity::Positive], &LoadOptions::default(), &limits);
    let elapsed = start.elapsed();
    match result {
        Err(err) => {
            assert!(matches!(err, SyntaxError::TimeBudget { .. }), "{err}");
            assert!(err.to_string().contains("one_line.py: skipped after the per-file time budget of 0.3 s"), "{err}");
        }
        Ok(report) => assert!(!report.findings.is_empty(), "finished within the budget on a fast machine"),
    }
    assert!(elapsed < Duration::from_secs(3), "{elapsed:?}");
}

#[test]
fn sixty_thousand_comparisons_on_one_line_are_answered_in_linear_time() {
    // The 1 MB hostile file: these three queries used to be quadratic in the number of
    // statements of one block (a scan of every earlier statement, of every definition and of
    // every binding per name read); doubling the input must now roughly double the time.
    let queries = ["redundant-comparison", "multiple-definition", "unused-local-variable"]
        .map(|id| quarry_query::find_query(id).unwrap());
    let time = |statements: usize| {
        let text = format!("{}\n", "x = a == a;      ".repeat(statements));
        let file = ParsedFile::parse(SourceFile::from_text("one_line.py", text), Language::Python).unwrap();
        let start = Instant::now();
        let report = analyze_parsed_within(
            &file,
            &queries,
            &[Polarity::Positive, Polarity::Negative],
            DEFAULT_MAX_DEPTH,
            &Deadline::unlimited(),
        )
        .unwrap();
        (start.elapsed(), report)
    };
    let (small, _) = time(15_000);
    let (large, report) = time(60_000);
    // Four times the input: a quadratic analysis takes 16 times as long, a linear one 4.
    assert!(large < small * 10 + Duration::from_millis(500), "15,000: {small:?}, 60,000: {large:?}");
    // `x` is rebound by every statement: every definition but the last is overwritten unread.
    let multiple = report.findings.iter().filter(|f| f.query_id == "multiple-definition").count();
    assert_eq!(multiple, 59_999);
}
