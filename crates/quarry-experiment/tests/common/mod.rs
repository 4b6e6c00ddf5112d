//! What the experiments' end-to-end tests share: scratch folders, a tiny vocabulary, and
//! the checks of a self-contained HTML report (also in headless Chromium).

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;

use quarry_experiment::runs::Progress;
use quarry_model::training::train::TrainEvent;

/// A fresh scratch folder for test `name`.
pub fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("quarry-experiment-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// A character-level WordPiece vocabulary (`vocab.txt` in `dir`).
pub fn write_vocab(dir: &Path) {
    let mut vocab = vec!["[PAD]".to_string(), "[UNK]".into(), "[CLS]".into(), "[SEP]".into()];
    for c in (33u8..127).map(char::from).filter(|c| !c.is_ascii_uppercase()) {
        vocab.push(c.to_string());
        vocab.push(format!("##{c}"));
    }
    std::fs::write(dir.join("vocab.txt"), vocab.join("\n") + "\n").unwrap();
}

/// The page fetches nothing (no script, stylesheet, image or font from elsewhere), holds
/// every heading of `headings`, and its figures (as many as `figures`); returns each
/// figure's SVG body.
pub fn assert_self_contained<'a>(html: &'a str, headings: &[&str], figures: usize) -> Vec<&'a str> {
    assert!(html.starts_with("<!doctype html>") && html.trim_end().ends_with("</html>"));
    for fetching in ["<script", "<link", "<img", "<iframe", "src=", "url(", "@import", "https:"] {
        assert!(!html.contains(fetching), "the page would fetch through `{fetching}`");
    }
    for heading in headings {
        assert!(html.contains(heading), "{heading} missing from the page");
    }
    let svgs: Vec<&str> = html.split("<svg").skip(1).map(|rest| rest.split("</svg>").next().unwrap()).collect();
    assert_eq!(svgs.len(), figures, "figures");
    svgs
}

/// Headless Chromium (Debian's `chromium`, which `.ci/run` installs) lays the page out:
/// its DOM holds `figures` figures and every heading of `headings`, and a screenshot is
/// drawn. Skipped, and counted, where Chromium is missing.
pub fn renders_in_chromium(page: &Path, headings: &[&str], figures: usize) {
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
    assert_eq!(dom.matches("<svg").count(), figures, "{dom}");
    for heading in headings {
        assert!(dom.contains(heading), "{heading} missing from the DOM");
    }
    run(&["--window-size=1000,1400", &format!("--screenshot={}", shot.display())]);
    let png = std::fs::read(&shot).expect("the screenshot");
    assert!(png.starts_with(b"\x89PNG") && png.len() > 20_000, "{} bytes", png.len());
}

/// Runs an experiment with `run`, counting optimizer steps into `steps`; returns its result
/// and every progress message.
pub fn run_collecting<T>(steps: &mut usize, run: impl FnOnce(&mut Progress<'_>) -> T) -> (T, Vec<String>) {
    let mut messages = Vec::new();
    let result = {
        let mut message = |m: &str| messages.push(m.to_string());
        let mut train = |e: &TrainEvent| {
            if matches!(e, TrainEvent::Step(_)) {
                *steps += 1;
            }
        };
        run(&mut Progress { message: &mut message, train: &mut train })
    };
    (result, messages)
}
