//! Parquet files of records (arrow-rs): [`ParquetSink`] writes JSON-shaped records under a
//! fixed Arrow schema, zstd-compressed, in row groups small enough to stream, through
//! [`quarry_stdx::AtomicFile`]; [`ParquetRows`] reads any Parquet file back one record
//! at a time as the JSON object the record was written from (null fields left out), so
//! every reader of JSON Lines records reads Parquet through the same `serde` types.

use std::io::Write;
use std::path::{Path, PathBuf};

use arrow_array::RecordBatch;
use arrow_schema::SchemaRef;
use parquet::arrow::arrow_reader::{ParquetRecordBatchReader, ParquetRecordBatchReaderBuilder};
use parquet::arrow::ArrowWriter;
use parquet::basic::{Compression, ZstdLevel};
use parquet::file::properties::WriterProperties;
use quarry_stdx::AtomicFile;

use crate::error::DataError;

/// Records buffered before they become one Arrow batch.
const BATCH_ROWS: usize = 256;
/// Most rows of a row group: a reader holds one row group's column chunks at a time.
const ROW_GROUP_ROWS: usize = 2048;
/// Most bytes (estimated, encoded) of a row group.
const ROW_GROUP_BYTES: usize = 32 << 20;
/// zstd level: 3 is zstd's own default, most of the ratio at a fraction of the time.
const ZSTD_LEVEL: i32 = 3;

/// The [`Write`] an [`ArrowWriter`] owns: an atomic file, put in place by [`ParquetSink::commit`].
struct AtomicWrite(AtomicFile);

impl Write for AtomicWrite {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0.writer().write(bytes)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.0.writer().flush()
    }
}

/// A Parquet file being written; it appears at its path only on [`ParquetSink::commit`].
pub struct ParquetSink {
    path: PathBuf,
    schema: SchemaRef,
    pending: Vec<serde_json::Value>,
    writer: ArrowWriter<AtomicWrite>,
    rows: usize,
}

impl ParquetSink {
    /// Starts writing `path` with `schema`.
    pub fn create(path: &Path, schema: SchemaRef) -> Result<ParquetSink, DataError> {
        let file = AtomicWrite(AtomicFile::create(path)?);
        let level = ZstdLevel::try_new(ZSTD_LEVEL).map_err(|e| bad(path, e))?;
        let properties = WriterProperties::builder()
            .set_compression(Compression::ZSTD(level))
            .set_max_row_group_row_count(Some(ROW_GROUP_ROWS))
            .set_max_row_group_bytes(Some(ROW_GROUP_BYTES))
            .build();
        let writer = ArrowWriter::try_new(file, schema.clone(), Some(properties)).map_err(|e| bad(path, e))?;
        Ok(ParquetSink { path: path.to_path_buf(), schema, pending: Vec::new(), writer, rows: 0 })
    }

    /// Adds one record: a JSON object whose fields are the schema's (a missing or null
    /// field is null, a field the schema lacks is an error).
    pub fn push(&mut self, record: serde_json::Value) -> Result<(), DataError> {
        self.pending.push(record);
        self.rows += 1;
        if self.pending.len() >= BATCH_ROWS {
            self.write_pending()?;
        }
        Ok(())
    }

    /// Records written so far.
    pub fn rows(&self) -> usize {
        self.rows
    }

    fn write_pending(&mut self) -> Result<(), DataError> {
        if self.pending.is_empty() {
            return Ok(());
        }
        let mut decoder = arrow_json::ReaderBuilder::new(self.schema.clone())
            .with_strict_mode(true)
            .build_decoder()
            .map_err(|e| bad(&self.path, e))?;
        decoder.serialize(&self.pending).map_err(|e| bad(&self.path, e))?;
        self.pending.clear();
        if let Some(batch) = decoder.flush().map_err(|e| bad(&self.path, e))? {
            self.writer.write(&batch).map_err(|e| bad(&self.path, e))?;
        }
        Ok(())
    }

    /// Writes the remaining records and the footer and puts the file in place.
    pub fn commit(mut self) -> Result<(), DataError> {
        self.write_pending()?;
        let AtomicWrite(file) = self.writer.into_inner().map_err(|e| bad(&self.path, e))?;
        Ok(file.commit()?)
    }
}

/// The records of a Parquet file, one at a time, each as the JSON object of its row
/// (null fields left out, so `serde` defaults apply). Only one batch is held in memory.
pub struct ParquetRows {
    path: PathBuf,
    batches: ParquetRecordBatchReader,
    rows: std::vec::IntoIter<serde_json::Value>,
    /// 1-based number of the next row.
    next: usize,
}

impl ParquetRows {
    /// Opens `path`; an error names the file when it is not Parquet.
    pub fn open(path: &Path) -> Result<ParquetRows, DataError> {
        let file = quarry_syntax::read::open_regular_file(path).map_err(|e| DataError::io(path, e))?;
        let batches = ParquetRecordBatchReaderBuilder::try_new(file)
            .and_then(|b| b.with_batch_size(BATCH_ROWS).build())
            .map_err(|e| bad(path, e))?;
        Ok(ParquetRows { path: path.to_path_buf(), batches, rows: Vec::new().into_iter(), next: 1 })
    }

    fn decode(&self, batch: &RecordBatch) -> Result<Vec<serde_json::Value>, DataError> {
        let mut writer = arrow_json::LineDelimitedWriter::new(Vec::new());
        writer.write(batch).map_err(|e| bad(&self.path, e))?;
        writer.finish().map_err(|e| bad(&self.path, e))?;
        let text = writer.into_inner();
        text.split(|b| *b == b'\n')
            .filter(|line| !line.is_empty())
            .map(|line| serde_json::from_slice(line).map_err(|e| bad(&self.path, e)))
            .collect()
    }
}

impl Iterator for ParquetRows {
    /// The 1-based row number and the row.
    type Item = Result<(usize, serde_json::Value), DataError>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            if let Some(row) = self.rows.next() {
                self.next += 1;
                return Some(Ok((self.next - 1, row)));
            }
            let batch = match self.batches.next()? {
                Ok(batch) => batch,
                Err(e) => return Some(Err(bad(&self.path, e))),
            };
            match self.decode(&batch) {
                Ok(rows) => self.rows = rows.into_iter(),
                Err(e) => return Some(Err(e)),
            }
        }
    }
}

/// Whether `path` names a Parquet file (by its extension).
pub fn is_parquet(path: &Path) -> bool {
    path.extension().is_some_and(|e| e.eq_ignore_ascii_case("parquet"))
}

/// A Parquet or Arrow error, naming the file.
fn bad(path: &Path, error: impl std::fmt::Display) -> DataError {
    DataError::Invalid(format!("{}: {error}", path.display()))
}
