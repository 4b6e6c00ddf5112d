//! End-to-end tests of `quarry metrics` on the quarry-eval golden fixture.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

fn fixture(name: &str) -> Value {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../quarry-eval/tests/fixtures").join(name);
    serde_json::from_str(&std::fs::read_to_string(path).expect("fixture")).expect("JSON")
}

/// Writes the fixture's hypotheses and references as line files.
fn write_inputs(dir: &Path) -> (PathBuf, PathBuf, PathBuf) {
    let pairs = fixture("metrics_pairs.json");
    let write = |name: &str, v: &Value| {
        let path = dir.join(name);
        let text: String = v.as_array().unwrap().iter().map(|l| format!("{}\n", l.as_str().unwrap())).collect();
        std::fs::write(&path, text).unwrap();
        path
    };
    (write("hyp.txt", &pairs["hyps"]), write("ref1.txt", &pairs["refs"][0]), write("ref2.txt", &pairs["refs"][1]))
}

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("quarry-metrics-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn quarry(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_quarry")).args(args).output().expect("quarry runs")
}

fn json_of(out: &Output) -> Value {
    assert!(out.status.success(), "stderr: {}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).expect("JSON output")
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9
}

#[test]
fn json_scores_match_reference_implementations() {
    let dir = temp_dir("json");
    let (hyp, r1, r2) = write_inputs(&dir);
    let (hyp, r1, r2) = (hyp.to_str().unwrap(), r1.to_str().unwrap(), r2.to_str().unwrap());
    let expected = fixture("metrics_reference.json");

    let bleu = json_of(&quarry(&["metrics", "bleu", "--hyp", hyp, "--ref", r1, "--format", "json"]));
    assert_eq!(bleu["metric"], "bleu");
    assert!(close(bleu["score"].as_f64().unwrap(), expected["sacrebleu_corpus_one_ref"]["score"].as_f64().unwrap()));
    let bleu2 = json_of(&quarry(&["metrics", "bleu", "--hyp", hyp, "--ref", r1, "--ref", r2, "--format", "json"]));
    assert!(close(bleu2["score"].as_f64().unwrap(), expected["sacrebleu_corpus_two_refs"]["score"].as_f64().unwrap()));

    let em = json_of(&quarry(&["metrics", "em", "--hyp", hyp, "--ref", r1, "--format", "json", "--per-line"]));
    assert!(close(em["score"].as_f64().unwrap(), expected["squad_one_ref"]["em"].as_f64().unwrap()));
    assert_eq!(em["per_line"].as_array().unwrap().len(), 1200);
    let f1 = json_of(&quarry(&["metrics", "f1", "--hyp", hyp, "--ref", r1, "--ref", r2, "--format", "json"]));
    assert!(close(f1["score"].as_f64().unwrap(), expected["squad_two_refs"]["f1"].as_f64().unwrap()));

    let rouge = json_of(&quarry(&[
        "metrics",
        "rouge-l",
        "--hyp",
        hyp,
        "--ref",
        r1,
        "--stem",
        "--format",
        "json",
        "--per-line",
    ]));
    for (got, want) in rouge["per_line"].as_array().unwrap().iter().zip(expected["rouge_l_stem"].as_array().unwrap()) {
        assert!(close(got.as_f64().unwrap(), want[2].as_f64().unwrap()));
    }

    let cs1qa = json_of(&quarry(&[
        "metrics",
        "sentence-bleu",
        "--hyp",
        hyp,
        "--ref",
        r1,
        "--weights",
        "1,0,0,0",
        "--smoothing",
        "method1",
        "--format",
        "json",
        "--per-line",
    ]));
    let config = expected["nltk_bleu"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["weights"][0].as_f64() == Some(1.0) && c["smoothing"] == 1)
        .unwrap();
    for (got, want) in cs1qa["per_line"].as_array().unwrap().iter().zip(config["per_line"].as_array().unwrap()) {
        assert!(close(got.as_f64().unwrap(), want.as_f64().unwrap()));
    }
    assert!(close(cs1qa["corpus_bleu"].as_f64().unwrap(), config["corpus"].as_f64().unwrap()));

    let meteor = json_of(&quarry(&[
        "metrics",
        "meteor",
        "--hyp",
        hyp,
        "--ref",
        r1,
        "--no-wordnet",
        "--format",
        "json",
        "--per-line",
    ]));
    for (got, want) in
        meteor["per_line"].as_array().unwrap().iter().zip(expected["meteor_exact_stem"].as_array().unwrap())
    {
        assert!(close(got.as_f64().unwrap(), want.as_f64().unwrap()));
    }
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn meteor_without_wordnet_says_so() {
    let dir = temp_dir("nownet");
    let (hyp, r1, _) = write_inputs(&dir);
    let out = Command::new(env!("CARGO_BIN_EXE_quarry"))
        .args(["metrics", "meteor", "--hyp", hyp.to_str().unwrap(), "--ref", r1.to_str().unwrap(), "--format", "json"])
        .env("QUARRY_WORDNET_DIR", dir.join("no-such-dir"))
        .output()
        .unwrap();
    let v = json_of(&out);
    assert!(String::from_utf8_lossy(&out.stderr).contains("exact and stem matching only"));
    assert_eq!(v["wordnet"], Value::Null);
    let expected = fixture("metrics_reference.json");
    let mean: f64 =
        expected["meteor_exact_stem"].as_array().unwrap().iter().map(|x| x.as_f64().unwrap()).sum::<f64>() / 1200.0;
    assert!(close(v["score"].as_f64().unwrap(), mean));
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn bad_input_exits_with_2_and_names_the_file() {
    let dir = temp_dir("bad");
    let short = dir.join("short.txt");
    let long = dir.join("long.txt");
    let invalid = dir.join("invalid.txt");
    std::fs::write(&short, "a\n").unwrap();
    std::fs::write(&long, "a\nb\n").unwrap();
    std::fs::write(&invalid, b"ok\n\xff\xfe\n").unwrap();
    let old_mac = dir.join("old_mac.txt");
    std::fs::write(&old_mac, "a\rb\r").unwrap();
    let cases: [(Vec<&str>, &str); 5] = [
        (
            vec!["metrics", "bleu", "--hyp", long.to_str().unwrap(), "--ref", old_mac.to_str().unwrap()],
            "old_mac.txt has carriage returns without a line feed",
        ),
        (vec!["metrics", "bleu", "--hyp", short.to_str().unwrap(), "--ref", long.to_str().unwrap()], "long.txt"),
        (vec!["metrics", "f1", "--hyp", invalid.to_str().unwrap(), "--ref", long.to_str().unwrap()], "invalid.txt"),
        (vec!["metrics", "em", "--hyp", "/no/such/file", "--ref", long.to_str().unwrap()], "/no/such/file"),
        (
            vec![
                "metrics",
                "codeqa-bleu",
                "--hyp",
                long.to_str().unwrap(),
                "--ref",
                long.to_str().unwrap(),
                "--ref",
                invalid.to_str().unwrap(),
            ],
            "invalid.txt",
        ),
    ];
    for (args, needle) in cases {
        let out = quarry(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(needle), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{err}");
    }
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn labels_line_sets_and_spans() {
    let dir = temp_dir("sets");
    let write = |name: &str, text: &str| {
        let p = dir.join(name);
        std::fs::write(&p, text).unwrap();
        p.to_str().unwrap().to_string()
    };
    let gold = write("gold.txt", "a\nb\nb\nc\n");
    let pred = write("pred.txt", "a\nb\nc\nc\n");
    let report = json_of(&quarry(&["metrics", "macro-f1", "--hyp", &pred, "--ref", &gold, "--format", "json"]));
    // scikit-learn: f1_score(list("abbc"), list("abcc"), average="macro")
    assert_eq!(report["score"].as_f64().unwrap(), 0.7777777777777777);
    assert_eq!(report["accuracy"].as_f64().unwrap(), 0.75);
    assert_eq!(report["confusion"], serde_json::json!([[1, 0, 0], [0, 1, 1], [0, 0, 1]]));

    let lg = write("lg.txt", "1,2,3\n\n5-7\n");
    let lp = write("lp.txt", "2,3,4\n\n5 6 7\n");
    let lf1 = json_of(&quarry(&["metrics", "line-f1", "--hyp", &lp, "--ref", &lg, "--format", "json", "--per-line"]));
    assert_eq!(lf1["per_line"], serde_json::json!([0.6666666666666666, 0.0, 1.0]));
    assert!(close(lf1["em"].as_f64().unwrap(), 2.0 / 3.0));

    let sg = write("sg.txt", "1-4 7-9\n3-5\n");
    let sp = write("sp.txt", "7-9,1-4\n3-6\n");
    let span = json_of(&quarry(&["metrics", "span-em", "--hyp", &sp, "--ref", &sg, "--format", "json"]));
    assert_eq!(span["score"].as_f64().unwrap(), 0.5);

    let bad = write("bad.txt", "1-4 x\n3-5\n");
    let out = quarry(&["metrics", "span-em", "--hyp", &bad, "--ref", &sg]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("bad.txt line 1"));
    let out = quarry(&["metrics", "accuracy", "--hyp", &pred, "--ref", &gold, "--ref", &gold]);
    assert_eq!(out.status.code(), Some(2));
    std::fs::remove_dir_all(&dir).ok();
}
