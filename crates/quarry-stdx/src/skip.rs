//! Skipped tests: a test whose downloaded asset (a model, a data file) is missing says so
//! through [`skip`] instead of passing silently. Cargo cannot count skips, so each one is
//! also appended to the file `QUARRY_SKIP_LOG` names, which `scripts/test` summarises.

use std::io::Write as _;

/// Environment variable naming the file every skip is appended to.
pub const SKIP_LOG_ENV: &str = "QUARRY_SKIP_LOG";

/// Reports that `test` is skipped because of `reason`: on standard error, and as one line
/// `test: reason` of the `QUARRY_SKIP_LOG` file when that is set (a log that cannot be
/// written is reported on standard error too; the test goes on either way).
pub fn skip(test: &str, reason: &str) {
    eprintln!("skipped {test}: {reason}");
    let Some(log) = std::env::var_os(SKIP_LOG_ENV) else { return };
    let appended = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&log)
        .and_then(|mut file| writeln!(file, "{test}: {reason}"));
    if let Err(e) = appended {
        eprintln!("cannot record the skip in {}: {e}", std::path::Path::new(&log).display());
    }
}

/// The path environment variable `var` names (a test asset `scripts/test` fetches), or
/// `None` after reporting `test` as skipped because `var` is not set.
pub fn path_from_env(var: &str, test: &str) -> Option<std::path::PathBuf> {
    let path = std::env::var_os(var).map(std::path::PathBuf::from);
    if path.is_none() {
        skip(test, &format!("{var} is not set (scripts/test sets it)"));
    }
    path
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn skips_are_appended_to_the_log() {
        let log = std::env::temp_dir().join(format!("quarry-skips-{}.log", std::process::id()));
        let _ = std::fs::remove_file(&log);
        // The variable is read per call; this test is the only one of the crate that sets it.
        std::env::set_var(SKIP_LOG_ENV, &log);
        skip("a", "no model");
        skip("b", "no data");
        std::env::remove_var(SKIP_LOG_ENV);
        skip("c", "not logged");
        assert_eq!(std::fs::read_to_string(&log).unwrap(), "a: no model\nb: no data\n");
        std::fs::remove_file(&log).unwrap();
    }
}
