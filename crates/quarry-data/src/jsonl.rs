//! JSON Lines reading (`.gz` decompressed): strict ([`read_records`], the first bad line
//! is an error) and lenient ([`read_lenient`], every well-formed record loads and each
//! malformed line becomes an error naming the file and the line, so one bad row does not
//! lose a dataset). Writing goes through [`quarry_stdx::AtomicFile`].

use std::io::BufRead as _;
use std::path::Path;

use crate::error::DataError;

/// Opens a JSON Lines file for reading, transparently decompressing `.gz`.
pub fn open_lines(path: &Path) -> Result<Box<dyn std::io::BufRead>, DataError> {
    let file = quarry_syntax::read::open_regular_file(path).map_err(|e| DataError::io(path, e))?;
    if path.extension().is_some_and(|e| e == "gz") {
        Ok(Box::new(std::io::BufReader::new(flate2::read::MultiGzDecoder::new(file))))
    } else {
        Ok(Box::new(std::io::BufReader::new(file)))
    }
}

/// Reads every record of a JSON Lines file (`.gz` decompressed), skipping
/// blank lines; a bad line is an error naming the file and the line.
pub fn read_records<T: serde::de::DeserializeOwned>(path: &Path) -> Result<Vec<T>, DataError> {
    parse_records(open_lines(path)?, path)
}

/// Reads every record of JSON Lines text from `reader`, skipping blank
/// lines; errors name `path` and the 1-based line, including a truncated
/// gzip stream or a line that is not UTF-8.
pub fn parse_records<T: serde::de::DeserializeOwned>(
    reader: impl std::io::BufRead,
    path: &Path,
) -> Result<Vec<T>, DataError> {
    Ok(parse_numbered(reader, path, None)?.into_iter().map(|(_, r)| r).collect())
}

/// Like [`read_records`], with each record's 1-based line number; a line that does not
/// parse is an error saying `what` the line should hold.
pub fn read_numbered<T: serde::de::DeserializeOwned>(path: &Path, what: &str) -> Result<Vec<(usize, T)>, DataError> {
    parse_numbered(open_lines(path)?, path, Some(what))
}

fn parse_numbered<T: serde::de::DeserializeOwned>(
    reader: impl std::io::BufRead,
    path: &Path,
    what: Option<&str>,
) -> Result<Vec<(usize, T)>, DataError> {
    let mut out = Vec::new();
    for item in stream_records(reader, path) {
        let (line, record) = item?;
        let record = record.map_err(|e| DataError::BadRecord {
            path: path.to_path_buf(),
            line,
            message: match what {
                Some(what) => format!("{what}: {e}"),
                None => e.to_string(),
            },
        })?;
        out.push((line, record));
    }
    Ok(out)
}

/// The non-blank lines of JSON Lines text from `reader`, one at a time, with their 1-based
/// numbers and each parsed as `T`. A line that cannot be read (a truncated gzip stream,
/// text that is not UTF-8) is an error naming `path` and the line.
pub fn stream_records<'a, T: serde::de::DeserializeOwned>(
    reader: impl std::io::BufRead + 'a,
    path: &Path,
) -> impl Iterator<Item = Result<(usize, Result<T, serde_json::Error>), DataError>> + 'a {
    let path = path.to_path_buf();
    reader.lines().enumerate().filter_map(move |(i, line)| match line {
        Err(e) => Some(Err(DataError::BadRecord {
            path: path.to_path_buf(),
            line: i + 1,
            message: format!("cannot read the line: {e}"),
        })),
        Ok(text) if text.trim().is_empty() => None,
        Ok(text) => Some(Ok((i + 1, parse_line(&text)))),
    })
}

/// One JSON Lines record parsed as `T`. A line that fails because a string holds a lone
/// UTF-16 surrogate escape (`"\ud800"`, which Python's `json.dumps` writes for a string
/// holding undecodable bytes, and which no Rust string can hold) gets an error that says so,
/// in place of serde_json's "unexpected end of hex escape".
pub fn parse_line<T: serde::de::DeserializeOwned>(text: &str) -> Result<T, serde_json::Error> {
    serde_json::from_str(text).map_err(|e| match lone_surrogate(text) {
        Some((escape, column)) if e.is_syntax() => <serde_json::Error as serde::de::Error>::custom(format!(
            "a lone UTF-16 surrogate {escape} at column {column}: not a Unicode character (decode the \
             text with errors=\"replace\" before writing it)"
        )),
        _ => e,
    })
}

