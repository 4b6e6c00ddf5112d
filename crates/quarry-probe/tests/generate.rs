//! Dataset generation on small Java fixtures: accessors left out, labels,
//! genuine mutations, balance, splits, KTX's token split, determinism.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use quarry_probe::corpus::{collect, is_plain_accessor, Corpus, CorpusLimits, IdentifierRole};
use quarry_probe::dataset::unescape_backslashes;
use quarry_probe::generate::{dataset_path, generate, size_tag, GenerateConfig, Generated};
use quarry_probe::ktx::ktx_class;
use quarry_probe::{label_of_with, NptLabels, Split, Task};

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}

fn corpus() -> Corpus {
    collect(&fixtures(), &CorpusLimits::default()).unwrap()
}

fn config(size: usize) -> GenerateConfig {
    GenerateConfig { size, seed: 7, npt_labels: NptLabels::Binned }
}

fn method_texts(corpus: &Corpus) -> HashSet<String> {
    corpus.methods.iter().map(|m| m.text()).collect()
}

#[test]
fn corpus_keeps_methods_and_constructors_but_not_plain_accessors() {
    let corpus = corpus();
    assert_eq!(corpus.files, 2);
    let names: Vec<String> = corpus
        .methods
        .iter()
        .map(|m| {
            let open = m.tokens.iter().position(|(_, t)| t == "(").unwrap();
            m.tokens[open - 1].1.clone()
        })
        .collect();
    for expected in ["Inventory", "add", "lowStock", "removeAll", "Matrix", "times", "isSquare", "toString"] {
        assert!(names.iter().any(|n| n == expected), "{expected} missing from {names:?}");
    }
    for accessor in ["getOwner", "setOwner", "getRows"] {
        assert!(!names.iter().any(|n| n == accessor), "{accessor} should be left out");
    }
    // `isSquare` returns an expression, not a field: it stays.
    assert!(corpus.methods.iter().all(|m| !is_plain_accessor(m)));
    // Comments never reach the token text.
    assert!(corpus.methods.iter().all(|m| !m.text().contains("//")));
}

#[test]
fn identifiers_have_roles() {
    let corpus = corpus();
    let has = |role, name: &str| corpus.identifiers.iter().any(|(r, n)| *r == role && n == name);
    assert!(has(IdentifierRole::Package, "example"));
    assert!(has(IdentifierRole::Package, "util"));
    assert!(!has(IdentifierRole::Package, "List"));
    assert!(has(IdentifierRole::Class, "Matrix"));
    assert!(has(IdentifierRole::Method, "lowStock"));
    assert!(has(IdentifierRole::Variable, "threshold"));
    assert!(has(IdentifierRole::Variable, "e"));
}

#[test]
fn metric_tasks_label_each_method_by_its_value() {
    let corpus = corpus();
    for task in [Task::Len, Task::Ocu, Task::Vcu, Task::Csc, Task::Mxn, Task::Cpx, Task::Npt] {
        let generated = generate(task, &corpus, &config(100)).unwrap();
        assert!(!generated.samples.is_empty(), "{task}");
        for sample in &generated.samples {
            let label = label_of_with(task, &sample.code(), NptLabels::Binned).unwrap();
            assert_eq!(label.as_deref(), Some(sample.label.as_str()), "{task}: {}", sample.text);
        }
        // The fixture cannot fill 100 samples: shortfalls are reported.
        assert!(!generated.shortfalls.is_empty());
    }
}

fn token_diff(a: &str, b: &str) -> Vec<usize> {
    let (a, b): (Vec<&str>, Vec<&str>) = (a.split(' ').collect(), b.split(' ').collect());
    assert_eq!(a.len(), b.len());
    (0..a.len()).filter(|&i| a[i] != b[i]).collect()
}

fn mutated_source<'a>(originals: &'a HashSet<String>, mutant: &str) -> &'a str {
    originals
        .iter()
        .find(|o| o.split(' ').count() == mutant.split(' ').count() && token_diff(o, mutant).len() <= 2)
        .map(String::as_str)
        .unwrap_or_else(|| panic!("no original for {mutant}"))
}

