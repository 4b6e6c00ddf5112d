//! `quarry corpus pypi` on bad input: a clear error naming the file and line, exit code 2,
//! and nothing fetched.

use std::process::Command;

fn quarry() -> Command {
    Command::new(env!("CARGO_BIN_EXE_quarry"))
}

#[test]
fn a_bad_package_list_names_its_line_and_exits_2() {
    let dir = tempfile::tempdir().unwrap();
    let list = dir.path().join("list.txt");
    std::fs::write(&list, "six\nrequests>=2.0\n").unwrap();
    let out = dir.path().join("corpus");
    let run = quarry().args(["corpus", "pypi", "--packages"]).arg(&list).arg("--out").arg(&out).output().unwrap();
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert_eq!(run.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("list.txt:2:") && stderr.contains("requests>=2.0"), "{stderr}");
    assert!(!out.exists());
}

#[test]
fn a_manifest_that_is_not_one_is_refused_with_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let manifest = dir.path().join("manifest.json");
    std::fs::write(&manifest, "{\"packages\": 3}").unwrap();
    let run = quarry()
        .args(["corpus", "pypi", "--manifest"])
        .arg(&manifest)
        .arg("--out")
        .arg(dir.path().join("corpus"))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert_eq!(run.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("manifest.json: not a corpus manifest"), "{stderr}");
    let neither = quarry().args(["corpus", "pypi", "--out", "x"]).output().unwrap();
    assert_eq!(neither.status.code(), Some(2));
}
