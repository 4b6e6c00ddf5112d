//! `quarry train answer` and `quarry generate answer` as a user runs them, on real CodeQA
//! pairs (the fixture of quarry-model, copied from the released Python dev split): the
//! candidates file, the two ways of choosing among a beam's candidates, and a bad
//! temperature refused before anything is written.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

#[path = "../../quarry-model/tests/common/mod.rs"]
mod common;

fn quarry(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_quarry")).env("RAYON_NUM_THREADS", "1").args(args).output().expect("run quarry")
}

fn ok(output: Output) -> Output {
    assert_eq!(output.status.code(), Some(0), "{}", String::from_utf8_lossy(&output.stderr));
    output
}

fn pairs() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../quarry-model/tests/fixtures/codeqa/pairs")
}

fn s(p: &Path) -> String {
    p.to_str().unwrap().to_string()
}

/// A WordPiece vocabulary of the fixture's lower-cased words and punctuation marks.
fn vocab_dir() -> PathBuf {
    let text: Vec<String> = ["code", "question", "answer"]
        .iter()
        .map(|suffix| std::fs::read_to_string(format!("{}.{suffix}", s(&pairs()))).unwrap())
        .collect();
    common::word_vocab_dir("cli-answer-command", &text.join("\n"), char::is_alphanumeric)
}

#[test]
fn generated_answers_come_from_the_written_candidates() {
    let dir = tempfile::tempdir().unwrap();
    let vocab = vocab_dir();
    let (data, model) = (s(&pairs()), dir.path().join("model"));
    let train = ["train", "answer", "--train", &data, "--valid", &data, "--model", "scratch:1x16x2"];
    let shape = ["--decoder-layers", "1", "--decoder-ffn", "32", "--max-len", "48", "--max-target-len", "12"];
    let run = ["--tokenizer", &s(&vocab), "--out", &s(&model), "--epochs", "2", "--lr", "1e-2"];
    ok(quarry(&[&train[..], &shape[..], &run[..]].concat()));

    let best_model = s(&model.join("best"));
    let generate = |select: &str, out: &Path, candidates: &Path| {
        let args = ["generate", "answer", "--model", &best_model, "--data", &data, "--beam", "3"];
        let choice = ["--select", select, "--out", &s(out), "--candidates", &s(candidates)];
        ok(quarry(&[&args[..], &choice[..]].concat()));
        let answers: Vec<String> = std::fs::read_to_string(out).unwrap().lines().map(String::from).collect();
        let lists: Vec<serde_json::Value> =
            std::fs::read_to_string(candidates).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
        (answers, lists)
    };
    let texts = |list: &serde_json::Value| -> Vec<String> {
        list["candidates"].as_array().unwrap().iter().map(|c| c["text"].as_str().unwrap().to_string()).collect()
    };

    let (best, lists) = generate("best", &dir.path().join("best.hyp"), &dir.path().join("best.jsonl"));
    assert_eq!(best.len(), 8, "one answer per question");
    assert_eq!(lists.len(), 8, "one candidate list per question");
    for (i, (answer, list)) in best.iter().zip(&lists).enumerate() {
        assert_eq!(list["line"], i + 1);
        let candidates = list["candidates"].as_array().unwrap();
        assert!(!candidates.is_empty());
        assert!(candidates.iter().all(|c| c["log_prob"].as_f64().unwrap() <= 0.0));
        assert_eq!(answer, &texts(list)[0], "best answers with the first candidate");
    }

    let (mbr, mbr_lists) = generate("expected-f1", &dir.path().join("mbr.hyp"), &dir.path().join("mbr.jsonl"));
    assert_eq!(mbr_lists, lists, "the candidates do not depend on the choice");
    for (answer, list) in mbr.iter().zip(&lists) {
        assert!(texts(list).contains(answer), "{answer:?} is one of the candidates");
    }

    let out = dir.path().join("never.hyp");
    let args = ["generate", "answer", "--model", &best_model, "--data", &data, "--out", &s(&out)];
    let refused = quarry(&[&args[..], &["--select", "expected-f1", "--select-temperature", "0"]].concat());
    assert_eq!(refused.status.code(), Some(2));
    let said = String::from_utf8_lossy(&refused.stderr);
    assert!(said.contains("--select-temperature") && said.contains("must be above zero"), "{said}");
    assert!(!out.exists(), "nothing written");
}

#[test]
fn limit_bounds_the_examples_encoded_and_cached_not_only_those_trained_on() {
    let dir = tempfile::tempdir().unwrap();
    let vocab = vocab_dir();
    let (data, model) = (s(&pairs()), dir.path().join("model"));
    let train = ["train", "answer", "--train", &data, "--valid", &data, "--model", "scratch:1x16x2"];
    let shape = ["--decoder-layers", "1", "--decoder-ffn", "32", "--max-len", "48", "--max-target-len", "12"];
    let frozen = ["--freeze-encoder", "--freeze-embeddings", "--cache-encoder-outputs", "--limit", "2"];
    let run = ["--tokenizer", &s(&vocab), "--out", &s(&model), "--epochs", "1"];
    let output = ok(quarry(&[&train[..], &shape[..], &frozen[..], &run[..]].concat()));
    let stderr = String::from_utf8_lossy(&output.stderr);
    // The fixture's 8 pairs have 8 distinct sources; the first 2 are the same file's in
    // both sets.
    assert!(stderr.contains("encoder outputs of 2 sources cached"), "{stderr}");
    assert!(stderr.contains("2 training and 2 validation examples"), "{stderr}");
}
