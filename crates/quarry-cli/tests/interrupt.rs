//! Ctrl-C and `kill` on a run: it says it was interrupted and exits 130 (SIGINT) or 143
//! (SIGTERM) instead of vanishing without a word.

#![cfg(target_os = "linux")]

use std::io::Write;
use std::process::{Child, Command, Stdio};

/// A run of `quarry query -` that waits on its standard input, once it has taken over the
/// signals (the main thread blocks them first thing, which `/proc` shows) or is waiting
/// without having done so.
fn waiting_run() -> Child {
    let child = Command::new(env!("CARGO_BIN_EXE_quarry"))
        .args(["query", "-", "--stdin-filename", "a.py", "--no-cache"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let status = format!("/proc/{}/status", child.id());
    // SIGINT is signal 2 and SIGTERM 15: bits 1 and 14 of the blocked set.
    let blocked = |text: &str| {
        text.lines()
            .find_map(|l| l.strip_prefix("SigBlk:"))
            .and_then(|mask| u64::from_str_radix(mask.trim(), 16).ok())
            .is_some_and(|mask| mask & (1 << 1) != 0 && mask & (1 << 14) != 0)
    };
    let sleeping = |text: &str| text.lines().any(|l| l.starts_with("State:") && l.contains("S (sleeping)"));
    let text = loop {
        let text = std::fs::read_to_string(&status).unwrap_or_default();
        if blocked(&text) || sleeping(&text) {
            break text;
        }
        std::thread::yield_now();
    };
    assert!(blocked(&text), "the run waits with SIGINT and SIGTERM not taken over:\n{text}");
    child
}

fn signal(child: &Child, name: &str) {
    let sent = Command::new("kill").args([&format!("-{name}"), &child.id().to_string()]).status().unwrap();
    assert!(sent.success());
}

#[test]
fn an_interrupted_run_says_so_and_exits_with_the_signals_code() {
    for (name, code) in [("INT", 130), ("TERM", 143)] {
        let child = waiting_run();
        signal(&child, name);
        let output = child.wait_with_output().unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(code), "{name}: {stderr}");
        assert!(stderr.contains(&format!("quarry: error: interrupted by SIG{name}")), "{stderr}");
    }
}

#[test]
fn a_run_still_works_after_the_signals_are_taken_over() {
    let mut child = waiting_run();
    child.stdin.take().unwrap().write_all(b"def f(x):\n    if x == None:\n        return 1\n").unwrap();
    let output = child.wait_with_output().unwrap();
    assert_eq!(output.status.code(), Some(1), "{}", String::from_utf8_lossy(&output.stderr));
    assert!(String::from_utf8_lossy(&output.stdout).contains("a.py"));
}
