//! Loading source text: regular files only, size limits, PEP 263 encodings
//! and BOM removal.
//!
//! A [`SourceFile`] holds the decoded text of the file (UTF-8 unless a coding
//! declaration says otherwise), minus a leading UTF-8 byte-order mark. Line
//! endings are kept as they are (`\n`, `\r\n` or a lone `\r`), so every span's
//! text is a slice of the file's own decoded characters.

use std::path::{Path, PathBuf};

use crate::encoding::decode_source;
use crate::error::SyntaxError;
use crate::position::LineIndex;

/// Default upper bound on the size of a source file: 64 MiB.
pub const DEFAULT_MAX_FILE_BYTES: u64 = 64 * 1024 * 1024;

/// Options for loading source files.
#[derive(Debug, Clone, Copy)]
pub struct LoadOptions {
    /// Files larger than this many bytes are refused with [`SyntaxError::TooLarge`].
    pub max_file_bytes: u64,
}

impl Default for LoadOptions {
    fn default() -> Self {
        LoadOptions { max_file_bytes: DEFAULT_MAX_FILE_BYTES }
    }
}

/// The text of one source file with its line index.
#[derive(Debug, Clone)]
pub struct SourceFile {
    path: PathBuf,
    text: String,
    had_bom: bool,
    encoding: String,
    lines: LineIndex,
}

impl SourceFile {
    /// Reads and checks a file from disk: a regular file (links followed)
    /// of at most `options.max_file_bytes`, decoded as its coding
    /// declaration says.
    pub fn load(path: &Path, options: &LoadOptions) -> Result<SourceFile, SyntaxError> {
        let bytes = crate::read::read_regular_file(path, options.max_file_bytes)?;
        SourceFile::from_bytes(path, bytes)
    }

    /// Decodes raw bytes (no NUL; a UTF-8 BOM, a PEP 263 declaration or
    /// UTF-8) and builds a source file named `path`.
    pub fn from_bytes(path: impl Into<PathBuf>, bytes: Vec<u8>) -> Result<SourceFile, SyntaxError> {
        let path = path.into();
        let decoded = decode_source(&path, bytes)?;
        Ok(SourceFile::from_string(path, decoded.text, decoded.had_bom, decoded.encoding))
    }

    /// Builds a source file from text already in memory.
    pub fn from_text(path: impl Into<PathBuf>, text: impl Into<String>) -> SourceFile {
        let mut text = text.into();
        let had_bom = text.starts_with('\u{feff}');
        if had_bom {
            text.drain(..'\u{feff}'.len_utf8());
        }
        SourceFile::from_string(path.into(), text, had_bom, "utf-8".to_string())
    }

    fn from_string(path: PathBuf, text: String, had_bom: bool, encoding: String) -> SourceFile {
        let lines = LineIndex::new(&text);
        SourceFile { path, text, had_bom, encoding, lines }
    }

    /// The path the file was loaded from (or named with).
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The text, without a byte-order mark.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// Whether the file on disk started with a UTF-8 byte-order mark.
    pub fn had_bom(&self) -> bool {
        self.had_bom
    }

    /// The encoding the file was decoded from, as CPython names it (`utf-8`,
    /// `iso-8859-1`, `cp1252`, ...).
    pub fn encoding(&self) -> &str {
        &self.encoding
    }

    /// The line index used to convert between byte offsets and line/column.
    pub fn lines(&self) -> &LineIndex {
        &self.lines
    }
}
