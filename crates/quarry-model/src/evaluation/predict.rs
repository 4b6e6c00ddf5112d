//! A trained span model answering a query on a source file: the file's blocks become the
//! context, a [`Setting`] cuts model inputs from it, and predicted labels are decoded back
//! to answer and supporting-fact spans in the file's line/column coordinates.

use quarry_data::codequeries::examples::query_context;
use quarry_data::codequeries::labels::{decode_spans, file_position, CharSpan, TokenCache};
use quarry_data::codequeries::Example;
use quarry_syntax::{Blocks, ParsedFile, Position, Span, SpanRecord};

use crate::error::Result;
use crate::evaluation::file_level::{public_labels, Runner, Setting};

/// What the model answers for one query on one file.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FilePrediction {
    /// Predicted answer spans, in file order.
    pub answers: Vec<SpanRecord>,
    /// Predicted supporting-fact spans, in file order.
    pub facts: Vec<SpanRecord>,
    /// File indices of the blocks holding a predicted span.
    pub blocks: Vec<usize>,
}

/// A character span of a context block as a span of the file.
pub fn file_span(file: &ParsedFile, example: &Example, span: &CharSpan) -> Option<SpanRecord> {
    let block = example.context_blocks.get(span.block)?;
    let (start_line, start_column) = file_position(block, span.start)?;
    let (end_line, end_column) = file_position(block, span.end)?;
    let start = Position { line: start_line, column: start_column };
    let end = Position { line: end_line, column: end_column };
    Span::from_positions(file.text(), file.source().lines(), start, end).map(|s| s.to_record(file.text()))
}

/// Answers `query_name` on `file` (its `blocks` already computed) in `setting`; `cache`
/// holds the file's block sub-tokens across queries (one cache per file).
pub fn predict_file(
    runner: &Runner<'_>,
    setting: Setting,
    file: &ParsedFile,
    blocks: &Blocks,
    query_name: &str,
    cache: &mut TokenCache,
) -> Result<FilePrediction> {
    let path = file.source().path().display().to_string();
    let example = query_context(file, blocks, &path, query_name);
    let (input, labels) = runner.predict_cached(setting, &example, cache)?;
    let mut prediction = FilePrediction::default();
    for span in decode_spans(&public_labels(&labels, &input), &input.origins) {
        let Some(record) = file_span(file, &example, &span) else { continue };
        if span.fact { &mut prediction.facts } else { &mut prediction.answers }.push(record);
        prediction.blocks.push(example.context_blocks[span.block].index);
    }
    prediction.blocks.sort_unstable();
    prediction.blocks.dedup();
    let order = |s: &SpanRecord| (s.start_line, s.start_column, s.end_line, s.end_column);
    prediction.answers.sort_by_key(order);
    prediction.facts.sort_by_key(order);
    Ok(prediction)
}
