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
    eprintln!("quarry: error: {}", crate::stdio::visible(message));
    EXIT_INPUT_ERROR
}

/// Writes `value` as pretty-printed JSON followed by a newline.
pub fn write_json(out: &mut dyn Write, value: &impl serde::Serialize) -> io::Result<()> {
    serde_json::to_writer_pretty(&mut *out, value).map_err(io::Error::other)?;
    writeln!(out)
}
