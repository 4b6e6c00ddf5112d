//! Running queries over files and turning findings into records in the
//! CodeQueries schema, ready to print or to build datasets from.

use std::path::{Path, PathBuf};

use quarry_syntax::{BlockKind, CodeBlock, Language, LineRun, LoadOptions, ParsedFile, SpanRecord, SyntaxError};
use serde::Serialize;

use crate::context::FileContext;
use crate::engine::run_query;
use crate::finding::Polarity;
use crate::registry::Query;

/// A code block a finding needs, as reported alongside it.
#[derive(Debug, Clone, Serialize)]
pub struct BlockRef {
    /// Index of the block in the file.
    pub index: usize,
    /// Kind of block.
    pub kind: BlockKind,
    /// CodeQueries metadata name (`root.Cls.method`).
    pub metadata: String,
    /// CodeQueries header (class header or `module`).
    pub header: String,
    /// The block's lines.
    pub lines: Vec<LineRun>,
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
            lines: block.lines.clone(),
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
}

/// Loads, parses and queries one file, positive and/or negative form.
pub fn analyze_file(
    path: &Path,
    queries: &[&'static Query],
    polarities: &[Polarity],
    options: &LoadOptions,
) -> Result<FileReport, SyntaxError> {
    let file = ParsedFile::load(path, Some(Language::Python), options)?;
    Ok(analyze_parsed(&file, queries, polarities))
}

/// Queries an already parsed file.
pub fn analyze_parsed(file: &ParsedFile, queries: &[&'static Query], polarities: &[Polarity]) -> FileReport {
    let context = FileContext::new(file);
    let text = file.text();
    let name = file.source().path().display().to_string();
    let mut findings = Vec::new();
    for query in queries {
        for &polarity in polarities {
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
    FileReport {
        path: file.source().path().to_path_buf(),
        text: text.to_string(),
        has_syntax_errors: file.has_errors(),
        findings,
    }
}
