//! `quarry_data::corpus`: Python files out of source archives built here, refusal of unsafe
//! archives, and a PyPI corpus (deduplication, manifest, failures, rebuilding from the
//! manifest) fetched from a table standing in for PyPI. `QUARRY_PYPI_NETWORK=1` also fetches
//! one real package from pypi.org.

use std::collections::HashMap;
use std::io::{Cursor, Write};
use std::path::Path;

use quarry_data::corpus::archive::{extract_python, ArchiveKind, Limits};
use quarry_data::corpus::pypi::fetch::{Fetch, Http};
use quarry_data::corpus::pypi::manifest::{read_manifest, MANIFEST_FILE};
use quarry_data::corpus::pypi::requirements::Requirement;
use quarry_data::corpus::pypi::{build_corpus, Event, Options, Wanted};
use sha2::{Digest, Sha256};

/// A tar.gz of `(path, contents)` files, plus a symbolic link `top/link.py`.
fn tar_gz(files: &[(&str, &[u8])]) -> Vec<u8> {
    let mut builder = tar::Builder::new(flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast()));
    for (path, data) in files {
        let mut header = tar::Header::new_gnu();
        let name = header.as_old_mut();
        name.name[..path.len()].copy_from_slice(path.as_bytes());
        header.set_size(data.len() as u64);
        header.set_mode(0o644);
        header.set_entry_type(tar::EntryType::Regular);
        header.set_cksum();
        builder.append(&header, *data).unwrap();
    }
    let mut link = tar::Header::new_gnu();
    link.set_entry_type(tar::EntryType::Symlink);
    link.set_size(0);
    builder.append_link(&mut link, "top/link.py", "/etc/passwd").unwrap();
    builder.into_inner().unwrap().finish().unwrap()
}

/// A zip of `(path, contents)` files, plus a symbolic link `top/link.py`.
fn zip(files: &[(&str, &[u8])]) -> Vec<u8> {
    let mut writer = zip::ZipWriter::new(Cursor::new(Vec::new()));
    let options = zip::write::SimpleFileOptions::default();
    for (path, data) in files {
        writer.start_file(*path, options).unwrap();
        writer.write_all(data).unwrap();
    }
    writer.add_symlink("top/link.py", "../../x.py", options).unwrap();
    writer.finish().unwrap().into_inner()
}

#[test]
fn only_regular_python_files_are_kept_below_the_top_folder() {
    let files: &[(&str, &[u8])] = &[
        ("pkg-1.0/setup.py", b"import setuptools\n"),
        ("pkg-1.0/src/pkg/__init__.py", b"x = 1\n"),
        ("pkg-1.0/README.md", b"# pkg\n"),
        ("pkg-1.0/big.py", &[b'#'; 100]),
    ];
    let limits = Limits { max_file_bytes: 50, max_total_bytes: 1000 };
    for (kind, bytes) in [(ArchiveKind::TarGz, tar_gz(files)), (ArchiveKind::Zip, zip(files))] {
        let got = extract_python(kind, &bytes, limits).unwrap();
        let paths: Vec<&str> = got.files.iter().map(|f| f.path.as_str()).collect();
        assert_eq!(paths, ["setup.py", "src/pkg/__init__.py"], "{kind:?}");
        assert_eq!(got.files[1].bytes, b"x = 1\n");
        assert_eq!((got.too_large, got.links), (1, 1), "{kind:?}");
    }
    let small = Limits { max_file_bytes: 50, max_total_bytes: 10 };
    let err = extract_python(ArchiveKind::Zip, &zip(files), small).unwrap_err();
    assert!(err.contains("more than 10 bytes"), "{err}");
}

