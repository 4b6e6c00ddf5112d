//! `-` as a file argument: standard input where a command reads a file, standard output where
//! it writes one, with the same result as the files themselves.

use std::io::Write;
use std::process::{Command, Stdio};

fn quarry(args: &[&str], stdin: &[u8]) -> std::process::Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_quarry"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(stdin).unwrap();
    child.wait_with_output().unwrap()
}

fn questions(rows: &[(u32, &str)]) -> String {
    rows.iter().map(|(id, text)| format!("{{\"id\": {id}, \"text\": \"{text}\"}}\n")).collect()
}

#[test]
fn dash_reads_standard_input_and_writes_standard_output() {
    let dir = tempfile::tempdir().unwrap();
    let path = |name: &str| dir.path().join(name).to_str().unwrap().to_string();
    std::fs::write(path("corpus.jsonl"), questions(&[(0, "why turn left"), (1, "how to read a file")])).unwrap();
    let asked = questions(&[(5, "read a file"), (6, "turn left")]);
    std::fs::write(path("q.jsonl"), &asked).unwrap();
    let corpus = path("corpus.jsonl");
    let retrieve = |questions: &str, out: &str| -> Vec<String> {
        ["cs1qa", "retrieve", "--corpus", &corpus, "--questions", questions, "--method", "bm25", "--top-k", "1"]
            .iter()
            .map(|s| s.to_string())
            .chain(["--out".to_string(), out.to_string()])
            .collect()
    };
    let from_files = retrieve(&path("q.jsonl"), &path("hits.jsonl"));
    let run = quarry(&from_files.iter().map(String::as_str).collect::<Vec<_>>(), b"");
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
    let expected = std::fs::read_to_string(path("hits.jsonl")).unwrap();
    assert_eq!(expected.lines().count(), 2);

    let piped = retrieve("-", "-");
    let run = quarry(&piped.iter().map(String::as_str).collect::<Vec<_>>(), asked.as_bytes());
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
    assert_eq!(String::from_utf8(run.stdout).unwrap(), expected);
    assert!(!dir.path().join("-").exists(), "`-` is not a file name");

    // Scores read from standard input equal those read from the file.
    std::fs::write(path("hyp.txt"), "the cat sat on the mat\n").unwrap();
    std::fs::write(path("ref.txt"), "the cat is on the mat\n").unwrap();
    let from_file = quarry(&["metrics", "bleu", "--hyp", &path("hyp.txt"), "--ref", &path("ref.txt")], b"");
    let from_stdin = quarry(&["metrics", "bleu", "--hyp", "-", "--ref", &path("ref.txt")], b"the cat sat on the mat\n");
    assert!(from_file.status.success() && from_stdin.status.success());
    assert_eq!(from_file.stdout, from_stdin.stdout);
}

#[test]
fn a_folder_output_named_dash_is_refused_before_anything_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let folder_outputs: [&[&str]; 7] = [
        &["dataset", "codequeries", "--corpus", "c", "--out", "-"],
        &["dataset", "codeqa", "--corpus", "c", "--lang", "python", "--out", "-"],
        &["inspect", "generate", "--corpus", "c", "--task", "LEN", "--out", "-"],
        &["probe", "--task", "LEN", "--data", "d", "--model", "hashed-tokens", "--out", "-"],
        &["probe", "--task", "LEN", "--data", "d", "--model", "hashed-tokens", "--out", "o", "--npy", "-"],
        &["train", "span", "--train", "t", "--valid", "v", "--model", "m", "--out", "-"],
        &["experiment", "inspect", "--data", "d", "--model", "m", "--out", "-"],
    ];
    for args in folder_outputs {
        let run = Command::new(env!("CARGO_BIN_EXE_quarry")).args(args).current_dir(dir.path()).output().unwrap();
        let stderr = String::from_utf8_lossy(&run.stderr);
        assert_eq!(run.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains("a folder cannot be written to standard output"), "{args:?}: {stderr}");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0, "{args:?} wrote something");
    }
}
