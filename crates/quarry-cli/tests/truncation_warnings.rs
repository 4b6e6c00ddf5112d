//! A dataset whose every positive loses its answer spans to `--max-len`: the builder
//! reports it (and by default drops those positives), and `quarry evaluate span` on the
//! kept examples warns and shows the predict-nothing baseline instead of a silent 100%.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

#[path = "common/char_vocab.rs"]
mod char_vocab;
use char_vocab::write_char_vocab;

fn quarry(args: &[&str]) -> Output {
    // The analysis cache under the build's temporary folder, not the crate's.
    let cache = concat!(env!("CARGO_TARGET_TMPDIR"), "/quarry-cache");
    Command::new(env!("CARGO_BIN_EXE_quarry"))
        .env("RAYON_NUM_THREADS", "1")
        .env("QUARRY_CACHE_DIR", cache)
        .args(args)
        .output()
        .expect("run quarry")
}

fn ok(output: Output) -> Output {
    assert_eq!(output.status.code(), Some(0), "{}", String::from_utf8_lossy(&output.stderr));
    output
}

fn s(p: &Path) -> String {
    p.to_str().unwrap().to_string()
}

fn corpus() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../quarry-data/tests/fixtures/corpus")
}

/// Every ideal example of a built dataset, all splits together, written to `out`.
fn all_ideal(data: &Path, out: &Path) -> String {
    let text: String = ["train", "valid", "test"]
        .iter()
        .map(|split| std::fs::read_to_string(data.join(format!("ideal_{split}.jsonl"))).unwrap_or_default())
        .collect();
    std::fs::write(out, &text).unwrap();
    text
}

#[test]
fn positives_cut_by_max_len_are_reported_and_evaluation_warns() {
    let dir = std::env::temp_dir().join(format!("quarry-cli-truncation-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    // A character-level vocabulary; a first scratch model saves it as tokenizer.json.
    let seed = write_char_vocab(&dir);
    let first = dir.join("first");
    let train = ["train", "span", "--train", &s(&seed), "--valid", &s(&seed), "--model", "scratch:1x16x2"];
    ok(quarry(&[&train[..], &["--tokenizer", &s(&dir), "--out", &s(&first), "--epochs", "1"]].concat()));
    let tokenizer = s(&first.join("best"));

    // 24 sub-tokens hold `[CLS]` and the first characters of the query name, never an answer.
    let query = ["--select", "Q17", "--max-len", "24", "--tokenizer", &tokenizer];
    let dropped = dir.join("dropped");
    let build = ["dataset", "codequeries", "--corpus", &s(&corpus()), "--out", &s(&dropped)];
    let out = ok(quarry(&[&build[..], &query[..]].concat()));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("quarry: warning: --max-len 24 cut"), "{stderr}");
    assert!(stderr.contains("lost every answer span") && stderr.contains("dropped"), "{stderr}");
    let stats: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dropped.join("stats.json")).unwrap()).unwrap();
    let q = &stats["stats"]["queries"]["Except block handles 'BaseException'"];
    assert!(q["positives_dropped"].as_u64().unwrap() > 0, "{q}");
    assert_eq!(q["positives_dropped"], q["positives_all_cut"]);
    assert_eq!(q["positive"], 0, "no positive without answers is written: {q}");

    // Kept as the reference keeps them: positives without answers, counted all the same.
    let kept = dir.join("kept");
    let build = ["dataset", "codequeries", "--corpus", &s(&corpus()), "--out", &s(&kept)];
    let out = ok(quarry(&[&build[..], &query[..], &["--cut-positives", "keep", "--negatives", "all"]].concat()));
    assert!(String::from_utf8_lossy(&out.stderr).contains("kept as positives without answers"));
    let ideal = dir.join("ideal.jsonl");
    let text = all_ideal(&kept, &ideal);
    assert!(text.contains("\"example_type\":1"), "the kept positives are in the data");

    let span = dir.join("span");
    let train = ["train", "span", "--train", &s(&ideal), "--valid", &s(&ideal), "--model", "scratch:1x16x2"];
    let more = ["--tokenizer", &tokenizer, "--out", &s(&span), "--epochs", "1", "--max-len", "24", "--keep", "best"];
    ok(quarry(&[&train[..], &more[..]].concat()));
    assert!(span.join("best").is_dir() && !span.join("last").exists(), "--keep best removes last/");
    let model = s(&span.join("best"));
    let eval = ["evaluate", "span", "--model", &model, "--data", &s(&ideal), "--max-len", "24"];
    let out = ok(quarry(&eval));
    let (table, stderr) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(table.contains("predict nothing"), "{table}");
    assert!(stderr.contains("quarry: warning: no positive example among"), "{stderr}");
    assert!(stderr.contains("positive example(s) lost every answer span to truncation to 24 sub-tokens"), "{stderr}");

    let predictions = dir.join("predictions.jsonl");
    let out = ok(quarry(&[&eval[..], &["--format", "json", "--predictions", &s(&predictions)]].concat()));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let em = &report["exact_match"];
    assert!(em["positive"].is_null(), "an empty category is null, not 0: {em}");
    assert_eq!(em["predict_nothing"]["all"], 100.0, "{em}");
    assert!(report["positives_without_answers"].as_u64().unwrap() > 0);
    assert!(report["warnings"].as_array().unwrap().len() >= 2, "{report}");
    let first_prediction: serde_json::Value =
        serde_json::from_str(std::fs::read_to_string(&predictions).unwrap().lines().next().unwrap()).unwrap();
    assert!(first_prediction["id"].as_str().unwrap().contains("#Q17#"), "{first_prediction}");
    assert_eq!(first_prediction["line"], 1);

    // Bad input to a model command is an input error: exit code 2.
    let missing = quarry(&["evaluate", "span", "--model", &model, "--data", &s(&dir.join("missing.jsonl"))]);
    assert_eq!(missing.status.code(), Some(2));
    let _ = std::fs::remove_dir_all(&dir);
}
