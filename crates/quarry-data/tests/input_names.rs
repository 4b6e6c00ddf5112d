//! How a build names its input files: two spellings of one listed file (`json//a.py`,
//! `./json/a.py`) are one file under one name, and a file whose name is not UTF-8 is
//! reported as skipped while the others are built.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use quarry_data::codequeries::build::{build, BuildOptions, BuildSummary, CutPositives};
use quarry_data::codequeries::selection::Negatives;
use quarry_data::codequeries::split::Ratios;
use quarry_data::hub::Format;
use quarry_data::shard::Shard;

const CODE: &str = "def f():\n    try:\n        pass\n    except:\n        pass\n";

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

fn options(corpus: &Path, out: &Path, files_from: Option<PathBuf>) -> BuildOptions {
    BuildOptions {
        corpus: corpus.to_path_buf(),
        out: out.to_path_buf(),
        queries: vec![quarry_query::find_query("Q17").unwrap()],
        tokenizer: None,
        max_len: 512,
        ratios: Ratios { train: 0.4, valid: 0.3, test: 0.3 },
        seed: 0,
        budget: None,
        negatives: Negatives::All,
        cut_positives: CutPositives::Keep,
        gzip: false,
        format: Format::Jsonl,
        shard: Shard::default(),
        files_from,
        chunk_size: 2,
        max_file_bytes: 1 << 20,
        time_budget: None,
    }
}

/// The `code_file_path` of every row of every JSON Lines file under `out`, with the
/// number of rows.
fn code_file_paths(out: &Path) -> (BTreeSet<String>, usize) {
    let mut paths = BTreeSet::new();
    let mut rows = 0;
    let mut stack = vec![out.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            if path.is_dir() && !name.starts_with('.') {
                stack.push(path);
            } else if name.ends_with(".jsonl") {
                for line in std::fs::read_to_string(&path).unwrap().lines() {
                    let row: serde_json::Value = serde_json::from_str(line).unwrap();
                    if let Some(file) = row.get("code_file_path").and_then(|v| v.as_str()) {
                        paths.insert(file.to_string());
                        rows += 1;
                    }
                }
            }
        }
    }
    (paths, rows)
}

fn built(corpus: &Path, out: &Path, files_from: Option<PathBuf>) -> BuildSummary {
    build(&options(corpus, out, files_from), &|_, _| {}).unwrap()
}

#[test]
fn a_file_listed_under_two_spellings_is_built_once() {
    let dir = tempfile::tempdir().unwrap();
    let corpus = dir.path().join("corpus");
    for name in ["json/encoder.py", "json/decoder.py", "json/scanner.py"] {
        write(&corpus.join(name), CODE);
    }
    let plain = dir.path().join("plain.txt");
    write(&plain, "json/encoder.py\njson/decoder.py\njson/scanner.py\n");
    let doubled = dir.path().join("doubled.txt");
    write(&doubled, "json//encoder.py\njson/encoder.py\n./json/decoder.py\njson/decoder.py\njson/./scanner.py\n");
    let summary = built(&corpus, &dir.path().join("plain"), Some(plain));
    let again = built(&corpus, &dir.path().join("doubled"), Some(doubled));
    assert_eq!((summary.files, again.files), (3, 3));
    let (names, rows) = code_file_paths(&dir.path().join("plain"));
    let expected: BTreeSet<String> =
        ["json/decoder.py", "json/encoder.py", "json/scanner.py"].into_iter().map(String::from).collect();
    assert_eq!(names, expected);
    assert_eq!(code_file_paths(&dir.path().join("doubled")), (names, rows));
}

#[cfg(unix)]
#[test]
fn files_named_in_other_encodings_are_skipped_and_the_rest_is_built() {
    use std::ffi::OsStr;
    use std::os::unix::ffi::OsStrExt;

    let dir = tempfile::tempdir().unwrap();
    let corpus = dir.path().join("corpus");
    write(&corpus.join("good.py"), CODE);
    write(&corpus.join("pkg/other.py"), CODE);
    for name in [b"a\xff.py".as_slice(), b"a\xfe.py", b"bad\xffname.py"] {
        write(&corpus.join(OsStr::from_bytes(name)), CODE);
    }
    let out = dir.path().join("out");
    let summary = built(&corpus, &out, None);
    assert_eq!(summary.files, 2);
    let skipped: Vec<&String> =
        summary.failed_files.iter().filter(|f| f.ends_with("file name is not UTF-8, skipped")).collect();
    assert_eq!(skipped.len(), 3, "{:?}", summary.failed_files);
    // Each name is shown escaped, so that it leads back to its file.
    assert!(skipped.iter().any(|f| f.contains(r"bad\xFFname.py")), "{skipped:?}");
    let (names, rows) = code_file_paths(&out);
    assert!(rows > 0);
    assert_eq!(names, ["good.py", "pkg/other.py"].into_iter().map(String::from).collect());
}
