//! Atomic file writing: write to a temporary file beside the target, then
//! rename, so a reader never sees a half-written file and an interrupted run
//! leaves what was already written intact.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use crate::error::DataError;

/// A file being written; it appears under its final name only on `commit`.
pub struct AtomicFile {
    target: PathBuf,
    temp: PathBuf,
    writer: Box<dyn Write>,
}

impl AtomicFile {
    /// Starts writing `target`; gzip-compressed when the name ends in `.gz`.
    pub fn create(target: &Path) -> Result<AtomicFile, DataError> {
        if let Some(dir) = target.parent() {
            std::fs::create_dir_all(dir).map_err(|e| DataError::io(dir, e))?;
        }
        let name = target.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        let temp = target.with_file_name(format!(".{name}.{}.tmp", std::process::id()));
        let file = File::create(&temp).map_err(|e| DataError::io(&temp, e))?;
        let writer: Box<dyn Write> = if name.ends_with(".gz") {
            Box::new(flate2::write::GzEncoder::new(BufWriter::new(file), flate2::Compression::default()))
        } else {
            Box::new(BufWriter::new(file))
        };
        Ok(AtomicFile { target: target.to_path_buf(), temp, writer })
    }

    /// Writes bytes.
    pub fn write_all(&mut self, bytes: &[u8]) -> Result<(), DataError> {
        self.writer.write_all(bytes).map_err(|e| DataError::io(&self.temp, e))
    }

    /// Writes one value as a JSON line.
    pub fn write_json_line(&mut self, value: &impl serde::Serialize) -> Result<(), DataError> {
        let mut line = serde_json::to_vec(value).map_err(|e| DataError::Invalid(e.to_string()))?;
        line.push(b'\n');
        self.write_all(&line)
    }

    /// Flushes and renames the file into place.
    pub fn commit(mut self) -> Result<(), DataError> {
        self.writer.flush().map_err(|e| DataError::io(&self.temp, e))?;
        drop(std::mem::replace(&mut self.writer, Box::new(std::io::sink())));
        std::fs::rename(&self.temp, &self.target).map_err(|e| DataError::io(&self.target, e))
    }
}

impl Drop for AtomicFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.temp);
    }
}

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
    let mut out = Vec::new();
    for (i, line) in reader.lines().enumerate() {
        let line = line.map_err(|e| DataError::BadRecord {
            path: path.to_path_buf(),
            line: i + 1,
            message: format!("cannot read the line: {e}"),
        })?;
        if line.trim().is_empty() {
            continue;
        }
        let record = serde_json::from_str(&line).map_err(|e| DataError::BadRecord {
            path: path.to_path_buf(),
            line: i + 1,
            message: e.to_string(),
        })?;
        out.push(record);
    }
    Ok(out)
}
