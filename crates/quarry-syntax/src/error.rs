//! Typed errors for loading and parsing source files.

use std::path::PathBuf;

use quarry_stdx::io_error::IoError;

/// Everything that can go wrong while turning a path into a parsed file.
#[derive(Debug, thiserror::Error)]
pub enum SyntaxError {
    /// The file could not be read from disk (the message names it).
    #[error(transparent)]
    Io(#[from] IoError),
    /// A directory was given where a file was expected.
    #[error("{path}: is a directory, expected a file")]
    IsDirectory {
        /// The offending path.
        path: PathBuf,
    },
    /// The path names a named pipe, socket or device (directly or through a
    /// link): reading it could block or never end, so it is not read.
    #[error("{path}: not a regular file ({kind}), skipped")]
    NotRegular {
        /// The offending path.
        path: PathBuf,
        /// What it is, in words (`named pipe (FIFO)`, `character device`, ...).
        kind: &'static str,
    },
    /// The file is larger than the configured limit.
    #[error("{path}: file is {size} bytes, over the limit of {limit} bytes")]
    TooLarge {
        /// The offending path.
        path: PathBuf,
        /// Its size in bytes.
        size: u64,
        /// The configured limit in bytes.
        limit: u64,
    },
    /// The file contains NUL bytes, so it is treated as binary.
    #[error("{path}: binary file (NUL byte at offset {offset})")]
    Binary {
        /// The offending path.
        path: PathBuf,
        /// Byte offset of the first NUL byte.
        offset: usize,
    },
    /// The file is not valid UTF-8.
    #[error("{path}: invalid UTF-8 at byte offset {offset}")]
    InvalidUtf8 {
        /// The offending path.
        path: PathBuf,
        /// Byte offset of the first invalid sequence.
        offset: usize,
    },
    /// The file declares (PEP 263) an encoding quarry does not know.
    #[error("{path}: unknown encoding `{name}` declared on line {}", line + 1)]
    UnknownEncoding {
        /// The offending path.
        path: PathBuf,
        /// The name as declared.
        name: String,
        /// 0-based line of the declaration.
        line: usize,
    },
    /// The file starts with a UTF-8 byte-order mark but declares another encoding.
    #[error("{path}: encoding problem: a UTF-8 byte-order mark with `{declared}` declared")]
    EncodingConflict {
        /// The offending path.
        path: PathBuf,
        /// The declared encoding.
        declared: String,
    },
    /// The file's bytes are not valid in its declared encoding.
    #[error("{path}: cannot decode as {encoding} at byte offset {offset}")]
    Undecodable {
        /// The offending path.
        path: PathBuf,
        /// The declared encoding (normalised name).
        encoding: String,
        /// Byte offset of the first byte that cannot be decoded.
        offset: usize,
    },
    /// The syntax tree nests deeper than the analyses allow.
    #[error("{path}: nesting {depth} levels deep at line {}, over the limit of {limit}; skipped", line + 1)]
    TooDeep {
        /// The offending path.
        path: PathBuf,
        /// Depth of the deepest node.
        depth: usize,
        /// The limit.
        limit: usize,
        /// 0-based line of the deepest node.
        line: usize,
    },
    /// The per-file time budget ran out.
    #[error("{path}: skipped after the per-file time budget of {:.1} s ran out while {stage}", budget.as_secs_f64())]
    TimeBudget {
        /// The offending path.
        path: PathBuf,
        /// The budget.
        budget: std::time::Duration,
        /// What was being done (`parsing`, `running query unused-import`, ...).
        stage: String,
    },
    /// The work was cancelled through its deadline's flag (its result was
    /// no longer wanted); not a problem of the file.
    #[error("{path}: analysis cancelled")]
    Cancelled {
        /// The file whose analysis stopped.
        path: PathBuf,
    },
    /// No language is known for the file's extension.
    #[error("{path}: unknown language (use --lang python|java)")]
    UnknownLanguage {
        /// The offending path.
        path: PathBuf,
    },
    /// tree-sitter refused to produce a tree (for example, it was cancelled).
    #[error("{path}: the parser produced no tree")]
    ParseFailed {
        /// The offending path.
        path: PathBuf,
    },
}
