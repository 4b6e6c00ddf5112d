//! The whole CodeQueries protocol on a small generated corpus with a tiny scratch encoder:
//! every stage runs, the report has the paper's tables with every row's producer, and a
//! rerun skips every finished stage and writes the same report.

mod common;

use std::path::Path;

use common::{assert_self_contained, renders_in_chromium, temp_dir, write_vocab};

use quarry_data::codequeries::split::Ratios;
use quarry_experiment::codequeries::{run, Config, Progress};
use quarry_model::LabelWeighting;

/// Python files where some imports and locals are unused and others are used.
fn write_corpus(dir: &Path, files: usize) {
    for i in 0..files {
        let mut text = String::new();
        text.push_str("import os\nimport sys\n");
        if i % 2 == 0 {
            text.push_str("import json\n");
        }
        text.push_str(&format!(
            "\n\ndef f{i}(a, b):\n    total = a + b\n    unused_{i} = a * {i}\n    return total + len(sys.argv)\n"
        ));
        if i % 3 == 0 {
            text.push_str(&format!("\n\ndef g{i}(x):\n    y = x\n    return os.path.join(x, 'a')\n"));
        } else {
            text.push_str(&format!("\n\ndef g{i}(x):\n    return os.path.join(x, str({i}))\n"));
        }
        std::fs::write(dir.join(format!("m{i:02}.py")), text).unwrap();
    }
}

#[test]
fn runs_the_protocol_and_resumes_by_skipping_finished_stages() {
    std::env::set_var("RAYON_NUM_THREADS", "1");
    let dir = temp_dir("e2e");
    let corpus = dir.join("corpus");
    std::fs::create_dir_all(&corpus).unwrap();
    write_corpus(&corpus, 24);
    write_vocab(&dir);
    let out = dir.join("out");
    let mut config = Config::new(corpus, "scratch:1x16x2".into(), out.clone());
    config.tokenizer = Some(dir.clone());
    config.queries = vec!["Unused import".into(), "Unused local variable".into()];
    config.ratios = Ratios { train: 0.5, valid: 0.25, test: 0.25 };
    config.max_len = 64;
    config.epochs = 1;
    config.batch_size = 8;
    config.lr = 1e-3;
    config.budgets = vec![4];
    config.checkpoint_every = Some(2);
    config.label_weights = LabelWeighting::Balanced;

    let mut messages = Vec::new();
    let mut steps = 0;
    let report = {
        let mut message = |m: &str| messages.push(m.to_string());
        let mut train = |e: &quarry_model::training::train::TrainEvent| {
            if matches!(e, quarry_model::training::train::TrainEvent::Step(_)) {
                steps += 1;
            }
        };
        run(&config, &mut Progress { message: &mut message, train: &mut train }).unwrap()
    };
    assert!(steps > 0);
    assert!(messages.iter().all(|m| !m.contains("skipped")), "{messages:?}");
    let names: Vec<&str> = report.table3.iter().map(|r| r.name.as_str()).collect();
    assert_eq!(names, ["Prefix", "Sliding window", "Two-step", "File-level ideal"]);
    // Every file-level setting saw every test example; the producers are named.
    let file_tests = report.written["file_ideal_test"];
    for row in &report.table3 {
        assert_eq!(row.all.total, file_tests, "{}", row.name);
        assert_eq!(row.positive.total + row.negative.total, row.all.total);
        assert!(row.produced_by.contains("file_ideal_test.jsonl"), "{}", row.produced_by);
    }
    assert!(report.table3[2].produced_by.contains("relevance model"));
    assert_eq!(report.table2[0].all.total, report.written["ideal_test"]);
    assert_eq!(report.table4.len(), 2);
    assert_eq!(report.table5.last().unwrap().name, "Original");
    assert_eq!(report.budgets.len(), 1);
    assert_eq!(report.training.len(), 4);
    // The span runs were trained with the balanced loss, which their checkpoints record.
    let head = std::fs::read_to_string(out.join("train/span/best/head_config.json")).unwrap();
    assert!(head.contains("class_weights"), "{head}");
    let md = std::fs::read_to_string(out.join("report.md")).unwrap();
    for heading in ["Table 2", "Table 3", "Table 4", "Table 5", "Figure 5", "Relevance classifier"] {
        assert!(md.contains(heading), "{heading} missing from the report:\n{md}");
    }
    // The settings that differ from the paper are stated beside the figures.
    for setting in ["at most 64 sub-tokens (paper: 1,024", "balanced label weights (paper: plain", "seed 0"] {
        assert!(md.contains(setting), "{setting} missing from the report:\n{md}");
    }
    let html = std::fs::read_to_string(out.join("report.html")).unwrap();
    assert_eq!(report.budgets[0].budget, Some(4));
    let headings = ["Table 2", "Table 3", "Table 4", "Table 5", "Figure 5", "Relevance classifier"];
    let figures = assert_self_contained(&html, &headings, 2);
    assert!(figures[0].matches("<rect").count() > 3, "the setting chart has bars");
    assert!(
        figures[1].contains("<circle") && figures[1].contains("<polyline"),
        "the learning curve has points and lines"
    );
    renders_in_chromium(&out.join("report.html"), &headings, 2);

    // A rerun does nothing again and reports the same.
    let mut again = Vec::new();
    let report2 = {
        let mut message = |m: &str| again.push(m.to_string());
        let mut train = |_: &quarry_model::training::train::TrainEvent| panic!("a finished run trained again");
        run(&config, &mut Progress { message: &mut message, train: &mut train }).unwrap()
    };
    assert!(again.iter().all(|m| m.contains("skipped")), "{again:?}");
    assert_eq!(std::fs::read_to_string(out.join("report.md")).unwrap(), md);
    assert_eq!(report2.table3[0].all, report.table3[0].all);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_corpus_too_small_for_the_split_is_refused_before_any_training() {
    let dir = temp_dir("too-small");
    let corpus = dir.join("corpus");
    std::fs::create_dir_all(&corpus).unwrap();
    write_corpus(&corpus, 2);
    write_vocab(&dir);
    let mut config = Config::new(corpus, "scratch:1x16x2".into(), dir.join("out"));
    config.tokenizer = Some(dir.clone());
    config.queries = vec!["Unused import".into()];
    config.max_len = 64;
    config.epochs = 1;
    let mut steps = 0;
    let error = {
        let mut message = |_: &str| {};
        let mut train = |_: &quarry_model::training::train::TrainEvent| steps += 1;
        run(&config, &mut Progress { message: &mut message, train: &mut train }).unwrap_err().to_string()
    };
    assert_eq!(steps, 0, "trained before refusing: {error}");
    assert!(error.contains("no examples") && error.contains("--split"), "{error}");
}
