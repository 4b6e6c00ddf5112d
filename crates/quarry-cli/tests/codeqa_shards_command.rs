//! `quarry dataset codeqa --shard I/N` and `quarry dataset finalize` as a user runs them, on
//! stored spaCy parses: N shards give the rows of one process, finalize names a missing
//! shard, a finished shard is not built again, and the Parquet and released layouts hold
//! the same pairs.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

fn quarry(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_quarry")).args(args).output().expect("run quarry")
}

fn fixtures() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../quarry-data/tests/fixtures/codeqa")
}

/// The fixture module cut into one file per top-level definition, so that the shards
/// have files to share (the stored parses are looked up by comment text).
fn corpus(dir: &Path) -> PathBuf {
    let text = std::fs::read_to_string(fixtures().join("corpus/requests.py")).unwrap();
    let mut parts: Vec<String> = Vec::new();
    for line in text.lines() {
        if line.starts_with("def ") || line.starts_with("class ") || parts.is_empty() {
            parts.push(String::new());
        }
        let last = parts.last_mut().unwrap();
        last.push_str(line);
        last.push('\n');
    }
    let root = dir.join("corpus");
    std::fs::create_dir_all(&root).unwrap();
    for (i, part) in parts.iter().enumerate() {
        std::fs::write(root.join(format!("m{i}.py")), part).unwrap();
    }
    assert!(parts.len() >= 4, "{}", parts.len());
    root
}

fn build(corpus: &Path, out: &Path, extra: &[&str]) -> Output {
    let parses = fixtures().join("parses.jsonl");
    let mut args = vec!["dataset", "codeqa", "--corpus", corpus.to_str().unwrap(), "--lang", "python"];
    args.extend(["--parses", parses.to_str().unwrap(), "--out", out.to_str().unwrap()]);
    args.extend(extra);
    quarry(&args)
}

/// Every row of a Parquet build as (split, id, question, answer, code), sorted.
fn parquet_rows(out: &Path) -> Vec<(String, String, String, String, String)> {
    let mut rows = Vec::new();
    for split in ["train", "dev", "test"] {
        let pattern = out.join(format!("data/python/{split}-*.parquet"));
        for (_, row) in quarry_data::records::read_numbered::<Value>(&pattern, "CodeQA rows").unwrap() {
            let field = |name: &str| row[name].as_str().unwrap().to_string();
            rows.push((split.to_string(), field("id"), field("question"), field("answer"), field("code")));
        }
    }
    rows.sort();
    rows
}

#[test]
fn shards_give_the_rows_of_one_process() {
    let dir = tempfile::tempdir().unwrap();
    let corpus = corpus(dir.path());
    let one = dir.path().join("one");
    let out = build(&corpus, &one, &["--format", "parquet"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let expected = parquet_rows(&one);
    assert!(expected.len() >= 4, "{expected:?}");
    let card = std::fs::read_to_string(one.join("README.md")).unwrap();
    assert!(card.contains("config_name: python") && card.contains("data/python/dev-*.parquet"), "{card}");
    let yes = expected.iter().filter(|r| r.3 == "Yes").count();
    let no = expected.iter().filter(|r| r.3 == "No").count();
    assert_eq!(yes, no, "Yes/No balanced");

    let three = dir.path().join("three");
    for i in 0..2 {
        let out = build(&corpus, &three, &["--format", "parquet", "--shard", &format!("{i}/3")]);
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    }
    let early = quarry(&["dataset", "finalize", three.to_str().unwrap()]);
    assert_eq!(early.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&early.stderr).contains("shard 2/3 is missing"), "{early:?}");
    let last = build(&corpus, &three, &["--format", "parquet", "--shard", "2/3"]);
    assert!(last.status.success(), "{}", String::from_utf8_lossy(&last.stderr));
    let again = build(&corpus, &three, &["--format", "parquet", "--shard", "0/3"]);
    assert!(String::from_utf8_lossy(&again.stderr).contains("nothing to do"), "{again:?}");
    let done = quarry(&["dataset", "finalize", three.to_str().unwrap()]);
    assert!(done.status.success(), "{}", String::from_utf8_lossy(&done.stderr));
    assert_eq!(parquet_rows(&three), expected);
    assert!(!three.join(".shards").exists(), "candidates are removed");

    // The released parallel files hold the same pairs, in the same splits.
    let flat = dir.path().join("flat");
    assert!(build(&corpus, &flat, &[]).status.success());
    let mut released = Vec::new();
    for split in ["train", "dev", "test"] {
        let read = |suffix: &str| std::fs::read_to_string(flat.join(format!("{split}.{suffix}"))).unwrap();
        let (questions, answers) = (read("question"), read("answer"));
        for (q, a) in questions.lines().zip(answers.lines()) {
            released.push((split.to_string(), q.to_string(), a.to_string()));
        }
    }
    released.sort();
    let mut pairs: Vec<_> = expected.iter().map(|r| (r.0.clone(), r.2.clone(), r.3.clone())).collect();
    pairs.sort();
    assert_eq!(released, pairs);
}

#[test]
fn a_shard_built_with_other_options_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let corpus = corpus(dir.path());
    let out = dir.path().join("mixed");
    assert!(build(&corpus, &out, &["--shard", "0/2"]).status.success());
    assert!(build(&corpus, &out, &["--shard", "1/2", "--seed", "7"]).status.success());
    let finalize = quarry(&["dataset", "finalize", out.to_str().unwrap()]);
    assert_eq!(finalize.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&finalize.stderr);
    assert!(stderr.contains("other options"), "{stderr}");
}

