//! `quarry inspect label`, `quarry inspect generate` and `quarry probe` as a user runs them;
//! `probe`'s folder outputs never take the place of a file.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn quarry(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_quarry")).args(args).output().expect("run quarry")
}

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("quarry-cli-inspect-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../quarry-probe/tests/fixtures")
}

#[test]
fn label_json_reports_agreement() {
    let dir = temp_dir("label");
    let data = dir.join("CSC.txt");
    std::fs::write(
        &data,
        "tr\t1\tvoid f ( ) { if ( a ) { b ( ) ; } }\nva\t2\tvoid g ( ) { while ( x ) { } }\n continued line\n",
    )
    .unwrap();
    let out = quarry(&["inspect", "label", "--task", "CSC", "--data", data.to_str().unwrap(), "--format", "json"]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["task"], "CSC");
    assert_eq!(doc["samples"], 2);
    assert_eq!(doc["agreement"], 0.5);
    assert_eq!(doc["malformed_lines"], 1);
}

#[test]
fn label_errors_name_the_file_and_exit_2() {
    let out = quarry(&["inspect", "label", "--task", "CSC", "--data", "/nonexistent/CSC.txt"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("/nonexistent/CSC.txt"));
    let out = quarry(&["inspect", "label", "--task", "XYZ", "--data", "x"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("unknown task"));
    let dir = temp_dir("label-jbl");
    let data = dir.join("JBL.txt");
    std::fs::write(&data, "tr\tORIG\tint x ;\n").unwrap();
    let out = quarry(&["inspect", "label", "--task", "JBL", "--data", data.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn generate_then_probe_writes_datasets_and_reports() {
    let dir = temp_dir("pipeline");
    let out_dir = dir.join("data");
    let out = quarry(&[
        "inspect",
        "generate",
        "--corpus",
        fixtures().to_str().unwrap(),
        "--task",
        "JBL",
        "--size",
        "12",
        "--out",
        out_dir.to_str().unwrap(),
        "--seed",
        "3",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let data = out_dir.join("datasets_JBL/JBL_ORIG_12.txt");
    let text = std::fs::read_to_string(&data).unwrap();
    assert_eq!(text.lines().count(), 12);
    assert_eq!(text.lines().filter(|l| l.starts_with("tr\tREPL\t")).count(), 4);

    let reports = dir.join("reports");
    let args = [
        "probe",
        "--task",
        "JBL",
        "--data",
        data.to_str().unwrap(),
        "--model",
        "hashed-tokens",
        "--out",
        reports.to_str().unwrap(),
        "--epochs",
        "2",
        "--control",
        "--format",
        "json",
    ];
    let out = quarry(&args);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["layers"].as_array().unwrap().len(), 2);
    assert!(doc["layers"][0]["selectivity"].is_number());
    for file in [
        "results.csv",
        "heatmap_model_hashed-tokens_linear.svg",
        "heatmap_task_JBL_linear.svg",
        "confusion/JBL_hashed-tokens_linear_layer01.csv",
        "confusion/JBL_hashed-tokens_linear_layer01.svg",
    ] {
        assert!(reports.join(file).exists(), "{file} missing");
    }
    // A second run reuses the cached features and gives the same numbers.
    let again = quarry(&args);
    assert_eq!(again.stdout, out.stdout);
    let csv = std::fs::read_to_string(reports.join("results.csv")).unwrap();
    assert_eq!(csv.lines().count(), 3);
}

#[test]
fn generation_is_byte_identical_for_a_seed() {
    let dir = temp_dir("determinism");
    let run = |out: &Path| {
        let status = quarry(&[
            "inspect",
            "generate",
            "--corpus",
            fixtures().to_str().unwrap(),
            "--task",
            "all",
            "--size",
            "40",
            "--out",
            out.to_str().unwrap(),
            "--seed",
            "11",
        ]);
        assert_eq!(status.status.code(), Some(0), "{}", String::from_utf8_lossy(&status.stderr));
    };
    let (a, b) = (dir.join("a"), dir.join("b"));
    run(&a);
    run(&b);
    for task in
        ["KTX", "IDN", "LEN", "TYP", "REA", "JBL", "SRI", "SRK", "SCK", "OCU", "VCU", "CSC", "MXN", "CPX", "NPT"]
    {
        let file = format!("datasets_{task}/{task}_ORIG_40.txt");
        assert_eq!(std::fs::read(a.join(&file)).unwrap(), std::fs::read(b.join(&file)).unwrap(), "{file}");
    }
}

#[test]
fn probe_without_features_explains_what_is_missing() {
    let dir = temp_dir("nofeatures");
    let data = dir.join("LEN.txt");
    std::fs::write(&data, "tr\tA\tint x ;\nva\tA\tint y ;\n").unwrap();
    let out = quarry(&[
        "probe",
        "--task",
        "LEN",
        "--data",
        data.to_str().unwrap(),
        "--model",
        "codebert",
        "--out",
        dir.join("out").to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("--features") && err.contains("codebert"), "{err}");
}

#[test]
fn parquet_datasets_hold_the_text_samples_and_feed_label_and_probe() {
    let dir = temp_dir("parquet");
    let corpus = fixtures();
    let generate = |format: &str, out: &Path| {
        let args = ["inspect", "generate", "--corpus", corpus.to_str().unwrap(), "--task", "all", "--size", "12"];
        let out = quarry(&[&args[..], &["--out", out.to_str().unwrap(), "--seed", "5", "--format", format]].concat());
        assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    };
    let (txt, parquet) = (dir.join("txt"), dir.join("parquet"));
    generate("txt", &txt);
    generate("parquet", &parquet);
    let card = std::fs::read_to_string(parquet.join("README.md")).unwrap();
    assert!(card.contains("- config_name: LEN") && card.contains("data/LEN/train-*.parquet"), "{card}");
    for task in ["LEN", "JBL"] {
        let text = quarry_probe::Dataset::read(&txt.join(format!("datasets_{task}/{task}_ORIG_12.txt"))).unwrap();
        let table = quarry_probe::hub::read_any(&parquet.join("data").join(task)).unwrap();
        let key = |d: &quarry_probe::Dataset| {
            let mut rows: Vec<_> = d.samples.iter().map(|s| (s.split, s.label.clone(), s.text.clone())).collect();
            rows.sort();
            rows
        };
        assert_eq!(key(&table), key(&text), "{task}");
        assert!(!table.samples.is_empty(), "{task}");
    }
    let len = parquet.join("data/LEN");
    let label = quarry(&["inspect", "label", "--task", "LEN", "--data", len.to_str().unwrap(), "--format", "json"]);
    assert_eq!(label.status.code(), Some(0), "{}", String::from_utf8_lossy(&label.stderr));
    let doc: serde_json::Value = serde_json::from_slice(&label.stdout).unwrap();
    assert_eq!(doc["agree"], doc["checked"], "{doc}");
    let reports = dir.join("reports");
    let jbl = parquet.join("data/JBL");
    let args = ["probe", "--task", "JBL", "--data", jbl.to_str().unwrap(), "--model", "hashed-tokens"];
    let probe =
        quarry(&[&args[..], &["--out", reports.to_str().unwrap(), "--epochs", "1", "--format", "json"]].concat());
    assert_eq!(probe.status.code(), Some(0), "{}", String::from_utf8_lossy(&probe.stderr));
    assert!(reports.join("results.csv").exists());
}

#[test]
fn shards_give_the_datasets_of_one_process_and_a_missing_shard_is_named() {
    let dir = temp_dir("shards");
    let corpus = fixtures();
    let generate = |out: &Path, extra: &[&str]| {
        let args = ["inspect", "generate", "--corpus", corpus.to_str().unwrap(), "--task", "all", "--size", "24"];
        quarry(&[&args[..], &["--out", out.to_str().unwrap(), "--seed", "9"], extra].concat())
    };
    let one = dir.join("one");
    let single = generate(&one, &[]);
    assert_eq!(single.status.code(), Some(0), "{}", String::from_utf8_lossy(&single.stderr));
    let sharded = dir.join("sharded");
    for shard in ["0/3", "2/3"] {
        let out = generate(&sharded, &["--shard", shard]);
        assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    }
    let early = quarry(&["dataset", "finalize", sharded.to_str().unwrap()]);
    assert_eq!(early.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&early.stderr).contains("shard 1/3 is missing"), "{early:?}");
    assert!(generate(&sharded, &["--shard", "1/3"]).status.success());
    let again = generate(&sharded, &["--shard", "1/3"]);
    assert!(String::from_utf8_lossy(&again.stderr).contains("nothing to do"), "{again:?}");
    let done = quarry(&["dataset", "finalize", sharded.to_str().unwrap()]);
    assert_eq!(done.status.code(), Some(0), "{}", String::from_utf8_lossy(&done.stderr));
    let listing = |out: &Output| String::from_utf8_lossy(&out.stdout).replace(&*dir.to_string_lossy(), "");
    assert_eq!(listing(&done).replace("/sharded/", "/"), listing(&single).replace("/one/", "/"));
    let mut compared = 0;
    for task in ["LEN", "JBL", "KTX", "NPT"] {
        let name = format!("datasets_{task}/{task}_ORIG_24.txt");
        let (a, b) = (std::fs::read(one.join(&name)), std::fs::read(sharded.join(&name)));
        if let (Ok(a), Ok(b)) = (a, b) {
            assert_eq!(a, b, "{task}");
            compared += 1;
        }
    }
    assert!(compared >= 3, "{compared}");
}

#[test]
fn experiment_inspect_probes_every_task_writes_both_reports_and_resumes() {
    let dir = temp_dir("experiment");
    let data = dir.join("data");
    let corpus = fixtures();
    let args = ["inspect", "generate", "--corpus", corpus.to_str().unwrap(), "--task", "all", "--size", "24"];
    assert!(quarry(&[&args[..], &["--out", data.to_str().unwrap()]].concat()).status.success());
    let out = dir.join("out");
    let experiment = [
        "experiment",
        "inspect",
        "--data",
        data.to_str().unwrap(),
        "--model",
        "hashed-tokens",
        "--tasks",
        "LEN,JBL,NPT",
        "--size",
        "24",
    ];
    let run = || quarry(&[&experiment[..], &["--out", out.to_str().unwrap(), "--epochs", "2"]].concat());
    // NPT's 24 samples leave no validation sample: the task is left out, named, and the
    // run goes on with the others (exit 2 at the end, as every input error).
    let first = run();
    let said = String::from_utf8_lossy(&first.stderr);
    assert_eq!(first.status.code(), Some(2), "{said}");
    assert!(said.contains("1 task(s) left out: NPT") && said.contains("no validation sample"), "{said}");
    let md = std::fs::read_to_string(out.join("report.md")).unwrap();
    for task in ["| LEN |", "| JBL |", "**Left out**: NPT"] {
        assert!(md.contains(task), "{task} missing:\n{md}");
    }
    let html = std::fs::read_to_string(out.join("report.html")).unwrap();
    assert_eq!(html.matches("<svg").count(), 2, "the heatmap and the curves");
    assert!(!html.contains("<script") && !html.contains("src="));
    assert!(out.join("heatmap_model_hashed-tokens_linear.svg").exists());
    let again = run();
    let said = String::from_utf8_lossy(&again.stderr);
    assert_eq!(said.matches("done before, skipped").count(), 2, "{said}");
    assert_eq!(std::fs::read_to_string(out.join("report.md")).unwrap(), md);
}

#[test]
fn files_from_reads_only_the_listed_files_and_names_a_missing_one() {
    let dir = temp_dir("files-from");
    let corpus = fixtures();
    let list = dir.join("list.txt");
    std::fs::write(&list, "# one file\nMatrix.java\n").unwrap();
    let generate = |out: &Path| {
        let args = ["inspect", "generate", "--corpus", corpus.to_str().unwrap(), "--task", "LEN", "--size", "12"];
        quarry(&[&args[..], &["--out", out.to_str().unwrap(), "--files-from", list.to_str().unwrap()]].concat())
    };
    let out = generate(&dir.join("one"));
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8_lossy(&out.stderr).contains("1 files,"), "{out:?}");
    std::fs::write(&list, "Matrix.java\nNoSuch.java\n").unwrap();
    let missing = generate(&dir.join("two"));
    assert_eq!(missing.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&missing.stderr).contains("list.txt:2"), "{missing:?}");

    // In a zip archive the list names members.
    let archive = dir.join("src.zip");
    let mut writer = zip::ZipWriter::new(std::fs::File::create(&archive).unwrap());
    for name in ["Inventory.java", "Matrix.java"] {
        writer.start_file(format!("pkg/{name}"), zip::write::SimpleFileOptions::default()).unwrap();
        std::io::Write::write_all(&mut writer, &std::fs::read(corpus.join(name)).unwrap()).unwrap();
    }
    writer.finish().unwrap();
    let from_zip = |list_text: &str, out: &str| {
        std::fs::write(&list, list_text).unwrap();
        let args = ["inspect", "generate", "--corpus", archive.to_str().unwrap(), "--task", "LEN", "--size", "12"];
        let out = dir.join(out);
        quarry(&[&args[..], &["--out", out.to_str().unwrap(), "--files-from", list.to_str().unwrap()]].concat())
    };
    let one = from_zip("pkg/Matrix.java\n", "zip-one");
    assert_eq!(one.status.code(), Some(0), "{}", String::from_utf8_lossy(&one.stderr));
    assert!(String::from_utf8_lossy(&one.stderr).contains("1 files,"), "{one:?}");
    let absent = from_zip("pkg/Matrix.java\npkg/Gone.java\n", "zip-two");
    assert_eq!(absent.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&absent.stderr).contains("list.txt:2: pkg/Gone.java: not in"), "{absent:?}");
}

/// A small JBL dataset in INSPECT's format (`tr`/`va`/`te`, label, code).
fn jbl_dataset(dir: &Path) -> PathBuf {
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
    let data = jbl_dataset(&dir);
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
