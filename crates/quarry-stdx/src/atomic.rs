//! Writing outputs so that nothing already there is lost or half-written.
//!
//! A regular file is written to a temporary file beside it and renamed into place, so a
//! reader never sees half of it and an interrupted run leaves what was there before
//! intact; a file that existed keeps its permissions, and a file with several hard links
//! is filled in place once the new contents are complete, so the links stay one file. A
//! symbolic link is followed: its target is written, not the link replaced. Anything that
//! is not a regular file (a device such as `/dev/null`, a named pipe, `/dev/stdout` and
//! whatever it stands for) is written in place, as a shell's `>` would, and never replaced
//! by a file. Directories are replaced whole by [`write_dir_atomically`]. The path `-`
//! (exactly) is standard output.

use std::fs::{File, OpenOptions};
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

/// Where an output goes once its symbolic links are followed, and whether the way there
/// passed through `/proc` (`/dev/stdout` is a link to `/proc/self/fd/1`, whose own link
/// names a pipe or a terminal rather than a path). A dangling link resolves to the path it
/// names, which is then created. Gives up after 40 links, as the kernel does.
fn follow_links(target: &Path) -> Result<(PathBuf, bool), IoError> {
    let mut path = target.to_path_buf();
    let mut through_proc = path.starts_with("/proc");
    for _ in 0..40 {
        match std::fs::symlink_metadata(&path) {
            Ok(meta) if meta.file_type().is_symlink() => {
                let link = std::fs::read_link(&path).with_path(&path)?;
                path = match path.parent() {
                    Some(parent) if link.is_relative() => parent.join(link),
                    _ => link,
                };
                through_proc |= path.starts_with("/proc");
            }
            _ => return Ok((path, through_proc)),
        }
    }
    Err(IoError::new(target, std::io::Error::other("too many levels of symbolic links")))
}

/// An output stream that is finished before its file is put in place: its buffers written
/// and, for gzip, its trailer, each error returned (a stream dropped unfinished writes them
/// and drops the errors, so a full disk could leave a cut `.gz` in place).
trait Finish: Write + Send {
    /// Writes what is buffered (and a gzip stream's trailer).
    fn finish(self: Box<Self>) -> std::io::Result<()>;
    /// The stream as a plain writer.
    fn as_write(&mut self) -> &mut dyn Write;
}

impl<W: Write + Send> Finish for BufWriter<W> {
    fn finish(mut self: Box<Self>) -> std::io::Result<()> {
        self.flush()
    }

    fn as_write(&mut self) -> &mut dyn Write {
        self
    }
}

impl<W: Write + Send> Finish for flate2::write::GzEncoder<W> {
    fn finish(mut self: Box<Self>) -> std::io::Result<()> {
        self.try_finish()?;
        self.get_mut().flush()
    }

    fn as_write(&mut self) -> &mut dyn Write {
        self
    }
}

/// How an output file is put in place.
enum Placement {
    /// A temporary sibling renamed over the target.
    Rename { temp: PathBuf },
    /// A temporary sibling whose finished contents are copied into the target, which has
    /// other hard links that a rename would break.
    CopyInto { temp: PathBuf },
    /// Written directly: a device, a pipe, a terminal.
    InPlace,
}

/// A file being written; its new contents appear only on [`AtomicFile::commit`], and
/// dropping it uncommitted removes the temporary. Targets that are not regular files are
/// written as the bytes come (see the module documentation).
pub struct AtomicFile {
    target: PathBuf,
    placement: Placement,
    writer: Box<dyn Finish>,
    /// The temporary, kept open until it is put in place (finishing the writer closes its
    /// own handle): a run stopped by a signal finds its unfinished outputs among its open
    /// files, up to the rename.
    _open: Option<File>,
}

impl AtomicFile {
    /// Starts writing `target` (creating its folder); gzip-compressed when the name ends in
    /// `.gz`.
    pub fn create(target: &Path) -> Result<AtomicFile, IoError> {
        AtomicFile::open(target, target.to_string_lossy().ends_with(".gz"))
    }

