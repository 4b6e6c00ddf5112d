//! Datasets built in shards: N = 1, 3 and 7 shards give the rows of the one-process
//! build, Parquet gives the JSON Lines records field for field, a finished shard is not
//! rebuilt, and finalize names every missing, duplicated or mismatched shard.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use quarry_data::codequeries::build::{build, build_shard, BuildOptions, CutPositives, SETTINGS};
use quarry_data::codequeries::finalize::finalize;
use quarry_data::codequeries::labels::Subtokenizer;
use quarry_data::codequeries::manifest::Manifest;
use quarry_data::codequeries::selection::Negatives;
use quarry_data::codequeries::split::{Ratios, Split};
use quarry_data::codequeries::{Example, RelevanceRow};
use quarry_data::hub::Format;
use quarry_data::records::stream_values;
use quarry_data::shard::Shard;

mod common;

#[path = "common/shard_corpus.rs"]
mod shard_corpus;
use shard_corpus::corpus;

fn options(corpus: &Path, out: &Path, format: Format, shard: Shard) -> BuildOptions {
    BuildOptions {
        corpus: corpus.to_path_buf(),
        out: out.to_path_buf(),
        queries: quarry_query::all_queries(),
        tokenizer: None,
        max_len: 512,
        ratios: Ratios { train: 0.6, valid: 0.2, test: 0.2 },
        seed: 3,
        budget: None,
        negatives: Negatives::Paper,
        cut_positives: CutPositives::Drop,
        gzip: false,
        format,
        shard,
        files_from: None,
        chunk_size: 2,
        max_file_bytes: 1 << 20,
        time_budget: None,
    }
}

/// Builds `count` shards (in reverse order, as a cluster may finish them) and finalizes.
fn build_in_shards(corpus: &Path, out: &Path, count: usize) {
    for index in (0..count).rev() {
        let shard = build_shard(&options(corpus, out, Format::Parquet, Shard { index, count }), &|_, _| {}).unwrap();
        assert!(!shard.already_done);
    }
    finalize(out).unwrap().expect("a first finalize writes the dataset");
}

/// The records of every file of `setting`'s `split`, parsed as `T` and written back as
/// JSON (so that a missing field and its default compare equal), sorted.
fn rows<T: serde::de::DeserializeOwned + serde::Serialize>(files: &[PathBuf]) -> Vec<String> {
    let mut rows = Vec::new();
    for file in files {
        for item in stream_values(file).unwrap() {
            let (_, value) = item.unwrap();
            let record: T = serde_json::from_value(value).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
            rows.push(serde_json::to_string(&record).unwrap());
        }
    }
    rows.sort();
    rows
}

fn hub_files(out: &Path, setting: &str, split: Split) -> Vec<PathBuf> {
    let dir = out.join("data").join(setting);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.file_name().unwrap().to_string_lossy().starts_with(&format!("{}-", split.name())))
        .collect();
    files.sort();
    files
}

fn all_rows(files: impl Fn(&str, Split) -> Vec<PathBuf>) -> BTreeMap<String, Vec<String>> {
    let mut all = BTreeMap::new();
    for setting in SETTINGS {
        for split in Split::ALL {
            let paths = files(setting, split);
            let rows = if setting == "twostep" { rows::<RelevanceRow>(&paths) } else { rows::<Example>(&paths) };
            all.insert(format!("{setting}_{}", split.name()), rows);
        }
    }
    all
}

#[test]
fn any_number_of_shards_gives_the_rows_of_one_process_in_parquet_as_in_json_lines() {
    let root = tempfile::tempdir().unwrap();
    let corpus = corpus(root.path());
    let jsonl = root.path().join("jsonl");
    build(&options(&corpus, &jsonl, Format::Jsonl, Shard::default()), &|_, _| {}).unwrap();
    let expected = all_rows(|setting, split| vec![jsonl.join(format!("{setting}_{}.jsonl", split.name()))]);
    assert!(expected.values().all(|rows| !rows.is_empty()), "every setting and split has rows");
    assert!(expected["ideal_train"].iter().any(|r| r.contains("\"example_type\":0")), "negatives are sampled");
    for count in [1, 3, 7] {
        let out = root.path().join(format!("parquet-{count}"));
        build_in_shards(&corpus, &out, count);
        for setting in SETTINGS {
            for split in Split::ALL {
                assert_eq!(hub_files(&out, setting, split).len(), count, "{setting} {}", split.name());
            }
        }
        let got = all_rows(|setting, split| hub_files(&out, setting, split));
        for (name, rows) in &expected {
            assert_eq!(&got[name], rows, "{name} in {count} shard(s)");
        }
        let card = std::fs::read_to_string(out.join("README.md")).unwrap();
        assert!(card.contains("- config_name: twostep\n"), "{card}");
        assert!(card.contains(&format!("| ideal | {} | ", expected["ideal_train"].len())), "{card}");
        assert!(!out.join(".shards").exists(), "the candidates are removed once the dataset is written");
        // A rerun of finalize, and of a finished shard, does nothing.
        assert!(finalize(&out).unwrap().is_none());
        let again =
            build_shard(&options(&corpus, &out, Format::Parquet, Shard { index: 0, count }), &|_, _| {}).unwrap();
        assert!(again.already_done);
    }
}