#[test]
fn mutations_are_genuine_and_minimal() {
    let corpus = corpus();
    let originals = method_texts(&corpus);
    for task in [Task::Typ, Task::Rea, Task::Jbl, Task::Sri, Task::Srk, Task::Sck] {
        let generated = generate(task, &corpus, &config(14)).unwrap();
        let faults: Vec<&str> =
            generated.samples.iter().filter(|s| s.label != "ORIG").map(|s| s.text.as_str()).collect();
        assert!(!faults.is_empty(), "{task}");
        for fault in faults {
            let fault = unescape_backslashes(fault);
            assert!(!originals.contains(&fault), "{task}: not mutated: {fault}");
            let source = mutated_source(&originals, &fault);
            let diff = token_diff(source, &fault);
            let (old, new): (Vec<&str>, Vec<&str>) = (source.split(' ').collect(), fault.split(' ').collect());
            match task {
                Task::Jbl => {
                    assert_eq!(diff.len(), 2);
                    assert_eq!(diff[1], diff[0] + 1);
                    assert_eq!((old[diff[0]], old[diff[1]]), (new[diff[1]], new[diff[0]]));
                }
                _ => assert_eq!(diff.len(), 1, "{task}: {fault}"),
            }
            let (was, now) = (old[diff[0]], new[diff[0]]);
            match task {
                Task::Typ => {
                    assert!(quarry_probe::mutate::PRIMITIVE_TYPES.contains(&was));
                    assert!(!quarry_probe::mutate::PRIMITIVE_TYPES.contains(&now));
                }
                Task::Rea => {
                    assert!(quarry_probe::mutate::RELATIONAL.contains(&was));
                    assert!(quarry_probe::mutate::ASSIGNMENT.contains(&now));
                }
                Task::Sri => assert!(source.split(' ').any(|t| t == now), "{now} is not from the method"),
                Task::Sck => {
                    let category = quarry_probe::mutate::KEYWORD_CATEGORIES.iter().find(|c| c.contains(&was)).unwrap();
                    assert!(category.contains(&now));
                }
                _ => {}
            }
        }
        for sample in generated.samples.iter().filter(|s| s.label == "ORIG") {
            assert!(originals.contains(&sample.code()), "{task}: ORIG must be unchanged");
        }
    }
}

fn split_counts(generated: &Generated, label: &str) -> [usize; 3] {
    let mut counts = [0; 3];
    for s in generated.samples.iter().filter(|s| s.label == label) {
        counts[Split::ALL.iter().position(|x| *x == s.split).unwrap()] += 1;
    }
    counts
}

#[test]
fn classes_are_balanced_and_split_60_20_20() {
    let corpus = corpus();
    let generated = generate(Task::Ktx, &corpus, &config(100)).unwrap();
    for label in Task::Ktx.labels() {
        if generated.shortfalls.iter().any(|s| s.label == label) {
            continue;
        }
        assert_eq!(split_counts(&generated, &label), [6, 2, 2], "{label}");
    }
    let order: Vec<Split> = generated.samples.iter().map(|s| s.split).collect();
    let mut sorted = order.clone();
    sorted.sort();
    assert_eq!(order, sorted, "training samples come first, then validation, then test");
}

#[test]
fn ktx_tokens_of_each_split_are_disjoint() {
    let generated = generate(Task::Ktx, &corpus(), &config(200)).unwrap();
    for sample in &generated.samples {
        let (class, split) = ktx_class(&sample.text).unwrap();
        assert_eq!((class, split), (sample.label.as_str(), sample.split), "{}", sample.text);
    }
}

#[test]
fn generation_is_deterministic_for_a_seed() {
    let corpus = corpus();
    for task in Task::ALL {
        let a = generate(task, &corpus, &config(40)).unwrap();
        let b = generate(task, &corpus, &config(40)).unwrap();
        assert_eq!(a.samples, b.samples, "{task}");
    }
    let other = GenerateConfig { seed: 8, ..config(40) };
    assert_ne!(
        generate(Task::Jbl, &corpus, &config(40)).unwrap().samples,
        generate(Task::Jbl, &corpus, &other).unwrap().samples
    );
}

#[test]
fn file_names_follow_inspect() {
    assert_eq!(size_tag(100), "100");
    assert_eq!(size_tag(1000), "1k");
    assert_eq!(size_tag(10000), "10k");
    assert_eq!(dataset_path(Task::Npt, 1000), Path::new("datasets_NPT/NPT_ORIG_1k.txt"));
}

#[test]
fn jdk_sources_yield_methods() {
    let zip = Path::new("/usr/lib/jvm/temurin-25-jdk-amd64/lib/src.zip");
    let found = std::fs::read_dir("/usr/lib/jvm")
        .ok()
        .and_then(|d| d.filter_map(|e| e.ok()).map(|e| e.path().join("lib/src.zip")).find(|p| p.exists()))
        .or_else(|| zip.exists().then(|| zip.to_path_buf()));
    let Some(zip) = found else {
        quarry_stdx::skip::skip(
            concat!(env!("CARGO_PKG_NAME"), "::", module_path!()),
            "no JDK src.zip under /usr/lib/jvm",
        );
        return;
    };
    let limits = CorpusLimits { max_files: 40, ..CorpusLimits::default() };
    let corpus = collect(&zip, &limits).unwrap();
    assert_eq!(corpus.files, 40);
    assert!(corpus.methods.len() > 50, "{} methods", corpus.methods.len());
    let generated = generate(Task::Csc, &corpus, &config(20)).unwrap();
    assert!(!generated.samples.is_empty());
}