#[test]
fn a_shard_records_its_time_budget() {
    let dir = tempfile::tempdir().unwrap();
    let corpus = corpus(dir.path());
    let out = dir.path().join("budgets");
    assert!(build(&corpus, &out, &["--shard", "0/2", "--time-budget", "0"]).status.success());
    let manifest_path = out.join("manifests/codeqa-00000-of-00002.json");
    let manifest: Value = serde_json::from_slice(&std::fs::read(&manifest_path).unwrap()).unwrap();
    assert_eq!(manifest["settings"]["time_budget_ms"], Value::Null, "{manifest}");

    // Another budget is another build: the shard is built again, not passed over.
    let other = build(&corpus, &out, &["--shard", "0/2", "--time-budget", "5"]);
    assert!(other.status.success(), "{other:?}");
    assert!(!String::from_utf8_lossy(&other.stderr).contains("nothing to do"), "{other:?}");

    // A manifest written before the budget could be chosen was built with 5 s.
    let mut manifest: Value = serde_json::from_slice(&std::fs::read(&manifest_path).unwrap()).unwrap();
    assert_eq!(manifest["settings"]["time_budget_ms"], 5000, "{manifest}");
    manifest["settings"].as_object_mut().unwrap().remove("time_budget_ms");
    std::fs::write(&manifest_path, serde_json::to_vec(&manifest).unwrap()).unwrap();
    let again = build(&corpus, &out, &["--shard", "0/2", "--time-budget", "5"]);
    assert!(String::from_utf8_lossy(&again.stderr).contains("nothing to do"), "{again:?}");

    // Shards built with different budgets are not one dataset.
    assert!(build(&corpus, &out, &["--shard", "1/2"]).status.success());
    let finalize = quarry(&["dataset", "finalize", out.to_str().unwrap()]);
    assert_eq!(finalize.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&finalize.stderr).contains("other options"), "{finalize:?}");
}

#[test]
fn a_rerun_clears_what_a_killed_run_left() {
    let dir = tempfile::tempdir().unwrap();
    let corpus = corpus(dir.path());
    let out = dir.path().join("out");
    // What `kill -9` leaves of a run writing its candidates, then its split files.
    let left = [".shards/.codeqa-00000-of-00001.jsonl.4194304.0.tmp", ".train.question.4194304.3.tmp"];
    for name in left {
        std::fs::create_dir_all(out.join(name).parent().unwrap()).unwrap();
        std::fs::write(out.join(name), "{\"id\": \"half").unwrap();
    }
    let built = build(&corpus, &out, &[]);
    assert!(built.status.success(), "{}", String::from_utf8_lossy(&built.stderr));
    for name in left {
        assert!(!out.join(name).exists(), "{name} left behind");
    }
    assert!(!out.join(".shards").exists());
    assert!(!std::fs::read_to_string(out.join("train.question")).unwrap().is_empty());
}
