//! `quarry cs1qa retrieve` and `quarry cs1qa eval lines --baseline` as a user
//! runs them, on files in CS1QA's published schemas.

use std::path::PathBuf;
use std::process::{Command, Output};

fn quarry(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_quarry")).args(args).output().expect("run quarry")
}

fn temp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("quarry-cli-cs1qa-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn write_questions(path: &PathBuf, rows: &[(u64, &str)]) {
    let text: String = rows
        .iter()
        .map(|(id, text)| format!("{}\n", serde_json::json!({"id": id, "text": text, "doc_id": null})))
        .collect();
    std::fs::write(path, text).unwrap();
}

#[test]
fn bm25_retrieve_ranks_the_matching_corpus_question_first() {
    let dir = temp("retrieve");
    let corpus = dir.join("corpus.jsonl");
    let questions = dir.join("q.jsonl");
    write_questions(
        &corpus,
        &[
            (0, "why does hubo turn left three times"),
            (1, "what does the return value of on_beeper mean"),
            (2, "how do I open a file and read each line"),
            (3, "what is the balance after a withdrawal"),
        ],
    );
    write_questions(&questions, &[(10, "how to read each line of a file"), (11, "why turn left three times")]);
    let out = quarry(&[
        "cs1qa",
        "retrieve",
        "--corpus",
        corpus.to_str().unwrap(),
        "--questions",
        questions.to_str().unwrap(),
        "--top-k",
        "2",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let lines: Vec<serde_json::Value> =
        String::from_utf8(out.stdout).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(lines.len(), 2, "one line per question, in order");
    assert_eq!(lines[0]["id"], 10);
    assert_eq!(lines[0]["hits"].as_array().unwrap().len(), 2);
    assert_eq!(lines[0]["hits"][0]["id"], 2);
    assert_eq!(lines[1]["hits"][0]["id"], 0);
    let (first, second) =
        (lines[0]["hits"][0]["score"].as_f64().unwrap(), lines[0]["hits"][1]["score"].as_f64().unwrap());
    assert!(first >= second, "hits are sorted by score");
}

#[test]
fn malformed_corpus_line_is_named_and_exits_2() {
    let dir = temp("malformed");
    let corpus = dir.join("corpus.jsonl");
    let questions = dir.join("q.jsonl");
    std::fs::write(&corpus, "{\"id\": 0, \"text\": \"a question\", \"doc_id\": null}\nnot json\n").unwrap();
    write_questions(&questions, &[(1, "a question")]);
    let out = quarry(&[
        "cs1qa",
        "retrieve",
        "--corpus",
        corpus.to_str().unwrap(),
        "--questions",
        questions.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("corpus.jsonl"), "the error names the file: {stderr}");
}

#[test]
fn middle_lines_baseline_scores_the_fixture_rows() {
    let rows = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../quarry-model/tests/fixtures/cs1qa/rows.jsonl");
    let out = quarry(&["cs1qa", "eval", "lines", "--baseline", "--data", rows.to_str().unwrap(), "--format", "json"]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let all_rows = v["all"]["rows"].as_u64().unwrap();
    let valid_rows = v["valid_line"]["rows"].as_u64().unwrap();
    assert!(valid_rows > 0 && valid_rows < all_rows, "N/A rows are left out of the valid-line column");
    for column in ["all", "valid_line"] {
        let f1 = v[column]["f1"].as_f64().unwrap();
        assert!((0.0..=1.0).contains(&f1) && f1 > 0.0, "{column}: {f1}");
    }
}

#[test]
fn a_killed_run_s_temporary_in_the_working_directory_is_cleared_by_the_next_run() {
    let dir = temp("leftover");
    // What `kill -9` leaves of `--predictions p.jsonl` (process ids past the kernel's
    // maximum never run), and an unrelated file of the same shape that stays.
    let leftover = dir.join(".p.jsonl.4999999.0.tmp");
    let other = dir.join(".q.jsonl.4999999.0.tmp");
    for path in [&leftover, &other] {
        std::fs::write(path, "{\"row\":0,").unwrap();
    }
    let rows = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../quarry-model/tests/fixtures/cs1qa/rows.jsonl");
    let out = Command::new(env!("CARGO_BIN_EXE_quarry"))
        .args(["cs1qa", "eval", "lines", "--baseline", "--data", rows.to_str().unwrap(), "--predictions", "p.jsonl"])
        .current_dir(&dir)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(!leftover.exists(), "the output's leftover is cleared");
    assert!(other.exists(), "another output's is not");
    assert_eq!(std::fs::read_to_string(dir.join("p.jsonl")).unwrap().lines().count(), 25);
    std::fs::remove_dir_all(&dir).unwrap();
}
