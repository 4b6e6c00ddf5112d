//! The whole CodeQA answer-generation protocol on a few generated pairs with a tiny scratch
//! encoder: both training stages, answers, floors, scores, both reports; a rerun skips
//! every finished stage, and a run whose answering was lost redoes only that.

mod common;

use std::path::Path;

use common::{assert_self_contained, renders_in_chromium, temp_dir, write_vocab};
use quarry_experiment::codeqa::{run, Config, Progress};
use quarry_model::training::train::TrainEvent;

/// A released-layout language folder: `dev.*` and `test.*` parallel files.
fn write_pairs(dir: &Path) {
    std::fs::create_dir_all(dir).unwrap();
    for (split, n) in [("dev", 24), ("test", 6)] {
        let (mut code, mut question, mut answer) = (Vec::new(), Vec::new(), Vec::new());
        for i in 0..n {
            code.push(format!("def f{i} ( a ) : return a + {i}"));
            if i % 2 == 0 {
                question.push(format!("what does f{i} return ?"));
                answer.push(format!("a plus {i}"));
            } else {
                question.push(format!("does f{i} return a value ?"));
                answer.push("Yes".to_string());
            }
        }
        for (field, lines) in [("code", code), ("question", question), ("answer", answer)] {
            std::fs::write(dir.join(format!("{split}.{field}")), lines.join("\n")).unwrap();
        }
    }
}

fn run_collecting(config: &Config, steps: &mut usize) -> (quarry_experiment::codeqa::CodeQaReport, Vec<String>) {
    common::run_collecting(steps, |progress| run(config, progress).unwrap())
}

#[test]
fn runs_the_protocol_writes_both_reports_and_resumes() {
    std::env::set_var("RAYON_NUM_THREADS", "1");
    let dir = temp_dir("codeqa");
    let data = dir.join("python");
    write_pairs(&data);
    write_vocab(&dir);
    let out = dir.join("out");
    let mut config = Config::new(data, "scratch:1x16x2".into(), out.clone());
    config.tokenizer = Some(dir.clone());
    config.valid = 4;
    config.max_source_len = 48;
    config.max_target_len = 8;
    config.decoder_layers = 1;
    config.decoder_ffn = 32;
    config.frozen_epochs = 1;
    config.epochs = 1;
    config.batch_size = 8;
    config.beam = 2;
    config.warmup_steps = 0;
    config.meteor_jar = Some(dir.join("no-such-meteor.jar"));
    assert_eq!(config.lang, "python");

    let mut steps = 0;
    let (report, messages) = run_collecting(&config, &mut steps);
    assert!(steps > 0);
    assert!(messages.iter().all(|m| !m.contains("skipped")), "{messages:?}");
    assert_eq!((report.train, report.valid, report.test), (20, 4, 6));
    assert_eq!(report.training.len(), 2, "both stages");
    let names: Vec<&str> = report.systems.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names[0], "quarry");
    assert!(names[1].contains("most frequent") && names[2].contains("BM25"));
    // The most frequent floor answers "Yes" everywhere: EM is the share of Yes questions.
    let most_frequent = &report.systems[1];
    assert_eq!(most_frequent.distinct, 1);
    assert!((most_frequent.scores.em - 50.0).abs() < 1e-9, "{}", most_frequent.scores.em);
    assert!(most_frequent.scores.meteor.is_none());
    for s in &report.systems {
        let answers = std::fs::read_to_string(out.join(&s.answers)).unwrap();
        assert_eq!(answers.lines().count(), 6, "{}", s.answers);
    }
    // The model's row names the checkpoint it answered with.
    assert!(report.systems[0].produced_by.contains("train/full/best"), "{}", report.systems[0].produced_by);
    assert!(report.warnings().iter().any(|w| w.contains("METEOR")));
    let md = std::fs::read_to_string(out.join("report.md")).unwrap();
    for text in ["Table 8", "paper, CodeBERT", "answers/model.hyp", "train/frozen", "train/full"] {
        assert!(md.contains(text), "{text} missing from:\n{md}");
    }
    let html = std::fs::read_to_string(out.join("report.html")).unwrap();
    let headings = ["Test scores beside the paper", "Training", "paper, CodeBERT"];
    let figures = assert_self_contained(&html, &headings, 2);
    assert!(figures[0].matches("<rect").count() > 10, "the score chart has bars");
    assert!(figures[1].contains("<polyline") && figures[1].contains("<circle"), "the loss curve is drawn");
    renders_in_chromium(&out.join("report.html"), &headings, 2);

    // A rerun does nothing again and reports the same.
    let mut again = 0;
    let (_, messages) = run_collecting(&config, &mut again);
    assert_eq!(again, 0, "a finished run trained again");
    assert!(messages.iter().all(|m| m.contains("skipped")), "{messages:?}");
    assert_eq!(std::fs::read_to_string(out.join("report.md")).unwrap(), md);

    // Answering interrupted (its record and file lost): only it runs again, same answers.
    let answers = std::fs::read_to_string(out.join("answers/model.hyp")).unwrap();
    std::fs::remove_file(out.join("stages/answers.json")).unwrap();
    std::fs::remove_file(out.join("answers/model.hyp")).unwrap();
    let (_, messages) = run_collecting(&config, &mut again);
    assert_eq!(again, 0);
    let reran: Vec<&String> = messages.iter().filter(|m| !m.contains("skipped")).collect();
    assert_eq!(reran, ["answers: running"], "{messages:?}");
    assert_eq!(std::fs::read_to_string(out.join("answers/model.hyp")).unwrap(), answers);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn too_few_dev_pairs_are_named() {
    let dir = temp_dir("codeqa-small");
    let data = dir.join("java");
    write_pairs(&data);
    write_vocab(&dir);
    let mut config = Config::new(data, "scratch:1x16x2".into(), dir.join("out"));
    config.tokenizer = Some(dir.clone());
    config.valid = 24;
    let mut message = |_: &str| {};
    let mut train = |_: &TrainEvent| {};
    let error = run(&config, &mut Progress { message: &mut message, train: &mut train }).err().unwrap().to_string();
    assert!(error.contains("dev.code") && error.contains("24 dev pairs"), "{error}");
    std::fs::remove_dir_all(&dir).unwrap();
}
