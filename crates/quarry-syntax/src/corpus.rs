//! Finding source files: directory trees (honouring `.gitignore`) and zip
//! archives such as a JDK's `src.zip`.

use std::io::Read;
use std::path::{Path, PathBuf};

use crate::language::Language;

/// Every file of `language` under `paths`, sorted for determinism. A path that
/// is a file is taken as it is, whatever its extension; directories are walked
/// recursively, skipping what `.gitignore`, `.ignore` and hidden-file rules
/// exclude. Walk errors (unreadable directories) are returned alongside.
pub fn source_files(paths: &[PathBuf], language: Language) -> (Vec<PathBuf>, Vec<String>) {
    let mut files = Vec::new();
    let mut errors = Vec::new();
    for path in paths {
        if path.is_file() {
            files.push(path.clone());
            continue;
        }
        if !path.exists() {
            errors.push(format!("{}: no such file or directory", path.display()));
            continue;
        }
        for entry in ignore::WalkBuilder::new(path).require_git(false).build() {
            match entry {
                Ok(entry) => {
                    let p = entry.path();
                    if entry.file_type().is_some_and(|t| t.is_file()) && Language::from_path(p) == Some(language) {
                        files.push(p.to_path_buf());
                    }
                }
                Err(e) => errors.push(e.to_string()),
            }
        }
    }
    files.sort();
    files.dedup();
    (files, errors)
}

/// One member of a zip archive: its name inside the archive and its bytes.
pub struct ZipMember {
    /// Path of the member inside the archive.
    pub name: String,
    /// Uncompressed contents, or the error that prevented reading them.
    pub contents: Result<Vec<u8>, String>,
}

/// Reads every member of the zip archive at `archive` whose name ends with
/// `.{extension}`, in archive order, passing each to `visit`. Members larger
/// than `max_bytes` are reported as errors without being decompressed.
pub fn for_each_zip_member(
    archive: &Path,
    extension: &str,
    max_bytes: u64,
    mut visit: impl FnMut(ZipMember),
) -> Result<(), String> {
    let file = std::fs::File::open(archive).map_err(|e| format!("{}: cannot open: {e}", archive.display()))?;
    let mut zip = zip::ZipArchive::new(std::io::BufReader::new(file))
        .map_err(|e| format!("{}: not a readable zip archive: {e}", archive.display()))?;
    let suffix = format!(".{extension}");
    for index in 0..zip.len() {
        let mut member = match zip.by_index(index) {
            Ok(member) => member,
            Err(e) => {
                visit(ZipMember { name: format!("#{index}"), contents: Err(e.to_string()) });
                continue;
            }
        };
        let name = member.name().to_string();
        if !member.is_file() || !name.ends_with(&suffix) {
            continue;
        }
        let contents = if member.size() > max_bytes {
            Err(format!("{} bytes, over the limit of {max_bytes}", member.size()))
        } else {
            let mut bytes = Vec::with_capacity(member.size() as usize);
            member.read_to_end(&mut bytes).map(|_| bytes).map_err(|e| e.to_string())
        };
        visit(ZipMember { name, contents });
    }
    Ok(())
}
