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
