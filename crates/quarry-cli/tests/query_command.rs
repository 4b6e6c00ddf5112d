//! `quarry query` and `quarry queries` as a user runs them.

use std::path::PathBuf;
use std::process::{Command, Output};

mod common;
use common::named_project;

fn quarry(args: &[&str]) -> Output {
    // The analysis cache under the build's temporary folder, not the crate's.
    let cache = concat!(env!("CARGO_TARGET_TMPDIR"), "/quarry-cache");
    Command::new(env!("CARGO_BIN_EXE_quarry")).env("QUARRY_CACHE_DIR", cache).args(args).output().expect("run quarry")
}

fn project(files: &[(&str, &[u8])]) -> PathBuf {
    named_project(&files.len().to_string(), files)
}

const SERVICE: &[u8] = b"def handle(request):\n    if request == None:\n        return\n    try:\n        run(request)\n    except:\n        pass\n";

#[test]
fn jsonl_has_the_codequeries_fields() {
    let dir = project(&[("pkg/service.py", SERVICE)]);
    let out = quarry(&["query", dir.to_str().unwrap(), "--format", "jsonl"]);
    assert_eq!(out.status.code(), Some(1), "findings: {}", String::from_utf8_lossy(&out.stderr));
    let lines: Vec<serde_json::Value> =
        String::from_utf8(out.stdout).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(lines.len(), 2);
    assert_eq!(lines[0]["query_id"], "equals-none", "sorted by position, not by query");
    let first = &lines[1];
    assert_eq!(first["query"], "Except block handles 'BaseException'");
    assert_eq!(first["query_id"], "catching-base-exception");
    assert_eq!(first["example_type"], 1);
    assert_eq!(
        first["answer_spans"][0],
        serde_json::json!({"span": "except:", "start_line": 5, "start_column": 4, "end_line": 5, "end_column": 11})
    );
    assert_eq!(first["relevant_blocks"][0]["metadata"], "root.handle");
}

#[test]
fn query_selection_negative_form_and_gitignore() {
    let dir = project(&[
        ("a.py", b"x = y is None\nz = y == None\n"),
        ("build/generated.py", b"w = v == None\n"),
        (".gitignore", b"build/\n"),
    ]);
    let out = quarry(&["query", dir.to_str().unwrap(), "--select", "Q20", "--format", "jsonl"]);
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(text.lines().count(), 1, "{text}");
    assert!(!text.contains("generated.py"));
    let out = quarry(&[
        "query",
        dir.to_str().unwrap(),
        "--select",
        "Testing equality to None",
        "--negative",
        "--format",
        "jsonl",
    ]);
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["example_type"], 0);
    assert_eq!(doc["answer_spans"][0]["span"], "y is None");
    let out = quarry(&["query", dir.to_str().unwrap(), "--select", "no-such-query"]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn bad_files_are_reported_and_skipped() {
    let dir = project(&[("good.py", SERVICE), ("bad.py", b"x = '\xff'\n")]);
    let out = quarry(&["query", dir.to_str().unwrap(), "--format", "jsonl"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8(out.stderr).unwrap().contains("bad.py: invalid UTF-8"));
    assert_eq!(String::from_utf8(out.stdout).unwrap().lines().count(), 2, "good.py is still analysed");
}

#[test]
fn sarif_is_a_valid_2_1_0_log() {
    let dir = project(&[("service.py", SERVICE)]);
    let out = quarry(&["query", dir.join("service.py").to_str().unwrap(), "--format", "sarif"]);
    assert_eq!(out.status.code(), Some(1));
    let log: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(log["version"], "2.1.0");
    let run = &log["runs"][0];
    assert_eq!(run["tool"]["driver"]["name"], "quarry");
    let result = &run["results"][1];
    let rule_index = result["ruleIndex"].as_u64().unwrap() as usize;
    assert_eq!(run["tool"]["driver"]["rules"][rule_index]["id"], result["ruleId"]);
    let region = &result["locations"][0]["physicalLocation"]["region"];
    assert_eq!(region["startLine"], 6);
    assert_eq!(region["startColumn"], 5);
    assert_eq!(region["endColumn"], 12);
}

#[test]
fn pretty_output_underlines_answers() {
    let dir = project(&[("service.py", SERVICE)]);
    let out = quarry(&["query", dir.join("service.py").to_str().unwrap()]);
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("2 |     if request == None:\n  |        ^^^^^^^^^^^^^^^ answer"), "{text}");
}

#[test]
fn queries_lists_the_registry() {
    let out = quarry(&["queries", "--format", "json"]);
    let list: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let first = &list[0];
    assert!(first["id"].is_string() && first["name"].is_string() && first["index"].is_number());
    let unused_import = list.as_array().unwrap().iter().find(|q| q["id"] == "unused-import").unwrap();
    assert_eq!(unused_import["codeql_id"], "py/unused-import");
    assert_eq!(unused_import["ruff_code"], "F401");
}

#[test]
fn a_declared_latin1_file_yields_its_findings() {
    let dir = named_project(
        "latin1",
        &[("latin1.py", b"# -*- coding: latin-1 -*-\nname = 'caf\xe9'\nif name == None:\n    pass\n")],
    );
    let out = quarry(&["query", dir.to_str().unwrap(), "--select", "equals-none", "--format", "jsonl"]);
    assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stderr));
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["answer_spans"][0]["span"], "name == None");
    assert_eq!(doc["answer_spans"][0]["start_line"], 2);
}