#[test]
fn archives_with_paths_that_leave_their_folder_are_refused() {
    let tar = tar_gz(&[("pkg-1.0/ok.py", b"a = 1\n"), ("pkg-1.0/../../evil.py", b"b = 2\n")]);
    let err = extract_python(ArchiveKind::TarGz, &tar, Limits::default()).unwrap_err();
    assert!(err.contains("unsafe path") && err.contains("evil.py"), "{err}");
    let zip = zip(&[("/abs/evil.py", b"b = 2\n")]);
    let err = extract_python(ArchiveKind::Zip, &zip, Limits::default()).unwrap_err();
    assert!(err.contains("unsafe path"), "{err}");
    let err = extract_python(ArchiveKind::Zip, b"not a zip", Limits::default()).unwrap_err();
    assert!(err.contains("not a zip archive"), "{err}");
}

/// PyPI as a table of URLs.
struct Table(HashMap<String, Vec<u8>>);

impl Fetch for Table {
    fn get(&self, url: &str, _max_bytes: u64) -> Result<Vec<u8>, String> {
        self.0.get(url).cloned().ok_or_else(|| format!("{url}: not found (HTTP 404)"))
    }
}

const API: &str = "https://pypi.test/pypi";

/// Serves `archive` as the only sdist of `name` `version`, under both JSON URLs.
/// Beta's file URL is relative to its JSON's, as some mirrors give it.
fn publish(table: &mut Table, name: &str, version: &str, archive: &[u8], sha256: &str, extra: &str) {
    let url = format!("https://pypi.test/files/{name}-{version}.tar.gz");
    let listed = if name == "beta" { format!("../../../files/{name}-{version}.tar.gz") } else { url.clone() };
    let json = format!(
        r#"{{"info": {{"name": "{name}", "version": "{version}", "license": null, {extra}
            "classifiers": ["License :: OSI Approved :: MIT License"]}},
            "urls": [{{"packagetype": "bdist_wheel", "url": "https://files.test/x.whl", "filename": "x.whl",
                       "digests": {{"sha256": "00"}}}},
                     {{"packagetype": "sdist", "url": "{listed}", "filename": "{name}-{version}.tar.gz",
                       "digests": {{"sha256": "{sha256}"}}}}]}}"#
    );
    table.0.insert(format!("{API}/{name}/json"), json.clone().into_bytes());
    table.0.insert(format!("{API}/{name}/{version}/json"), json.into_bytes());
    table.0.insert(url, archive.to_vec());
}

fn sha256(bytes: &[u8]) -> String {
    format!("{:x}", Sha256::digest(bytes))
}

fn requirement(name: &str, version: Option<&str>) -> Requirement {
    Requirement { name: name.into(), version: version.map(Into::into) }
}

/// Every file under `dir` with its contents, sorted.
fn tree(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else {
                let name = path.strip_prefix(dir).unwrap().to_string_lossy().into_owned();
                out.push((name, std::fs::read(&path).unwrap()));
            }
        }
    }
    out.sort();
    out
}

