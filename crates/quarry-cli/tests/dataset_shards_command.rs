//! `quarry dataset codequeries --shard I/N` and `quarry dataset finalize` as a cluster runs
//! them: a shard killed with SIGKILL and rerun gives the bytes of an uninterrupted one, a
//! finished shard is not run again, and finalize names a missing shard.

use std::path::Path;
use std::process::{Command, Output};
use std::time::{Duration, Instant};

fn quarry(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_quarry")).args(args).output().expect("run quarry")
}

#[path = "../../quarry-data/tests/common/shard_corpus.rs"]
mod shard_corpus;
use shard_corpus::corpus;

fn shard_args<'a>(corpus: &'a str, out: &'a str, shard: &'a str) -> Vec<&'a str> {
    let options = ["--format", "parquet", "--chunk-size", "1", "--split", "0.6,0.2,0.2", "--shard", shard];
    let mut args = vec!["dataset", "codequeries", "--corpus", corpus, "--out", out];
    args.extend(options);
    args
}

fn ok(output: &Output) -> String {
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    stderr
}

/// Every file under `dir` (relative path and bytes), sorted.
fn tree(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut files = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(next) = stack.pop() {
        for entry in std::fs::read_dir(&next).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else {
                let name = path.strip_prefix(dir).unwrap().display().to_string();
                files.push((name, std::fs::read(&path).unwrap()));
            }
        }
    }
    files.sort();
    files
}

#[test]
fn a_killed_shard_rerun_gives_the_same_bytes_and_finalize_names_missing_shards() {
    let root = tempfile::tempdir().unwrap();
    let corpus = corpus(root.path());
    let corpus = corpus.to_str().unwrap();
    let clean = root.path().join("clean");
    let killed = root.path().join("killed");
    let (clean_out, killed_out) = (clean.to_str().unwrap(), killed.to_str().unwrap());

    ok(&quarry(&shard_args(corpus, clean_out, "0/2")));
    let error = quarry(&["dataset", "finalize", clean_out]);
    assert_eq!(error.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&error.stderr);
    assert!(stderr.contains("shard 1/2 is missing") && stderr.contains("--shard 1/2"), "{stderr}");
    ok(&quarry(&shard_args(corpus, clean_out, "1/2")));
    let again = ok(&quarry(&shard_args(corpus, clean_out, "1/2")));
    assert!(again.contains("shard 1/2 is built already"), "{again}");

    // Shard 0 killed once its first chunk is written, then rerun.
    let mut child = Command::new(env!("CARGO_BIN_EXE_quarry"))
        .args(shard_args(corpus, killed_out, "0/2"))
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let started = Instant::now();
    let chunks = killed.join(".shards");
    while started.elapsed() < Duration::from_secs(60) {
        let written = std::fs::read_dir(&chunks).map(|d| d.filter_map(|e| e.ok()).count()).unwrap_or(0);
        if written > 0 || child.try_wait().unwrap().is_some() {
            break;
        }
        std::thread::sleep(Duration::from_millis(2));
    }
    child.kill().ok();
    child.wait().unwrap();
    if killed.join("manifests/shard-00000-of-00002.json").exists() {
        eprintln!("note: the shard finished before it could be killed; its rerun does nothing");
    }
    ok(&quarry(&shard_args(corpus, killed_out, "0/2")));
    ok(&quarry(&shard_args(corpus, killed_out, "1/2")));
    assert_eq!(tree(&clean.join("manifests")), tree(&killed.join("manifests")), "manifests with chunk hashes");

    ok(&quarry(&["dataset", "finalize", clean_out]));
    ok(&quarry(&["dataset", "finalize", killed_out]));
    let finished = tree(&clean);
    assert!(finished.iter().any(|(name, _)| name == "data/ideal/train-00001-of-00002.parquet"));
    assert!(finished.iter().any(|(name, _)| name == "README.md"));
    assert_eq!(finished, tree(&killed));
    let noop = ok(&quarry(&["dataset", "finalize", clean_out]));
    assert!(noop.contains("finalized already"), "{noop}");
}