#[test]
fn pretty_output_is_bounded_on_a_long_line() {
    let line = "x = a == a;      ".repeat(3000);
    let dir = named_project("long-line", &[("long.py", format!("{line}\n").as_bytes())]);
    let file = dir.join("long.py");
    let out = quarry(&[
        "query",
        file.to_str().unwrap(),
        "--select",
        "comparison-of-identical-expressions",
        "--max-shown",
        "50",
    ]);
    assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.len() < 50 * 1000, "{} bytes", text.len());
    assert!(text.lines().all(|l| l.chars().count() < 200), "a long line was printed whole");
    assert!(text.contains("note: 2950 more finding(s)"), "{}", &text[text.len().saturating_sub(300)..]);
    let out = quarry(&[
        "query",
        file.to_str().unwrap(),
        "--select",
        "comparison-of-identical-expressions",
        "--format",
        "jsonl",
    ]);
    assert_eq!(String::from_utf8(out.stdout).unwrap().lines().count(), 3000, "JSON Lines keeps every finding");
}

#[cfg(unix)]
#[test]
fn special_files_in_a_directory_are_reported_and_skipped() {
    let dir = named_project("special", &[("good.py", SERVICE)]);
    std::os::unix::fs::symlink("/dev/zero", dir.join("zero.py")).unwrap();
    let out = quarry(&["query", dir.to_str().unwrap(), "--format", "jsonl", "--time-budget", "10"]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(stderr.contains("zero.py: not a regular file (character device), skipped"), "{stderr}");
    assert!(!stderr.contains("skipped (skipped)"), "{stderr}");
    assert_eq!(String::from_utf8(out.stdout).unwrap().lines().count(), 2);
    // The summary counts them among the skipped files, as the closing error does.
    std::os::unix::fs::symlink("loop_b.py", dir.join("loop_a.py")).unwrap();
    std::os::unix::fs::symlink("loop_a.py", dir.join("loop_b.py")).unwrap();
    let out = quarry(&["query", dir.to_str().unwrap(), "--color", "never", "--time-budget", "10"]);
    let (stdout, stderr) = (String::from_utf8(out.stdout).unwrap(), String::from_utf8(out.stderr).unwrap());
    assert!(stdout.contains("in 4 files (3 skipped)"), "{stdout}");
    assert!(stderr.contains("3 file(s) could not be analysed"), "{stderr}");
}
