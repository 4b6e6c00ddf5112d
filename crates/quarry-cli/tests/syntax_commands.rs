//! `quarry blocks`, `quarry tokens` and `quarry parse` as a user runs them:
//! exit codes, stable JSON on stdout, errors naming the file on stderr.

use std::path::PathBuf;
use std::process::{Command, Output};

fn quarry(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_quarry")).args(args).output().expect("run quarry")
}

fn fixture(name: &str, contents: &[u8]) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("quarry-cli-syntax-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, contents).unwrap();
    path
}

const EXAMPLE: &str = "import os\n\nclass Shape(object):\n    sides = 0\n\n    def area(self):\n        return 0\n";

#[test]
fn blocks_json_lists_kinds_names_and_contents() {
    let path = fixture("shape.py", EXAMPLE.as_bytes());
    let out = quarry(&["blocks", path.to_str().unwrap(), "--format", "json"]);
    assert_eq!(out.status.code(), Some(0));
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let blocks = doc["blocks"].as_array().unwrap();
    let kinds: Vec<&str> = blocks.iter().map(|b| b["kind"].as_str().unwrap()).collect();
    assert_eq!(kinds, ["module_level", "class_level", "class_method"]);
    assert_eq!(blocks[2]["metadata"], "root.Shape.area");
    assert_eq!(blocks[2]["header"], "class Shape(object):");
    assert_eq!(blocks[2]["content"], "    def area(self):\n        return 0\n");
    assert_eq!(blocks[1]["lines"], serde_json::json!([{"start": 2, "end": 4}]));
}

#[test]
fn tokens_json_uses_the_span_schema() {
    let path = fixture("Hello.java", "class Hello { String s = \"h\u{e9}\"; }".as_bytes());
    let out = quarry(&["tokens", path.to_str().unwrap(), "--format", "json"]);
    assert_eq!(out.status.code(), Some(0));
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["language"], "java");
    let literal = doc["tokens"].as_array().unwrap().iter().find(|t| t["kind"] == "literal").unwrap();
    assert_eq!(literal["span"], "\"h\u{e9}\"");
    assert_eq!(literal["start_column"], 25);
    assert_eq!(literal["end_column"], 29);
}

#[test]
fn parse_reports_error_regions_and_succeeds() {
    let path = fixture("broken.py", b"def f(:\n    return 1\n");
    let out = quarry(&["parse", path.to_str().unwrap(), "--format", "json"]);
    assert_eq!(out.status.code(), Some(0));
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["has_errors"], true);
    assert!(!doc["error_regions"].as_array().unwrap().is_empty());
    let pretty = quarry(&["parse", path.to_str().unwrap()]);
    let text = String::from_utf8(pretty.stdout).unwrap();
    assert!(text.starts_with("module 1:1-"), "1-based for people: {text}");
    assert!(text.contains("1:7-1:8\tunexpected") || text.contains("\n1:"), "{text}");
    let blocks = quarry(&["blocks", path.to_str().unwrap()]);
    assert!(String::from_utf8(blocks.stdout).unwrap().contains("lines 1-2"));
    let tokens = quarry(&["tokens", path.to_str().unwrap()]);
    assert!(String::from_utf8(tokens.stdout).unwrap().starts_with("1:1-1:4\tkeyword\t\"def\""));
}

#[test]
fn bad_input_exits_2_and_names_the_file() {
    let binary = fixture("blob.py", b"\x00\x01\x02");
    let out = quarry(&["blocks", binary.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(stderr.contains("blob.py: binary file"), "{stderr}");
    assert!(out.stdout.is_empty());

    let unknown = fixture("notes.txt", b"hello");
    let out = quarry(&["tokens", unknown.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8(out.stderr).unwrap().contains("notes.txt: unknown language"));

    let out = quarry(&["tokens", unknown.to_str().unwrap(), "--lang", "python"]);
    assert_eq!(out.status.code(), Some(0));

    let out = quarry(&["blocks", "--format", "xml", "x.py"]);
    assert_eq!(out.status.code(), Some(2), "usage errors exit 2");
}

#[test]
fn java_files_have_no_code_blocks() {
    let path = fixture("A.java", b"class A {}");
    let out = quarry(&["blocks", path.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8(out.stderr).unwrap().contains("Python files only"));
}

#[test]
fn a_file_over_the_time_budget_is_skipped_with_a_diagnostic() {
    // 2 MB of code cannot be read, parsed and walked in a microsecond: each command reports
    // the file and the stage where the budget ran out, prints nothing and exits 2.
    let text = "def f(a, b):\n    if a == None:\n        return b\n    return a\n\n".repeat(40_000);
    let path = fixture("big.py", text.as_bytes());
    for command in ["blocks", "tokens", "parse"] {
        let out = quarry(&[command, path.to_str().unwrap(), "--time-budget", "0.000001"]);
        assert_eq!(out.status.code(), Some(2), "{command}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            stderr.contains(&format!("{}: skipped after the per-file time budget of 0.0 s", path.display())),
            "{command}: {stderr}"
        );
        assert!(out.stdout.is_empty(), "{command}");
    }
    // Without a budget the work is done.
    let out = quarry(&["tokens", path.to_str().unwrap(), "--time-budget", "0", "--format", "json"]);
    assert_eq!(out.status.code(), Some(0));
}
