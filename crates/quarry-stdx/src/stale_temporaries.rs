//! The temporaries [`crate::atomic`] writes an output under, `.NAME.PID.N.tmp` beside it (a
//! file, or a staging folder for an output folder), and what killed runs left of them. A
//! process that ends normally, or by a signal quarry handles, removes its own; one killed
//! outright (`kill -9`, out of memory) cannot, and a rerun under another process id would
//! never reuse them. So the first output a process writes in a folder notes the temporaries
//! there of processes that no longer run, and each output removes those of its own name
//! before it is written. A temporary of a process that still runs is never touched: it may
//! be writing it.
//!
//! Only a temporary of the same name is removed: on a file system shared by several
//! machines, a process id that is dead here may be alive on another machine, writing
//! another output of the same folder.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

/// The tag of temporary number `n` of this process (`PID.N.tmp`), put after `.NAME.`.
pub fn tag(n: usize) -> String {
    format!("{}.{n}.tmp", std::process::id())
}

/// Temporaries named so far by this process.
static TEMPORARIES: AtomicUsize = AtomicUsize::new(0);

/// The tag of a temporary of this process no other has had ([`tag`] of the next number):
/// two threads writing one output at once each fill a temporary of their own.
pub fn next_tag() -> String {
    tag(TEMPORARIES.fetch_add(1, Ordering::Relaxed))
}

/// The process id that owns a temporary named `file_name` (`.NAME.PID.N.tmp`), with the
/// output's `NAME`; `None` for any other name.
pub fn owner(file_name: &str) -> Option<(&str, u32)> {
    let rest = file_name.strip_prefix('.')?.strip_suffix(".tmp")?;
    let mut parts = rest.rsplitn(3, '.');
    let (count, pid, target) = (parts.next()?, parts.next()?, parts.next()?);
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    (digits(count) && digits(pid) && !target.is_empty()).then_some(())?;
    Some((target, pid.parse().ok()?))
}

/// A folder's temporaries of dead processes, by output name.
type DeadTemporaries = HashMap<String, Vec<PathBuf>>;

/// Folders seen so far, each with its dead processes' temporaries.
static SEEN: Mutex<Option<HashMap<PathBuf, DeadTemporaries>>> = Mutex::new(None);

/// Removes what killed processes left of the output `target` (links already followed). The
/// folder is read once per process; a failure to read it or to remove one is passed over
/// (the temporary is only litter).
pub(crate) fn remove_for(target: &Path) {
    let (Some(dir), Some(name)) = (target.parent(), target.file_name()) else { return };
    // A bare name (`--out answers.txt`) is in the working directory.
    let dir = if dir.as_os_str().is_empty() { Path::new(".") } else { dir };
    let mut seen = SEEN.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    let folders = seen.get_or_insert_with(HashMap::new);
    let stale = folders.entry(dir.to_path_buf()).or_insert_with(|| dead_temporaries(dir));
    for path in stale.remove(name.to_string_lossy().as_ref()).unwrap_or_default() {
        let _ = remove_file_or_folder(&path);
    }
}

/// Removes a file, or a folder with everything in it (never following a link).
fn remove_file_or_folder(path: &Path) -> std::io::Result<()> {
    if std::fs::symlink_metadata(path)?.is_dir() {
        std::fs::remove_dir_all(path)
    } else {
        std::fs::remove_file(path)
    }
}

/// The temporaries in `dir` of processes that no longer run, by output name.
fn dead_temporaries(dir: &Path) -> DeadTemporaries {
    let mut stale = DeadTemporaries::new();
    let Ok(entries) = std::fs::read_dir(dir) else { return stale };
    for entry in entries.flatten() {
        let file_name = entry.file_name();
        let Some((target, pid)) = owner(&file_name.to_string_lossy()).map(|(t, p)| (t.to_string(), p)) else {
            continue;
        };
        let file_or_folder = entry.file_type().is_ok_and(|t| t.is_file() || t.is_dir());
        if pid != std::process::id() && !running(pid) && file_or_folder {
            stale.entry(target).or_default().push(entry.path());
        }
    }
    stale
}

/// Whether process `pid` runs on this machine (signal 0 checks without sending).
fn running(pid: u32) -> bool {
    let Ok(pid) = libc::pid_t::try_from(pid) else { return false };
    // SAFETY: signal 0 sends nothing; the call only checks that the process exists.
    let alive = unsafe { libc::kill(pid, 0) } == 0;
    alive || std::io::Error::last_os_error().raw_os_error() != Some(libc::ESRCH)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn temporaries_are_told_by_their_name() {
        assert_eq!(owner(".q.jsonl.42.0.tmp"), Some(("q.jsonl", 42)));
        assert_eq!(owner(".train-00000-of-00001.parquet.42.17.tmp"), Some(("train-00000-of-00001.parquet", 42)));
        for other in ["q.jsonl.42.0.tmp", ".42.0.tmp", ".q.jsonl.42.x.tmp", ".q.jsonl.x.0.tmp", ".q.jsonl"] {
            assert_eq!(owner(other), None, "{other}");
        }
        assert!(running(std::process::id()));
    }

    #[test]
    fn a_dead_process_s_temporary_of_the_same_output_is_removed() {
        let dir = tempfile::tempdir().unwrap();
        // Process ids past the kernel's maximum (4194304) never run.
        let dead = dir.path().join(".out.jsonl.4999999.0.tmp");
        let other_output = dir.path().join(".other.jsonl.4999999.0.tmp");
        let alive = dir.path().join(format!(".out.jsonl.{}.7.tmp", std::process::id()));
        for path in [&dead, &other_output, &alive] {
            std::fs::write(path, "half").unwrap();
        }
        remove_for(&dir.path().join("out.jsonl"));
        assert!(!dead.exists() && other_output.exists() && alive.exists());
    }

    #[test]
    fn a_dead_process_s_staging_folder_is_removed_and_a_live_one_s_kept() {
        let dir = tempfile::tempdir().unwrap();
        let dead = dir.path().join(".last.4999999.3.tmp");
        let alive = dir.path().join(format!(".last.{}.9.tmp", std::process::id()));
        for folder in [&dead, &alive] {
            std::fs::create_dir_all(folder.join("sub")).unwrap();
            std::fs::write(folder.join("sub/model.safetensors"), "half").unwrap();
        }
        remove_for(&dir.path().join("last"));
        assert!(!dead.exists() && alive.join("sub/model.safetensors").exists());
    }
}
