//! A span model end to end through the CLI: a dataset built with the model's own
//! tokenizer, `quarry eval span` in every setting of the paper's Tables 2 and 3 (two-step
//! with a relevance model), and `quarry predict`, whose spans must quote the file exactly.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

#[path = "common/char_vocab.rs"]
mod char_vocab;
use char_vocab::write_char_vocab;

fn quarry(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_quarry")).env("RAYON_NUM_THREADS", "1").args(args).output().expect("run quarry")
}

fn ok(output: Output) -> Output {
    assert_eq!(output.status.code(), Some(0), "{}", String::from_utf8_lossy(&output.stderr));
    output
}

fn corpus() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../quarry-data/tests/fixtures/corpus")
}

fn s(p: &Path) -> String {
    p.to_str().unwrap().to_string()
}

/// All splits of one dataset file family, concatenated.
fn concat(data: &Path, family: &str, out: &Path) -> usize {
    let text: String = ["train", "valid", "test"]
        .iter()
        .map(|split| std::fs::read_to_string(data.join(format!("{family}_{split}.jsonl"))).unwrap_or_default())
        .collect();
    std::fs::write(out, &text).unwrap();
    text.lines().filter(|l| !l.trim().is_empty()).count()
}

/// Trains a tiny model for one epoch on `train` and returns its `best/` checkpoint.
fn train(task: &str, train: &Path, tokenizer: &Path, out: &Path) -> String {
    let args = ["train", task, "--train", &s(train), "--valid", &s(train), "--model", "scratch:1x16x2"];
    let more = ["--tokenizer", &s(tokenizer), "--out", &s(out), "--epochs", "1", "--max-len", "64"];
    ok(quarry(&[&args[..], &more[..]].concat()));
    s(&out.join("best"))
}

