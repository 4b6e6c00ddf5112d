//! Ctrl-C and `kill`: a run stopped by SIGINT or SIGTERM says so, removes the temporaries
//! its unfinished outputs were being written to, and exits with 128 plus the signal's
//! number (130, 143), as a shell reports it.
//!
//! Every output goes through `quarry_stdx::atomic`, which writes `.NAME.PID.N.tmp` beside
//! its target (a file, or a staging folder for an output folder, which it keeps open) and
//! renames it into place once complete, so what a run already finished is in place and what
//! it had not is only in those temporaries. The default action of the
//! signals ends the process at once and leaves them behind; here the two signals are
//! blocked in every thread ([`install`] runs first in `main`, and threads inherit the mask)
//! and one thread waits for them with `sigwait`, so what follows a signal is ordinary code,
//! not a signal handler's. A signal the process was started ignoring (`nohup`, a
//! background job of a script) stays ignored; children start with no signal blocked, as
//! `std::process::Command` resets the mask. While that thread cleans up, the other threads
//! go on until it exits: one that finishes waits for it at [`exit`] instead of ending the
//! process first, and what fails because its temporaries vanished is not reported
//! ([`silenced`]).

use std::sync::atomic::{AtomicBool, Ordering};

/// Set once a signal's cleanup has begun.
static STOPPING: AtomicBool = AtomicBool::new(false);

thread_local! {
    /// Whether this thread is the one that handles the signals.
    static HANDLER: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// The exit status of a run ended by `signal`.
pub fn exit_code(signal: i32) -> i32 {
    128 + signal
}

/// Blocks SIGINT and SIGTERM and starts the thread that handles them, which says it was
/// interrupted through `report` (a diagnostic printer, given by the caller so that this
/// module, which the printers consult, does not depend on them); called before any other
/// thread exists.
#[cfg(unix)]
pub fn install(report: fn(&str)) {
    // SAFETY: plain calls on a zeroed, then initialised, signal set owned by this frame.
    let set = unsafe {
        let mut set: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut set);
        for signal in [libc::SIGINT, libc::SIGTERM] {
            if !ignored(signal) {
                libc::sigaddset(&mut set, signal);
            }
        }
        if libc::pthread_sigmask(libc::SIG_BLOCK, &set, std::ptr::null_mut()) != 0 {
            return;
        }
        set
    };
    let waiting = std::thread::Builder::new().name("signals".to_string()).spawn(move || {
        HANDLER.with(|handler| handler.set(true));
        loop {
            let mut signal = 0;
            // SAFETY: `set` is an initialised signal set; `signal` a valid out-pointer.
            if unsafe { libc::sigwait(&set, &mut signal) } == 0 {
                stop(signal, report);
            }
        }
    });
    if waiting.is_err() {
        // No thread to handle them: the signals get their default action back.
        // SAFETY: as above.
        unsafe { libc::pthread_sigmask(libc::SIG_UNBLOCK, &set, std::ptr::null_mut()) };
    }
}

/// Nothing to install where there are no POSIX signals.
#[cfg(not(unix))]
pub fn install(_report: fn(&str)) {}

/// Whether `signal` is ignored (the process was started so); blocked and waited for, it
/// would be delivered after all.
#[cfg(unix)]
fn ignored(signal: i32) -> bool {
    // SAFETY: reading the current action into a zeroed struct; nothing is changed.
    unsafe {
        let mut action: libc::sigaction = std::mem::zeroed();
        libc::sigaction(signal, std::ptr::null(), &mut action) == 0 && action.sa_sigaction == libc::SIG_IGN
    }
}

/// Whether diagnostics of this thread are left out: a signal's cleanup has begun, and what
/// fails now (an output whose temporary was just removed) is a consequence, not news.
pub fn silenced() -> bool {
    STOPPING.load(Ordering::SeqCst) && !HANDLER.with(|handler| handler.get())
}

/// Ends the process with `code`, unless a signal's cleanup has begun: then the thread
/// waits for it, which ends the process with the signal's status once it is done.
pub fn exit(code: i32) -> ! {
    while STOPPING.load(Ordering::SeqCst) && !HANDLER.with(|handler| handler.get()) {
        std::thread::park();
    }
    std::process::exit(code)
}

