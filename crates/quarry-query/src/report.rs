//! Running queries over files and turning findings into records in the
//! CodeQueries schema, ready to print or to build datasets from.

use std::path::{Path, PathBuf};

use quarry_syntax::{
    BlockKind, CodeBlock, Deadline, Language, LineRun, LoadOptions, ParsedFile, SourceFile, SpanRecord, SyntaxError,
    DEFAULT_MAX_DEPTH, DEFAULT_TIME_BUDGET,
};
use serde::Serialize;

use crate::context::FileContext;
use crate::engine::run_query;
use crate::file_syntax::FileSyntax;
use crate::finding::Polarity;
use crate::project::{Project, ProjectView};
use crate::registry::Query;
use crate::suppression_comments::SuppressionComments;

/// A code block a finding needs, as reported alongside it.
#[derive(Debug, Clone, Serialize, serde::Deserialize)]
pub struct BlockRef {
    /// Index of the block in the file.
    pub index: usize,
    /// Kind of block.
    pub kind: BlockKind,
    /// CodeQueries metadata name (`root.Cls.method`).
    pub metadata: String,
    /// CodeQueries header (class header or `module`).
    pub header: String,
    /// The block's first and last line ([`CodeBlock::extent`]): it holds
    /// the lines between them that no other block holds. Its line runs are
    /// not repeated here: a module-level block cut by `n` definitions has
    /// `n` of them, and every finding at module level would repeat them
    /// (`quarry blocks` lists them once).
    pub extent: LineRun,
}

/// One finding as a record: the fields of `quarry query --format jsonl`.
#[derive(Debug, Clone, Serialize)]
pub struct FindingRecord {
    /// The file, as given or found.
    pub file: String,
    /// The exact CodeQueries query name.
    pub query: &'static str,
    /// The query's stable id.
    pub query_id: &'static str,
    /// 1 for a positive finding, 0 for a negative one.
    pub example_type: u8,
    /// Answer spans.
    pub answer_spans: Vec<SpanRecord>,
    /// Supporting-fact spans.
    pub supporting_fact_spans: Vec<SpanRecord>,
    /// The blocks needed to reach the result, in file order.
    pub relevant_blocks: Vec<BlockRef>,
    /// One-line explanation.
    pub message: String,
}

impl From<&CodeBlock> for BlockRef {
    fn from(block: &CodeBlock) -> BlockRef {
        BlockRef {
            index: block.index,
            kind: block.kind,
            metadata: block.metadata(),
            header: block.header().to_string(),
            extent: block.extent(),
        }
    }
}

/// The findings of all selected queries on one file, with the file's text so
/// that callers can show the code.
pub struct FileReport {
    /// The file's path.
    pub path: PathBuf,
    /// Its text (without BOM).
    pub text: String,
    /// Whether the file had syntax errors (answers still come from its
    /// well-formed parts).
    pub has_syntax_errors: bool,
    /// The findings, grouped by query in registry order, then by position.
    pub findings: Vec<FindingRecord>,
    /// The file's suppression comments, read with the analysis (within its
    /// time budget) for the workspace to apply.
    pub suppressions: SuppressionComments,
}

/// Bounds on the work done for one file.
#[derive(Debug, Clone, Copy)]
pub struct WorkLimits {
    /// Time allowed per file for parsing and queries; `None` for no limit.
    pub time_budget: Option<std::time::Duration>,
    /// Files whose syntax tree is deeper than this are skipped.
    pub max_depth: usize,
}

impl Default for WorkLimits {
    fn default() -> Self {
        WorkLimits { time_budget: Some(DEFAULT_TIME_BUDGET), max_depth: DEFAULT_MAX_DEPTH }
    }
}

