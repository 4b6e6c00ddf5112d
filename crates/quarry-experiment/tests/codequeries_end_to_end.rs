//! The whole CodeQueries protocol on a small generated corpus with a tiny scratch encoder:
//! every stage runs, the report has the paper's tables with every row's producer, and a
//! rerun skips every finished stage and writes the same report.

use std::path::{Path, PathBuf};
use std::process::Command;

use quarry_data::codequeries::split::Ratios;
use quarry_experiment::codequeries::{run, Config, Progress};

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("quarry-experiment-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

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

/// A character-level WordPiece vocabulary.
fn write_vocab(dir: &Path) {
    let mut vocab = vec!["[PAD]".to_string(), "[UNK]".into(), "[CLS]".into(), "[SEP]".into()];
    for c in (33u8..127).map(char::from).filter(|c| !c.is_ascii_uppercase()) {
        vocab.push(c.to_string());
        vocab.push(format!("##{c}"));
    }
    std::fs::write(dir.join("vocab.txt"), vocab.join("\n") + "\n").unwrap();
}

/// The page fetches nothing (no script, stylesheet, image or font from elsewhere), holds
/// the paper's tables and two figures, each with drawn marks.
fn assert_self_contained_with_figures(html: &str) {
    assert!(html.starts_with("<!doctype html>") && html.trim_end().ends_with("</html>"));
    for fetching in ["<script", "<link", "<img", "<iframe", "src=", "url(", "@import", "https:"] {
        assert!(!html.contains(fetching), "the page would fetch through `{fetching}`");
    }
    for heading in ["Table 2", "Table 3", "Table 4", "Table 5", "Figure 5", "Relevance classifier"] {
        assert!(html.contains(heading), "{heading} missing from the page");
    }
    let figures: Vec<&str> = html.split("<svg").skip(1).map(|rest| rest.split("</svg>").next().unwrap()).collect();
    assert_eq!(figures.len(), 2, "two figures");
    assert!(figures[0].matches("<rect").count() > 3, "the setting chart has bars");
    assert!(
        figures[1].contains("<circle") && figures[1].contains("<polyline"),
        "the learning curve has points and lines"
    );
}

/// Headless Chromium (Debian's `chromium`, which `.ci/run` installs) lays the page out:
/// its DOM holds both figures and every table, and a screenshot is drawn. Skipped, and
/// counted, where Chromium is missing.
fn renders_in_chromium(page: &Path) {
    let Some(chromium) =
        ["chromium", "chromium-browser"].into_iter().find(|c| Command::new(c).arg("--version").output().is_ok())
    else {
        quarry_stdx::skip::skip("report.html in Chromium", "chromium is not installed (apt-get install chromium)");
        return;
    };
    let profile = page.with_file_name("chromium-profile");
    let shot = page.with_file_name("report.png");
    let run = |extra: &[&str]| {
        Command::new(chromium)
            .args(["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run"])
            .args(["--disable-background-networking", "--disable-component-update", "--disable-sync"])
            .arg(format!("--user-data-dir={}", profile.display()))
            .args(extra)
            .arg(format!("file://{}", page.display()))
            .output()
            .expect("run chromium")
    };
    let dom = String::from_utf8_lossy(&run(&["--dump-dom"]).stdout).into_owned();
    assert_eq!(dom.matches("<svg").count(), 2, "{dom}");
    assert!(dom.contains("Table 5") && dom.contains("Figure 5"));
    run(&["--window-size=1000,1400", &format!("--screenshot={}", shot.display())]);
    let png = std::fs::read(&shot).expect("the screenshot");
    assert!(png.starts_with(b"\x89PNG") && png.len() > 20_000, "{} bytes", png.len());
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
    let md = std::fs::read_to_string(out.join("report.md")).unwrap();
    for heading in ["Table 2", "Table 3", "Table 4", "Table 5", "Figure 5", "Relevance classifier"] {
        assert!(md.contains(heading), "{heading} missing from the report:\n{md}");
    }
    let html = std::fs::read_to_string(out.join("report.html")).unwrap();
    assert_eq!(report.budgets[0].budget, Some(4));
    assert_self_contained_with_figures(&html);
    renders_in_chromium(&out.join("report.html"));

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
