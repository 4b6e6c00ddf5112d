//! Walks real corpora — the local CPython standard libraries and a JDK's
//! `src.zip` — and checks that every file parses without panic, that every
//! code line is in exactly one block and that every span round-trips.
//! Each corpus is skipped with a message when it is absent.

mod common;

use std::path::{Path, PathBuf};

use quarry_syntax::corpus::{for_each_zip_member, source_files};
use quarry_syntax::{Language, LoadOptions, ParsedFile, SourceFile, SyntaxError};

/// Standard-library directories of the Python installations under pyenv, one
/// per major version, newest first; `QUARRY_PYTHON_LIB` overrides.
fn python_libs() -> Vec<PathBuf> {
    if let Ok(dir) = std::env::var("QUARRY_PYTHON_LIB") {
        return vec![PathBuf::from(dir)];
    }
    // pyenv's root: `PYENV_ROOT`, else `~/.pyenv`.
    let pyenv = std::env::var_os("PYENV_ROOT")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|home| PathBuf::from(home).join(".pyenv")));
    let mut found: Vec<PathBuf> = std::fs::read_dir(pyenv.unwrap_or_default().join("versions"))
        .into_iter()
        .flatten()
        .flatten()
        .flat_map(|version| std::fs::read_dir(version.path().join("lib")).into_iter().flatten().flatten())
        .map(|entry| entry.path())
        .filter(|p| p.file_name().and_then(|n| n.to_str()).is_some_and(|n| n.starts_with("python")))
        .filter(|p| p.join("os.py").is_file())
        .collect();
    found.sort();
    let newest_3 = found.iter().rev().find(|p| p.to_string_lossy().contains("python3.11")).or(found.last()).cloned();
    let python_2 = found.iter().find(|p| p.to_string_lossy().ends_with("python2.7")).cloned();
    newest_3.into_iter().chain(python_2).collect()
}

fn check_python_lib(lib: &Path) {
    let (files, walk_errors) = source_files(&[lib.to_path_buf()], Language::Python);
    assert!(walk_errors.is_empty(), "{walk_errors:?}");
    // The standard library only: installed third-party packages vary by machine.
    let files: Vec<PathBuf> = files.into_iter().filter(|p| !p.to_string_lossy().contains("-packages")).collect();
    let (mut parsed, mut with_errors, mut refused, mut bytes) = (0, 0, 0, 0);
    let mut problems = Vec::new();
    for path in &files {
        match ParsedFile::load(path, None, &LoadOptions::default()) {
            Ok(file) => {
                parsed += 1;
                bytes += file.text().len();
                with_errors += usize::from(file.has_errors());
                problems.extend(common::check_file(&file));
            }
            // CPython's own tests hold files it refuses too (bad_coding.py declares `uft-8`).
            Err(
                SyntaxError::InvalidUtf8 { .. }
                | SyntaxError::Binary { .. }
                | SyntaxError::UnknownEncoding { .. }
                | SyntaxError::Undecodable { .. }
                | SyntaxError::EncodingConflict { .. },
            ) => refused += 1,
            Err(e) => panic!("unexpected error: {e}"),
        }
    }
    eprintln!(
        "{}: {} files, {parsed} parsed ({bytes} bytes), {with_errors} with syntax errors, {refused} refused (undecodable or binary)",
        lib.display(),
        files.len()
    );
    assert!(problems.is_empty(), "{} problems, first: {:?}", problems.len(), &problems[..problems.len().min(10)]);
    assert!(parsed > 100);
}

#[test]
fn cpython_standard_libraries() {
    let libs = python_libs();
    if libs.is_empty() {
        quarry_stdx::skip::skip(
            concat!(env!("CARGO_PKG_NAME"), "::", module_path!()),
            "no CPython standard library found under pyenv's root (set QUARRY_PYTHON_LIB)",
        );
        return;
    }
    for lib in libs {
        check_python_lib(&lib);
    }
}

/// The first readable JDK `src.zip` under /usr/lib/jvm; `QUARRY_JDK_SRC_ZIP` overrides.
fn jdk_src_zip() -> Option<PathBuf> {
    if let Ok(path) = std::env::var("QUARRY_JDK_SRC_ZIP") {
        return Some(PathBuf::from(path));
    }
    let mut zips: Vec<PathBuf> = std::fs::read_dir("/usr/lib/jvm")
        .ok()?
        .flatten()
        .map(|e| e.path().join("lib/src.zip"))
        .filter(|p| p.is_file())
        .collect();
    zips.sort();
    zips.into_iter().next()
}

#[test]
fn jdk_sources() {
    let Some(zip) = jdk_src_zip() else {
        quarry_stdx::skip::skip(
            concat!(env!("CARGO_PKG_NAME"), "::", module_path!()),
            "no JDK src.zip found under /usr/lib/jvm (set QUARRY_JDK_SRC_ZIP)",
        );
        return;
    };
    let (mut parsed, mut with_errors, mut refused, mut bytes) = (0, 0, 0, 0);
    let mut problems = Vec::new();
    for_each_zip_member(&zip, "java", 64 << 20, |member| {
        let Ok(contents) = member.contents else {
            refused += 1;
            return;
        };
        match SourceFile::from_bytes(&member.name, contents) {
            Ok(source) => {
                let file = ParsedFile::parse(source, Language::Java).expect("tree");
                parsed += 1;
                bytes += file.text().len();
                with_errors += usize::from(file.has_errors());
                problems.extend(common::check_file(&file));
            }
            Err(_) => refused += 1,
        }
    })
    .unwrap();
    eprintln!(
        "{}: {parsed} Java files parsed ({bytes} bytes), {with_errors} with syntax errors, {refused} refused",
        zip.display()
    );
    assert!(problems.is_empty(), "{} problems, first: {:?}", problems.len(), &problems[..problems.len().min(10)]);
    assert!(parsed > 100);
}
