//! `quarry probe`'s folder outputs never take the place of a file: `--npy` naming an
//! existing file is refused with its path, and the file keeps its contents.

use std::path::PathBuf;
use std::process::{Command, Output};

fn quarry(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_quarry")).args(args).output().expect("run quarry")
}

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("quarry-cli-probe-outputs-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// A small JBL dataset in INSPECT's format (`tr`/`va`/`te`, label, code).
fn dataset(dir: &std::path::Path) -> PathBuf {
    let mut text = String::new();
    for (i, split) in ["tr", "tr", "tr", "tr", "va", "va", "te", "te"].iter().enumerate() {
        let label = if i % 2 == 0 { "ORIG" } else { "REPL" };
        text.push_str(&format!("{split}\t{label}\tvoid f{i} ( ) {{ int x = {i} ; return ; }}\n"));
    }
    let path = dir.join("JBL.txt");
    std::fs::write(&path, text).unwrap();
    path
}

#[test]
fn npy_naming_a_file_is_refused_and_the_file_kept() {
    let dir = temp_dir("npy-file");
    let data = dataset(&dir);
    let taken = dir.join("notes.txt");
    std::fs::write(&taken, "keep me\n").unwrap();
    let out_dir = dir.join("out");
    let out = quarry(&[
        "probe",
        "--task",
        "JBL",
        "--data",
        data.to_str().unwrap(),
        "--model",
        "hashed-tokens",
        "--out",
        out_dir.to_str().unwrap(),
        "--epochs",
        "1",
        "--npy",
        taken.to_str().unwrap(),
    ]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_ne!(out.status.code(), Some(0), "{stderr}");
    assert!(stderr.contains(taken.to_str().unwrap()), "the error names the path: {stderr}");
    assert_eq!(std::fs::read_to_string(&taken).unwrap(), "keep me\n", "the file is untouched");
    let hidden: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with('.'))
        .map(|e| e.file_name())
        .collect();
    assert!(hidden.is_empty(), "nothing moved aside: {hidden:?}");
    let _ = std::fs::remove_dir_all(&dir);
}
