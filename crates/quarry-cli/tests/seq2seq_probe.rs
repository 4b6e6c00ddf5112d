//! `quarry probe --model DIR` with T5 and BART encoders: quarry-model's tiny random-weight
//! transformers checkpoints probed like any encoder, one probe per hidden state.

use std::path::Path;
use std::process::Command;

/// A small LEN-style dataset: Java statements labelled by their number of tokens.
fn dataset(path: &Path) {
    let mut lines = Vec::new();
    for i in 0..36 {
        let split = ["tr", "tr", "tr", "tr", "va", "te"][i % 6];
        let statements = 1 + (i / 6) % 3;
        let body: Vec<String> = (0..statements).map(|s| format!("int v{s} = {i} ;")).collect();
        let label = ["A", "B", "C"][statements - 1];
        lines.push(format!("{split}\t{label}\tpublic void m{i} ( ) {{ {} }}", body.join(" ")));
    }
    std::fs::write(path, lines.join("\n") + "\n").unwrap();
}

#[test]
fn t5_and_bart_directories_are_probed_like_any_encoder() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("LEN.txt");
    dataset(&data);
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("../quarry-model/tests/fixtures/seq2seq");
    for name in ["t5", "bart"] {
        let out = Command::new(env!("CARGO_BIN_EXE_quarry"))
            .args(["probe", "--task", "LEN", "--data", data.to_str().unwrap(), "--model"])
            .arg(fixtures.join(name))
            .args(["--name", name, "--epochs", "2", "--format", "json", "--out"])
            .arg(dir.path().join(name))
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{name}: {}", String::from_utf8_lossy(&out.stderr));
        let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        let layers = doc["layers"].as_array().unwrap();
        assert_eq!(layers.len(), 3, "{name}: the embeddings and two layers");
        assert!(layers.iter().all(|l| l["accuracy"].is_number()), "{name}: {doc}");
    }
}

/// `--dtype f64` extracts features in double precision into a cache entry of its own; a
/// command that trains or scores refuses it with a message naming the commands that take it.
#[test]
fn f64_features_are_probed_and_other_commands_refuse_f64() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("LEN.txt");
    dataset(&data);
    let t5 = Path::new(env!("CARGO_MANIFEST_DIR")).join("../quarry-model/tests/fixtures/seq2seq/t5");
    let out = Command::new(env!("CARGO_BIN_EXE_quarry"))
        .args(["probe", "--task", "LEN", "--data", data.to_str().unwrap(), "--model"])
        .arg(&t5)
        .args(["--name", "t5", "--epochs", "2", "--dtype", "f64", "--out"])
        .arg(dir.path().join("out"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let entries: Vec<String> = std::fs::read_dir(dir.path().join("out/features/t5"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(entries.len() == 1 && entries[0].starts_with("LEN_inspect_f64_"), "{entries:?}");
    let out = Command::new(env!("CARGO_BIN_EXE_quarry"))
        .args(["bench", "encoder", "--dtype", "f64", "--model"])
        .arg(&t5)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("--dtype f64 is for feature extraction"), "{stderr}");
}