    fn open(target: &Path, gzip: bool) -> Result<AtomicFile, IoError> {
        if crate::read::is_stdio(target) {
            // `-`: standard output, written as the bytes come.
            let writer: Box<dyn Finish> = if gzip {
                Box::new(flate2::write::GzEncoder::new(
                    BufWriter::new(std::io::stdout()),
                    flate2::Compression::default(),
                ))
            } else {
                Box::new(BufWriter::new(std::io::stdout()))
            };
            return Ok(AtomicFile {
                target: PathBuf::from("<stdout>"),
                placement: Placement::InPlace,
                writer,
                _open: None,
            });
        }
        let (resolved, through_proc) = follow_links(target)?;
        let existing = match std::fs::metadata(target) {
            Ok(meta) => Some(meta),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
            Err(e) => return Err(IoError::new(target, e)),
        };
        let (placement, file) = match &existing {
            Some(meta) if meta.is_dir() => {
                return Err(IoError::new(
                    target,
                    std::io::Error::new(std::io::ErrorKind::InvalidInput, "is a directory, not written"),
                ))
            }
            Some(meta) if !meta.is_file() || through_proc => {
                let file = OpenOptions::new().write(true).truncate(meta.is_file()).open(target).with_path(target)?;
                (Placement::InPlace, file)
            }
            _ => {
                create_parent(&resolved)?;
                crate::stale_temporaries::remove_for(&resolved);
                let temp = sibling(&resolved, &crate::stale_temporaries::next_tag())?;
                // Errors name the output, not its temporary.
                let file = File::create(&temp).with_path(target)?;
                match &existing {
                    Some(meta) if hard_links(meta) > 1 => (Placement::CopyInto { temp }, file),
                    Some(meta) => {
                        file.set_permissions(meta.permissions()).with_path(target)?;
                        (Placement::Rename { temp }, file)
                    }
                    None => (Placement::Rename { temp }, file),
                }
            }
        };
        let open = if matches!(placement, Placement::InPlace) { None } else { file.try_clone().ok() };
        let writer: Box<dyn Finish> = if gzip {
            Box::new(flate2::write::GzEncoder::new(BufWriter::new(file), flate2::Compression::default()))
        } else {
            Box::new(BufWriter::new(file))
        };
        let target = if matches!(placement, Placement::InPlace) { target.to_path_buf() } else { resolved };
        Ok(AtomicFile { target, placement, writer, _open: open })
    }

    /// The path errors while writing are reported against: the output (links followed),
    /// not the temporary it is written under, which the user never named.
    fn written_path(&self) -> &Path {
        &self.target
    }

    /// Writes bytes.
    pub fn write_all(&mut self, bytes: &[u8]) -> Result<(), IoError> {
        let result = self.writer.write_all(bytes);
        result.with_path(self.written_path())
    }

    /// The stream the contents go to, for code that writes through [`std::io::Write`]; its
    /// errors name no path, so the caller adds the target's.
    pub fn writer(&mut self) -> &mut dyn Write {
        self.writer.as_write()
    }

    /// The path being written (links followed): the file's final name.
    pub fn target(&self) -> &Path {
        &self.target
    }

    /// Writes one value as a line of compact JSON.
    pub fn write_json_line(&mut self, value: &impl serde::Serialize) -> Result<(), IoError> {
        let mut line = serde_json::to_vec(value)
            .map_err(|e| IoError::new(self.written_path(), std::io::Error::new(std::io::ErrorKind::InvalidData, e)))?;
        line.push(b'\n');
        self.write_all(&line)
    }

    /// Flushes and puts the file in place.
    pub fn commit(mut self) -> Result<(), IoError> {
        self.finish_writing()?;
        self.put_in_place()
    }

    /// Writes out what is buffered (and a gzip stream's trailer).
    fn finish_writing(&mut self) -> Result<(), IoError> {
        let writer = std::mem::replace(&mut self.writer, Box::new(BufWriter::new(std::io::sink())));
        writer.finish().with_path(self.written_path())
    }

    /// Puts the finished temporary in place.
    fn put_in_place(&self) -> Result<(), IoError> {
        match &self.placement {
            Placement::Rename { temp } => std::fs::rename(temp, &self.target).with_path(&self.target),
            Placement::CopyInto { temp } => {
                let mut from = File::open(temp).with_path(temp)?;
                let mut into =
                    OpenOptions::new().write(true).truncate(true).open(&self.target).with_path(&self.target)?;
                std::io::copy(&mut from, &mut into).and_then(|_| into.flush()).with_path(&self.target)
            }
            Placement::InPlace => Ok(()),
        }
    }
}

