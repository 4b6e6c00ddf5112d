//! Writing results to stdout and reporting errors with exit codes.

use std::io::{self, BufWriter, Write};

/// Exit code for success.
pub const EXIT_OK: i32 = 0;
pub use crate::stdio::EXIT_INPUT_ERROR;

/// Runs `write` against a buffered stdout. A closed pipe (`| head`) ends the
/// output quietly; any other write error is reported.
pub fn with_stdout(write: impl FnOnce(&mut dyn Write) -> io::Result<()>) -> i32 {
    let stdout = io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    match write(&mut out).and_then(|()| out.flush()) {
        Ok(()) => EXIT_OK,
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => EXIT_OK,
        Err(e) => report_error(&format!("cannot write standard output: {e}")),
    }
}

/// Prints `message` as an error on stderr and returns the input-error exit code.
pub fn report_error(message: &str) -> i32 {
    error(message);
    EXIT_INPUT_ERROR
}

// The one style of the CLI's diagnostics on stderr: `quarry: error: ...` for what
// fails a run, `quarry: error: ... (skipped)` for an input a multi-input command
// leaves out and goes on, `quarry: warning: ...` for what the user should know,
// `quarry: note: ...` for what they may act on;
// control characters of the message are escaped (a file name cannot rewrite the
// terminal). Tidy keeps these the only places that print the prefixes. Once a signal
// stops the run, other threads' diagnostics are left out (`interrupt::silenced`).

/// Prints `message` as an error (`quarry: error: ...`).
pub fn error(message: &str) {
    if crate::interrupt::silenced() {
        return;
    }
    eprintln!("quarry: error: {}", crate::stdio::visible(message));
}

/// Prints `message` as an input left out of a run that goes on (`quarry: error: ... (skipped)`;
/// a message that already ends by saying so is not told twice).
pub fn skipped(message: &str) {
    if crate::interrupt::silenced() {
        return;
    }
    let told = message.trim_end_matches([')', '.']).ends_with("skipped");
    let tail = if told { "" } else { " (skipped)" };
    eprintln!("quarry: error: {}{tail}", crate::stdio::visible(message));
}

/// `error` and its causes, `: `-separated as `{:#}` writes them, leaving out a cause whose
/// text the message already holds (an error that names its source in its own message, such
/// as a file's I/O error, would otherwise repeat it).
pub fn describe(error: &anyhow::Error) -> String {
    let mut text = String::new();
    for cause in error.chain() {
        let part = cause.to_string();
        if text.contains(&part) {
            continue;
        }
        if !text.is_empty() {
            text.push_str(": ");
        }
        text.push_str(&part);
    }
    text
}

/// Prints `message` as a note (`quarry: note: ...`): nothing is wrong, but the user may act.
pub fn note(message: &str) {
    if crate::interrupt::silenced() {
        return;
    }
    eprintln!("quarry: note: {}", crate::stdio::visible(message));
}

/// Prints `message` as a warning (`quarry: warning: ...`).
pub fn warning(message: &str) {
    if crate::interrupt::silenced() {
        return;
    }
    eprintln!("quarry: warning: {}", crate::stdio::visible(message));
}

/// Writes `value` as pretty-printed JSON followed by a newline.
pub fn write_json(out: &mut dyn Write, value: &impl serde::Serialize) -> io::Result<()> {
    serde_json::to_writer_pretty(&mut *out, value).map_err(io::Error::other)?;
    writeln!(out)
}
