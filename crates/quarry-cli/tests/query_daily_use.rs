//! `quarry query` in a repository and a CI job: suppression comments,
//! baselines, configuration, exit codes, colours, standard input and the
//! terminal summary.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

fn quarry_in(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_quarry"))
        .current_dir(dir)
        .env_remove("NO_COLOR")
        .args(args)
        .output()
        .expect("run quarry")
}

mod common;

fn project(tag: &str, files: &[(&str, &str)]) -> PathBuf {
    let files: Vec<(&str, &[u8])> = files.iter().map(|(name, text)| (*name, text.as_bytes())).collect();
    common::named_project(&format!("daily-{tag}"), &files)
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// The `(query_id, 1-based line)` of each JSON Lines finding.
fn findings(out: &Output) -> Vec<(String, u64)> {
    stdout(out)
        .lines()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}"));
            (v["query_id"].as_str().unwrap().to_string(), v["answer_spans"][0]["start_line"].as_u64().unwrap() + 1)
        })
        .collect()
}

const NONE_TESTS: &str = "\
a = x == None
b = x == None  # noqa
c = x == None  # noqa: E711
d = x == None  # noqa: py/test-equals-none, F401
e = x == None  # noqa: unused-import
f = x == None  # lgtm[py/test-equals-none]
# codeql[py/test-equals-none]
g = x == None
h = x == None  # NOQA:Q20
i = x == None  # codeql[py/test-equals-none] (not alone on its line: ignored)
s = '# noqa'; j = x == None
";