/// How many hard links the file has (1 where the platform does not say).
fn hard_links(meta: &std::fs::Metadata) -> u64 {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        meta.nlink()
    }
    #[cfg(not(unix))]
    {
        let _ = meta;
        1
    }
}

impl Drop for AtomicFile {
    fn drop(&mut self) {
        if let Placement::Rename { temp } | Placement::CopyInto { temp } = &self.placement {
            let _ = std::fs::remove_file(temp);
        }
    }
}

/// Writes `bytes` to `path` at once (creating its folder), as [`AtomicFile`] does.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> Result<(), IoError> {
    let mut file = AtomicFile::open(path, false)?;
    file.write_all(bytes)?;
    file.commit()
}

/// Writes the directory `dir` all at once: `write` fills a fresh staging folder beside it,
/// `.NAME.PID.N.tmp` as [`AtomicFile`]'s temporaries are named, which then takes `dir`'s
/// place by renaming. A process killed at any moment leaves either the complete old
/// directory or the complete new one (see [`recover_dir`] for the instant between the two
/// renames); a failed `write` leaves the old one untouched. A path where something other
/// than a folder stands is refused, untouched.
///
/// The staging folder is kept open while it is filled, so that a run stopped by a signal
/// finds it among its open files and removes it as it removes its unfinished files; what a
/// process killed outright leaves is removed by the next write of `dir` once that process
/// no longer runs ([`crate::stale_temporaries`]), and a staging folder of a process that
/// still runs is never touched.
pub fn write_dir_atomically<E: From<IoError>>(dir: &Path, write: impl FnOnce(&Path) -> Result<(), E>) -> Result<(), E> {
    if crate::read::is_stdio(dir) {
        return Err(IoError::new(
            dir,
            std::io::Error::new(std::io::ErrorKind::InvalidInput, "a folder cannot be written to standard output"),
        )
        .into());
    }
    // A link to a directory stays a link: the directory it names is replaced.
    let (dir, _) = follow_links(dir)?;
    let dir = dir.as_path();
    // Anything else standing there is refused before anything moves: it would be moved
    // aside as `.NAME.old` and a folder put in its place.
    if std::fs::symlink_metadata(dir).is_ok_and(|meta| !meta.is_dir()) {
        return Err(IoError::new(
            dir,
            std::io::Error::new(std::io::ErrorKind::AlreadyExists, "exists and is not a folder, not replaced"),
        )
        .into());
    }
    let old = sibling(dir, "old")?;
    recover_dir(dir)?;
    create_parent(dir)?;
    crate::stale_temporaries::remove_for(dir);
    let staging = Staging::create(sibling(dir, &crate::stale_temporaries::next_tag())?)?;
    write(&staging.path)?;
    sync_dir_files(&staging.path)?;
    if dir.exists() {
        std::fs::rename(dir, &old).with_path(dir)?;
    }
    staging.put_in_place(dir)?;
    if old.exists() {
        std::fs::remove_dir_all(&old).with_path(&old)?;
    }
    Ok(())
}

/// The folder [`write_dir_atomically`] fills: open while it exists (the open files of a
/// process are how a signal's handler finds its unfinished outputs), removed when dropped
/// before it is put in place.
struct Staging {
    path: PathBuf,
    /// The folder itself, open; `None` where a folder cannot be opened as a file.
    _open: Option<File>,
}

impl Staging {
    fn create(path: PathBuf) -> Result<Staging, IoError> {
        std::fs::create_dir(&path).with_path(&path)?;
        let open = File::open(&path).ok();
        Ok(Staging { path, _open: open })
    }

    /// Renames the folder to `dir`, which must not exist.
    fn put_in_place(mut self, dir: &Path) -> Result<(), IoError> {
        std::fs::rename(&self.path, dir).with_path(dir)?;
        self.path = PathBuf::new();
        Ok(())
    }
}

impl Drop for Staging {
    fn drop(&mut self) {
        if !self.path.as_os_str().is_empty() {
            let _ = std::fs::remove_dir_all(&self.path);
        }
    }
}

