//! The CS1QA protocol with a tiny scratch encoder: retrieval on small question files, the
//! type and line tasks on the annotated fixture rows, both reports with the confusion
//! matrix; a rerun skips every finished stage.

mod common;

use std::path::Path;

use common::{assert_self_contained, renders_in_chromium, temp_dir, write_vocab};
use quarry_experiment::cs1qa::{run, Config, Cs1qaReport, Progress};
use quarry_model::training::train::TrainEvent;

/// Retrieval question files in the released layout: `{"id", "text", "doc_id"}` per line.
fn write_questions(dir: &Path) {
    std::fs::create_dir_all(dir).unwrap();
    let topics = ["for loop", "while loop", "list index", "hubo turn", "file open", "return value"];
    let mut id = 0;
    for (file, n) in [("corpus", 18), ("q_train", 12), ("q_dev", 6), ("q_test", 6)] {
        let mut lines = String::new();
        for i in 0..n {
            let topic = topics[i % topics.len()];
            let text = format!("why does my {topic} not work in task {i} of {file}?");
            lines.push_str(&format!("{{\"id\": {id}, \"text\": \"{text}\", \"doc_id\": null}}\n"));
            id += 1;
        }
        std::fs::write(dir.join(format!("{file}.jsonl")), lines).unwrap();
    }
}

fn annotated(dir: &Path) {
    std::fs::create_dir_all(dir).unwrap();
    let rows = Path::new(env!("CARGO_MANIFEST_DIR")).join("../quarry-model/tests/fixtures/cs1qa/rows.jsonl");
    for name in ["train_cleaned.jsonl", "dev_cleaned.jsonl", "test_cleaned.jsonl"] {
        std::fs::copy(&rows, dir.join(name)).unwrap();
    }
}

fn run_collecting(config: &Config, steps: &mut usize) -> (Cs1qaReport, Vec<String>) {
    common::run_collecting(steps, |progress| run(config, progress).unwrap())
}

fn config(dir: &Path, annotated_rows: bool) -> Config {
    write_vocab(dir);
    write_questions(&dir.join("retrieval"));
    let mut config = Config::new(dir.join("retrieval"), "scratch:1x16x2".into(), dir.join("out"));
    config.tokenizer = Some(dir.to_path_buf());
    if annotated_rows {
        annotated(&dir.join("annotated"));
        config.annotated = Some(dir.join("annotated"));
    }
    config.seeds = vec![7];
    config.epochs = 1;
    config.lr = 1e-3;
    config.max_len = 64;
    config.dense_epochs = 1;
    config.dense_batch_size = 4;
    config.dense_max_len = 24;
    config
}

#[test]
fn runs_every_task_writes_both_reports_and_resumes() {
    std::env::set_var("RAYON_NUM_THREADS", "1");
    let dir = temp_dir("cs1qa");
    let config = config(&dir, true);
    let out = config.out.clone();
    let mut steps = 0;
    let (report, messages) = run_collecting(&config, &mut steps);
    assert!(steps > 0);
    assert!(messages.iter().all(|m| !m.contains("skipped")), "{messages:?}");
    let r = &report.retrieval;
    assert_eq!((r.corpus, r.train, r.test), (18, 12, 6));
    for recall in [&r.dense, &r.untrained] {
        assert!((0.0..=1.0).contains(&recall.at1) && recall.at1 <= recall.at5, "{recall:?}");
        let hits = std::fs::read_to_string(out.join(&recall.hits)).unwrap();
        assert_eq!(hits.lines().count(), 6, "{}", recall.hits);
    }
    assert_eq!(report.types.len(), 1);
    let t = &report.types[0];
    assert_eq!(t.confusion.len(), 9);
    assert_eq!(t.confusion.iter().flatten().sum::<usize>(), 25, "every test row in the matrix");
    assert!((0.0..=1.0).contains(&t.accuracy) && t.majority > 0.0);
    assert_eq!(report.lines.len(), 1);
    let baseline = report.middle_baseline.as_ref().unwrap();
    assert_eq!(baseline.rows, 25);
    assert!(baseline.f1 > 0.0, "the middle 60 lines cover some gold lines");
    let md = std::fs::read_to_string(out.join("report.md")).unwrap();
    for text in ["Answer retrieval", "Table 5", "Table 8", "middle 60 lines", "train/dense/best", "76.65"] {
        assert!(md.contains(text), "{text} missing from:\n{md}");
    }
    let html = std::fs::read_to_string(out.join("report.html")).unwrap();
    let headings = ["Answer retrieval", "Question type (Table 5)", "Code-line selection (Table 8)"];
    let figures = assert_self_contained(&html, &headings, 2);
    assert!(figures[0].matches("<rect").count() >= 4, "the recall chart has bars");
    assert!(figures[1].matches("<rect").count() >= 81, "the confusion matrix has 9 x 9 cells");
    renders_in_chromium(&out.join("report.html"), &headings, 2);

    let mut again = 0;
    let (_, messages) = run_collecting(&config, &mut again);
    assert_eq!(again, 0, "a finished run trained again");
    assert!(messages.iter().all(|m| m.contains("skipped")), "{messages:?}");
    assert_eq!(std::fs::read_to_string(out.join("report.md")).unwrap(), md);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn without_annotated_rows_the_report_says_what_did_not_run() {
    std::env::set_var("RAYON_NUM_THREADS", "1");
    let dir = temp_dir("cs1qa-retrieval");
    let config = config(&dir, false);
    let (report, _) = run_collecting(&config, &mut 0);
    assert!(report.types.is_empty() && report.lines.is_empty());
    let md = std::fs::read_to_string(config.out.join("report.md")).unwrap();
    assert!(md.contains("did not run") && !md.contains("Table 5)"), "{md}");
    let html = std::fs::read_to_string(config.out.join("report.html")).unwrap();
    assert_self_contained(&html, &["Answer retrieval"], 1);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_missing_question_file_is_named() {
    let dir = temp_dir("cs1qa-missing");
    let config = config(&dir, false);
    std::fs::remove_file(dir.join("retrieval/q_dev.jsonl")).unwrap();
    let mut message = |_: &str| {};
    let mut train = |_: &TrainEvent| {};
    let error = run(&config, &mut Progress { message: &mut message, train: &mut train }).err().unwrap().to_string();
    assert!(error.contains("q_dev.jsonl"), "{error}");
    std::fs::remove_dir_all(&dir).unwrap();
}
