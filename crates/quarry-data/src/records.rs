//! Records in either format of a dataset: [`RecordSink`] writes one file of JSON Lines
//! (through [`AtomicFile`], `.gz` compressed) or Parquet (through [`ParquetSink`]);
//! [`stream_values`] reads one back, one record at a time, whatever its format, and
//! [`read_numbered`] every record of the files a path names (a file, a directory of
//! record files, or a `*` pattern such as `data/ideal/train-*.parquet`), as the readers of
//! `quarry train`, `evaluate` and `experiment` do.

use std::path::{Path, PathBuf};

use arrow_schema::SchemaRef;
use quarry_stdx::AtomicFile;

use crate::error::DataError;
use crate::jsonl::{open_lines, stream_records};
use crate::parquet_file::{is_parquet, ParquetRows, ParquetSink};

/// One output file of records, put in place on [`RecordSink::commit`].
pub enum RecordSink {
    /// JSON Lines, one record a line.
    Jsonl(AtomicFile),
    /// Parquet under a fixed schema.
    Parquet(Box<ParquetSink>),
}

impl RecordSink {
    /// Starts writing `path`: Parquet with `schema` when it ends in `.parquet`, else JSON
    /// Lines (compressed when it ends in `.gz`).
    pub fn create(path: &Path, schema: SchemaRef) -> Result<RecordSink, DataError> {
        if is_parquet(path) {
            Ok(RecordSink::Parquet(Box::new(ParquetSink::create(path, schema)?)))
        } else {
            Ok(RecordSink::Jsonl(AtomicFile::create(path)?))
        }
    }

    /// Adds one record.
    pub fn push(&mut self, record: serde_json::Value) -> Result<(), DataError> {
        match self {
            RecordSink::Jsonl(file) => Ok(file.write_json_line(&record)?),
            RecordSink::Parquet(sink) => sink.push(record),
        }
    }

    /// Finishes the file and puts it in place.
    pub fn commit(self) -> Result<(), DataError> {
        match self {
            RecordSink::Jsonl(file) => Ok(file.commit()?),
            RecordSink::Parquet(sink) => sink.commit(),
        }
    }
}

/// Records streamed from one file, each with its 1-based line or row number.
pub type Values = Box<dyn Iterator<Item = Result<(usize, serde_json::Value), DataError>>>;

/// Which file names of a folder [`record_files`] keeps.
type NameFilter = Box<dyn Fn(&str) -> bool>;

/// The records of a JSON Lines (`.gz` decompressed) or Parquet file, streamed, each as a
/// JSON value with its 1-based line or row number; blank lines are skipped. An error
/// names the file and the line or row.
pub fn stream_values(path: &Path) -> Result<Values, DataError> {
    if is_parquet(path) {
        return Ok(Box::new(ParquetRows::open(path)?));
    }
    let owned = path.to_path_buf();
    let lines = stream_records::<serde_json::Value>(open_lines(path)?, path).map(move |item| {
        let (line, parsed) = item?;
        parsed.map(|v| (line, v)).map_err(|e| DataError::BadRecord {
            path: owned.clone(),
            line,
            message: e.to_string(),
        })
    });
    Ok(Box::new(lines))
}

/// Whether `name` is a file of records: `.parquet`, `.jsonl`, `.jsonl.gz`.
fn is_record_file(name: &str) -> bool {
    [".parquet", ".jsonl", ".jsonl.gz"].iter().any(|ext| name.ends_with(ext))
}

/// Whether `name` matches `pattern`, where `*` stands for any text.
fn matches(pattern: &str, name: &str) -> bool {
    let parts: Vec<&str> = pattern.split('*').collect();
    let (first, last) = (parts[0], parts[parts.len() - 1]);
    if parts.len() == 1 {
        return name == pattern;
    }
    if !name.starts_with(first) || name.len() < first.len() + last.len() || !name.ends_with(last) {
        return false;
    }
    let mut rest = &name[first.len()..name.len() - last.len()];
    for part in &parts[1..parts.len() - 1] {
        match rest.find(part) {
            Some(at) => rest = &rest[at + part.len()..],
            None => return false,
        }
    }
    true
}