#[test]
fn a_corpus_is_deduplicated_records_failures_and_rebuilds_from_its_manifest() {
    let mut table = Table(HashMap::new());
    let alpha = tar_gz(&[("alpha-1.0/alpha.py", b"def f():\n    pass\n"), ("alpha-1.0/util.py", b"SHARED = 1\n")]);
    let beta = tar_gz(&[("beta-2.0/beta.py", b"import alpha\n"), ("beta-2.0/vendored/util.py", b"SHARED = 1\n")]);
    publish(&mut table, "alpha", "1.0", &alpha, &sha256(&alpha), r#""license_expression": "BSD-3-Clause","#);
    publish(&mut table, "beta", "2.0", &beta, &sha256(&beta), "");
    publish(&mut table, "gamma", "0.1", &alpha, &"0".repeat(64), "");
    let wanted = Wanted::Requirements(vec![
        requirement("alpha", None),
        requirement("missing", None),
        requirement("beta", Some("2.0")),
        requirement("gamma", None),
    ]);
    let scratch = tempfile::tempdir().unwrap();
    let out = scratch.path().join("corpus");
    let options = Options { api: API.into(), ..Options::default() };
    let mut failed = Vec::new();
    let mut progress = |event: Event| {
        if let Event::Failed(f) = event {
            failed.push(format!("{}: {}", f.requirement, f.reason));
        }
    };
    let manifest = build_corpus(&out, wanted, &table, &options, &mut progress).unwrap();

    assert_eq!(failed.len(), 2, "{failed:?}");
    assert!(failed[0].starts_with("missing: ") && failed[0].contains("404"), "{}", failed[0]);
    assert!(failed[1].starts_with("gamma: ") && failed[1].contains("sha256"), "{}", failed[1]);
    let files = tree(&out);
    let names: Vec<&str> = files.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, ["alpha-1.0/alpha.py", "alpha-1.0/util.py", "beta-2.0/beta.py", MANIFEST_FILE]);
    assert_eq!((manifest.files_kept, manifest.files_duplicate), (3, 1));
    let on_disk = read_manifest(&out.join(MANIFEST_FILE)).unwrap();
    assert_eq!(on_disk, manifest);
    let [alpha_entry, beta_entry] = &on_disk.packages[..] else { panic!("{on_disk:?}") };
    assert_eq!(alpha_entry.license.as_deref(), Some("BSD-3-Clause"));
    assert_eq!(beta_entry.license.as_deref(), Some("MIT License"));
    assert_eq!((beta_entry.files_kept, beta_entry.files_duplicate), (1, 1));
    assert_eq!(beta_entry.sha256, sha256(&beta));
    assert_eq!(on_disk.failed.len(), 2);

    // The manifest alone fetches the same archives, without the JSON API.
    table.0.retain(|url, _| !url.starts_with(API));
    let again = scratch.path().join("again");
    let releases = Wanted::Releases(on_disk.packages.iter().map(|p| p.release()).collect());
    let rebuilt = build_corpus(&again, releases, &table, &options, &mut |_| {}).unwrap();
    assert_eq!(rebuilt.packages, on_disk.packages);
    let without_manifest =
        |t: Vec<(String, Vec<u8>)>| t.into_iter().filter(|(n, _)| n != MANIFEST_FILE).collect::<Vec<_>>();
    assert_eq!(without_manifest(tree(&again)), without_manifest(files));
}

#[test]
fn a_run_where_every_package_fails_leaves_the_output_alone() {
    let scratch = tempfile::tempdir().unwrap();
    let out = scratch.path().join("corpus");
    std::fs::create_dir(&out).unwrap();
    std::fs::write(out.join("keep.py"), "x = 1\n").unwrap();
    let options = Options { api: API.into(), ..Options::default() };
    let wanted = Wanted::Requirements(vec![requirement("missing", None)]);
    let err = build_corpus(&out, wanted, &Table(HashMap::new()), &options, &mut |_| {}).unwrap_err().to_string();
    assert!(err.contains("none of the 1 packages") && err.contains("missing"), "{err}");
    assert_eq!(tree(&out), [("keep.py".to_string(), b"x = 1\n".to_vec())]);
    let empty = Wanted::Requirements(Vec::new());
    let err = build_corpus(&out, empty, &Table(HashMap::new()), &options, &mut |_| {}).unwrap_err().to_string();
    assert!(err.contains("no package to fetch"), "{err}");
}

#[test]
fn a_real_package_from_pypi_when_asked() {
    if std::env::var_os("QUARRY_PYPI_NETWORK").is_none() {
        quarry_stdx::skip::skip(
            "a_real_package_from_pypi_when_asked",
            "set QUARRY_PYPI_NETWORK=1 to fetch six from pypi.org",
        );
        return;
    }
    let scratch = tempfile::tempdir().unwrap();
    let out = scratch.path().join("corpus");
    let wanted = Wanted::Requirements(vec![requirement("six", None)]);
    let manifest = build_corpus(&out, wanted, &Http::default(), &Options::default(), &mut |_| {}).unwrap();
    let six = &manifest.packages[0];
    assert_eq!(six.name, "six");
    assert!(out.join(format!("six-{}/six.py", six.version)).is_file());
    assert!(six.license.is_some(), "{six:?}");
}
