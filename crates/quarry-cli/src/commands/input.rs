//! Shared options for commands that read one source file.

use std::path::PathBuf;

use clap::{Args, ValueEnum};
use quarry_syntax::{
    Deadline, Language, LoadOptions, ParsedFile, SyntaxError, DEFAULT_MAX_FILE_BYTES, DEFAULT_TIME_BUDGET,
};

/// A source file argument with language, size-limit and time-budget overrides.
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
    /// Seconds allowed for the work on the file (as `quarry query --time-budget`); a file that
    /// takes longer is reported and skipped. 0: no limit.
    #[arg(long, default_value_t = DEFAULT_TIME_BUDGET.as_secs_f64())]
    pub time_budget: f64,
}

impl FileArgs {
    /// The size limit.
    pub fn load_options(&self) -> LoadOptions {
        LoadOptions { max_file_bytes: self.max_file_bytes }
    }

    /// The time budget, starting now.
    pub fn deadline(&self) -> Result<Deadline, String> {
        super::query::time_budget(self.time_budget).map(Deadline::new)
    }

    /// Loads and parses the file within `deadline`.
    pub fn parse(&self, deadline: &Deadline) -> Result<ParsedFile, SyntaxError> {
        ParsedFile::load_within(&self.file, self.lang, &self.load_options(), deadline)
    }
}

/// Output format of the single-file commands.
#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// Human-readable text.
    #[value(alias = "text")]
    Pretty,
    /// One stable JSON document on stdout.
    Json,
}
