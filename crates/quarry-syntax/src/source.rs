//! Loading source text: encoding checks, BOM removal, size limits.
//!
//! A [`SourceFile`] holds the text exactly as it is on disk, minus a leading
//! UTF-8 byte-order mark. Line endings are kept as they are (`\n`, `\r\n` or a
//! lone `\r`), so every span's text is a slice of the file's own characters.

use std::path::{Path, PathBuf};

use crate::error::SyntaxError;
use crate::position::LineIndex;

/// Default upper bound on the size of a source file: 64 MiB.
pub const DEFAULT_MAX_FILE_BYTES: u64 = 64 * 1024 * 1024;

const UTF8_BOM: &[u8] = b"\xEF\xBB\xBF";

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
    lines: LineIndex,
}

impl SourceFile {
    /// Reads and checks a file from disk.
    pub fn load(path: &Path, options: &LoadOptions) -> Result<SourceFile, SyntaxError> {
        let io_error = |source| SyntaxError::Io { path: path.to_path_buf(), source };
        let metadata = std::fs::metadata(path).map_err(io_error)?;
        if metadata.is_dir() {
            return Err(SyntaxError::IsDirectory { path: path.to_path_buf() });
        }
        if metadata.len() > options.max_file_bytes {
            return Err(SyntaxError::TooLarge {
                path: path.to_path_buf(),
                size: metadata.len(),
                limit: options.max_file_bytes,
            });
        }
        let bytes = std::fs::read(path).map_err(io_error)?;
        if bytes.len() as u64 > options.max_file_bytes {
            return Err(SyntaxError::TooLarge {
                path: path.to_path_buf(),
                size: bytes.len() as u64,
                limit: options.max_file_bytes,
            });
        }
        SourceFile::from_bytes(path, bytes)
    }

    /// Checks raw bytes (UTF-8, no NUL) and builds a source file named `path`.
    pub fn from_bytes(path: impl Into<PathBuf>, mut bytes: Vec<u8>) -> Result<SourceFile, SyntaxError> {
        let path = path.into();
        let had_bom = bytes.starts_with(UTF8_BOM);
        if had_bom {
            bytes.drain(..UTF8_BOM.len());
        }
        if let Some(offset) = bytes.iter().position(|&b| b == 0) {
            return Err(SyntaxError::Binary { path, offset: offset + bom_len(had_bom) });
        }
        let text = String::from_utf8(bytes).map_err(|e| SyntaxError::InvalidUtf8 {
            path: path.clone(),
            offset: e.utf8_error().valid_up_to() + bom_len(had_bom),
        })?;
        Ok(SourceFile::from_string(path, text, had_bom))
    }

    /// Builds a source file from text already in memory.
    pub fn from_text(path: impl Into<PathBuf>, text: impl Into<String>) -> SourceFile {
        let mut text = text.into();
        let had_bom = text.starts_with('\u{feff}');
        if had_bom {
            text.drain(..'\u{feff}'.len_utf8());
        }
        SourceFile::from_string(path.into(), text, had_bom)
    }

    fn from_string(path: PathBuf, text: String, had_bom: bool) -> SourceFile {
        let lines = LineIndex::new(&text);
        SourceFile { path, text, had_bom, lines }
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

    /// The line index used to convert between byte offsets and line/column.
    pub fn lines(&self) -> &LineIndex {
        &self.lines
    }
}

fn bom_len(had_bom: bool) -> usize {
    if had_bom {
        UTF8_BOM.len()
    } else {
        0
    }
}
