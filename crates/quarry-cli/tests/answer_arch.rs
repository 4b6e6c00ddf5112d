//! `quarry train answer --arch`: CodeQA's recurrent baselines (Seq2seq, Dual Encoder) and
//! the Transformer trained on real CodeQA pairs (the quarry-model fixture), their training
//! loss falling, their checkpoints answering through `quarry generate answer` (greedy and
//! beam) and scored by `quarry evaluate answer`; training resumed; mismatched arguments and
//! bad input refused with the reason.

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

fn refused(output: Output, reason: &str) {
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_ne!(output.status.code(), Some(0), "should fail: {stderr}");
    assert!(stderr.contains(reason), "{reason:?} not in: {stderr}");
}

fn pairs() -> String {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../quarry-model/tests/fixtures/codeqa/pairs");
    p.to_str().unwrap().to_string()
}

fn s(p: &Path) -> String {
    p.to_str().unwrap().to_string()
}

/// The training loss of every epoch line on stdout.
fn losses(output: &Output) -> Vec<f64> {
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .filter_map(|l| l.strip_prefix("epoch ")?.split_whitespace().nth(2)?.parse().ok())
        .collect()
}

/// Trains `arch` for `epochs` on the fixture into `out` with `extra` arguments.
fn train(arch: &str, model: &str, out: &Path, epochs: &str, extra: &[&str]) -> Output {
    let data = pairs();
    let args = ["train", "answer", "--arch", arch, "--train", &data, "--valid", &data, "--model", model];
    let run = ["--out", &s(out), "--epochs", epochs, "--batch-size", "2", "--lr", "1e-2", "--max-len", "48"];
    quarry(&[&args[..], &run[..], &["--max-target-len", "12"], extra].concat())
}

/// Answers the fixture's questions with the checkpoint `model` and scores them.
fn answer_and_score(model: &Path, dir: &Path, beam: &str) -> Vec<String> {
    let (data, hyp) = (pairs(), dir.join(format!("beam{beam}.hyp")));
    ok(quarry(&["generate", "answer", "--model", &s(model), "--data", &data, "--beam", beam, "--out", &s(&hyp)]));
    let answers: Vec<String> = std::fs::read_to_string(&hyp).unwrap().lines().map(String::from).collect();
    assert_eq!(answers.len(), 8, "one answer per question");
    let reference = format!("{data}.answer");
    let scores = ok(quarry(&["evaluate", "answer", "--hyp", &s(&hyp), "--ref", &reference, "--format", "json"]));
    let json: serde_json::Value = serde_json::from_slice(&scores.stdout).unwrap();
    assert!(json["f1"].as_f64().is_some_and(|f| (0.0..=100.0).contains(&f)), "{json}");
    answers
}

#[test]
fn the_recurrent_baselines_train_answer_and_resume() {
    for arch in ["seq2seq", "dual-encoder"] {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("model");
        let trained = ok(train(arch, "scratch:1x16", &out, "6", &[]));
        let loss = losses(&trained);
        assert_eq!(loss.len(), 6, "{arch}: one line per epoch");
        assert!(loss[5] < loss[0], "{arch}: the loss falls: {loss:?}");
        for file in ["config.json", "vocab.json", "model.safetensors", "head_config.json"] {
            assert!(out.join("best").join(file).is_file(), "{arch}: best/{file}");
        }
        let greedy = answer_and_score(&out.join("best"), dir.path(), "1");
        let beam = answer_and_score(&out.join("best"), dir.path(), "3");
        assert!(greedy.iter().chain(&beam).all(|a| !a.contains("<s>") && !a.contains("</s>")));

        // Three epochs, then resumed from last/ for three more (the generic loop's exact
        // resumption is tested in quarry-model; here the recurrent checkpoint reloads).
        let again = dir.path().join("again");
        ok(train(arch, "scratch:1x16", &again, "3", &[]));
        let resumed = ok(train(arch, "scratch:1x16", &again, "6", &["--resume"]));
        let stderr = String::from_utf8_lossy(&resumed.stderr);
        assert!(stderr.contains("resuming") && stderr.contains("schedule"), "{arch}: {stderr}");
        let stdout = String::from_utf8_lossy(&resumed.stdout);
        let epochs: Vec<&str> =
            stdout.lines().filter_map(|l| l.strip_prefix("epoch ")?.split_whitespace().next()).collect();
        assert_eq!(epochs, ["4", "5", "6"], "{arch}: epochs 4 to 6 only");
    }
}

#[test]
fn the_transformer_trains_as_before_under_its_arch_name() {
    let dir = tempfile::tempdir().unwrap();
    let text: Vec<String> = ["code", "question", "answer"]
        .iter()
        .map(|suffix| std::fs::read_to_string(format!("{}.{suffix}", pairs())).unwrap())
        .collect();
    let vocab = common::word_vocab_dir("cli-answer-arch", &text.join("\n"), char::is_alphanumeric);
    let out = dir.path().join("model");
    let shape = ["--tokenizer", &s(&vocab), "--decoder-layers", "1", "--decoder-ffn", "32"];
    let trained = ok(train("transformer", "scratch:1x16x2", &out, "3", &shape));
    let loss = losses(&trained);
    assert!(loss[2] < loss[0], "the loss falls: {loss:?}");
    answer_and_score(&out.join("best"), dir.path(), "2");
}

#[test]
fn mismatched_or_bad_arguments_are_refused_with_the_reason() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("model");
    let data = pairs();
    let bad = quarry(&[
        "train", "answer", "--arch", "lstm", "--train", &data, "--valid", &data, "--model", "x", "--out", "o",
    ]);
    refused(bad, "seq2seq, dual-encoder, transformer, pretrained");
    refused(train("pretrained", "scratch:1x16", &out, "1", &[]), "--arch pretrained");
    refused(train("transformer", &s(dir.path()), &out, "1", &[]), "--arch transformer trains an encoder from scratch");
    refused(train("seq2seq", "microsoft/codebert-base", &out, "1", &[]), "--model scratch:LAYERSxHIDDEN");
    // A Dual Encoder checkpoint is not a Seq2seq one.
    ok(train("dual-encoder", "scratch:1x16", &out, "1", &[]));
    refused(train("seq2seq", &s(&out.join("best")), &dir.path().join("other"), "1", &[]), "not --arch seq2seq");
    // Files of different lengths: the error names the file.
    let short = dir.path().join("short");
    for suffix in ["code", "question", "answer"] {
        let text = std::fs::read_to_string(format!("{data}.{suffix}")).unwrap();
        let keep = if suffix == "answer" { 3 } else { 8 };
        let lines: Vec<&str> = text.lines().take(keep).collect();
        std::fs::write(format!("{}.{suffix}", s(&short)), lines.join("\n") + "\n").unwrap();
    }
    let args = ["train", "answer", "--arch", "seq2seq", "--train", &s(&short), "--valid", &data];
    refused(
        quarry(&[&args[..], &["--model", "scratch:1x16", "--out", &s(&dir.path().join("o2"))]].concat()),
        "short.answer",
    );
}
