//! Snapshot tests: every query runs, positive and negative, on its fixture
//! `tests/fixtures/<query-id>.py`, and the rendered findings must equal
//! `tests/snapshots/<query-id>.txt`. Set `QUARRY_UPDATE_SNAPSHOTS=1` to
//! rewrite snapshots after checking the new findings by hand.

use std::path::PathBuf;

use quarry_query::render::render_findings;
use quarry_query::{all_queries, run_query, FileContext, Polarity};
use quarry_syntax::{Language, LoadOptions, ParsedFile};

fn dir(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests").join(name)
}

#[test]
fn every_query_matches_its_snapshot() {
    let update = std::env::var_os("QUARRY_UPDATE_SNAPSHOTS").is_some();
    let mut failures = Vec::new();
    for query in all_queries() {
        let fixture = dir("fixtures").join(format!("{}.py", query.meta.id));
        let file = ParsedFile::load(&fixture, Some(Language::Python), &LoadOptions::default())
            .unwrap_or_else(|e| panic!("every query needs a fixture: {e}"));
        let context = FileContext::new(&file);
        let positive = run_query(&context, query, Polarity::Positive);
        let negative = run_query(&context, query, Polarity::Negative);
        assert!(!positive.is_empty(), "{}: fixture has no positive finding", query.meta.id);
        assert!(!negative.is_empty(), "{}: fixture has no negative finding", query.meta.id);
        let rendered = format!("{}{}", render_findings(&file, &positive), render_findings(&file, &negative));
        let snapshot = dir("snapshots").join(format!("{}.txt", query.meta.id));
        if update {
            std::fs::write(&snapshot, &rendered).unwrap();
            continue;
        }
        match std::fs::read_to_string(&snapshot) {
            Ok(expected) if expected == rendered => {}
            Ok(expected) => failures.push(format!("{}:\n--- expected\n{expected}--- got\n{rendered}", query.meta.id)),
            Err(_) => failures.push(format!("{}: no snapshot; got\n{rendered}", query.meta.id)),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn registry_ids_names_and_indices_are_unique() {
    let queries = all_queries();
    for (i, a) in queries.iter().enumerate() {
        for b in &queries[i + 1..] {
            assert_ne!(a.meta.id, b.meta.id);
            assert_ne!(a.meta.name, b.meta.name);
            assert_ne!(a.meta.index, b.meta.index);
        }
    }
}
