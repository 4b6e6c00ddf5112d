//! End-to-end tests of `quarry nlp parse` with the real model
//! (QUARRY_SPACY_MODEL_DIR, set by scripts/test; skipped without it).

use std::io::Write;
use std::process::{Command, Output, Stdio};

use serde_json::Value;

fn model() -> Option<String> {
    let test = concat!(env!("CARGO_PKG_NAME"), "::", module_path!());
    quarry_stdx::skip::path_from_env("QUARRY_SPACY_MODEL_DIR", test).map(|p| p.display().to_string())
}

fn quarry_stdin(args: &[&str], input: &[u8]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_quarry"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("quarry runs");
    // A run that fails early (a missing model) may exit before reading its
    // input: a closed pipe is then not the test's concern, the output is.
    if let Err(error) = child.stdin.take().expect("stdin").write_all(input) {
        assert_eq!(error.kind(), std::io::ErrorKind::BrokenPipe, "write stdin: {error}");
    }
    child.wait_with_output().expect("quarry finishes")
}

#[test]
fn json_lines_keep_one_line_per_input_and_name_bad_lines() {
    let Some(m) = model() else { return };
    let input = b"Returns the value.\n\n\xff\xfe broken\nIt works; it's fine.\n";
    let out = quarry_stdin(&["nlp", "parse", "--model", &m, "--format", "json"], input);
    assert_eq!(out.status.code(), Some(2), "invalid UTF-8 makes the exit code 2");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("<stdin>:3") && stderr.contains("UTF-8"), "{stderr}");
    let lines: Vec<Value> =
        String::from_utf8_lossy(&out.stdout).lines().map(|l| serde_json::from_str(l).expect("JSON")).collect();
    assert_eq!(lines.len(), 4);
    assert_eq!(lines[0]["tokens"][0]["lemma"], "return");
    assert_eq!(lines[1]["tokens"].as_array().map(Vec::len), Some(0));
    assert!(lines[2].is_null());
    assert_eq!(lines[3]["tokens"][0]["dep"], "nsubj");
}

#[test]
fn conllu_blocks_per_sentence() {
    let Some(m) = model() else { return };
    let dir = tempfile::tempdir().expect("tempdir");
    let file = dir.path().join("in.txt");
    std::fs::write(&file, "Returns the value. Raises an error otherwise.\n").expect("write");
    let out = Command::new(env!("CARGO_BIN_EXE_quarry"))
        .args(["nlp", "parse", "--model", &m, "--file", file.to_str().expect("utf-8 path")])
        .output()
        .expect("quarry runs");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8_lossy(&out.stdout);
    let blocks: Vec<&str> = text.trim_end().split("\n\n").collect();
    assert_eq!(blocks.len(), 2, "{text}");
    assert!(blocks[0].starts_with("# sent_id = 1-1\n# text = Returns the value.\n"), "{text}");
    assert!(blocks[0].contains("1\tReturns\treturn\tVERB\tVBZ\t"), "{text}");
    for line in text.lines().filter(|l| !l.is_empty() && !l.starts_with('#')) {
        assert_eq!(line.split('\t').count(), 10, "{line}");
    }
}

#[test]
fn a_missing_model_is_a_usage_error() {
    let out = quarry_stdin(&["nlp", "parse", "--model", "/nonexistent/model"], b"text\n");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("/nonexistent/model"));
}
