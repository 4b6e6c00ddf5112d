//! Lenient JSON Lines reading: every well-formed record loads, and each malformed line
//! becomes an error naming the file and the line, so one bad row does not lose a dataset.

use std::io::BufRead as _;
use std::path::Path;

use crate::atomic::open_lines;
use crate::error::DataError;

/// The records of a file that loaded and the lines that did not.
#[derive(Debug)]
pub struct Lenient<T> {
    /// Well-formed records with their 1-based line numbers, in file order.
    pub records: Vec<(usize, T)>,
    /// One [`DataError::BadRecord`] per malformed line.
    pub errors: Vec<DataError>,
}

impl<T> Lenient<T> {
    /// The records without their line numbers.
    pub fn into_records(self) -> Vec<T> {
        self.records.into_iter().map(|(_, r)| r).collect()
    }
}

/// Reads a JSON Lines file (`.gz` decompressed), skipping blank lines. Each line is parsed
/// as `T` and then checked by `check`; a line failing either is reported, the rest load.
/// Only a file that cannot be opened or read is an error.
pub fn read_lenient<T: serde::de::DeserializeOwned>(
    path: &Path,
    mut check: impl FnMut(&T) -> Result<(), String>,
) -> Result<Lenient<T>, DataError> {
    let mut out = Lenient { records: Vec::new(), errors: Vec::new() };
    for (i, line) in open_lines(path)?.split(b'\n').enumerate() {
        let line = line.map_err(|e| DataError::io(path, e))?;
        let bad = |message: String| DataError::BadRecord { path: path.to_path_buf(), line: i + 1, message };
        let text = match std::str::from_utf8(&line) {
            Ok(t) => t,
            Err(e) => {
                out.errors.push(bad(format!("not UTF-8: {e}")));
                continue;
            }
        };
        if text.trim().is_empty() {
            continue;
        }
        match serde_json::from_str::<T>(text) {
            Ok(record) => match check(&record) {
                Ok(()) => out.records.push((i + 1, record)),
                Err(message) => out.errors.push(bad(message)),
            },
            Err(e) => out.errors.push(bad(e.to_string())),
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bad_lines_are_reported_and_the_rest_load() {
        let dir = std::env::temp_dir().join(format!("quarry-jsonl-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("x.jsonl");
        std::fs::write(&path, b"{\"a\": 1}\n\nnot json\n{\"a\": -2}\n\xff\xfe\n{\"a\": 3}").unwrap();
        #[derive(serde::Deserialize)]
        struct R {
            a: i64,
        }
        let got = read_lenient::<R>(&path, |r| if r.a < 0 { Err("negative".into()) } else { Ok(()) }).unwrap();
        let lines: Vec<(usize, i64)> = got.records.iter().map(|(l, r)| (*l, r.a)).collect();
        assert_eq!(lines, [(1, 1), (6, 3)]);
        let errors: Vec<String> = got.errors.iter().map(|e| e.to_string()).collect();
        assert_eq!(errors.len(), 3);
        assert!(errors[0].contains("x.jsonl:3:"), "{errors:?}");
        assert!(errors[1].ends_with(":4: negative"), "{errors:?}");
        assert!(errors[2].contains(":5: not UTF-8"), "{errors:?}");
        assert!(read_lenient::<R>(&dir.join("missing.jsonl"), |_| Ok(())).is_err());
    }
}
