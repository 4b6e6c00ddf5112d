//! From query findings on one file to CodeQueries examples: ideal examples
//! (one per group of findings sharing their relevant blocks), file-level
//! examples (all spans of a query over the whole file) and relevance rows
//! (every block, labelled relevant or not).

use std::collections::BTreeMap;

use quarry_query::report::FindingRecord;
use quarry_query::{find_query, Hops};
use quarry_syntax::{Blocks, CodeBlock, ParsedFile, SpanRecord};

use super::schema::{BlockSpan, ContextBlock, Example, RelevanceRow};

/// The context-block record of a block.
pub fn context_block(file: &ParsedFile, block: &CodeBlock) -> ContextBlock {
    ContextBlock {
        content: block.content(file),
        metadata: block.metadata(),
        header: block.header().to_string(),
        index: block.index,
        lines: block.lines.clone(),
    }
}

/// A span relative to the block of `context` (positions in the example's
/// context) that holds its first line, or `None` if no context block does.
pub fn span_in_blocks(span: &SpanRecord, context: &[&CodeBlock]) -> Option<BlockSpan> {
    let (position, block) = context.iter().enumerate().find(|(_, b)| b.contains_line(span.start_line))?;
    let line_in_block = |line: usize| -> usize {
        // Lines of earlier runs, plus the offset inside the run holding `line`.
        block
            .lines
            .iter()
            .map(|run| if line > run.end { run.end - run.start + 1 } else { line.saturating_sub(run.start) })
            .sum::<usize>()
    };
    Some(BlockSpan {
        block: position,
        start_line: line_in_block(span.start_line),
        start_column: span.start_column,
        end_line: line_in_block(span.end_line),
        end_column: span.end_column,
    })
}

fn is_single_hop(query_name: &str) -> bool {
    find_query(query_name).is_some_and(|q| q.meta.hops == Hops::Single)
}

fn make_example(
    file: &ParsedFile,
    path: &str,
    query_name: &str,
    positive: bool,
    context: &[&CodeBlock],
    answers: Vec<SpanRecord>,
    facts: Vec<SpanRecord>,
) -> Example {
    let answer_spans_in_blocks = answers.iter().filter_map(|s| span_in_blocks(s, context)).collect();
    let supporting_fact_spans_in_blocks = facts.iter().filter_map(|s| span_in_blocks(s, context)).collect();
    let index = find_query(query_name).map_or(0, |q| q.meta.index);
    let blocks = context.iter().map(|b| b.index.to_string()).collect::<Vec<_>>().join(".");
    Example {
        id: format!("{path}#Q{index}#{blocks}"),
        query_name: query_name.to_string(),
        code_file_path: path.to_string(),
        context_blocks: context.iter().map(|b| context_block(file, b)).collect(),
        answer_spans: answers,
        supporting_fact_spans: facts,
        example_type: u8::from(positive),
        single_hop: is_single_hop(query_name),
        subtokenized_input_sequence: Vec::new(),
        label_sequence: Vec::new(),
        answer_spans_in_blocks,
        supporting_fact_spans_in_blocks,
        spans_after_pruning: None,
        pruned: false,
        relevant_blocks: context.iter().map(|b| b.index).collect(),
    }
}

/// The whole file as context for `query_name`, without ground truth: the
/// input of a model answering the query on new code.
pub fn query_context(file: &ParsedFile, blocks: &Blocks, path: &str, query_name: &str) -> Example {
    let all: Vec<&CodeBlock> = blocks.all().iter().collect();
    let mut example = make_example(file, path, query_name, false, &all, Vec::new(), Vec::new());
    example.relevant_blocks.clear();
    example
}

/// An ideal example's identity: its polarity and its relevant blocks.
type GroupKey = (u8, Vec<usize>);

/// Everything one file contributes to the dataset.
#[derive(Default)]
pub struct FileExamples {
    /// Ideal-setting examples.
    pub ideal: Vec<Example>,
    /// File-level examples.
    pub file_level: Vec<Example>,
    /// Relevance-classifier rows.
    pub relevance: Vec<RelevanceRow>,
}

