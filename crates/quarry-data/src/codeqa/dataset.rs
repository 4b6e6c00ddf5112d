//! The CodeQA dataset builder: documented functions from a source tree,
//! pairs from each comment, Yes/No balancing, seeded 8:1:1 splits, and the
//! released file layout.
//!
//! - Functions come from every Python or Java file under the corpus paths
//!   (quarry-syntax's walk, honouring `.gitignore`); a file that cannot be
//!   read or parsed is reported and skipped.
//! - Yes/No balancing (paper, Section 4.4): every "No" pair is kept and as
//!   many "Yes" pairs, chosen with the seed; the rest of the "Yes" pairs are
//!   dropped (the released dev split has 100 No and 101 Yes).
//! - Splits: functions are shuffled with the seed and dealt to train, dev
//!   and test until each holds 80%, 10%, 10% of the pairs; a function's pairs
//!   stay together, so dev and test share no code (as the released Python
//!   dev and test nearly do).
//! - Output: `{train,dev,test}.{code,code.original,question,answer}`, each
//!   written to a temporary file and renamed, so an interrupted build
//!   leaves no partial split.

use std::path::{Path, PathBuf};

use rayon::prelude::*;
use serde::Serialize;

use quarry_stdx::rng::SplitMix64;
use quarry_syntax::corpus::source_files;
use quarry_syntax::{Deadline, Language, LoadOptions, ParsedFile, DEFAULT_TIME_BUDGET};

use super::extract::{functions, Function};
use super::files::SplitWriter;
use super::generate::{generate, CommentParser, Outcome};
use super::pair::{Kind, Pair};
use crate::error::DataError;

/// Options of a build.
#[derive(Debug, Clone)]
pub struct BuildOptions {
    /// Files and directories to read.
    pub corpus: Vec<PathBuf>,
    /// Python or Java.
    pub language: Language,
    /// Output directory.
    pub out: PathBuf,
    /// Seed of the Yes/No choice and the split shuffle.
    pub seed: u64,
    /// Most pairs per comment.
    pub max_pairs: usize,
    /// Comments parsed per batch.
    pub batch: usize,
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

/// Builds the dataset; `progress(done, total)` is called as comments are
/// processed.
pub fn build(
    options: &BuildOptions,
    parser: &mut dyn CommentParser,
    progress: &(dyn Fn(usize, usize) + Sync),
) -> Result<BuildSummary, DataError> {
    let found = documented_functions(&options.corpus, options.language);
    let mut summary = BuildSummary { files: found.files, bad_files: found.bad_files, ..BuildSummary::default() };
    let funcs: Vec<Function> = found.functions.into_iter().map(|(_, f)| f).collect();
    summary.functions = funcs.len();
    let batch = options.batch.max(1);
    let mut pairs: Vec<Vec<Pair>> = Vec::with_capacity(funcs.len());
    for chunk in funcs.chunks(batch) {
        let comments: Vec<&str> = chunk.iter().map(|f| f.comment.as_str()).collect();
        for outcome in generate(&comments, parser, options.max_pairs) {
            match outcome {
                Outcome::Pairs(p) => pairs.push(p),
                Outcome::ParseError(_) => {
                    summary.parse_errors += 1;
                    pairs.push(Vec::new());
                }
            }
        }
        progress(pairs.len(), funcs.len());
    }
    summary.pairs_generated = pairs.iter().map(Vec::len).sum();
    let mut rng = SplitMix64::new(options.seed);
    balance_yes_no(&mut pairs, &mut rng, &mut summary);
    let mut order: Vec<usize> = (0..funcs.len()).filter(|&i| !pairs[i].is_empty()).collect();
    rng.shuffle_modulo(&mut order);
    let total: usize = order.iter().map(|&i| pairs[i].len()).sum();
    let mut writers = SPLITS.iter().map(|s| SplitWriter::create(&options.out, s)).collect::<Result<Vec<_>, _>>()?;
    let mut written = 0usize;
    for i in order {
        let split = if written * 10 < total * 8 {
            0
        } else if written * 10 < total * 9 {
            1
        } else {
            2
        };
        let f = &funcs[i];
        for p in &pairs[i] {
            writers[split].write(&f.code, &f.code_original, &p.question, &p.answer)?;
            written += 1;
        }
    }
    for (k, w) in writers.into_iter().enumerate() {
        summary.split_sizes[k] = w.len();
        w.finish()?;
    }
    Ok(summary)
}

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
/// corpus paths, files read in parallel; unreadable files are reported.
pub fn documented_functions(corpus: &[PathBuf], language: Language) -> Found {
    let (files, walk_errors) = source_files(corpus, language);
    let extracted: Vec<Result<Vec<Function>, String>> = files
        .par_iter()
        .map(|path| {
            // Parsing has the per-file time budget of the other corpus walks (a 50 MB file is
            // reported, not waited for).
            let deadline = Deadline::after(DEFAULT_TIME_BUDGET);
            ParsedFile::load_within(path, Some(language), &LoadOptions::default(), &deadline)
                .map(|f| functions(&f))
                .map_err(|e| e.to_string())
        })
        .collect();
    let mut found = Found { files: files.len(), bad_files: walk_errors, functions: Vec::new() };
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

/// Keeps every "No" pair and as many "Yes" pairs, chosen with `rng`.
fn balance_yes_no(pairs: &mut [Vec<Pair>], rng: &mut SplitMix64, summary: &mut BuildSummary) {
    let mut yes = Vec::new();
    for (i, ps) in pairs.iter().enumerate() {
        for (j, p) in ps.iter().enumerate() {
            if p.kind == Kind::Yesno {
                if p.answer == "Yes" {
                    yes.push((i, j));
                } else {
                    summary.no += 1;
                }
            }
        }
    }
    summary.yes = yes.len();
    rng.shuffle_modulo(&mut yes);
    let mut drop: Vec<(usize, usize)> = yes.into_iter().skip(summary.no).collect();
    drop.sort_unstable_by(|a, b| b.cmp(a));
    for (i, j) in drop {
        pairs[i].remove(j);
    }
}

/// True when `dir` already holds a complete build (all twelve files).
pub fn is_complete(dir: &Path) -> bool {
    SPLITS.iter().all(|s| super::files::SUFFIXES.iter().all(|x| super::files::split_path(dir, s, x).exists()))
}
