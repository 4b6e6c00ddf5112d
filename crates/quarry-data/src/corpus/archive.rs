//! The Python source files of a source archive (`.tar.gz` or `.zip`), read safely: only
//! regular files whose names end in `.py`, never a link, never a path that leaves the
//! archive's folder, and within size limits.

use std::collections::HashSet;
use std::io::{Cursor, Read};
use std::path::{Component, Path};

use quarry_stdx::read::read_limited;

/// Size limits on what is read out of one archive.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// Largest source file kept; larger ones are skipped and counted.
    pub max_file_bytes: u64,
    /// Most bytes of Python source read out of one archive; more refuses the archive.
    pub max_total_bytes: u64,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits { max_file_bytes: 4 * 1024 * 1024, max_total_bytes: 256 * 1024 * 1024 }
    }
}

/// The formats of source archive read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ArchiveKind {
    /// A gzip-compressed tar file (`.tar.gz`, `.tgz`).
    TarGz,
    /// A zip file.
    Zip,
}

impl ArchiveKind {
    /// The kind of archive a file name names, if it is one read here.
    pub fn of(file_name: &str) -> Option<ArchiveKind> {
        let lower = file_name.to_ascii_lowercase();
        if lower.ends_with(".tar.gz") || lower.ends_with(".tgz") {
            Some(ArchiveKind::TarGz)
        } else if lower.ends_with(".zip") {
            Some(ArchiveKind::Zip)
        } else {
            None
        }
    }
}

/// One source file of an archive.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SourceFile {
    /// Its path below the archive's top folder, `/`-separated, every part a plain name.
    pub path: String,
    /// Its contents.
    pub bytes: Vec<u8>,
}

/// What [`extract_python`] read out of an archive.
#[derive(Debug, Default)]
pub struct Extracted {
    /// The Python files kept, in archive order.
    pub files: Vec<SourceFile>,
    /// `.py` entries over [`Limits::max_file_bytes`], skipped.
    pub too_large: usize,
    /// `.py` entries that are links (symbolic or hard), skipped.
    pub links: usize,
    /// `.py` entries whose path repeats an earlier entry's, skipped.
    pub repeated: usize,
}

/// Reads the Python files of an archive. An entry whose path is absolute, climbs out with
/// `..`, or is not UTF-8, and a file whose path is also a folder's, refuse the whole archive:
/// no source archive made by a packaging tool has them. The error says why.
pub fn extract_python(kind: ArchiveKind, bytes: &[u8], limits: Limits) -> Result<Extracted, String> {
    let mut reader =
        Reader { limits, out: Extracted::default(), total: 0, paths: HashSet::new(), dirs: HashSet::new() };
    match kind {
        ArchiveKind::TarGz => reader.tar(bytes)?,
        ArchiveKind::Zip => reader.zip(bytes)?,
    }
    Ok(reader.out)
}

/// An entry as the format gives it.
enum Entry {
    File { size: u64 },
    Link,
    Other,
}

struct Reader {
    limits: Limits,
    out: Extracted,
    total: u64,
    paths: HashSet<String>,
    dirs: HashSet<String>,
}

impl Reader {
    fn tar(&mut self, bytes: &[u8]) -> Result<(), String> {
        let mut archive = tar::Archive::new(flate2::read::GzDecoder::new(bytes));
        let entries = archive.entries().map_err(|e| format!("not a tar.gz archive: {e}"))?;
        for entry in entries {
            let mut entry = entry.map_err(|e| format!("bad tar.gz archive: {e}"))?;
            let name = String::from_utf8(entry.path_bytes().into_owned())
                .map_err(|_| "an entry's path is not UTF-8".to_string())?;
            let kind = entry.header().entry_type();
            let found = if kind.is_file() {
                Entry::File { size: entry.size() }
            } else if kind.is_symlink() || kind.is_hard_link() {
                Entry::Link
            } else {
                Entry::Other
            };
            self.entry(&name, found, &mut entry)?;
        }
        Ok(())
    }