/// Loads, parses and queries one file, positive and/or negative form, with
/// no time budget and the default depth limit.
pub fn analyze_file(
    path: &Path,
    queries: &[&'static Query],
    polarities: &[Polarity],
    options: &LoadOptions,
) -> Result<FileReport, SyntaxError> {
    let limits = WorkLimits { time_budget: None, ..WorkLimits::default() };
    analyze_file_within(path, queries, polarities, options, &limits)
}

/// Loads, parses and queries one file within `limits`: a file whose tree is
/// too deep, or that runs out of time while being parsed or queried, is an
/// error naming it ([`SyntaxError::TooDeep`], [`SyntaxError::TimeBudget`]).
pub fn analyze_file_within(
    path: &Path,
    queries: &[&'static Query],
    polarities: &[Polarity],
    options: &LoadOptions,
    limits: &WorkLimits,
) -> Result<FileReport, SyntaxError> {
    let project = Project::new(&[path.to_path_buf()], options);
    analyze_file_in(&project, path, queries, polarities, options, limits)
}

/// Loads, parses and queries one file of a project within `limits`, as
/// [`analyze_file_within`] does: names it imports from other files of the
/// project resolve to their definitions there.
pub fn analyze_file_in(
    project: &Project,
    path: &Path,
    queries: &[&'static Query],
    polarities: &[Polarity],
    options: &LoadOptions,
    limits: &WorkLimits,
) -> Result<FileReport, SyntaxError> {
    let deadline = Deadline::new(limits.time_budget);
    analyze_file_until(project, path, queries, polarities, options, limits.max_depth, deadline)
}

/// [`analyze_file_in`] under a deadline of the caller's, one that can be
/// cancelled ([`Deadline::cancelled_by`]: the analysis then stops at its
/// next check with [`SyntaxError::Cancelled`]), with the depth limit
/// `max_depth`.
pub fn analyze_file_until(
    project: &Project,
    path: &Path,
    queries: &[&'static Query],
    polarities: &[Polarity],
    options: &LoadOptions,
    max_depth: usize,
    deadline: Deadline,
) -> Result<FileReport, SyntaxError> {
    let file = project.parse_for_analysis(path, options, &deadline)?;
    analyze_parsed_bounded(project, file, Some(*options), queries, polarities, max_depth, deadline)
}

/// [`analyze_file_within`] for a file already read, such as standard input:
/// a project of that one file (with its package context on disk, if any).
pub fn analyze_source_within(
    source: SourceFile,
    queries: &[&'static Query],
    polarities: &[Polarity],
    limits: &WorkLimits,
) -> Result<FileReport, SyntaxError> {
    let project = Project::new(&[source.path().to_path_buf()], &LoadOptions::default());
    analyze_source_in(&project, source, queries, polarities, limits)
}

/// [`analyze_file_in`] for a file already read.
pub fn analyze_source_in(
    project: &Project,
    source: SourceFile,
    queries: &[&'static Query],
    polarities: &[Polarity],
    limits: &WorkLimits,
) -> Result<FileReport, SyntaxError> {
    let deadline = Deadline::new(limits.time_budget);
    let file = ParsedFile::parse_within(source, Language::Python, &deadline)?;
    analyze_parsed_bounded(project, file, None, queries, polarities, limits.max_depth, deadline)
}

/// Queries a parsed file of `project` on a thread bounded by `deadline`;
/// `loaded`: the options it was loaded with by
/// [`Project::parse_for_analysis`], whose summary it then leaves behind.
fn analyze_parsed_bounded(
    project: &Project,
    file: ParsedFile,
    loaded: Option<LoadOptions>,
    queries: &[&'static Query],
    polarities: &[Polarity],
    max_depth: usize,
    deadline: Deadline,
) -> Result<FileReport, SyntaxError> {
    let path = file.source().path().to_path_buf();
    let (queries, polarities) = (queries.to_vec(), polarities.to_vec());
    let project = project.clone();
    let within = deadline.clone();
    deadline.run_bounded(&path, "running queries", move || {
        analyze_checked(Some(&project), &file, loaded.as_ref(), &queries, &polarities, max_depth, &within)
    })
}

/// Queries an already parsed file.
pub fn analyze_parsed(file: &ParsedFile, queries: &[&'static Query], polarities: &[Polarity]) -> FileReport {
    run_queries(FileContext::new(file), queries, polarities, &Deadline::unlimited())
        .unwrap_or_else(|_| unreachable!("no deadline"))
}

/// Queries an already parsed file whose tree is at most `max_depth` deep,
/// checking `deadline` before each query.
pub fn analyze_parsed_within(
    file: &ParsedFile,
    queries: &[&'static Query],
    polarities: &[Polarity],
    max_depth: usize,
    deadline: &Deadline,
) -> Result<FileReport, SyntaxError> {
    analyze_checked(None, file, None, queries, polarities, max_depth, deadline)
}

/// Queries an already parsed file of a project, as
/// [`analyze_parsed_within`] does. A file that is not one of the project's
/// is analysed alone.
pub fn analyze_parsed_in(
    project: &Project,
    file: &ParsedFile,
    queries: &[&'static Query],
    polarities: &[Polarity],
    max_depth: usize,
    deadline: &Deadline,
) -> Result<FileReport, SyntaxError> {
    analyze_checked(Some(project), file, None, queries, polarities, max_depth, deadline)
}

/// [`analyze_parsed_in`] (alone without a project), leaving the file's
/// summary behind first when it was loaded by
/// [`Project::parse_for_analysis`] with `loaded`. The depth is measured by
/// the walk that indexes the tree ([`FileSyntax::check_depth`]).
fn analyze_checked(
    project: Option<&Project>,
    file: &ParsedFile,
    loaded: Option<&LoadOptions>,
    queries: &[&'static Query],
    polarities: &[Polarity],
    max_depth: usize,
    deadline: &Deadline,
) -> Result<FileReport, SyntaxError> {
    let syntax = FileSyntax::new(file);
    if let (Some(project), Some(load)) = (project, loaded) {
        project.leave_summary(file, load, syntax.depth().0);
    }
    syntax.check_depth(max_depth)?;
    let view = project.and_then(|project| {
        project.module_of(file.source().path()).map(|module| ProjectView { project: project.clone(), module })
    });
    run_queries(FileContext::with_syntax(syntax, view), queries, polarities, deadline)
}

fn run_queries(
    context: FileContext<'_>,
    queries: &[&'static Query],
    polarities: &[Polarity],
    deadline: &Deadline,
) -> Result<FileReport, SyntaxError> {
    let file = context.file();
    let text = file.text();
    let name = file.source().path().display().to_string();
    let mut findings = Vec::new();
    for query in queries {
        for &polarity in polarities {
            deadline.check(file.source().path(), || format!("running query {}", query.meta.id))?;
            for finding in run_query(&context, query, polarity) {
                let relevant_blocks =
                    finding.relevant_blocks.iter().map(|&i| BlockRef::from(&context.blocks().all()[i])).collect();
                findings.push(FindingRecord {
                    file: name.clone(),
                    query: query.meta.name,
                    query_id: query.meta.id,
                    example_type: polarity.example_type(),
                    answer_spans: finding.answers.iter().map(|s| s.to_record(text)).collect(),
                    supporting_fact_spans: finding.facts.iter().map(|s| s.to_record(text)).collect(),
                    relevant_blocks,
                    message: finding.message,
                });
            }
        }
    }
    deadline.check(file.source().path(), || "reading suppression comments".to_string())?;
    let suppressions = SuppressionComments::scan(text);
    Ok(FileReport {
        path: file.source().path().to_path_buf(),
        text: text.to_string(),
        has_syntax_errors: file.has_errors(),
        findings,
        suppressions,
    })
}
