//! Standard output and standard error that never panic.
//!
//! `std`'s `println!` and `eprintln!` panic when their stream cannot be written: `quarry
//! metrics ... | head -n 1` closes the pipe, `> /dev/full` fills the disk, `2>&-` closes
//! standard error. The binary's own `println!`, `print!`, `eprintln!` and `eprint!`
//! (defined in `main.rs`, shadowing `std`'s for every module of the crate) go through
//! here instead: a closed standard output ends the run quietly with exit code 0, as ruff
//! and ripgrep do; any other failure to write it (a full disk) is an error naming standard
//! output, exit code 2; standard error is best effort, since there is nowhere left to
//! report its failure.

use std::fmt;
use std::io::{self, Write};

/// Exit code for usage and input errors, and for output that cannot be written
/// (re-exported by `commands::output`, whose other items print through here).
pub const EXIT_INPUT_ERROR: i32 = 2;

/// Writes to standard output, ending the process as described in the module
/// documentation when it cannot be written.
pub fn print_out(args: fmt::Arguments<'_>) {
    if let Err(e) = io::stdout().lock().write_fmt(args) {
        stdout_failed(e);
    }
}

/// Writes to standard error, ignoring a stream that cannot be written.
pub fn print_err(args: fmt::Arguments<'_>) {
    let _ = io::stderr().lock().write_fmt(args);
}

/// `message` for a terminal: control characters (an escape sequence in a file name) are
/// written as escapes, line breaks kept, so nothing from the input reaches the terminal
/// raw.
pub fn visible(message: &str) -> String {
    message.split('\n').map(quarry_workspace::output::style::escape_controls).collect::<Vec<_>>().join("\n")
}

/// Flushes standard output at the end of a run (the flush `std` does at exit ignores
/// errors, which would lose the last line silently).
pub fn flush_out() {
    if let Err(e) = io::stdout().lock().flush() {
        stdout_failed(e);
    }
}

/// Ends the process after standard output failed: quietly (0) on a closed pipe, with an
/// error (2) otherwise.
pub fn stdout_failed(error: io::Error) -> ! {
    if error.kind() == io::ErrorKind::BrokenPipe {
        crate::interrupt::exit(0);
    }
    if !crate::interrupt::silenced() {
        print_err(format_args!("quarry: error: cannot write standard output: {error}\n"));
    }
    crate::interrupt::exit(EXIT_INPUT_ERROR);
}
