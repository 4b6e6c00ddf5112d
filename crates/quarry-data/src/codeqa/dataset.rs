//! The CodeQA dataset builder: documented functions from a source tree,
//! pairs from each comment, Yes/No balancing, seeded 8:1:1 splits, and the
//! released file layout or the Hugging Face Hub layout.
//!
//! - Functions come from every Python or Java file under the corpus paths
//!   (quarry-syntax's walk, honouring `.gitignore`, or `--files-from`); a file
//!   that cannot be read or parsed is reported and skipped.
//! - Yes/No balancing (paper, Section 4.4): every "No" pair is kept and as
//!   many "Yes" pairs, chosen by a seeded stable hash of their ids; the rest
//!   of the "Yes" pairs are dropped (the released dev split has 100 No and
//!   101 Yes).
//! - Splits: a function goes to train, dev or test (8:1:1) by a seeded
//!   stable hash of its file's corpus-relative path and its line; a
//!   function's pairs stay together, so dev and test share no code (as the
//!   released Python dev and test nearly do).
//! - The build ([`super::shards::build`]) is shard 0 of 1, finalized at once:
//!   the same rows as any number of shards. Output: `{train,dev,test}.{code,
//!   code.original,question,answer}` (JSON Lines format), or
//!   `data/{language}/{split}-00000-of-00001.parquet` with a dataset card;
//!   every file is written to a temporary and renamed, so an interrupted
//!   build leaves no partial split.

use std::path::{Path, PathBuf};
use std::time::Duration;

use rayon::prelude::*;
use serde::Serialize;

use quarry_syntax::corpus::source_files;
use quarry_syntax::{Deadline, Language, LoadOptions, ParsedFile};

use super::extract::{functions, Function};
use crate::hub::Format;

/// Options of a build.
#[derive(Debug, Clone)]
pub struct BuildOptions {
    /// Files and directories to read.
    pub corpus: Vec<PathBuf>,
    /// Python or Java.
    pub language: Language,
    /// Output directory.
    pub out: PathBuf,
    /// Seed of the Yes/No choice and the split.
    pub seed: u64,
    /// Most pairs per comment.
    pub max_pairs: usize,
    /// Comments parsed per batch.
    pub batch: usize,
    /// The format of the dataset's files.
    pub format: Format,
    /// A file listing the corpus's files (relative to the first corpus path), instead of a walk.
    pub files_from: Option<PathBuf>,
    /// What parses the comments, as the shard manifests record it (every shard must agree).
    pub parser: String,
    /// Time allowed to read and parse one file (none: no limit); a file over it is reported
    /// and skipped.
    pub time_budget: Option<Duration>,
}

/// What a build did.
#[derive(Debug, Clone, Default, Serialize)]
pub struct BuildSummary {
    /// Source files read.
    pub files: usize,
    /// Files reported and skipped, with the reason.
    pub bad_files: Vec<String>,
    /// Documented functions found.
    pub functions: usize,
    /// Comments whose parse failed.
    pub parse_errors: usize,
    /// Pairs generated before balancing.
    pub pairs_generated: usize,
    /// "Yes" pairs generated.
    pub yes: usize,
    /// "No" pairs generated.
    pub no: usize,
    /// Pairs written to train, dev, test.
    pub split_sizes: [usize; 3],
}

/// The split names, in order.
pub const SPLITS: [&str; 3] = ["train", "dev", "test"];

/// The documented functions of a corpus.
#[derive(Debug, Clone, Default)]
pub struct Found {
    /// Source files read.
    pub files: usize,
    /// Files that could not be read or parsed, with the reason.
    pub bad_files: Vec<String>,
    /// Every documented function with its file, in file order.
    pub functions: Vec<(PathBuf, Function)>,
}

/// Every documented function (Python docstrings, Java Javadoc) under the
/// corpus paths, files read in parallel, each within `time_budget` (none: no limit);
/// unreadable files are reported.
pub fn documented_functions(corpus: &[PathBuf], language: Language, time_budget: Option<Duration>) -> Found {
    let (files, walk_errors) = source_files(corpus, language);
    let mut found = documented_functions_of(&files, language, time_budget);
    found.bad_files.splice(0..0, walk_errors);
    found
}

/// Every documented function of `files`, read in parallel, each within `time_budget` (none:
/// no limit); unreadable files are reported.
pub fn documented_functions_of(files: &[PathBuf], language: Language, time_budget: Option<Duration>) -> Found {
    let extracted: Vec<Result<Vec<Function>, String>> = files
        .par_iter()
        .map(|path| {
            // A file over its budget (a 50 MB file, say) is reported, not waited for.
            let deadline = Deadline::new(time_budget);
            ParsedFile::load_within(path, Some(language), &LoadOptions::default(), &deadline)
                .map(|f| functions(&f))
                .map_err(|e| e.to_string())
        })
        .collect();
    let mut found = Found { files: files.len(), bad_files: Vec::new(), functions: Vec::new() };
    for (path, r) in files.iter().zip(extracted) {
        match r {
            Ok(fs) => found.functions.extend(fs.into_iter().map(|f| (path.clone(), f))),
            Err(e) => found.bad_files.push(if e.contains(&path.display().to_string()) {
                e
            } else {
                format!("{}: {e}", path.display())
            }),
        }
    }
    found
}

/// True when `dir` already holds a complete build (all twelve files).
pub fn is_complete(dir: &Path) -> bool {
    SPLITS.iter().all(|s| super::files::SUFFIXES.iter().all(|x| super::files::split_path(dir, s, x).exists()))
}
