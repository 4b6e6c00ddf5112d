//! Atomic writing: every output goes to a temporary file (or directory) beside its
//! target and is renamed into place, so a reader never sees half of it and an interrupted
//! run leaves what was there before intact.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use crate::io_error::{IoError, IoResultExt};

/// The temporary sibling a file or directory is written under: `.NAME.TAG`.
fn sibling(target: &Path, tag: &str) -> Result<PathBuf, IoError> {
    match target.file_name() {
        Some(name) => Ok(target.with_file_name(format!(".{}.{tag}", name.to_string_lossy()))),
        None => Err(IoError::new(
            target,
            std::io::Error::new(std::io::ErrorKind::InvalidInput, "an output needs a file name"),
        )),
    }
}

/// Creates the folder `path` is to be written in, when it has one.
fn create_parent(path: &Path) -> Result<(), IoError> {
    match path.parent().filter(|p| !p.as_os_str().is_empty()) {
        Some(dir) => std::fs::create_dir_all(dir).with_path(dir),
        None => Ok(()),
    }
}

/// A file being written; it appears under its final name only on [`AtomicFile::commit`],
/// and dropping it uncommitted removes the temporary.
pub struct AtomicFile {
    target: PathBuf,
    temp: PathBuf,
    writer: Box<dyn Write>,
}

impl AtomicFile {
    /// Starts writing `target` (creating its folder); gzip-compressed when the name ends in
    /// `.gz`.
    pub fn create(target: &Path) -> Result<AtomicFile, IoError> {
        AtomicFile::open(target, target.to_string_lossy().ends_with(".gz"))
    }

    fn open(target: &Path, gzip: bool) -> Result<AtomicFile, IoError> {
        create_parent(target)?;
        let temp = sibling(target, &format!("{}.tmp", std::process::id()))?;
        let file = File::create(&temp).with_path(&temp)?;
        let writer: Box<dyn Write> = if gzip {
            Box::new(flate2::write::GzEncoder::new(BufWriter::new(file), flate2::Compression::default()))
        } else {
            Box::new(BufWriter::new(file))
        };
        Ok(AtomicFile { target: target.to_path_buf(), temp, writer })
    }

    /// Writes bytes.
    pub fn write_all(&mut self, bytes: &[u8]) -> Result<(), IoError> {
        self.writer.write_all(bytes).with_path(&self.temp)
    }

    /// Writes one value as a line of compact JSON.
    pub fn write_json_line(&mut self, value: &impl serde::Serialize) -> Result<(), IoError> {
        let mut line = serde_json::to_vec(value)
            .map_err(|e| IoError::new(&self.temp, std::io::Error::new(std::io::ErrorKind::InvalidData, e)))?;
        line.push(b'\n');
        self.write_all(&line)
    }

    /// Flushes and renames the file into place.
    pub fn commit(mut self) -> Result<(), IoError> {
        self.writer.flush().with_path(&self.temp)?;
        drop(std::mem::replace(&mut self.writer, Box::new(std::io::sink())));
        std::fs::rename(&self.temp, &self.target).with_path(&self.target)
    }
}

impl Drop for AtomicFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.temp);
    }
}

/// Writes `bytes` to `path` at once (creating its folder), through a temporary file and a
/// rename.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> Result<(), IoError> {
    let mut file = AtomicFile::open(path, false)?;
    file.write_all(bytes)?;
    file.commit()
}

/// Writes the directory `dir` all at once: `write` fills a fresh temporary sibling, which
/// then takes `dir`'s place by renaming. A process killed at any moment leaves either the
/// complete old directory or the complete new one (see [`recover_dir`] for the instant
/// between the two renames); a failed `write` leaves the old one untouched.
pub fn write_dir_atomically<E: From<IoError>>(dir: &Path, write: impl FnOnce(&Path) -> Result<(), E>) -> Result<(), E> {
    let temp = sibling(dir, "new")?;
    let old = sibling(dir, "old")?;
    recover_dir(dir)?;
    if temp.exists() {
        std::fs::remove_dir_all(&temp).with_path(&temp)?;
    }
    std::fs::create_dir_all(&temp).with_path(&temp)?;
    if let Err(e) = write(&temp) {
        let _ = std::fs::remove_dir_all(&temp);
        return Err(e);
    }
    sync_dir_files(&temp)?;
    if dir.exists() {
        std::fs::rename(dir, &old).with_path(dir)?;
    }
    std::fs::rename(&temp, dir).with_path(dir)?;
    if old.exists() {
        std::fs::remove_dir_all(&old).with_path(&old)?;
    }
    Ok(())
}