/// The first lone surrogate escape of `text` (see [`quarry_stdx::json_surrogates`]), with
/// its 1-based column in characters.
fn lone_surrogate(text: &str) -> Option<(&str, usize)> {
    let at = *quarry_stdx::json_surrogates::lone_surrogate_escapes(text.as_bytes()).first()?;
    Some((text.get(at..at + 6)?, text.get(..at)?.chars().count() + 1))
}

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

/// Lines a lenient reader reads without finding a single good record before it judges
/// the file not to be of its kind at all (rather than one with some malformed lines): a
/// large file of another kind then ends at once with one clear error instead of an error
/// for each of its millions of lines.
pub const MAX_LEADING_BAD_LINES: usize = 1000;

/// The error for a file none of whose first [`MAX_LEADING_BAD_LINES`] lines is `what`.
pub fn not_a_record_file(path: &Path, what: &str) -> DataError {
    DataError::BadRecord {
        path: path.to_path_buf(),
        line: MAX_LEADING_BAD_LINES + 1,
        message: format!("none of the first {MAX_LEADING_BAD_LINES} lines is {what}; not a file of that kind"),
    }
}

/// Reads a JSON Lines file (`.gz` decompressed), skipping blank lines. Each line is parsed
/// as `T` and then checked by `check`; a line failing either is reported, the rest load.
/// A file that cannot be opened or read is an error, and so is one whose first
/// [`MAX_LEADING_BAD_LINES`] lines hold no good record.
pub fn read_lenient<T: serde::de::DeserializeOwned>(
    path: &Path,
    mut check: impl FnMut(&T) -> Result<(), String>,
) -> Result<Lenient<T>, DataError> {
    let mut out = Lenient { records: Vec::new(), errors: Vec::new() };
    for (i, line) in open_lines(path)?.split(b'\n').enumerate() {
        if i == MAX_LEADING_BAD_LINES && out.records.is_empty() {
            return Err(not_a_record_file(path, "a well-formed record"));
        }
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
        match parse_line::<T>(text) {
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
    fn a_lone_surrogate_is_named_and_pairs_and_escaped_backslashes_are_not() {
        let error = parse_line::<serde_json::Value>(r#"{"comment": "abc \ud800 def"}"#).unwrap_err().to_string();
        assert!(error.starts_with(r"a lone UTF-16 surrogate \ud800 at column 18"), "{error}");
        let low = parse_line::<serde_json::Value>(r#"{"c": "\uDC00\ud83d"}"#).unwrap_err().to_string();
        assert!(low.contains(r"\uDC00 at column 8"), "{low}");
        let pair = parse_line::<serde_json::Value>(r#"{"c": "\ud83d\ude00 \\ud800"}"#).unwrap();
        assert_eq!(pair["c"], "\u{1F600} \\ud800");
        // Other errors keep serde_json's words.
        let plain = parse_line::<serde_json::Value>("{").unwrap_err().to_string();
        assert!(plain.contains("EOF"), "{plain}");
    }

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

    #[test]
    fn a_file_without_any_leading_record_is_refused_as_a_whole() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("code.py");
        let code = "def f(a):\n    return a\n".repeat(MAX_LEADING_BAD_LINES);
        std::fs::write(&path, &code).unwrap();
        let error = read_lenient::<serde_json::Value>(&path, |_| Ok(())).unwrap_err().to_string();
        assert!(error.contains("code.py:1001:") && error.contains("not a file of that kind"), "{error}");
        // One good record among the first lines: a file with many bad lines, all reported.
        std::fs::write(&path, format!("{{\"a\": 1}}\n{code}")).unwrap();
        let read = read_lenient::<serde_json::Value>(&path, |_| Ok(())).unwrap();
        assert_eq!((read.records.len(), read.errors.len()), (1, 2 * MAX_LEADING_BAD_LINES));
    }
}
