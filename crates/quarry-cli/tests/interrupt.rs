//! Ctrl-C and `kill` on a run: it says it was interrupted and exits 130 (SIGINT) or 143
//! (SIGTERM) instead of vanishing without a word, and leaves none of its unfinished
//! outputs behind; what a run killed outright leaves, the next run clears.

#![cfg(target_os = "linux")]

use std::io::Write;
use std::net::{TcpListener, TcpStream};
use std::path::Path;
use std::process::{Child, Command, Stdio};

/// A `quarry` command whose run starts with SIGINT and SIGTERM at their defaults: a test
/// run in the background of a shell (or under `nohup`) inherits SIGINT ignored, and a
/// run that finds a signal ignored rightly leaves it so.
fn quarry() -> Command {
    use std::os::unix::process::CommandExt;
    let mut command = Command::new(env!("CARGO_BIN_EXE_quarry"));
    // SAFETY: `signal` is async-signal-safe, as code between fork and exec must be.
    unsafe {
        command.pre_exec(|| {
            libc::signal(libc::SIGINT, libc::SIG_DFL);
            libc::signal(libc::SIGTERM, libc::SIG_DFL);
            Ok(())
        });
    }
    command
}

/// A run of `quarry query -` that waits on its standard input, once it has taken over the
/// signals (the main thread blocks them first thing, which `/proc` shows) or is waiting
/// without having done so.
fn waiting_run() -> Child {
    let child = quarry()
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

/// A run of `quarry corpus pypi` writing `out`, stopped where it fetches its first package
/// from `index`: inside the staging folder's write, which the test holds open by never
/// answering. Returns the child and the connection it waits on.
fn corpus_run_waiting(root: &Path, index: &TcpListener) -> (Child, TcpStream) {
    let url = format!("http://{}", index.local_addr().unwrap());
    let mut child = quarry()
        .args(["corpus", "pypi", "--packages", "packages.txt", "--out", "corpus", "--index", &url])
        .current_dir(root)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    index.set_nonblocking(true).unwrap();
    loop {
        match index.accept() {
            Ok((connection, _)) => return (child, connection),
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                if let Ok(Some(_)) = child.try_wait() {
                    let output = child.wait_with_output().unwrap();
                    panic!("the run ended before fetching: {}", String::from_utf8_lossy(&output.stderr));
                }
                std::thread::yield_now();
            }
            Err(e) => panic!("{e}"),
        }
    }
}

/// The names in `dir`, sorted.
fn names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> =
        std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    names.sort();
    names
}

#[test]
fn an_interrupted_folder_output_leaves_no_staging_folder_and_spares_a_live_run_s() {
    let root = tempfile::tempdir().unwrap();
    let root = root.path();
    std::fs::write(root.join("packages.txt"), "six\n").unwrap();
    std::fs::create_dir_all(root.join("corpus")).unwrap();
    std::fs::write(root.join("corpus/manifest.json"), "{}").unwrap();
    // What a run killed outright left: process ids past the kernel's maximum never run.
    let dead = root.join(".corpus.4999999.0.tmp");
    std::fs::create_dir_all(dead.join("six-1.0")).unwrap();
    std::fs::write(dead.join("six-1.0/half.py"), "x = ").unwrap();
    let index = TcpListener::bind("127.0.0.1:0").unwrap();

    let (first, _waiting) = corpus_run_waiting(root, &index);
    let staging = |child: &Child| {
        let prefix = format!(".corpus.{}.", child.id());
        names(root).into_iter().filter(|n| n.starts_with(&prefix) && n.ends_with(".tmp")).collect::<Vec<_>>()
    };
    assert_eq!(staging(&first).len(), 1, "{:?}", names(root));
    assert!(!dead.exists(), "the dead run's staging folder is cleared: {:?}", names(root));
    // A second run of the same output leaves the first one's folder alone.
    let (second, _waiting_too) = corpus_run_waiting(root, &index);
    assert_eq!((staging(&first).len(), staging(&second).len()), (1, 1), "{:?}", names(root));

    for (child, name, code) in [(first, "INT", 130), (second, "TERM", 143)] {
        signal(&child, name);
        let output = child.wait_with_output().unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(code), "{name}: {stderr}");
        assert!(stderr.contains(&format!("quarry: error: interrupted by SIG{name}; 1 unfinished output")), "{stderr}");
        assert_eq!(stderr.matches("quarry: error:").count(), 1, "only the interruption is reported: {stderr}");
    }
    assert_eq!(names(root), ["corpus", "packages.txt"]);

    // Killed outright, a run leaves its staging folder; the next run of the output clears it.
    let (killed, _held) = corpus_run_waiting(root, &index);
    signal(&killed, "KILL");
    let leftover = staging(&killed);
    assert!(killed.wait_with_output().unwrap().status.code().is_none());
    assert_eq!(leftover.len(), 1, "{:?}", names(root));
    let (next, _held_too) = corpus_run_waiting(root, &index);
    assert!(!root.join(&leftover[0]).exists(), "{:?}", names(root));
    signal(&next, "TERM");
    assert_eq!(next.wait_with_output().unwrap().status.code(), Some(143));
    assert_eq!(names(root), ["corpus", "packages.txt"]);
    assert_eq!(std::fs::read_to_string(root.join("corpus/manifest.json")).unwrap(), "{}");
}