#[test]
fn span_model_answers_queries_in_every_setting() {
    let dir = std::env::temp_dir().join(format!("quarry-cli-model-answers-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    // A character-level WordPiece vocabulary; a first span model saves it as tokenizer.json.
    let seed = write_char_vocab(&dir);
    let first = train("span", &seed, &dir, &dir.join("first"));

    let data = dir.join("data");
    let queries = ["--select", "Unused local variable", "--select", "Unused import"];
    let build = ["dataset", "codequeries", "--corpus", &s(&corpus()), "--out", &s(&data), "--tokenizer", &first];
    // Every negative: the fixture holds no positive of these queries, so the paper's
    // distribution would keep none.
    ok(quarry(&[&build[..], &queries[..], &["--max-len", "64", "--negatives", "all"]].concat()));
    let (ideal, file_level, twostep) = (dir.join("ideal.jsonl"), dir.join("file.jsonl"), dir.join("twostep.jsonl"));
    let ideal_count = concat(&data, "ideal", &ideal);
    let file_count = concat(&data, "file_ideal", &file_level);
    concat(&data, "twostep", &twostep);
    assert!(ideal_count > 0 && file_count > 0);

    let span = train("span", &ideal, Path::new(&first), &dir.join("span"));
    let relevance = train("relevance", &twostep, Path::new(&first), &dir.join("relevance"));
    for (setting, data, count) in [
        ("ideal", &ideal, ideal_count),
        ("prefix", &file_level, file_count),
        ("sliding-window", &file_level, file_count),
        ("file-ideal", &file_level, file_count),
        ("two-step", &file_level, file_count),
    ] {
        let args = ["eval", "span", "--model", &span, "--data", &s(data), "--setting", setting, "--format", "json"];
        let out = ok(quarry(&[&args[..], &["--max-len", "64", "--relevance-model", &relevance]].concat()));
        let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(doc["setting"], setting);
        assert_eq!(doc["examples"], count, "{setting}");
        let em = &doc["exact_match"];
        for key in ["all", "positive", "negative"] {
            if em["counts"][key]["total"] == 0 {
                assert!(em[key].is_null(), "{setting}: an empty {key} category is null: {em}");
                continue;
            }
            let v = em[key].as_f64().unwrap_or_else(|| panic!("{setting}: {key} missing from {em}"));
            assert!((0.0..=100.0).contains(&v));
        }
        let per_query = em["per_query"].as_object().unwrap();
        let total: u64 = per_query.values().map(|b| b["counts"]["all"]["total"].as_u64().unwrap()).sum();
        assert_eq!(total as usize, count, "{setting}: per-query counts add up");
        assert!(doc["answer_only"]["all"].is_number());
    }
    let bad = quarry(&["eval", "span", "--model", &span, "--data", &s(&file_level), "--setting", "window"]);
    assert!(String::from_utf8_lossy(&bad.stderr).contains("unknown setting `window`"));

    // Every span `quarry predict` reports quotes the file at its coordinates.
    let args =
        ["predict", "--model", &span, "--select", "Unused local variable", "--format", "jsonl", "--max-len", "64"];
    let out = ok(quarry(&[&args[..], &[s(&corpus()).as_str()]].concat()));
    for line in String::from_utf8_lossy(&out.stdout).lines() {
        let finding: serde_json::Value = serde_json::from_str(line).unwrap();
        let text = std::fs::read_to_string(finding["file"].as_str().unwrap()).unwrap();
        let lines: Vec<&str> = text.split_inclusive('\n').collect();
        for span in finding["answer_spans"]
            .as_array()
            .unwrap()
            .iter()
            .chain(finding["supporting_fact_spans"].as_array().unwrap())
        {
            let at = |l: &str, c: &str| (span[l].as_u64().unwrap() as usize, span[c].as_u64().unwrap() as usize);
            let ((sl, sc), (el, ec)) = (at("start_line", "start_column"), at("end_line", "end_column"));
            let quoted: String = if sl == el {
                lines[sl].chars().skip(sc).take(ec - sc).collect()
            } else {
                let mut q: String = lines[sl].chars().skip(sc).collect();
                q.extend(lines[sl + 1..el].iter().flat_map(|l| l.chars()));
                q.extend(lines[el].chars().take(ec));
                q
            };
            assert_eq!(quoted, span["span"].as_str().unwrap());
        }
    }
    // A file that cannot be read is reported, and the others are still answered.
    let missing = s(&dir.join("missing.py"));
    let out = quarry(&[&args[..], &[s(&corpus()).as_str(), missing.as_str()]].concat());
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("missing.py"));
    if std::env::var_os("QUARRY_KEEP_TEST_DIR").is_none() {
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

#[test]
fn span_training_weighs_labels_when_asked() {
    let dir = std::env::temp_dir().join(format!("quarry-cli-label-weights-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    write_char_vocab(&dir);
    let data = dir.join("spans.jsonl");
    let line =
        r#"{"subtokenized_input_sequence":["[CLS]","a","b","c","d","e","[SEP]"],"label_sequence":[4,0,1,2,2,2,4]}"#;
    std::fs::write(&data, format!("{line}\n")).unwrap();
    let (d, t, o) = (s(&data), s(&dir), s(&dir.join("weighted")));
    let args = ["train", "span", "--train", &d, "--valid", &d, "--model", "scratch:1x16x2", "--tokenizer", &t];
    let run =
        |weights: &str| quarry(&[&args[..], &["--out", &o, "--epochs", "1", "--label-weights", weights]].concat());
    let out = ok(run("balanced"));
    // scikit-learn's balanced weights of B, I, O, O, O over the labels present; F is unused.
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("label weights: B 1.6667, I 1.6667, O 0.5556, F 1.0000"), "{stderr}");
    let head = std::fs::read_to_string(dir.join("weighted/best/head_config.json")).unwrap();
    assert!(head.contains("class_weights"), "{head}");
    let refused = run("inverse");
    assert_eq!(refused.status.code(), Some(2), "{}", String::from_utf8_lossy(&refused.stderr));
    assert!(String::from_utf8_lossy(&refused.stderr).contains("plain or balanced"));
    std::fs::remove_dir_all(&dir).unwrap();
}