    fn zip(&mut self, bytes: &[u8]) -> Result<(), String> {
        let mut archive = zip::ZipArchive::new(Cursor::new(bytes)).map_err(|e| format!("not a zip archive: {e}"))?;
        for index in 0..archive.len() {
            let mut file = archive.by_index(index).map_err(|e| format!("bad zip archive: {e}"))?;
            let name = file.name().to_string();
            let found = if file.is_symlink() {
                Entry::Link
            } else if file.is_file() {
                Entry::File { size: file.size() }
            } else {
                Entry::Other
            };
            self.entry(&name, found, &mut file)?;
        }
        Ok(())
    }

    /// Checks one entry's path and keeps it if it is a Python file within the limits.
    fn entry(&mut self, name: &str, entry: Entry, contents: &mut dyn Read) -> Result<(), String> {
        let path = below_top_folder(name)?;
        if !name.ends_with(".py") || matches!(entry, Entry::Other) {
            return Ok(());
        }
        let size = match entry {
            Entry::File { size } => size,
            _ => {
                self.out.links += 1;
                return Ok(());
            }
        };
        if size > self.limits.max_file_bytes {
            self.out.too_large += 1;
            return Ok(());
        }
        if self.paths.contains(&path) {
            self.out.repeated += 1;
            return Ok(());
        }
        let bytes =
            read_limited(contents, self.limits.max_file_bytes, size as usize).map_err(|e| format!("{name}: {e}"))?;
        self.total += bytes.len() as u64;
        if self.total > self.limits.max_total_bytes {
            return Err(format!("more than {} bytes of Python source", self.limits.max_total_bytes));
        }
        self.claim(&path)?;
        self.out.files.push(SourceFile { path, bytes });
        Ok(())
    }

    /// Records `path` as a file and its ancestors as folders, refusing a clash of the two.
    fn claim(&mut self, path: &str) -> Result<(), String> {
        if self.dirs.contains(path) {
            return Err(format!("{path} is both a file and a folder"));
        }
        let mut end = 0;
        while let Some(slash) = path[end..].find('/') {
            end += slash;
            let dir = &path[..end];
            if self.paths.contains(dir) {
                return Err(format!("{dir} is both a file and a folder"));
            }
            self.dirs.insert(dir.to_string());
            end += 1;
        }
        self.paths.insert(path.to_string());
        Ok(())
    }
}

/// The path of an archive entry below its top folder (`pkg-1.0/` in a source
/// distribution), or an error when the path is unsafe to write anywhere.
fn below_top_folder(name: &str) -> Result<String, String> {
    if name.contains('\\') || name.contains('\0') || name.contains(':') {
        return Err(format!("unsafe path {name:?} in archive"));
    }
    let mut parts = Vec::new();
    for component in Path::new(name).components() {
        match component {
            Component::Normal(part) => parts.push(part.to_str().unwrap_or_default()),
            Component::CurDir => {}
            Component::ParentDir | Component::RootDir | Component::Prefix(_) => {
                return Err(format!("unsafe path {name:?} in archive"));
            }
        }
    }
    if parts.len() > 1 {
        parts.remove(0);
    }
    Ok(parts.join("/"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_lose_their_top_folder_and_unsafe_ones_are_refused() {
        assert_eq!(below_top_folder("pkg-1.0/src/a.py").unwrap(), "src/a.py");
        assert_eq!(below_top_folder("./pkg-1.0/a.py").unwrap(), "a.py");
        assert_eq!(below_top_folder("setup.py").unwrap(), "setup.py");
        for bad in ["../a.py", "pkg/../../a.py", "/etc/a.py", "pkg\\..\\a.py", "c:/a.py"] {
            assert!(below_top_folder(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn archive_kinds_come_from_file_names() {
        assert_eq!(ArchiveKind::of("six-1.16.0.tar.gz"), Some(ArchiveKind::TarGz));
        assert_eq!(ArchiveKind::of("x-1.ZIP"), Some(ArchiveKind::Zip));
        assert_eq!(ArchiveKind::of("x-1.tar.bz2"), None);
    }
}