#[test]
fn parquet_keeps_sub_tokens_and_labels() {
    let root = tempfile::tempdir().unwrap();
    let corpus = corpus(root.path());
    let tokenizer = common::char_tokenizer(root.path());
    let mut expected = BTreeMap::new();
    for format in [Format::Jsonl, Format::Parquet] {
        let out = root.path().join(format!("{format:?}"));
        let mut opts = options(&corpus, &out, format, Shard::default());
        opts.tokenizer = Some(Subtokenizer::load(&tokenizer).unwrap());
        opts.max_len = 128;
        build(&opts, &|_, _| {}).unwrap();
        let rows = match format {
            Format::Jsonl => all_rows(|setting, split| vec![out.join(format!("{setting}_{}.jsonl", split.name()))]),
            Format::Parquet => all_rows(|setting, split| hub_files(&out, setting, split)),
        };
        expected.insert(format!("{format:?}"), rows);
    }
    let parquet = &expected["Parquet"];
    assert!(parquet["ideal_train"].iter().all(|r| r.contains("\"label_sequence\":[")));
    assert_eq!(&expected["Jsonl"], parquet);
}

#[test]
fn finalize_names_missing_duplicated_and_mismatched_shards() {
    let root = tempfile::tempdir().unwrap();
    let corpus = corpus(root.path());
    let out = root.path().join("out");
    let shard = |index| Shard { index, count: 3 };
    for index in [0, 2] {
        build_shard(&options(&corpus, &out, Format::Parquet, shard(index)), &|_, _| {}).unwrap();
    }
    let error = finalize(&out).unwrap_err().to_string();
    assert!(error.contains("shard 1/3 is missing: no ") && error.contains("shard-00001-of-00003.json"), "{error}");
    // Shard 1 built with another seed: named, with what differs.
    let mut other = options(&corpus, &out, Format::Parquet, shard(1));
    other.seed = 4;
    build_shard(&other, &|_, _| {}).unwrap();
    let error = finalize(&out).unwrap_err().to_string();
    assert!(error.contains("shard 1/3 (") && error.contains("was built with other options"), "{error}");
    assert!(!error.contains("shard 0/3") && !error.contains("shard 2/3"), "{error}");
    // A copy of shard 0's manifest standing for shard 1: shard 0 is duplicated, 1 is missing.
    std::fs::copy(Manifest::path(&out, shard(0)), Manifest::path(&out, shard(1))).unwrap();
    let error = finalize(&out).unwrap_err().to_string();
    assert!(error.contains("shard 0/3 is duplicated: ") && error.contains("shard 1/3 is missing"), "{error}");
    // A manifest of a build in 7 shards in the same directory.
    build_shard(&options(&corpus, &out, Format::Parquet, Shard { index: 4, count: 7 }), &|_, _| {}).unwrap();
    let error = finalize(&out).unwrap_err().to_string();
    assert!(error.contains("shard-00004-of-00007.json is shard 4/7 of a build in 7 shards"), "{error}");
    // Rebuilt right, the dataset is written.
    std::fs::remove_file(Manifest::path(&out, Shard { index: 4, count: 7 })).unwrap();
    std::fs::remove_file(Manifest::path(&out, shard(1))).unwrap();
    build_shard(&options(&corpus, &out, Format::Parquet, shard(1)), &|_, _| {}).unwrap();
    assert!(finalize(&out).unwrap().is_some());
}

