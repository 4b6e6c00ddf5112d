//! A run of the queries over the files of a project, the entry point that
//! `quarry query` and the CodeQueries dataset builder share. Pass 1 builds
//! the [`Project`] model (module names; summaries on first need); pass 2
//! analyses the files in parallel chunks with the model shared read-only,
//! and hands back each file's report in the order of the file list, chunk
//! by chunk, so memory holds only a chunk's reports and the summaries.

use std::path::{Path, PathBuf};

use quarry_syntax::{LoadOptions, SyntaxError};
use rayon::prelude::*;

use crate::finding::Polarity;
use crate::project::Project;
use crate::registry::Query;
use crate::report::{analyze_file_in, FileReport, WorkLimits};

/// What to run on the files.
#[derive(Clone)]
pub struct RunOptions {
    /// The queries.
    pub queries: Vec<&'static Query>,
    /// Positive and/or negative forms.
    pub polarities: Vec<Polarity>,
    /// How files are read.
    pub load: LoadOptions,
    /// Bounds on the work per file.
    pub limits: WorkLimits,
    /// Files analysed in parallel before their reports are handed back.
    pub chunk: usize,
}

/// Runs the queries over `files` as one project and calls `each` with every
/// file's report (or the error that kept it from being analysed) in the
/// order of `files`. `each` may stop the run by returning an error.
pub fn analyze_files<E>(
    files: &[PathBuf],
    options: &RunOptions,
    each: impl FnMut(&Path, Result<FileReport, SyntaxError>) -> Result<(), E>,
) -> Result<(), E> {
    analyze_files_in(&Project::new(files, &options.load), files, options, &|_| {}, each)
}

/// Analyses one file of `project` as `options` say.
pub(crate) fn analyze_one(project: &Project, path: &Path, options: &RunOptions) -> Result<FileReport, SyntaxError> {
    analyze_file_in(project, path, &options.queries, &options.polarities, &options.load, &options.limits)
}

/// Runs the queries over `files` within an existing project (pass 2 alone),
/// as [`analyze_files`] does; `analyzed` is called from the worker threads as
/// each file is done (for progress), `each` in file order.
pub fn analyze_files_in<E>(
    project: &Project,
    files: &[PathBuf],
    options: &RunOptions,
    analyzed: &(dyn Fn(&Path) + Sync),
    mut each: impl FnMut(&Path, Result<FileReport, SyntaxError>) -> Result<(), E>,
) -> Result<(), E> {
    for chunk in files.chunks(options.chunk.max(1)) {
        let reports: Vec<Result<FileReport, SyntaxError>> = chunk
            .par_iter()
            .map(|path| {
                let report = analyze_one(project, path, options);
                analyzed(path);
                report
            })
            .collect();
        for (path, report) in chunk.iter().zip(reports) {
            each(path, report)?;
        }
    }
    Ok(())
}