#[test]
fn every_suppression_form_is_honoured() {
    let dir = project("forms", &[("m.py", NONE_TESTS)]);
    let out = quarry_in(&dir, &["query", "m.py", "--select", "equals-none", "--format", "jsonl"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let lines: Vec<u64> = findings(&out).into_iter().map(|(_, line)| line).collect();
    assert_eq!(lines, [1, 5, 10, 11]);
    let out = quarry_in(&dir, &["query", "m.py", "--select", "equals-none", "--format", "jsonl", "--ignore-noqa"]);
    assert_eq!(findings(&out).len(), 10);
}

#[test]
fn suppressed_findings_stay_in_sarif() {
    let dir = project("sarif", &[("m.py", NONE_TESTS)]);
    let out = quarry_in(&dir, &["query", "m.py", "--select", "Q20", "--format", "sarif"]);
    assert_eq!(out.status.code(), Some(1));
    let log: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let results = log["runs"][0]["results"].as_array().unwrap();
    assert_eq!(results.len(), 10);
    let suppressed: Vec<&serde_json::Value> = results.iter().filter(|r| r.get("suppressions").is_some()).collect();
    assert_eq!(suppressed.len(), 6);
    assert_eq!(suppressed[0]["suppressions"][0]["kind"], "inSource");
    assert_eq!(suppressed[0]["suppressions"][0]["justification"], "noqa");
    assert!(results.iter().all(|r| r["partialFingerprints"]["quarryFingerprint/v1"].is_string()));
    assert_eq!(log["runs"][0]["tool"]["driver"]["rules"][0]["properties"]["codeqlId"], "py/test-equals-none");
}

#[test]
fn skip_file_and_unused_suppressions() {
    let dir = project(
        "skip",
        &[
            ("skipped.py", "# quarry: skip-file\na = x == None\n"),
            (
                "kept.py",
                "import os  # noqa: F401\nb = 1  # noqa: equals-none, E501\nc = 2  # noqa\nd = 3  # noqa: E711\n",
            ),
        ],
    );
    let out = quarry_in(&dir, &["query", ".", "--format", "jsonl"]);
    assert_eq!(out.status.code(), Some(0), "{}{}", stdout(&out), stderr(&out));
    assert!(stdout(&out).is_empty());
    assert!(stderr(&out).contains("(1 skipped)"), "{}", stderr(&out));
    let out = quarry_in(&dir, &["query", ".", "--report-unused-suppressions"]);
    assert_eq!(out.status.code(), Some(1));
    let text = stdout(&out);
    assert!(
        text.contains("warning[unused-suppression]: suppression `noqa: equals-none, E501` names equals-none"),
        "{text}"
    );
    assert!(text.contains("kept.py:2:8"), "{text}");
    assert_eq!(
        text.matches("unused-suppression").count(),
        1,
        "a used noqa, a blanket noqa and ruff codes are not reported: {text}"
    );
}

#[test]
fn baseline_round_trip_fails_only_on_new_findings() {
    let dir = project("baseline", &[("src/a.py", "import os\nx = y == None\n")]);
    let out = quarry_in(&dir, &["query", "src", "--baseline", "quarry-baseline.json", "--write-baseline"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stderr(&out).contains("wrote 2 finding(s) to the baseline"), "{}", stderr(&out));
    let baseline = std::fs::read_to_string(dir.join("quarry-baseline.json")).unwrap();
    assert!(baseline.contains("\"file\": \"src/a.py\""), "{baseline}");
    assert!(!baseline.contains(":\\"), "paths are relative: {baseline}");
    let out = quarry_in(&dir, &["query", "src", "--baseline", "quarry-baseline.json", "--format", "jsonl"]);
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    assert!(stdout(&out).is_empty());
    assert!(stderr(&out).contains("2 in the baseline"), "{}", stderr(&out));
    // Code moves down two lines and a new finding appears: only it is reported.
    std::fs::write(dir.join("src/a.py"), "\n\nimport os\nx = y == None\nz = w == None\n").unwrap();
    let out = quarry_in(&dir, &["query", "src", "--baseline", "quarry-baseline.json", "--format", "jsonl"]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(findings(&out), [("equals-none".to_string(), 5)]);
    // From another working directory the same baseline still matches.
    let out =
        quarry_in(&dir.join("src"), &["query", ".", "--baseline", "../quarry-baseline.json", "--format", "sarif"]);
    let log: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let states: Vec<&str> =
        log["runs"][0]["results"].as_array().unwrap().iter().map(|r| r["baselineState"].as_str().unwrap()).collect();
    assert_eq!(states, ["unchanged", "unchanged", "new"]);
    let out = quarry_in(&dir, &["query", "src", "--baseline", "missing.json"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).starts_with("quarry: error: missing.json: cannot read baseline"), "{}", stderr(&out));
}

#[test]
fn configuration_is_found_from_a_subfolder() {
    let dir = project(
        "config",
        &[
            (
                "pyproject.toml",
                "[project]\nname = 'p'\n\n[tool.quarry]\nselect = [\"equals-none\", \"F401\"]\nextend-exclude = [\"generated\"]\n\n[tool.quarry.per-file-ignores]\n\"tests/*\" = [\"Q1\"]\n",
            ),
            ("pkg/sub/mod.py", "import os\nx = y == None\ntry:\n    pass\nexcept:\n    pass\n"),
            ("pkg/generated/gen.py", "x = y == None\n"),
            ("pkg/venv/lib.py", "x = y == None\n"),
            ("tests/test_a.py", "import os\n"),
        ],
    );
    let out = quarry_in(&dir.join("pkg/sub"), &["query", "--format", "jsonl"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert_eq!(findings(&out), [("unused-import".to_string(), 1), ("equals-none".to_string(), 2)]);
    let out = quarry_in(&dir, &["query", ".", "--format", "jsonl"]);
    let files: Vec<String> = stdout(&out)
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap()["file"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(files.len(), 2, "venv, generated and tests/ (per-file ignore) add nothing: {files:?}");
    assert!(files.iter().all(|f| f.ends_with("mod.py")));
    // Command-line options of the same names win; a path given explicitly is analysed.
    let out = quarry_in(
        &dir,
        &["query", "pkg/venv/lib.py", "pkg/sub", "--select", "catching-base-exception", "--format", "jsonl"],
    );
    assert_eq!(findings(&out), [("catching-base-exception".to_string(), 5)]);
    let out = quarry_in(&dir, &["query", "pkg/venv/lib.py", "--format", "jsonl"]);
    assert_eq!(findings(&out).len(), 1);
    let out = quarry_in(&dir, &["query", "pkg/venv/lib.py", "--force-exclude", "--format", "jsonl"]);
    assert_eq!((out.status.code(), findings(&out).len()), (Some(0), 0), "pre-commit style: {}", stderr(&out));
    // --isolated ignores the file; default excludes still apply.
    let out = quarry_in(&dir, &["query", ".", "--isolated", "--select", "Q20", "--format", "jsonl"]);
    assert_eq!(findings(&out).len(), 2, "mod.py and generated/gen.py: {}", stdout(&out));
    // quarry.toml wins over pyproject.toml in the same folder; unknown keys are errors.
    std::fs::write(dir.join("quarry.toml"), "select = [\"Q1\"]\n").unwrap();
    let out = quarry_in(&dir, &["query", "pkg", "--format", "jsonl"]);
    assert_eq!(findings(&out), [("unused-import".to_string(), 1)]);
    std::fs::write(dir.join("quarry.toml"), "selct = [\"Q1\"]\n").unwrap();
    let out = quarry_in(&dir, &["query", "pkg"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("quarry.toml: invalid configuration") && stderr(&out).contains("selct"));
    let out = quarry_in(&dir, &["query", "pkg", "--config", "pyproject.toml", "--format", "jsonl"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    // max-file-bytes and python-version from the file.
    std::fs::write(dir.join("quarry.toml"), "max-file-bytes = 20\npython-version = \"py312\"\n").unwrap();
    let out = quarry_in(&dir, &["query", "pkg/sub"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("mod.py"), "{}", stderr(&out));
    let out =
        quarry_in(&dir, &["query", "pkg/sub", "--max-file-bytes", "100000", "--select", "unguarded-next-in-generator"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stdout(&out).contains("No findings in 1 file"), "no query applies to 3.12: {}", stdout(&out));
}

#[test]
fn exit_codes_follow_ruff() {
    let dir = project("exit", &[("clean.py", "x = 1\n"), ("dirty.py", "x = y == None\n"), ("empty/notes.txt", "")]);
    assert_eq!(quarry_in(&dir, &["query", "clean.py"]).status.code(), Some(0));
    assert_eq!(quarry_in(&dir, &["query", "dirty.py"]).status.code(), Some(1));
    assert_eq!(quarry_in(&dir, &["query", "dirty.py", "--exit-zero"]).status.code(), Some(0));
    let negative = quarry_in(&dir, &["query", "clean.py", "dirty.py", "--negative", "--format", "jsonl"]);
    assert_eq!(negative.status.code(), Some(0), "negative answers are no problems");
    let missing = quarry_in(&dir, &["query", "nope.py"]);
    assert_eq!(missing.status.code(), Some(2));
    assert!(stderr(&missing).starts_with("quarry: error: nope.py: no such file or directory"));
    assert_eq!(quarry_in(&dir, &["query", "clean.py", "--select", "no-such-query"]).status.code(), Some(2));
    let empty = quarry_in(&dir, &["query", "empty"]);
    assert_eq!(empty.status.code(), Some(0));
    assert!(stderr(&empty).contains("quarry: warning: no Python files found under empty"), "{}", stderr(&empty));
}

#[test]
fn findings_are_sorted_by_file_then_position_with_a_summary() {
    let text = "import os\ndef f():\n    try:\n        pass\n    except:\n        pass\n    return x == None\n";
    let dir = project("sorted", &[("b.py", text), ("a.py", "x = y == None\n")]);
    let out = quarry_in(&dir, &["query", "."]);
    let text = stdout(&out);
    let order: Vec<usize> = ["a.py:1:5", "b.py:1:1", "b.py:5:5", "b.py:7:12"]
        .iter()
        .map(|needle| text.find(needle).unwrap_or_else(|| panic!("{needle} in {text}")))
        .collect();
    assert!(order.windows(2).all(|w| w[0] < w[1]), "{text}");
    let last = text.lines().last().unwrap();
    let expected = "Found 5 findings (equals-none 2, catching-base-exception 1, unreachable-statement 1, unused-import 1) in 2 files;";
    assert!(last.starts_with(expected), "{last}");
    assert!(!text.contains('\x1b'), "no colours into a pipe");
    let quiet = quarry_in(&dir, &["query", ".", "-q"]);
    assert!(!stdout(&quiet).contains("Found 5"));
    assert!(stdout(&quiet).contains("a.py:1:5"));
    let stats = quarry_in(&dir, &["query", ".", "--statistics"]);
    let lines: Vec<&str> = std::str::from_utf8(&stats.stdout).unwrap().lines().collect();
    assert!(lines[0].starts_with("2\tQ20 \tequals-none"), "{lines:?}");
    assert_eq!(lines.len(), 5, "{lines:?}");
}

#[test]
fn output_file_is_written() {
    let dir = project("outfile", &[("a.py", "x = y == None\n")]);
    let out = quarry_in(&dir, &["query", "a.py", "--format", "jsonl", "--output-file", "findings.jsonl"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stdout(&out).is_empty());
    let written = std::fs::read_to_string(dir.join("findings.jsonl")).unwrap();
    assert_eq!(written.lines().count(), 1);
    assert!(stderr(&out).contains("Found 1 finding (equals-none 1) in 1 file"), "{}", stderr(&out));
}

#[test]
fn standard_input_with_a_file_name() {
    let dir = project("stdin", &[("quarry.toml", "[per-file-ignores]\n\"tests/*\" = [\"equals-none\"]\n")]);
    let run = |args: &[&str]| {
        let mut child = Command::new(env!("CARGO_BIN_EXE_quarry"))
            .current_dir(&dir)
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        child.stdin.take().unwrap().write_all(b"import re\nx = y == None\n").unwrap();
        child.wait_with_output().unwrap()
    };
    let out = run(&["query", "-", "--stdin-filename", "pkg/m.py", "--format", "jsonl"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(text.contains("\"file\":\"pkg/m.py\""), "{text}");
    assert_eq!(text.lines().count(), 2);
    let out = run(&["query", "-", "--stdin-filename", "tests/t.py", "--format", "jsonl"]);
    assert_eq!(findings(&out), [("unused-import".to_string(), 1)], "per-file-ignores apply to the stdin name");
    let out = run(&["query", "-"]);
    assert!(stdout(&out).contains("  --> -:2:5"), "{}", stdout(&out));
    let out = run(&["query", "-", "a.py"]);
    assert_eq!(out.status.code(), Some(2));
}

/// Runs quarry on a pseudo-terminal through util-linux `script`.
fn on_terminal(dir: &Path, command: &str, no_color: bool) -> Option<String> {
    let binary = env!("CARGO_BIN_EXE_quarry");
    let mut cmd = Command::new("script");
    cmd.current_dir(dir).args(["-qec", &format!("{binary} {command}"), "/dev/null"]).env("TERM", "xterm");
    if no_color {
        cmd.env("NO_COLOR", "1");
    } else {
        cmd.env_remove("NO_COLOR");
    }
    let out = cmd.output().ok()?;
    Some(String::from_utf8_lossy(&out.stdout).into_owned())
}

#[test]
fn colours_on_a_terminal_and_none_when_piped() {
    let dir = project("colour", &[("a.py", "x = y == None\n")]);
    let Some(tty) = on_terminal(&dir, "query a.py", false) else {
        eprintln!("skipped: util-linux `script` is not installed");
        return;
    };
    assert!(tty.contains("\x1b[1m\x1b[31manswer\x1b[0m"), "bold red header: {tty:?}");
    assert!(tty.contains("\x1b[1m\x1b[34m-->\x1b[0m a.py:1:5"), "{tty:?}");
    let plain = on_terminal(&dir, "query a.py", true).unwrap();
    assert!(plain.contains("answer[equals-none]"), "{plain:?}");
    assert!(!plain.contains("\x1b[3"), "NO_COLOR: {plain:?}");
    let never = on_terminal(&dir, "query a.py --color never", false).unwrap();
    assert!(!never.contains("\x1b[3"), "{never:?}");
    let piped = quarry_in(&dir, &["query", "a.py"]);
    assert!(!stdout(&piped).contains('\x1b'));
    let forced = quarry_in(&dir, &["query", "a.py", "--color", "always"]);
    assert!(stdout(&forced).contains("\x1b["));
}

#[test]
fn old_spellings_still_work_with_a_note() {
    let dir = project("legacy", &[("a.py", "import os\nx = y == None\n")]);
    let out = quarry_in(&dir, &["query", "a.py", "-q", "Q20", "--format", "jsonl"]);
    assert_eq!(findings(&out), [("equals-none".to_string(), 2)]);
    assert!(stderr(&out).contains("`-q Q20` is deprecated"), "{}", stderr(&out));
    let out = quarry_in(&dir, &["query", "a.py", "--query", "Q1", "--output-format", "jsonl"]);
    assert_eq!(findings(&out), [("unused-import".to_string(), 1)]);
}

#[test]
fn type_ignore_does_not_hide_an_unused_import() {
    let dir = project(
        "typeignore",
        &[("a.py", "import re\nimport typing\nx = f()  # type: ignore\ny = 1  # type: typing.Any\n")],
    );
    let out = quarry_in(&dir, &["query", "a.py", "--select", "unused-import", "--format", "jsonl"]);
    let text = stdout(&out);
    assert_eq!(text.lines().count(), 1, "{text}");
    assert!(text.contains("Import of 're' is not used."), "{text}");
}

#[test]
fn one_vocabulary_across_commands() {
    let dir = project("vocabulary", &[("a.py", "x = y == None\n"), ("hyp.txt", "a\n")]);
    // `--format json` is one JSON document in every command, `query` included.
    let out = quarry_in(&dir, &["query", "a.py", "--format", "json"]);
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc.as_array().unwrap().len(), 1);
    assert_eq!(doc[0]["query_id"], "equals-none");
    // `--out` names an output in every command.
    let out = quarry_in(&dir, &["query", "a.py", "--format", "jsonl", "--out", "f.jsonl"]);
    assert_eq!(std::fs::read_to_string(dir.join("f.jsonl")).unwrap().lines().count(), 1, "{}", stderr(&out));
    // One error prefix.
    let out = quarry_in(&dir, &["metrics", "bleu", "--hyp", "hyp.txt", "--ref", "missing.txt"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).starts_with("quarry: error: "), "{}", stderr(&out));
    // Both spellings of the learning rate, in training and in probing.
    for command in [&["train", "span", "--help"][..], &["probe", "--help"][..]] {
        let help = stdout(&quarry_in(&dir, command));
        assert!(help.contains("--learning-rate") && help.contains("--lr"), "{command:?}: {help}");
    }
}

#[test]
fn the_analysis_cache_is_beside_the_configuration_or_where_asked_and_can_be_skipped() {
    let dir = project(
        "cache",
        &[("quarry.toml", "select = [\"unused-import\"]\n"), ("a.py", "import os\n"), ("b.py", "import sys\n")],
    );
    let cache = dir.join(".quarry_cache");
    let _ = std::fs::remove_dir_all(&cache);
    let cold = quarry_in(&dir, &["query", "--format", "jsonl", "."]);
    assert!(cache.join("CACHEDIR.TAG").is_file(), "no cache: {}", stderr(&cold));
    let warm = quarry_in(&dir, &["query", "--format", "jsonl", "."]);
    assert_eq!(findings(&warm), findings(&cold));
    assert_eq!(findings(&warm), [("unused-import".to_string(), 1), ("unused-import".to_string(), 1)]);
    // A configuration change is seen on the next run.
    std::fs::write(dir.join("quarry.toml"), "select = [\"repeated-import\"]\n").unwrap();
    assert!(findings(&quarry_in(&dir, &["query", "--format", "jsonl", "."])).is_empty());
    std::fs::write(dir.join("quarry.toml"), "select = [\"unused-import\"]\n").unwrap();
    std::fs::remove_dir_all(&cache).unwrap();
    let skipped = quarry_in(&dir, &["query", "--no-cache", "--format", "jsonl", "."]);
    assert!(!cache.exists() && findings(&skipped).len() == 2, "{}", stderr(&skipped));
    let elsewhere = dir.join("elsewhere");
    let out = Command::new(env!("CARGO_BIN_EXE_quarry"))
        .current_dir(&dir)
        .env("QUARRY_CACHE_DIR", &elsewhere)
        .args(["query", "--format", "jsonl", "."])
        .output()
        .unwrap();
    assert!(elsewhere.join("CACHEDIR.TAG").is_file() && !cache.exists(), "{}", stderr(&out));
    // A cache folder that cannot be made is a warning, not a failure.
    let out = Command::new(env!("CARGO_BIN_EXE_quarry"))
        .current_dir(&dir)
        .env("QUARRY_CACHE_DIR", dir.join("a.py"))
        .args(["query", "--format", "jsonl", "."])
        .output()
        .unwrap();
    assert!(stderr(&out).contains("no analysis cache") && findings(&out).len() == 2, "{}", stderr(&out));
}
