//! `quarry codeqa qa|score|texts|stats` and `quarry dataset codeqa` as a user
//! runs them, on stored spaCy parses (quarry-data's codeqa fixtures).

use std::path::PathBuf;
use std::process::{Command, Output};

fn quarry(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_quarry")).args(args).output().expect("run quarry")
}

fn fixtures() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../quarry-data/tests/fixtures/codeqa")
}

fn temp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("quarry-cli-codeqa-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn parses() -> String {
    fixtures().join("parses.jsonl").to_str().unwrap().to_string()
}

#[test]
fn qa_writes_one_line_per_comment_and_reports_bad_lines() {
    let dir = temp("qa");
    let input = dir.join("in.jsonl");
    std::fs::write(
        &input,
        "{\"comment\": \"Stores the result in the cache.\"}\nnot json\n{\"comment\": \"\"}\n{\"text\": \"no comment field\"}\n",
    )
    .unwrap();
    let out = quarry(&["codeqa", "qa", "--parses", &parses(), "--comments", input.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2), "bad lines give exit code 2");
    let stdout = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<serde_json::Value> = stdout.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(lines.len(), 4);
    let first = &lines[0]["pairs"];
    assert!(first.as_array().unwrap().iter().any(|p| p["question"] == "Where does the code store the result ?"
        && p["answer"] == "in the cache"
        && p["kind"] == "wh"));
    assert!(lines[1]["error"].as_str().unwrap().contains("in.jsonl:2"));
    assert_eq!(lines[2]["pairs"].as_array().unwrap().len(), 0);
    assert!(lines[2].get("error").is_none(), "an empty comment gives no pairs, not an error");
    assert!(lines[3]["error"].as_str().unwrap().contains("in.jsonl:4"));
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(stderr.contains("in.jsonl:2"), "{stderr}");
}

#[test]
fn missing_parser_input_is_a_clear_error() {
    let dir = temp("missing");
    let input = dir.join("in.jsonl");
    std::fs::write(&input, "{\"comment\": \"Stores the result in the cache.\"}\n").unwrap();
    let missing = dir.join("no-such-parses.jsonl");
    let out = quarry(&["codeqa", "qa", "--parses", missing.to_str().unwrap(), "--comments", input.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8(out.stderr).unwrap().contains("no-such-parses.jsonl"));
    let out = quarry(&["codeqa", "qa", "--comments", input.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    let no_model = dir.join("no-model");
    let out = quarry(&["codeqa", "qa", "--parser", no_model.to_str().unwrap(), "--comments", input.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(stderr.contains("cannot load the English model") && stderr.contains("no-model"), "{stderr}");
    let out = quarry(&["codeqa", "qa", "--parses", &parses(), "--comments", dir.join("none.jsonl").to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8(out.stderr).unwrap().contains("none.jsonl"));
}

#[test]
fn texts_and_stats() {
    let comments = fixtures().join("comments.jsonl");
    let out = quarry(&["codeqa", "texts", "--comments", comments.to_str().unwrap()]);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("\"the code stores the result in the cache\""), "{text}");
    let out = quarry(&["codeqa", "stats", fixtures().join("stats").to_str().unwrap(), "--format", "json"]);
    assert!(out.status.success());
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["total"]["examples"], 7);
}

#[test]
fn dataset_codeqa_writes_parallel_splits_and_skips_bad_files() {
    let out_dir = temp("dataset");
    let out = quarry(&[
        "dataset",
        "codeqa",
        "--corpus",
        fixtures().join("corpus").to_str().unwrap(),
        "--lang",
        "python",
        "--parses",
        &parses(),
        "--out",
        out_dir.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(stderr.contains("broken.py") && stderr.contains("skipped"), "{stderr}");
    let mut total = 0;
    for split in ["train", "dev", "test"] {
        let read = |suffix: &str| std::fs::read_to_string(out_dir.join(format!("{split}.{suffix}"))).unwrap();
        let q = read("question");
        let n = if q.is_empty() { 0 } else { q.lines().count() };
        for suffix in ["answer", "code", "code.original"] {
            let t = read(suffix);
            assert_eq!(if t.is_empty() { 0 } else { t.lines().count() }, n, "{split}.{suffix}");
        }
        total += n;
    }
    assert!(total > 0);
    let answers: String = ["train", "dev", "test"]
        .iter()
        .map(|s| std::fs::read_to_string(out_dir.join(format!("{s}.answer"))).unwrap() + "\n")
        .collect();
    let yes = answers.lines().filter(|l| *l == "Yes").count();
    let no = answers.lines().filter(|l| *l == "No").count();
    assert_eq!(yes, no, "Yes/No balanced");
    let out = quarry(&["dataset", "codeqa", "--corpus", "x", "--lang", "cobol", "--parses", &parses(), "--out", "y"]);
    assert_eq!(out.status.code(), Some(2));
}
