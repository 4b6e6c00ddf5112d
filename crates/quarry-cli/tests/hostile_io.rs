//! Every way data gets into and out of `quarry`, tried as a hostile user would: each
//! command that reads a file is given `/dev/zero`, a named pipe with no writer, a link
//! cycle and a directory; each command that writes a file is given a symbolic link, a
//! named pipe, a device node, a hard link and a file with its own permissions; each
//! command that prints is given a closed pipe, a full device and a closed standard error;
//! numeric options get values no run can use. Every run must end within its time limit,
//! without a panic (exit 101) or a signal, with a clear message, and leave the target what
//! it was (a link stays a link, a device a device).

#![cfg(unix)]

use std::os::unix::fs::{FileTypeExt, MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

/// How long any run may take; each case does a few milliseconds of work.
const LIMIT: Duration = Duration::from_secs(20);

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("quarry-hostile-io-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The ordinary inputs the cases start from.
struct Fixture {
    dir: PathBuf,
}

impl Fixture {
    fn new(name: &str) -> Fixture {
        let dir = scratch(name);
        std::fs::write(dir.join("a.py"), "def f(x):\n    if x == None:\n        return 1\n").unwrap();
        std::fs::write(dir.join("hyp.txt"), "the cat sat on the mat\n").unwrap();
        std::fs::write(dir.join("ref.txt"), "the cat is on the mat\n").unwrap();
        std::fs::write(dir.join("quarry.toml"), "select = [\"equals-none\"]\n").unwrap();
        let questions = |rows: &[(u64, &str)]| -> String {
            rows.iter().map(|(id, text)| format!("{}\n", serde_json::json!({"id": id, "text": text}))).collect()
        };
        std::fs::write(dir.join("corpus.jsonl"), questions(&[(0, "why turn left"), (1, "how to read a file")]))
            .unwrap();
        std::fs::write(dir.join("q.jsonl"), questions(&[(5, "read a file")])).unwrap();
        Fixture { dir }
    }

    fn path(&self, name: &str) -> String {
        self.dir.join(name).to_str().unwrap().to_string()
    }

    /// `quarry cs1qa retrieve` over the fixture's questions, then `tail`.
    fn retrieve(&self, tail: &[&str]) -> Vec<String> {
        let (corpus, questions) = (self.path("corpus.jsonl"), self.path("q.jsonl"));
        let mut args = strings(&["cs1qa", "retrieve", "--corpus", &corpus, "--questions", &questions]);
        args.extend(strings(tail));
        args
    }

    /// A named pipe no one writes to.
    fn fifo(&self, name: &str) -> Option<String> {
        let path = self.path(name);
        let made = Command::new("mkfifo").arg(&path).status().map(|s| s.success()).unwrap_or(false);
        made.then_some(path)
    }

    /// Two links naming each other.
    fn link_cycle(&self) -> String {
        let (a, b) = (self.dir.join("loop_a"), self.dir.join("loop_b"));
        let _ = std::os::unix::fs::symlink(&b, &a);
        let _ = std::os::unix::fs::symlink(&a, &b);
        a.to_str().unwrap().to_string()
    }
}

fn quarry() -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_quarry"));
    // The analysis cache under the build's temporary folder, not the crate's.
    command.stdin(Stdio::null()).env("QUARRY_CACHE_DIR", concat!(env!("CARGO_TARGET_TMPDIR"), "/quarry-cache"));
    command
}

/// Waits for `child` within [`LIMIT`], killing it and failing the test when it takes longer.
fn finish(mut child: Child, what: &str) -> Output {
    let started = Instant::now();
    loop {
        if child.try_wait().unwrap().is_some() {
            return child.wait_with_output().unwrap();
        }
        if started.elapsed() > LIMIT {
            let _ = child.kill();
            let output = child.wait_with_output().unwrap();
            panic!("{what}: still running after {LIMIT:?}; stderr: {}", String::from_utf8_lossy(&output.stderr));
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

fn run(args: &[String], what: &str) -> Output {
    let child = quarry().args(args).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
    finish(child, what)
}

/// No panic, no signal.
fn assert_clean_exit(output: &Output, what: &str) {
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.code().is_some(), "{what}: killed by a signal ({:?}); stderr: {stderr}", output.status);
    assert_ne!(output.status.code(), Some(101), "{what}: panicked; stderr: {stderr}");
    assert!(!stderr.contains("panicked"), "{what}: panicked; stderr: {stderr}");
}

fn strings(args: &[&str]) -> Vec<String> {
    args.iter().map(|s| s.to_string()).collect()
}

/// Every command that reads a file, with `{}` where the file goes and the ordinary file
/// that fills the other arguments.
fn readers(f: &Fixture) -> Vec<(&'static str, Vec<String>)> {
    let (py, hyp, rf) = (f.path("a.py"), f.path("hyp.txt"), f.path("ref.txt"));
    let (corpus, q) = (f.path("corpus.jsonl"), f.path("q.jsonl"));
    vec![
        ("blocks FILE", strings(&["blocks", "{}"])),
        ("tokens FILE", strings(&["tokens", "{}"])),
        ("parse FILE", strings(&["parse", "{}"])),
        ("query FILE", strings(&["query", "{}"])),
        ("query --config", strings(&["query", "--config", "{}", &py])),
        ("query --baseline", strings(&["query", "--baseline", "{}", &py])),
        ("metrics --hyp", strings(&["metrics", "bleu", "--hyp", "{}", "--ref", &rf])),
        ("metrics --ref", strings(&["metrics", "bleu", "--hyp", &hyp, "--ref", "{}"])),
        ("cs1qa retrieve --corpus", strings(&["cs1qa", "retrieve", "--corpus", "{}", "--questions", &q])),
        ("cs1qa retrieve --questions", strings(&["cs1qa", "retrieve", "--corpus", &corpus, "--questions", "{}"])),
        ("evaluate answer --hyp", strings(&["evaluate", "answer", "--hyp", "{}", "--data", &f.path("none")])),
    ]
}

#[test]
fn every_file_argument_refuses_what_is_not_a_regular_file() {
    let f = Fixture::new("readers");
    let mut hostile = vec![("/dev/zero".to_string(), "character device"), (f.link_cycle(), "symbolic links")];
    hostile.push((f.dir.to_str().unwrap().to_string(), "directory"));
    match f.fifo("pipe") {
        Some(fifo) => hostile.push((fifo, "named pipe")),
        None => eprintln!("skipped: the named-pipe cases (mkfifo is not available)"),
    }
    for (name, template) in readers(&f) {
        for (input, kind) in &hostile {
            // A directory is a valid `quarry query` input.
            if *kind == "directory" && name == "query FILE" {
                continue;
            }
            let args: Vec<String> =
                template.iter().map(|a| if a == "{}" { input.clone() } else { a.clone() }).collect();
            let what = format!("{name} with {input}");
            let output = run(&args, &what);
            assert_clean_exit(&output, &what);
            assert_eq!(output.status.code(), Some(2), "{what}: {}", String::from_utf8_lossy(&output.stderr));
            let stderr = String::from_utf8_lossy(&output.stderr);
            assert!(
                stderr.contains("quarry: error") || stderr.contains("error:"),
                "{what}: no error message: {stderr}"
            );
        }
    }
}

#[test]
fn standard_input_is_read_under_the_size_limit() {
    let f = Fixture::new("stdin");
    let zero = std::fs::File::open("/dev/zero").unwrap();
    let child = quarry()
        .args(["query", "-", "--stdin-filename", "z.py", "--max-file-bytes", "100000"])
        .stdin(zero)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let output = finish(child, "query - < /dev/zero");
    assert_clean_exit(&output, "query - < /dev/zero");
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("over the limit of 100000 bytes"));
    drop(f);
}

/// Every command that writes a file, with `{}` where the output goes.
fn writers(f: &Fixture) -> Vec<(&'static str, Vec<String>)> {
    let py = f.path("a.py");
    vec![
        ("query -o", strings(&["query", &py, "--format", "jsonl", "-o", "{}"])),
        ("query --write-baseline", strings(&["query", &py, "--baseline", "{}", "--write-baseline", "-q"])),
        ("cs1qa retrieve --out", f.retrieve(&["--out", "{}"])),
    ]
}

fn fill(template: &[String], target: &str) -> Vec<String> {
    template.iter().map(|a| if a == "{}" { target.to_string() } else { a.clone() }).collect()
}

#[test]
fn outputs_keep_what_their_target_is() {
    let f = Fixture::new("writers");
    for (name, template) in writers(&f) {
        let slug: String = name.chars().filter(|c| c.is_ascii_alphanumeric()).collect();
        // A symbolic link: its target is written, the link stays.
        let real = f.dir.join(format!("{slug}.real"));
        std::fs::write(&real, "old").unwrap();
        std::fs::set_permissions(&real, std::fs::Permissions::from_mode(0o640)).unwrap();
        let link = f.dir.join(format!("{slug}.link"));
        std::os::unix::fs::symlink(&real, &link).unwrap();
        let output = run(&fill(&template, link.to_str().unwrap()), &format!("{name} to a link"));
        assert_clean_exit(&output, name);
        assert!(std::fs::symlink_metadata(&link).unwrap().file_type().is_symlink(), "{name}: the link was replaced");
        let written = std::fs::read_to_string(&real).unwrap();
        assert!(written != "old" && !written.is_empty(), "{name}: the link's target was not written");
        assert_eq!(std::fs::metadata(&real).unwrap().permissions().mode() & 0o777, 0o640, "{name}: mode changed");
        // A hard link: both names still one file.
        let twin = f.dir.join(format!("{slug}.twin"));
        std::fs::hard_link(&real, &twin).unwrap();
        let output = run(&fill(&template, twin.to_str().unwrap()), &format!("{name} to a hard link"));
        assert_clean_exit(&output, name);
        assert_eq!(std::fs::metadata(&real).unwrap().nlink(), 2, "{name}: the hard link was broken");
        // A named pipe: the reader gets the output, the pipe stays a pipe.
        if let Some(fifo) = f.fifo(&format!("{slug}.fifo")) {
            let reader = {
                let fifo = fifo.clone();
                std::thread::spawn(move || std::fs::read(fifo).unwrap())
            };
            let output = run(&fill(&template, &fifo), &format!("{name} to a named pipe"));
            assert_clean_exit(&output, name);
            assert!(!reader.join().unwrap().is_empty(), "{name}: the pipe's reader got nothing");
            assert!(std::fs::symlink_metadata(&fifo).unwrap().file_type().is_fifo(), "{name}: the pipe was replaced");
        }
        // A device node (a copy of /dev/null; needs the right to make one).
        let null = f.dir.join(format!("{slug}.null"));
        let made = Command::new("mknod").arg(&null).args(["c", "1", "3"]).stderr(Stdio::null()).status();
        if made.map(|s| s.success()).unwrap_or(false) {
            let output = run(&fill(&template, null.to_str().unwrap()), &format!("{name} to a device"));
            assert_clean_exit(&output, name);
            assert!(std::fs::metadata(&null).unwrap().file_type().is_char_device(), "{name}: the device was replaced");
        } else {
            eprintln!("skipped: {name} to a device node (mknod is not permitted here)");
        }
        // A full device: an error naming the output.
        let output = run(&fill(&template, "/dev/full"), &format!("{name} to /dev/full"));
        assert_clean_exit(&output, name);
        assert_eq!(output.status.code(), Some(2), "{name} to /dev/full: {}", String::from_utf8_lossy(&output.stderr));
        assert!(String::from_utf8_lossy(&output.stderr).contains("/dev/full"), "{name}: the message names no output");
        assert!(std::fs::metadata("/dev/full").unwrap().file_type().is_char_device());
    }
}

/// Commands that print to standard output.
fn printers(f: &Fixture) -> Vec<(&'static str, Vec<String>)> {
    let py = f.path("a.py");
    vec![
        ("blocks", strings(&["blocks", &py])),
        ("tokens", strings(&["tokens", &py])),
        ("parse", strings(&["parse", &py])),
        ("query", strings(&["query", &py])),
        ("query --format jsonl", strings(&["query", &py, "--format", "jsonl"])),
        ("queries", strings(&["queries"])),
        (
            "metrics --per-line",
            strings(&["metrics", "bleu", "--hyp", &f.path("hyp.txt"), "--ref", &f.path("ref.txt"), "--per-line"]),
        ),
        ("cs1qa retrieve", f.retrieve(&[])),
    ]
}

#[test]
fn closed_and_full_standard_streams_end_the_run_cleanly() {
    let f = Fixture::new("pipes");
    for (name, args) in printers(&f) {
        // Standard output closed before anything is written (`| head -c 0`).
        let mut child = quarry().args(&args).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
        drop(child.stdout.take());
        let output = finish(child, name);
        assert_clean_exit(&output, &format!("{name} | (closed)"));
        assert!(matches!(output.status.code(), Some(0) | Some(1)), "{name} | (closed): {:?}", output.status);
        // Standard output on a full device.
        let full = std::fs::OpenOptions::new().write(true).open("/dev/full").unwrap();
        let child = quarry().args(&args).stdout(full).stderr(Stdio::piped()).spawn().unwrap();
        let output = finish(child, name);
        assert_clean_exit(&output, &format!("{name} > /dev/full"));
        assert_eq!(output.status.code(), Some(2), "{name} > /dev/full");
        assert!(String::from_utf8_lossy(&output.stderr).contains("standard output"), "{name} > /dev/full");
    }
    // Standard error closed while warnings are printed.
    let bad = Fixture::new("bad-files");
    for i in 0..50 {
        std::fs::write(bad.dir.join(format!("b{i}.py")), b"\xff\xfe\x00 not python").unwrap();
    }
    let mut child = quarry().arg("query").arg(&bad.dir).stdout(Stdio::null()).stderr(Stdio::piped()).spawn().unwrap();
    drop(child.stderr.take());
    let output = finish(child, "query 2>&-");
    assert!(output.status.code().is_some_and(|c| c != 101), "query with stderr closed: {:?}", output.status);
}

#[test]
fn numeric_options_no_run_can_use_are_refused() {
    let f = Fixture::new("numbers");
    let (py, hyp, rf) = (f.path("a.py"), f.path("hyp.txt"), f.path("ref.txt"));
    let many_weights = vec!["0.001"; 1000].join(",");
    let out = f.path("o");
    let train_span = |option: &str, value: &str| {
        strings(&[
            "train",
            "span",
            "--train",
            &py,
            "--valid",
            &py,
            "--model",
            "scratch:1x8",
            "--out",
            &out,
            option,
            value,
        ])
    };
    let cases: Vec<(&str, Vec<String>, &str)> = vec![
        ("--jobs 100000", strings(&["query", &py, "--jobs", "100000"]), "--jobs"),
        ("--jobs 0", strings(&["query", &py, "--jobs", "0"]), "--jobs"),
        (
            "--weights x1000",
            strings(&["metrics", "sentence-bleu", "--hyp", &hyp, "--ref", &rf, "--weights", &many_weights]),
            "--weights",
        ),
        (
            "--weights NaN",
            strings(&["metrics", "sentence-bleu", "--hyp", &hyp, "--ref", &rf, "--weights", "NaN,1"]),
            "--weights",
        ),
        (
            "--weights -1",
            strings(&["metrics", "sentence-bleu", "--hyp", &hyp, "--ref", &rf, "--weights=-1,1"]),
            "--weights",
        ),
        ("--top-k 0", f.retrieve(&["--top-k", "0"]), "--top-k"),
        ("--lr NaN", train_span("--lr", "NaN"), "--learning-rate"),
        ("--batch-size 10^12", train_span("--batch-size", "1000000000000"), "--batch-size"),
    ];
    for (name, args, option) in cases {
        let output = run(&args, name);
        assert_clean_exit(&output, name);
        assert_eq!(output.status.code(), Some(2), "{name}: {}", String::from_utf8_lossy(&output.stderr));
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(stderr.contains(option), "{name}: the message names no option: {stderr}");
    }
}

#[test]
fn a_lying_zip_member_is_inflated_only_to_the_limit() {
    // A member whose header declares 100 bytes and that inflates to 200 MB.
    let f = Fixture::new("zip");
    let archive = f.dir.join("bomb.zip");
    let path: &Path = &archive;
    let mut writer = zip::ZipWriter::new(std::fs::File::create(path).unwrap());
    let options = zip::write::SimpleFileOptions::default().compression_method(zip::CompressionMethod::Deflated);
    writer.start_file("A.java", options).unwrap();
    let block = vec![b' '; 1 << 20];
    for _ in 0..200 {
        std::io::Write::write_all(&mut writer, &block).unwrap();
    }
    writer.finish().unwrap();
    // Make both headers declare 100 bytes uncompressed.
    let mut bytes = std::fs::read(path).unwrap();
    for (signature, offset) in [([0x50u8, 0x4b, 0x03, 0x04], 22), ([0x50, 0x4b, 0x01, 0x02], 24)] {
        let at = bytes.windows(4).position(|w| w == signature).unwrap();
        bytes[at + offset..at + offset + 4].copy_from_slice(&100u32.to_le_bytes());
    }
    std::fs::write(path, bytes).unwrap();
    let out = f.path("inspect-out");
    let args = strings(&["inspect", "generate", "--corpus", archive.to_str().unwrap(), "--out", &out]);
    let output = run(&args, "inspect generate on a zip bomb");
    assert_clean_exit(&output, "inspect generate on a zip bomb");
}

#[test]
fn file_names_reach_the_terminal_escaped() {
    // A file whose name holds an escape sequence and whose bytes are not Python text.
    let f = Fixture::new("names");
    let name = f.dir.join("evil\u{1b}[31mred.py");
    std::fs::write(&name, b"\xff\xfe\x00").unwrap();
    for args in [
        vec!["query".to_string(), f.dir.to_str().unwrap().to_string()],
        vec!["blocks".into(), name.to_str().unwrap().into()],
    ] {
        let output = run(&args, "a name with an escape sequence");
        assert_clean_exit(&output, "a name with an escape sequence");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(stderr.contains("evil"), "the file is not named: {stderr}");
        assert!(!stderr.contains('\u{1b}'), "an escape sequence reached the terminal: {stderr:?}");
    }
}
