//! Triage that grows with the input only linearly: a file of tens of
//! thousands of suppression comments and findings (the analysis's own
//! scaling tests are quarry-query's `tests/scaling.rs`). The test times the
//! same work on an input and on one four times larger: a quadratic step takes sixteen times
//! as long, a linear one four, and the bound between them (ten, plus slack
//! for a loaded machine) fails when a quadratic step comes back.

use std::time::{Duration, Instant};

use quarry_query::report::{analyze_parsed, FileReport};
use quarry_query::{find_query, Polarity, Query};
use quarry_syntax::{Language, ParsedFile, SourceFile};
use quarry_workspace::triage::{PerFileIgnores, Policy, Status};

/// Parses `text` and runs `queries` (both forms) on it, timed.
fn analysed(text: String, queries: &[&'static Query]) -> (Duration, FileReport) {
    let start = Instant::now();
    let file = ParsedFile::parse(SourceFile::from_text("big.py", text), Language::Python).unwrap();
    let report = analyze_parsed(&file, queries, &[Polarity::Positive, Polarity::Negative]);
    (start.elapsed(), report)
}

/// Asserts that four times the input took well under sixteen times as long.
fn assert_linear(what: &str, small: Duration, large: Duration) {
    assert!(large < small * 10 + Duration::from_millis(500), "{what}: n: {small:?}, 4n: {large:?}");
}

/// `n` findings of `equals-none`, each on a line with its own `# noqa`.
fn suppressed(n: usize) -> String {
    (0..n).map(|i| format!("x{i} = y == None  # noqa: E711 # lgtm[py/test-equals-none]\n")).collect()
}

#[test]
fn suppression_is_linear_in_comments_and_findings() {
    let queries = [find_query("equals-none").unwrap()];
    let triage = |n: usize| {
        let (analysis, report) = analysed(suppressed(n), &queries);
        // The comments are read by the analysis (under the file's budget when it has one).
        assert_eq!(report.suppressions.directives.len(), 2 * n);
        let ignores = PerFileIgnores::none();
        let mut policy = Policy {
            per_file_ignores: &ignores,
            honour_comments: true,
            baseline: None,
            writer: None,
            queries: &queries,
        };
        let start = Instant::now();
        let triaged = policy.triage(report);
        (analysis + start.elapsed(), triaged)
    };
    let (small, _) = triage(5_000);
    let (large, triaged) = triage(20_000);
    assert_linear("suppression", small, large);
    let suppressed = triaged.findings.iter().filter(|t| matches!(t.status, Status::Suppressed { .. })).count();
    assert_eq!(suppressed, 20_000);
    // The `# noqa` comes first and suppresses each finding: every `lgtm` is unused.
    assert_eq!(triaged.unused_suppressions.len(), 20_000);
    assert_eq!(triaged.unused_suppressions[0].unused, ["py/test-equals-none"]);
}