/// Flushes every file of `dir` to disk, so that the rename publishes complete files even
/// if the machine goes down.
fn sync_dir_files(dir: &Path) -> Result<(), IoError> {
    for entry in std::fs::read_dir(dir).with_path(dir)? {
        let path = entry.with_path(dir)?.path();
        if path.is_file() {
            std::fs::File::open(&path).and_then(|f| f.sync_all()).with_path(&path)?;
        }
    }
    Ok(())
}

/// Finishes a replacement by [`write_dir_atomically`] that was interrupted between its two
/// renames: when `dir` is missing but its previous version is still under the temporary
/// name, that version is moved back. Leftover unfinished new versions are left for the next
/// write to clear.
pub fn recover_dir(dir: &Path) -> Result<(), IoError> {
    let old = sibling(dir, "old")?;
    if old.is_dir() {
        if dir.exists() {
            std::fs::remove_dir_all(&old).with_path(&old)?;
        } else {
            std::fs::rename(&old, dir).with_path(dir)?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("quarry-stdx-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        dir
    }

    #[test]
    fn files_appear_only_when_committed() {
        let root = scratch("files");
        let path = root.join("sub/out.jsonl");
        let mut file = AtomicFile::create(&path).unwrap();
        file.write_json_line(&serde_json::json!({"a": 1})).unwrap();
        assert!(!path.exists());
        file.commit().unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "{\"a\":1}\n");
        drop(AtomicFile::create(&root.join("dropped")).unwrap());
        write_atomically(&root.join("b.bin"), b"xyz").unwrap();
        let mut names: Vec<_> = std::fs::read_dir(&root).unwrap().map(|e| e.unwrap().file_name()).collect();
        names.sort();
        assert_eq!(names, ["b.bin", "sub"]);
        std::fs::remove_dir_all(&root).unwrap();
    }

    #[test]
    fn gz_targets_are_compressed() {
        let root = scratch("gz");
        let path = root.join("out.jsonl.gz");
        let mut file = AtomicFile::create(&path).unwrap();
        file.write_all(b"hello\n").unwrap();
        file.commit().unwrap();
        let mut text = String::new();
        std::io::Read::read_to_string(&mut flate2::read::GzDecoder::new(File::open(&path).unwrap()), &mut text)
            .unwrap();
        assert_eq!(text, "hello\n");
        std::fs::remove_dir_all(&root).unwrap();
    }

    #[test]
    fn directories_are_replaced_whole_or_not_at_all() {
        let root = scratch("dir");
        let dir = root.join("last");
        let put = |text: &'static str| move |d: &Path| std::fs::write(d.join("a"), text).with_path(d);
        write_dir_atomically(&dir, put("one")).unwrap();
        assert_eq!(std::fs::read_to_string(dir.join("a")).unwrap(), "one");
        write_dir_atomically(&dir, put("two")).unwrap();
        assert_eq!(std::fs::read_to_string(dir.join("a")).unwrap(), "two");
        // A write that fails half-way leaves the previous directory as it was.
        let failing = |d: &Path| {
            std::fs::write(d.join("a"), "half").unwrap();
            Err(IoError::new(d, std::io::Error::other("disk full")))
        };
        assert!(write_dir_atomically(&dir, failing).is_err());
        assert_eq!(std::fs::read_to_string(dir.join("a")).unwrap(), "two");
        // Killed between the two renames: the old version comes back.
        std::fs::rename(&dir, root.join(".last.old")).unwrap();
        recover_dir(&dir).unwrap();
        assert_eq!(std::fs::read_to_string(dir.join("a")).unwrap(), "two");
        let names: Vec<_> = std::fs::read_dir(&root).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert_eq!(names, vec![std::ffi::OsString::from("last")]);
        std::fs::remove_dir_all(&root).unwrap();
    }
}
