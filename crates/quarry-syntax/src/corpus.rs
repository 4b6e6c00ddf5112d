//! Finding source files: directory trees (honouring `.gitignore`) and zip
//! archives such as a JDK's `src.zip`.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use crate::exclude::PathGlobs;
use crate::gitignore_negation::NegationCheck;
use crate::language::Language;
/// The CPython standard library the benchmarks and examples read when given no folder:
/// `QUARRY_STDLIB`, else the `stdlib` path of the `python3` on `PATH` (`None` when neither
/// names a folder).
pub fn default_stdlib() -> Option<PathBuf> {
    let from_env = std::env::var_os("QUARRY_STDLIB").map(PathBuf::from);
    let from_python = || {
        let out = std::process::Command::new("python3")
            .args(["-c", "import sysconfig; print(sysconfig.get_paths()['stdlib'])"])
            .output()
            .ok()?;
        out.status.success().then(|| PathBuf::from(String::from_utf8_lossy(&out.stdout).trim()))
    };
    from_env.or_else(from_python).filter(|dir| dir.is_dir())
}

/// Every file of `language` under `paths`, sorted for determinism. A path that
/// is not a directory is taken as it is, whatever its extension (loading it
/// reports what is wrong with it); directories are walked recursively,
/// skipping what `.gitignore`, `.ignore` and hidden-file rules exclude (a
/// lone `!` line of a `.gitignore` matches nothing, as in git; see the
/// `gitignore_negation` module).
/// Links inside directories are followed only to regular files. Entries
/// with the language's extension that are named pipes, sockets, devices or
/// broken or cyclic links are reported, as are unreadable directories:
/// these messages are returned alongside.
pub fn source_files(paths: &[PathBuf], language: Language) -> (Vec<PathBuf>, Vec<String>) {
    source_files_excluding(paths, language, &PathGlobs::none())
}

/// [`source_files`], leaving out what `exclude` matches inside the walked
/// directories (a matching folder is not entered). Paths given explicitly
/// are kept even when they match, as in ruff without `force-exclude`.
pub fn source_files_excluding(
    paths: &[PathBuf],
    language: Language,
    exclude: &PathGlobs,
) -> (Vec<PathBuf>, Vec<String>) {
    let mut files = Vec::new();
    let mut errors = Vec::new();
    for path in paths {
        if std::fs::symlink_metadata(path).is_err() {
            errors.push(format!("{}: no such file or directory", path.display()));
            continue;
        }
        if !path.is_dir() {
            files.push(path.clone());
            continue;
        }
        let exclude = exclude.clone();
        let negation = NegationCheck::default();
        let walk = ignore::WalkBuilder::new(path)
            .require_git(false)
            .filter_entry(move |entry| {
                let is_dir = entry.file_type().is_some_and(|t| t.is_dir());
                entry.depth() == 0 || (!exclude.matches(entry.path()) && negation.keeps(entry.path(), is_dir))
            })
            .build();
        for entry in walk {
            match entry {
                Ok(entry) => {
                    let p = entry.path();
                    if Language::from_path(p) != Some(language) {
                        continue;
                    }
                    match entry.file_type() {
                        Some(t) if t.is_file() => files.push(p.to_path_buf()),
                        Some(t) if t.is_dir() => {}
                        Some(t) if t.is_symlink() => match std::fs::metadata(p) {
                            Ok(target) if target.is_file() => files.push(p.to_path_buf()),
                            Ok(target) if target.is_dir() => {}
                            Ok(target) => errors.push(not_regular(p, &target.file_type())),
                            Err(e) => errors.push(format!("{}: cannot follow link: {e}, skipped", p.display())),
                        },
                        Some(t) => errors.push(not_regular(p, &t)),
                        None => {}
                    }
                }
                Err(e) => errors.push(e.to_string()),
            }
        }
    }
    let mut files = distinct_files(files);
    files.sort();
    (files, errors)
}

/// `files` without a second spelling of a file already listed (`a.py` and
/// `./a.py`, a folder's walk and a file named in it, `d/../a.py`): the
/// first spelling is kept. Two paths are one file when their folders
/// resolve to the same folder (links included) and their names are equal;
/// a link to a file under another name stays a file of its own, as its
/// name is what queries and reports see.
fn distinct_files(files: Vec<PathBuf>) -> Vec<PathBuf> {
    let mut folders: HashMap<PathBuf, PathBuf> = HashMap::new();
    let mut seen: HashSet<PathBuf> = HashSet::with_capacity(files.len());
    let mut kept = Vec::with_capacity(files.len());
    for file in files {
        let key = match (file.parent(), file.file_name()) {
            (Some(parent), Some(name)) => {
                let parent = if parent.as_os_str().is_empty() { Path::new(".") } else { parent };
                let folder = folders.entry(parent.to_path_buf()).or_insert_with(|| {
                    std::fs::canonicalize(parent)
                        .or_else(|_| std::path::absolute(parent))
                        .unwrap_or_else(|_| parent.to_path_buf())
                });
                folder.join(name)
            }
            _ => file.clone(),
        };
        if seen.insert(key) {
            kept.push(file);
        }
    }
    kept
}

fn not_regular(path: &Path, file_type: &std::fs::FileType) -> String {
    let kind = crate::read::special_file_kind(file_type).unwrap_or("special file");
    format!("{}: not a regular file ({kind}), skipped", path.display())
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
    let file = quarry_stdx::read::open_regular_file(archive)
        .map_err(|e| format!("{}: cannot open: {e}", archive.display()))?;
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
        // The declared size may lie: what is inflated is limited too.
        let contents = if member.size() > max_bytes {
            Err(format!("{} bytes, over the limit of {max_bytes}", member.size()))
        } else {
            let capacity = usize::try_from(member.size()).unwrap_or(0);
            quarry_stdx::read::read_limited(&mut member, max_bytes, capacity).map_err(|e| e.to_string())
        };
        visit(ZipMember { name, contents });
    }
    Ok(())
}