/// Removes one of this process's temporaries, still being written (a run stopped by a
/// signal), and says whether it was there to remove. A file is unlinked; a staging folder is
/// first renamed to a fresh temporary name, so that a thread still filling it can put
/// nothing more in it (its paths no longer lead there), then removed whole. A temporary
/// already put in place under its output's name is no longer there and is left alone.
pub fn discard(path: &Path) -> bool {
    let Ok(meta) = std::fs::symlink_metadata(path) else { return false };
    if !meta.is_dir() {
        return std::fs::remove_file(path).is_ok();
    }
    let (Some(dir), Some((target, _))) =
        (path.parent(), path.file_name().and_then(|n| n.to_str()).and_then(crate::stale_temporaries::owner))
    else {
        return false;
    };
    let doomed = dir.join(format!(".{target}.{}", crate::stale_temporaries::next_tag()));
    if std::fs::rename(path, &doomed).is_err() {
        return false;
    }
    // Failing here leaves a temporary of this process, which the next run clears.
    let _ = std::fs::remove_dir_all(&doomed);
    true
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

    /// Takes `left` bytes, then fails as a full disk does.
    struct Limited {
        left: usize,
    }

    impl Write for Limited {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            if buf.len() > self.left {
                return Err(std::io::Error::new(std::io::ErrorKind::StorageFull, "no space left"));
            }
            self.left -= buf.len();
            Ok(buf.len())
        }

        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    /// A gzip output over a writer that takes `left` bytes, `text` written to it.
    fn gzip_output(left: usize, text: &[u8]) -> AtomicFile {
        let writer = flate2::write::GzEncoder::new(Limited { left }, flate2::Compression::default());
        let mut file = AtomicFile {
            target: PathBuf::from("out.gz"),
            placement: Placement::InPlace,
            writer: Box::new(writer),
            _open: None,
        };
        file.write_all(text).unwrap();
        file
    }

    #[test]
    fn errors_name_the_output_not_its_temporary() {
        let root = scratch("names");
        // A name the file system takes, whose temporary's (longer) it does not.
        let target = root.join("n".repeat(250));
        let error = AtomicFile::create(&target).err().expect("the temporary's name is too long").to_string();
        assert!(error.starts_with(&target.display().to_string()) && !error.contains(".tmp"), "{error}");
        std::fs::remove_dir_all(&root).unwrap();
    }

    #[test]
    fn a_gzip_trailer_that_cannot_be_written_fails_the_commit() {
        // What the stream takes up to its flush: room for all of it but the trailer.
        let mut probe = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        probe.write_all(b"hello").unwrap();
        probe.flush().unwrap();
        let flushed = probe.get_ref().len();
        assert!(gzip_output(flushed, b"hello").commit().is_err(), "the 8-byte trailer did not fit");
        assert!(gzip_output(flushed + 8, b"hello").commit().is_ok());
    }

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

    /// Whether this process has `path` open (Linux lists its open files).
    #[cfg(target_os = "linux")]
    fn open_here(path: &Path) -> bool {
        let path = path.canonicalize().unwrap();
        std::fs::read_dir("/proc/self/fd")
            .unwrap()
            .flatten()
            .any(|fd| std::fs::read_link(fd.path()).is_ok_and(|p| p == path))
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn a_temporary_stays_open_until_it_is_in_place() {
        let root = scratch("open");
        let mut file = AtomicFile::create(&root.join("out.jsonl.gz")).unwrap();
        file.write_all(b"{}\n").unwrap();
        file.finish_writing().unwrap();
        let Placement::Rename { temp } = &file.placement else { panic!("a new file is renamed into place") };
        assert!(open_here(temp), "finished but not yet renamed, it is still found among the open files");
        file.put_in_place().unwrap();
        drop(file);
        assert!(!open_here(&root.join("out.jsonl.gz")));
        std::fs::remove_dir_all(&root).unwrap();
    }

    #[test]
    fn a_discarded_staging_folder_is_gone_whole() {
        let dir = tempfile::tempdir().unwrap();
        let staging = dir.path().join(format!(".last.{}", crate::stale_temporaries::next_tag()));
        std::fs::create_dir_all(staging.join("sub")).unwrap();
        std::fs::write(staging.join("sub/weights"), "half").unwrap();
        let file = dir.path().join(format!(".out.jsonl.{}", crate::stale_temporaries::next_tag()));
        std::fs::write(&file, "half").unwrap();
        assert!(discard(&staging) && discard(&file));
        assert!(!discard(&staging), "nothing is left to discard");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
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
        // A file where the folder would go is refused and left as it was, nothing moved aside.
        let file = root.join("results.csv");
        std::fs::write(&file, "kept").unwrap();
        let error = write_dir_atomically(&file, put("three")).unwrap_err().to_string();
        assert!(error.contains("results.csv") && error.contains("not a folder"), "{error}");
        assert_eq!(std::fs::read_to_string(&file).unwrap(), "kept");
        let mut names: Vec<_> = std::fs::read_dir(&root).unwrap().map(|e| e.unwrap().file_name()).collect();
        names.sort();
        assert_eq!(names, vec![std::ffi::OsString::from("last"), "results.csv".into()]);
        std::fs::remove_dir_all(&root).unwrap();
    }

    #[cfg(unix)]
    #[test]
    fn links_are_followed_and_kept() {
        use std::os::unix::fs::{MetadataExt, PermissionsExt};
        let root = scratch("links");
        std::fs::create_dir_all(&root).unwrap();
        let real = root.join("real.txt");
        std::fs::write(&real, "old").unwrap();
        std::fs::set_permissions(&real, std::fs::Permissions::from_mode(0o644)).unwrap();
        let link = root.join("link.txt");
        std::os::unix::fs::symlink("real.txt", &link).unwrap();
        write_atomically(&link, b"new").unwrap();
        assert!(std::fs::symlink_metadata(&link).unwrap().file_type().is_symlink());
        assert_eq!(std::fs::read_to_string(&real).unwrap(), "new");
        assert_eq!(std::fs::metadata(&real).unwrap().permissions().mode() & 0o777, 0o644);
        // A dangling link: the file it names is created.
        let dangling = root.join("dangling");
        std::os::unix::fs::symlink("made.txt", &dangling).unwrap();
        write_atomically(&dangling, b"made").unwrap();
        assert_eq!(std::fs::read_to_string(root.join("made.txt")).unwrap(), "made");
        // A hard link stays one file with two names.
        let twin = root.join("twin.txt");
        std::fs::hard_link(&real, &twin).unwrap();
        write_atomically(&twin, b"both").unwrap();
        assert_eq!(std::fs::read_to_string(&real).unwrap(), "both");
        assert_eq!(std::fs::metadata(&real).unwrap().nlink(), 2);
        // A link to a directory stays a link when the directory is replaced.
        std::fs::create_dir_all(root.join("d")).unwrap();
        std::os::unix::fs::symlink("d", root.join("dlink")).unwrap();
        write_dir_atomically(&root.join("dlink"), |d: &Path| std::fs::write(d.join("x"), "1").with_path(d)).unwrap();
        assert!(std::fs::symlink_metadata(root.join("dlink")).unwrap().file_type().is_symlink());
        assert_eq!(std::fs::read_to_string(root.join("d/x")).unwrap(), "1");
        // Writing a directory as a file is refused.
        assert!(write_atomically(&root.join("d"), b"x").unwrap_err().to_string().contains("is a directory"));
        std::fs::remove_dir_all(&root).unwrap();
    }

    #[cfg(unix)]
    #[test]
    fn special_files_are_written_in_place() {
        use std::os::unix::fs::FileTypeExt;
        let root = scratch("special");
        std::fs::create_dir_all(&root).unwrap();
        let fifo = root.join("fifo");
        let status = std::process::Command::new("mkfifo").arg(&fifo).status();
        if !status.map(|s| s.success()).unwrap_or(false) {
            eprintln!("skipped: mkfifo is not available");
            return;
        }
        let reader = {
            let fifo = fifo.clone();
            std::thread::spawn(move || std::fs::read_to_string(fifo).unwrap())
        };
        write_atomically(&fifo, b"through the pipe").unwrap();
        assert_eq!(reader.join().unwrap(), "through the pipe");
        assert!(std::fs::symlink_metadata(&fifo).unwrap().file_type().is_fifo());
        write_atomically(Path::new("/dev/null"), b"nothing").unwrap();
        assert!(std::fs::metadata("/dev/null").unwrap().file_type().is_char_device());
        std::fs::remove_dir_all(&root).unwrap();
    }
}