/// Builds the examples of one file from its findings (both polarities).
///
/// Ideal examples group the findings of a query that need exactly the same
/// blocks. A negative group is dropped when one of its blocks holds a
/// positive span of the same query: its ground truth would not be empty.
pub fn file_examples(file: &ParsedFile, blocks: &Blocks, path: &str, findings: &[FindingRecord]) -> FileExamples {
    let mut out = FileExamples::default();
    let mut by_query: BTreeMap<&str, Vec<&FindingRecord>> = BTreeMap::new();
    for finding in findings {
        by_query.entry(finding.query).or_default().push(finding);
    }
    for (query, findings) in by_query {
        let positive_blocks: Vec<usize> = findings
            .iter()
            .filter(|f| f.example_type == 1)
            .flat_map(|f| f.answer_spans.iter().chain(&f.supporting_fact_spans))
            .filter_map(|s| blocks.block_of_line(s.start_line).map(|b| b.index))
            .collect();
        // Group by (polarity, relevant blocks).
        let mut groups: BTreeMap<GroupKey, (Vec<SpanRecord>, Vec<SpanRecord>)> = BTreeMap::new();
        for f in &findings {
            let key = (f.example_type, f.relevant_blocks.iter().map(|b| b.index).collect::<Vec<_>>());
            let entry = groups.entry(key).or_default();
            if f.example_type == 1 {
                push_unique(&mut entry.0, &f.answer_spans);
                push_unique(&mut entry.1, &f.supporting_fact_spans);
            }
        }
        for ((example_type, indices), (answers, facts)) in groups.into_iter().rev() {
            if example_type == 0 && indices.iter().any(|i| positive_blocks.contains(i)) {
                continue;
            }
            let context: Vec<&CodeBlock> = indices.iter().filter_map(|&i| blocks.all().get(i)).collect();
            if context.is_empty() {
                continue;
            }
            out.ideal.push(make_example(file, path, query, example_type == 1, &context, answers, facts));
        }
        // File level: all blocks, all positive spans together.
        let all: Vec<&CodeBlock> = blocks.all().iter().collect();
        let mut answers = Vec::new();
        let mut facts = Vec::new();
        for f in findings.iter().filter(|f| f.example_type == 1) {
            push_unique(&mut answers, &f.answer_spans);
            push_unique(&mut facts, &f.supporting_fact_spans);
        }
        let positive = !answers.is_empty();
        // Relevant blocks: those any finding of the query needs.
        let mut relevant: Vec<usize> =
            findings.iter().flat_map(|f| f.relevant_blocks.iter().map(|b| b.index)).collect();
        relevant.sort_unstable();
        relevant.dedup();
        let mut file_level = make_example(file, path, query, positive, &all, answers, facts);
        file_level.relevant_blocks = relevant.clone();
        file_level.id = format!("{path}#Q{}#file", find_query(query).map_or(0, |q| q.meta.index));
        out.file_level.push(file_level);
        // Relevance rows: every block, labelled by that relevance.
        for block in blocks.all() {
            out.relevance.push(RelevanceRow {
                query_name: query.to_string(),
                code_file_path: path.to_string(),
                context_block: context_block(file, block),
                relevance_label: u8::from(relevant.contains(&block.index)),
                single_hop: is_single_hop(query),
                subtokenized_input_sequence: Vec::new(),
            });
        }
    }
    // Positives first within a query, then by first block: stable order.
    out.ideal.sort_by(|a, b| {
        (a.query_name.as_str(), std::cmp::Reverse(a.example_type), a.context_blocks.first().map(|c| c.index)).cmp(&(
            b.query_name.as_str(),
            std::cmp::Reverse(b.example_type),
            b.context_blocks.first().map(|c| c.index),
        ))
    });
    out
}

fn push_unique(target: &mut Vec<SpanRecord>, spans: &[SpanRecord]) {
    for span in spans {
        if !target.contains(span) {
            target.push(span.clone());
        }
    }
    target.sort_by_key(|s| (s.start_line, s.start_column, s.end_line, s.end_column));
}