#[test]
fn a_file_list_builds_the_listed_files_in_any_order() {
    let root = tempfile::tempdir().unwrap();
    let corpus = corpus(root.path());
    let list = root.path().join("files.txt");
    // Listed in reverse, with a comment and a blank line: the same dataset as the sorted walk.
    let mut names: Vec<String> =
        (0..8).flat_map(|c| ["tool.py", "pkg/handlers.py", "pkg/models.py"].map(|f| format!("copy{c}/{f}"))).collect();
    names.reverse();
    std::fs::write(&list, format!("# the corpus\n\n{}\n", names.join("\n"))).unwrap();
    let walked = root.path().join("walked");
    build(&options(&corpus, &walked, Format::Jsonl, Shard::default()), &|_, _| {}).unwrap();
    let listed = root.path().join("listed");
    let mut opts = options(&corpus, &listed, Format::Jsonl, Shard::default());
    opts.files_from = Some(list.clone());
    build(&opts, &|_, _| {}).unwrap();
    for name in ["ideal_train.jsonl", "twostep_valid.jsonl"] {
        assert_eq!(std::fs::read(walked.join(name)).unwrap(), std::fs::read(listed.join(name)).unwrap(), "{name}");
    }
    std::fs::write(&list, "copy0/tool.py\ncopy0/absent.py\n").unwrap();
    let error = build(&opts, &|_, _| {}).unwrap_err().to_string();
    assert!(error.contains("files.txt:2:") && error.contains("absent.py: not a file"), "{error}");
}

/// A rerun of a finished one-process build does nothing; a rerun with other options
/// rebuilds what they change, as a clean build with them does; an edited file is built again.
#[test]
fn one_process_reruns_reuse_only_what_their_options_and_files_leave_valid() {
    let root = tempfile::tempdir().unwrap();
    let corpus = corpus(root.path());
    let out = root.path().join("out");
    let first = build(&options(&corpus, &out, Format::Jsonl, Shard::default()), &|_, _| {}).unwrap();
    assert!(!first.unchanged);
    let again = build(&options(&corpus, &out, Format::Jsonl, Shard::default()), &|_, _| {}).unwrap();
    assert!(again.unchanged && again.written == first.written, "a rerun changes nothing");
    assert!(!out.join(".shards").exists(), "a rerun leaves no candidates behind");

    let other_split = |out: &Path| {
        let mut o = options(&corpus, out, Format::Jsonl, Shard::default());
        o.ratios = Ratios { train: 0.34, valid: 0.33, test: 0.33 };
        o
    };
    let resplit = build(&other_split(&out), &|_, _| {}).unwrap();
    assert!(!resplit.unchanged);
    let clean = root.path().join("clean");
    build(&other_split(&clean), &|_, _| {}).unwrap();
    let files =
        |dir: PathBuf| move |setting: &str, split: Split| vec![dir.join(format!("{setting}_{}.jsonl", split.name()))];
    assert_eq!(all_rows(files(out.clone())), all_rows(files(clean.clone())), "the old split's rows stayed");

    // An edited file is another version of the corpus.
    let mut folders = vec![corpus.clone()];
    let mut python_files = Vec::new();
    while let Some(folder) = folders.pop() {
        for path in std::fs::read_dir(&folder).unwrap().map(|e| e.unwrap().path()) {
            if path.is_dir() {
                folders.push(path);
            } else if path.extension().is_some_and(|e| e == "py") {
                python_files.push(path);
            }
        }
    }
    python_files.sort();
    let edited = &python_files[0];
    let mut text = std::fs::read_to_string(edited).unwrap();
    text.push_str("\nimport edited_module\n");
    std::fs::write(edited, text).unwrap();
    assert!(!build(&other_split(&out), &|_, _| {}).unwrap().unchanged, "an edited file was not built again");
}

/// A one-process build into a folder of another build's shards is refused before any work,
/// and a build in another number of shards replaces the earlier one's files.
#[test]
fn shards_of_another_count_are_refused_or_replaced() {
    let root = tempfile::tempdir().unwrap();
    let corpus = corpus(root.path());
    let out = root.path().join("out");
    build_in_shards(&corpus, &out, 3);
    let error = build(&options(&corpus, &out, Format::Parquet, Shard::default()), &|_, _| {}).unwrap_err();
    assert!(error.to_string().contains("of a build in 3 shards"), "{error}");
    std::fs::remove_dir_all(out.join("manifests")).unwrap();
    build_in_shards(&corpus, &out, 2);
    for setting in SETTINGS {
        for split in Split::ALL {
            let names: Vec<String> = hub_files(&out, setting, split)
                .iter()
                .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
                .collect();
            assert!(names.iter().all(|n| n.contains("-of-00002.")), "{setting} {}: {names:?}", split.name());
        }
    }
}
