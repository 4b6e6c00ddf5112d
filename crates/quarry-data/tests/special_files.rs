//! The data readers read only regular files: a named pipe, a link to `/dev/zero` and a
//! directory are errors naming the path, at once (they used to block or read forever).
#![cfg(unix)]

use std::path::PathBuf;
use std::time::{Duration, Instant};

use quarry_data::codeqa::{files, parallel, StoredParses};
use quarry_data::cs1qa;

fn special_paths() -> Vec<PathBuf> {
    let dir = std::env::temp_dir().join(format!("quarry-data-special-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let fifo = dir.join("rows.jsonl");
    let status = std::process::Command::new("mkfifo").arg(&fifo).status().unwrap();
    assert!(status.success());
    let zero = dir.join("zero.jsonl");
    std::os::unix::fs::symlink("/dev/zero", &zero).unwrap();
    let sub = dir.join("sub.jsonl");
    std::fs::create_dir_all(&sub).unwrap();
    vec![fifo, zero, sub]
}

#[test]
fn json_lines_and_parallel_readers_refuse_special_files_at_once() {
    for path in special_paths() {
        let start = Instant::now();
        let errors = [
            cs1qa::read_rows(&path).err().map(|e| e.to_string()),
            cs1qa::read_questions(&path).err().map(|e| e.to_string()),
            StoredParses::read(&path).err().map(|e| e.to_string()),
            parallel::read_lines(&path).err().map(|e| e.to_string()),
        ];
        for error in errors {
            let error = error.expect("an error");
            assert!(error.contains(&path.display().to_string()) && error.contains("not a regular file"), "{error}");
        }
        assert!(start.elapsed() < Duration::from_secs(5), "{:?}", start.elapsed());
    }
    // A split whose question file is a link to a device.
    let dir = std::env::temp_dir().join(format!("quarry-data-special-split-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let _ = std::fs::remove_file(dir.join("dev.question"));
    std::os::unix::fs::symlink("/dev/zero", dir.join("dev.question")).unwrap();
    std::fs::write(dir.join("dev.answer"), "an answer\n").unwrap();
    let error = files::read_split_as_written(&dir, "dev").unwrap_err().to_string();
    assert!(error.contains("dev.question") && error.contains("character device"), "{error}");
}