/// Ends the run after `signal`.
#[cfg(unix)]
fn stop(signal: i32, report: fn(&str)) -> ! {
    STOPPING.store(true, Ordering::SeqCst);
    let removed = remove_open_temporaries();
    let name = if signal == libc::SIGINT { "SIGINT" } else { "SIGTERM" };
    let unfinished =
        if removed == 0 { String::new() } else { format!("; {removed} unfinished output(s) were not written") };
    report(&format!(
        "interrupted by {name}{unfinished}; outputs written before are kept (rerun the command to finish)"
    ));
    std::process::exit(exit_code(signal));
}

/// Removes the temporaries this process has open (its unfinished outputs: files and
/// staging folders named `.NAME.PID.N.tmp` by `quarry_stdx::atomic`) and returns how many;
/// found through the open files the kernel lists (`/proc/self/fd`), so only Linux removes
/// them. A file open inside a staging folder goes with the folder; an output folder whose
/// replacement stopped between its two renames is put back (`recover_dir`).
pub fn remove_open_temporaries() -> usize {
    let Ok(entries) = std::fs::read_dir("/proc/self/fd") else { return 0 };
    let pid = std::process::id();
    let mut ours: Vec<std::path::PathBuf> = entries
        .flatten()
        .filter_map(|entry| std::fs::read_link(entry.path()).ok())
        .filter(|path| {
            path.file_name()
                .and_then(|name| quarry_stdx::stale_temporaries::owner(&name.to_string_lossy()).map(|(_, owner)| owner))
                == Some(pid)
        })
        .collect();
    ours.sort();
    ours.dedup();
    let inside_another = |path: &std::path::Path| path.ancestors().skip(1).any(|a| ours.iter().any(|o| o == a));
    let outermost: Vec<_> = ours.iter().filter(|path| !inside_another(path)).cloned().collect();
    let mut removed = 0;
    for path in outermost {
        let folder = std::fs::symlink_metadata(&path).is_ok_and(|meta| meta.is_dir());
        // The main thread may put it in place meanwhile: then it is no longer there.
        if quarry_stdx::atomic::discard(&path) {
            removed += 1;
            let target = path.file_name().and_then(|name| {
                quarry_stdx::stale_temporaries::owner(&name.to_string_lossy()).map(|(target, _)| target.to_string())
            });
            if let (true, Some(target)) = (folder, target) {
                let _ = quarry_stdx::atomic::recover_dir(&path.with_file_name(target));
            }
        }
    }
    removed
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_exit_status_is_the_shell_s() {
        assert_eq!(exit_code(2), 130);
        assert_eq!(exit_code(15), 143);
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn open_temporaries_are_removed_and_nothing_else() {
        let dir = tempfile::tempdir().unwrap();
        let kept = dir.path().join("kept.json");
        std::fs::write(&kept, "{}").unwrap();
        let _reading = std::fs::File::open(&kept).unwrap();
        let mut unfinished = quarry_stdx::AtomicFile::create(&dir.path().join("sub/out.jsonl")).unwrap();
        unfinished.write_all(b"{\"a\":").unwrap();
        assert_eq!(remove_open_temporaries(), 1);
        let mut left: Vec<String> = walk(dir.path());
        left.sort();
        assert_eq!(left, ["kept.json", "sub"]);
        drop(unfinished);
        // In the same test: another test's open temporaries would count too.
        an_open_staging_folder_goes_whole_and_its_output_stays();
    }

    #[cfg(target_os = "linux")]
    fn an_open_staging_folder_goes_whole_and_its_output_stays() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("last");
        quarry_stdx::atomic::write_dir_atomically(&out, |d: &std::path::Path| {
            std::fs::write(d.join("a"), "old").map_err(|e| quarry_stdx::IoError::new(d, e))
        })
        .unwrap();
        let result = quarry_stdx::atomic::write_dir_atomically(&out, |d: &std::path::Path| {
            // A file open inside the folder, a temporary of its own.
            let mut inner = quarry_stdx::AtomicFile::create(&d.join("weights")).unwrap();
            inner.write_all(b"half").unwrap();
            assert_eq!(remove_open_temporaries(), 1, "the folder counts once");
            Err(quarry_stdx::IoError::new(d, std::io::Error::other("stopped")))
        });
        assert!(result.is_err());
        assert_eq!(walk(dir.path()), ["last", "a"]);
        assert_eq!(std::fs::read_to_string(out.join("a")).unwrap(), "old");
    }

    fn walk(dir: &std::path::Path) -> Vec<String> {
        let mut names = Vec::new();
        for entry in std::fs::read_dir(dir).unwrap().flatten() {
            names.push(entry.file_name().to_string_lossy().into_owned());
            if entry.path().is_dir() {
                names.extend(walk(&entry.path()));
            }
        }
        names
    }
}