/// The files of records `path` names, in name order: the file itself; a directory's
/// `.parquet`, `.jsonl` and `.jsonl.gz` files; or, when its last component holds `*`, the
/// files of its folder that match. A path naming none is an error.
pub fn record_files(path: &Path) -> Result<Vec<PathBuf>, DataError> {
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let (dir, keep): (PathBuf, NameFilter) = if name.contains('*') {
        let dir = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
        (dir.to_path_buf(), Box::new(move |n: &str| matches(&name, n)))
    } else if path.is_dir() {
        (path.to_path_buf(), Box::new(is_record_file))
    } else {
        return Ok(vec![path.to_path_buf()]);
    };
    let mut files = Vec::new();
    for entry in std::fs::read_dir(&dir).map_err(|e| DataError::io(&dir, e))? {
        let entry = entry.map_err(|e| DataError::io(&dir, e))?;
        let file_name = entry.file_name().to_string_lossy().into_owned();
        if keep(&file_name) && !file_name.starts_with('.') && entry.path().is_file() {
            files.push(entry.path());
        }
    }
    files.sort();
    if files.is_empty() {
        return Err(DataError::Invalid(format!("{}: no .parquet, .jsonl or .jsonl.gz file", path.display())));
    }
    Ok(files)
}

/// Every record of the files `path` names ([`record_files`]), read one at a time and
/// parsed as `T`, with its 1-based number (the line of a single JSON Lines file; the row
/// counted over all files otherwise). A record that is not a `T` is an error naming its
/// file and line or row, saying `what` it should be.
pub fn read_numbered<T: serde::de::DeserializeOwned>(path: &Path, what: &str) -> Result<Vec<(usize, T)>, DataError> {
    let files = record_files(path)?;
    let by_line = matches!(files.as_slice(), [single] if !is_parquet(single));
    let mut out = Vec::new();
    for file in &files {
        for item in stream_values(file)? {
            let (line, value) = item?;
            let record = serde_json::from_value(value).map_err(|e| DataError::BadRecord {
                path: file.clone(),
                line,
                message: format!("{what}: {e}"),
            })?;
            out.push((if by_line { line } else { out.len() + 1 }, record));
        }
    }
    Ok(out)
}

/// Calls `visit(file, number, record)` with every record of the files `path` names, in
/// order, one at a time (the 1-based line of a JSON Lines file, or row of a Parquet file).
pub fn for_each_record(
    path: &Path,
    mut visit: impl FnMut(&Path, usize, serde_json::Value) -> Result<(), DataError>,
) -> Result<(), DataError> {
    for file in record_files(path)? {
        for item in stream_values(&file)? {
            let (number, value) = item?;
            visit(&file, number, value)?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn patterns_and_directories_name_record_files_in_order() {
        assert!(matches("train-*.parquet", "train-00001-of-00003.parquet"));
        assert!(!matches("train-*.parquet", "valid-00001-of-00003.parquet"));
        assert!(matches("a*b*c", "a-b-c") && !matches("a*b*c", "a-c") && !matches("ab*ba", "aba"));
        let dir = tempfile::tempdir().unwrap();
        for name in ["train-1.jsonl", "train-0.jsonl", "valid-0.jsonl", "notes.txt"] {
            std::fs::write(dir.path().join(name), "{\"a\": 1}\n\n{\"a\": 2}\n").unwrap();
        }
        let names = |p: &Path| -> Vec<String> {
            record_files(p).unwrap().iter().map(|f| f.file_name().unwrap().to_string_lossy().into_owned()).collect()
        };
        assert_eq!(names(dir.path()), ["train-0.jsonl", "train-1.jsonl", "valid-0.jsonl"]);
        assert_eq!(names(&dir.path().join("train-*.jsonl")), ["train-0.jsonl", "train-1.jsonl"]);
        assert!(record_files(&dir.path().join("test-*.jsonl")).is_err());
        #[derive(serde::Deserialize)]
        struct A {
            a: u8,
        }
        let one: Vec<(usize, A)> = read_numbered(&dir.path().join("train-0.jsonl"), "an a").unwrap();
        assert_eq!(one.iter().map(|(n, r)| (*n, r.a)).collect::<Vec<_>>(), [(1, 1), (3, 2)]);
        let all: Vec<(usize, A)> = read_numbered(&dir.path().join("train-*.jsonl"), "an a").unwrap();
        assert_eq!(all.iter().map(|(n, _)| *n).collect::<Vec<_>>(), [1, 2, 3, 4]);
        #[derive(Debug, serde::Deserialize)]
        #[allow(dead_code)]
        struct B {
            b: u8,
        }
        let error = read_numbered::<B>(dir.path(), "a b").unwrap_err().to_string();
        assert!(error.contains("train-0.jsonl:1: a b: missing field `b`"), "{error}");
    }
}
