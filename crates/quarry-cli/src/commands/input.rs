//! Shared options for commands that read one source file.

use std::path::PathBuf;

use clap::{Args, ValueEnum};
use quarry_syntax::{Language, LoadOptions, ParsedFile, SyntaxError, DEFAULT_MAX_FILE_BYTES};

/// A source file argument with language and size-limit overrides.
#[derive(Args)]
pub struct FileArgs {
    /// The source file.
    pub file: PathBuf,
    /// Language of the file (python or java); default: from the extension.
    #[arg(long)]
    pub lang: Option<Language>,
    /// Refuse files larger than this many bytes.
    #[arg(long, default_value_t = DEFAULT_MAX_FILE_BYTES)]
    pub max_file_bytes: u64,
}

impl FileArgs {
    /// Loads and parses the file.
    pub fn parse(&self) -> Result<ParsedFile, SyntaxError> {
        let options = LoadOptions { max_file_bytes: self.max_file_bytes };
        ParsedFile::load(&self.file, self.lang, &options)
    }
}

/// Output format of the single-file commands.
#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// Human-readable text.
    Pretty,
    /// One stable JSON document on stdout.
    Json,
}
