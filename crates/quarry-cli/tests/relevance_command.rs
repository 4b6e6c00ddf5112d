//! `quarry train relevance` then `quarry evaluate relevance` on a tiny generated dataset.

use std::path::PathBuf;
use std::process::{Command, Output};

fn quarry(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_quarry")).env("RAYON_NUM_THREADS", "1").args(args).output().expect("run quarry")
}

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("quarry-cli-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Relevance rows as the dataset builder writes them; relevant iff the block holds `key`.
fn rows(n: usize) -> String {
    (0..n)
        .map(|i| {
            let relevant = i % 3 == 0;
            let block = if relevant {
                ["[CLS]", "query", "[SEP]", "a", "key", "b", "[SEP]"]
            } else {
                ["[CLS]", "query", "[SEP]", "a", "b", "a", "[SEP]"]
            };
            serde_json::json!({
                "query_name": "query",
                "code_file_path": format!("f{i}.py"),
                "context_block": {"content": "x = 1\n", "metadata": "root", "header": "", "index": 0, "lines": [0, 0]},
                "relevance_label": u8::from(relevant),
                "single_hop": true,
                "subtokenized_input_sequence": block,
            })
            .to_string()
                + "\n"
        })
        .collect()
}

#[test]
fn trains_and_evaluates_a_relevance_classifier() {
    let dir = temp_dir("relevance");
    std::fs::write(dir.join("vocab.txt"), "[PAD]\n[UNK]\n[CLS]\n[SEP]\nquery\na\nb\nkey\n").unwrap();
    let data = dir.join("twostep_train.jsonl");
    std::fs::write(&data, rows(12)).unwrap();
    let out = dir.join("run");
    let path = |p: &PathBuf| p.to_str().unwrap().to_string();
    let (vocab, data_s, out_s) = (path(&dir), path(&data), path(&out));
    let args = [
        "train",
        "relevance",
        "--train",
        &data_s,
        "--valid",
        &data_s,
        "--model",
        "scratch:1x16x2",
        "--tokenizer",
        &vocab,
        "--out",
        &out_s,
        "--epochs",
        "1",
        "--batch-size",
        "4",
        "--lr",
        "1e-3",
    ];
    let run = quarry(&args);
    let stdout = String::from_utf8_lossy(&run.stdout);
    assert_eq!(run.status.code(), Some(0), "{}", String::from_utf8_lossy(&run.stderr));
    for word in ["epoch 1 ", "valid_loss", "accuracy", "precision", "recall", "best checkpoint"] {
        assert!(stdout.contains(word), "{word} missing from {stdout}");
    }
    // Class weights from the training labels (4 relevant of 12) are kept in the checkpoint.
    let head: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("best/head_config.json")).unwrap()).unwrap();
    assert_eq!(head["task"], "relevance");
    assert_eq!(head["class_weights"], serde_json::json!([0.75, 1.5]));

    let best = path(&out.join("best"));
    let eval = quarry(&["evaluate", "relevance", "--model", &best, "--data", &data_s, "--format", "json"]);
    assert_eq!(eval.status.code(), Some(0), "{}", String::from_utf8_lossy(&eval.stderr));
    let doc: serde_json::Value = serde_json::from_slice(&eval.stdout).unwrap();
    // Rates on the 0-100 scale; precision is null (with a warning) when no row is
    // predicted relevant.
    for key in ["accuracy", "precision", "recall", "f1", "loss"] {
        if key == "precision" && doc[key].is_null() {
            assert!(doc["warnings"][0].as_str().is_some_and(|w| w.contains("precision is undefined")), "{doc}");
            continue;
        }
        let v = doc[key].as_f64().unwrap_or_else(|| panic!("{key} missing from {doc}"));
        assert!(key == "loss" || (0.0..=100.0).contains(&v), "{key} = {v}");
    }
    assert!(doc["predict_nothing"]["accuracy"].as_f64().is_some(), "{doc}");
    let counts: u64 = ["true_positives", "false_positives", "true_negatives", "false_negatives"]
        .iter()
        .map(|k| doc[k].as_u64().unwrap())
        .sum();
    assert_eq!(counts, 12);
    assert_eq!(doc["examples"], 12);

    // A relevance checkpoint is no span model, and a plain encoder neither: refused, not
    // answered by a randomly initialised head.
    let wrong = quarry(&["predict", "--model", &best, "--select", "Q17", &data_s]);
    let stderr = String::from_utf8_lossy(&wrong.stderr);
    assert_eq!(wrong.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("a checkpoint of a relevance head, not of a span head"), "{stderr}");
    let head_config = out.join("best/head_config.json");
    let kept = std::fs::read(&head_config).unwrap();
    std::fs::remove_file(&head_config).unwrap();
    let plain = quarry(&["evaluate", "relevance", "--model", &best, "--data", &data_s]);
    let stderr = String::from_utf8_lossy(&plain.stderr);
    assert_eq!(plain.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("no head_config.json, so no trained relevance head"), "{stderr}");
    std::fs::write(&head_config, kept).unwrap();

    // A bad label names the file and the line.
    std::fs::write(&data, rows(2) + "{\"relevance_label\":3,\"subtokenized_input_sequence\":[\"a\"]}\n").unwrap();
    let bad = quarry(&["evaluate", "relevance", "--model", &best, "--data", &data_s]);
    let stderr = String::from_utf8_lossy(&bad.stderr);
    assert_ne!(bad.status.code(), Some(0));
    assert!(stderr.contains("twostep_train.jsonl") && stderr.contains("line 3"), "{stderr}");
    std::fs::remove_dir_all(&dir).unwrap();
}
