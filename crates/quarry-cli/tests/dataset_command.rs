//! `quarry dataset codequeries` and `quarry dataset perturb` as a user runs them.

use std::path::PathBuf;
use std::process::{Command, Output};

fn quarry(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_quarry")).args(args).output().expect("run quarry")
}

fn corpus() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../quarry-data/tests/fixtures/corpus")
}

#[test]
fn builds_gzip_dataset_prints_tables_and_perturbs() {
    let out = std::env::temp_dir().join(format!("quarry-cli-dataset-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&out);
    let result = quarry(&[
        "dataset",
        "codequeries",
        "--corpus",
        corpus().to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--split",
        "1,0,0",
        "--gzip",
        "--select",
        "Q17,Q20",
    ]);
    assert_eq!(result.status.code(), Some(0), "{}", String::from_utf8_lossy(&result.stderr));
    let stderr = String::from_utf8_lossy(&result.stderr);
    for split in ["valid", "test"] {
        assert!(stderr.contains(&format!("warning: the {split} split is empty")), "{stderr}");
    }
    assert!(!stderr.contains("the train split is empty"), "{stderr}");
    let table = String::from_utf8(result.stdout).unwrap();
    assert!(table.contains("Table 1") && table.contains("Testing equality to None"), "{table}");
    for setting in ["ideal", "file_ideal", "twostep"] {
        assert!(out.join(format!("{setting}_train.jsonl.gz")).is_file());
    }
    let stats: serde_json::Value = serde_json::from_slice(&std::fs::read(out.join("stats.json")).unwrap()).unwrap();
    assert_eq!(stats["files"], 3);
    let perturbed = out.join("perturbed.jsonl");
    let result = quarry(&[
        "dataset",
        "perturb",
        "--in",
        out.join("ideal_train.jsonl.gz").to_str().unwrap(),
        "--out",
        perturbed.to_str().unwrap(),
    ]);
    assert_eq!(result.status.code(), Some(0), "{}", String::from_utf8_lossy(&result.stderr));
    let stderr = String::from_utf8(result.stderr).unwrap();
    assert!(stderr.contains("examples perturbed"), "{stderr}");
    assert!(std::fs::read_to_string(&perturbed).unwrap().lines().count() > 0);
}

#[test]
fn missing_corpus_is_a_clear_error() {
    let result = quarry(&["dataset", "codequeries", "--corpus", "/no/such/dir", "--out", "/tmp/unused"]);
    assert_eq!(result.status.code(), Some(2));
    assert!(String::from_utf8(result.stderr).unwrap().contains("/no/such/dir: not a directory"));
}
