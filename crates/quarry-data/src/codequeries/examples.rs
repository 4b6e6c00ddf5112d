//! From query findings on one file to CodeQueries examples: ideal examples
//! (one per group of findings sharing their relevant blocks), file-level
//! examples (all spans of a query over the whole file) and relevance rows
//! (every block, labelled relevant or not).

use std::collections::{BTreeMap, HashSet};
use std::path::Path;

use quarry_query::report::FindingRecord;
use quarry_query::{find_query, Hops};
use quarry_syntax::{Blocks, CodeBlock, Deadline, LineRun, ParsedFile, SpanRecord, SyntaxError};

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
    Some(block_span(span, position, |line| line_in_runs(&block.lines, line)))
}

/// `span` in the block at `position`, its lines placed by `line_in_block`.
fn block_span(span: &SpanRecord, position: usize, line_in_block: impl Fn(usize) -> usize) -> BlockSpan {
    BlockSpan {
        block: position,
        start_line: line_in_block(span.start_line),
        start_column: span.start_column,
        end_line: line_in_block(span.end_line),
        end_column: span.end_column,
    }
}

/// Where the lines of an example's context lie, for [`span_in_blocks`] on many spans at
/// once: its blocks' line runs sorted, so that a span's block and its lines inside that
/// block are found by binary search instead of a scan of the context (a file-level
/// example's context is the whole file, and it holds every span of the file). When the
/// runs are not disjoint and ascending (a block listed twice), lookups fall back to the
/// scan, so the result is always that of [`span_in_blocks`].
struct ContextIndex<'c> {
    context: &'c [&'c CodeBlock],
    /// Every run of the context as (first line, last line, position of its block),
    /// sorted and disjoint; `None` when they are not.
    runs: Option<Vec<(usize, usize, usize)>>,
    /// Per position: the lines of the block before each of its runs, when its runs are
    /// ascending and disjoint.
    before: Vec<Option<Vec<usize>>>,
}

impl<'c> ContextIndex<'c> {
    fn new(context: &'c [&'c CodeBlock]) -> ContextIndex<'c> {
        let mut runs: Vec<(usize, usize, usize)> = context
            .iter()
            .enumerate()
            .flat_map(|(position, block)| block.lines.iter().map(move |run| (run.start, run.end, position)))
            .collect();
        runs.sort_unstable();
        let runs = disjoint(runs.iter().map(|&(start, end, _)| (start, end))).then_some(runs);
        let before = context.iter().map(|block| lines_before_runs(&block.lines)).collect();
        ContextIndex { context, runs, before }
    }

    /// [`span_in_blocks`] of `span` in this context.
    fn span(&self, span: &SpanRecord) -> Option<BlockSpan> {
        let position = match &self.runs {
            Some(runs) => {
                let after = runs.partition_point(|&(start, _, _)| start <= span.start_line);
                let &(_, end, position) = runs.get(after.checked_sub(1)?)?;
                (span.start_line <= end).then_some(position)?
            }
            None => self.context.iter().position(|b| b.contains_line(span.start_line))?,
        };
        let block = self.context.get(position)?;
        let line_in_block = |line: usize| match self.before.get(position).and_then(Option::as_ref) {
            Some(before) => {
                // Runs wholly before `line` count whole; the first other run counts
                // up to `line`; later runs start after `line` and count nothing.
                let whole = block.lines.partition_point(|run| run.end < line);
                before.get(whole).copied().unwrap_or(0)
                    + block.lines.get(whole).map_or(0, |run| line.saturating_sub(run.start))
            }
            None => line_in_runs(&block.lines, line),
        };
        Some(block_span(span, position, line_in_block))
    }
}

/// Whether `runs` (sorted by start) are each well formed and each starts after the last
/// line of the one before.
fn disjoint(runs: impl Iterator<Item = (usize, usize)>) -> bool {
    let mut last_end: Option<usize> = None;
    for (start, end) in runs {
        if start > end || last_end.is_some_and(|last| start <= last) {
            return false;
        }
        last_end = Some(end);
    }
    true
}

/// For ascending, disjoint `runs`: the number of lines of the runs before each run (and,
/// last, of them all); `None` for runs in any other order.
fn lines_before_runs(runs: &[LineRun]) -> Option<Vec<usize>> {
    if !disjoint(runs.iter().map(|run| (run.start, run.end))) {
        return None;
    }
    let mut before = Vec::with_capacity(runs.len() + 1);
    let mut total = 0usize;
    before.push(0);
    for run in runs {
        total = total.saturating_add(run.end - run.start + 1);
        before.push(total);
    }
    Some(before)
}

/// The position of `line` among the lines of `runs`: the lines of earlier runs, plus the
/// offset inside the run holding `line` (the scan [`span_in_blocks`] does).
fn line_in_runs(runs: &[LineRun], line: usize) -> usize {
    runs.iter()
        .map(|run| if line > run.end { run.end.saturating_sub(run.start) + 1 } else { line.saturating_sub(run.start) })
        .sum::<usize>()
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
    let index = ContextIndex::new(context);
    let answer_spans_in_blocks = answers.iter().filter_map(|s| index.span(s)).collect();
    let supporting_fact_spans_in_blocks = facts.iter().filter_map(|s| index.span(s)).collect();
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

/// Spans gathered from several findings: each distinct span once, first occurrences in
/// order, sorted by position at the end (a stable sort, so equal positions keep that
/// order). Linear in the spans added, then one sort.
#[derive(Default)]
struct UniqueSpans<'a> {
    seen: HashSet<&'a SpanRecord>,
    spans: Vec<&'a SpanRecord>,
}

impl<'a> UniqueSpans<'a> {
    fn extend(&mut self, spans: &'a [SpanRecord]) {
        for span in spans {
            if self.seen.insert(span) {
                self.spans.push(span);
            }
        }
    }

    fn into_sorted(self) -> Vec<SpanRecord> {
        let mut spans = self.spans;
        spans.sort_by_key(|s| (s.start_line, s.start_column, s.end_line, s.end_column));
        spans.into_iter().cloned().collect()
    }
}

/// How many findings or blocks are handled between two looks at the deadline.
const DEADLINE_STRIDE: usize = 1024;

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
    // An unlimited deadline without a cancellation flag never expires.
    file_examples_within(file, blocks, path, findings, &Deadline::unlimited(), Path::new(path)).unwrap_or_default()
}

/// [`file_examples`] under the file's `deadline` (the one its parse and analysis ran
/// under): checked as the work goes, so that a file with very many findings or blocks is
/// reported as over its budget ([`SyntaxError::TimeBudget`], naming `source`) instead of
/// holding the build. The time is linear in the findings and blocks (and the size of
/// the examples), but that can still be long for a huge generated file.
pub fn file_examples_within(
    file: &ParsedFile,
    blocks: &Blocks,
    path: &str,
    findings: &[FindingRecord],
    deadline: &Deadline,
    source: &Path,
) -> Result<FileExamples, SyntaxError> {
    let stage = || "building examples".to_string();
    let mut ticks = 0usize;
    let mut tick = || -> Result<(), SyntaxError> {
        ticks += 1;
        if ticks.is_multiple_of(DEADLINE_STRIDE) {
            deadline.check(source, stage)?;
        }
        Ok(())
    };
    deadline.check(source, stage)?;
    let mut out = FileExamples::default();
    let mut by_query: BTreeMap<&str, Vec<&FindingRecord>> = BTreeMap::new();
    for finding in findings {
        by_query.entry(finding.query).or_default().push(finding);
    }
    for (query, findings) in by_query {
        let positive_blocks: HashSet<usize> = findings
            .iter()
            .filter(|f| f.example_type == 1)
            .flat_map(|f| f.answer_spans.iter().chain(&f.supporting_fact_spans))
            .filter_map(|s| blocks.block_of_line(s.start_line).map(|b| b.index))
            .collect();
        // Group by (polarity, relevant blocks).
        let mut groups: BTreeMap<GroupKey, (UniqueSpans<'_>, UniqueSpans<'_>)> = BTreeMap::new();
        for f in &findings {
            tick()?;
            let key = (f.example_type, f.relevant_blocks.iter().map(|b| b.index).collect::<Vec<_>>());
            let entry = groups.entry(key).or_default();
            if f.example_type == 1 {
                entry.0.extend(&f.answer_spans);
                entry.1.extend(&f.supporting_fact_spans);
            }
        }
        for ((example_type, indices), (answers, facts)) in groups.into_iter().rev() {
            tick()?;
            if example_type == 0 && indices.iter().any(|i| positive_blocks.contains(i)) {
                continue;
            }
            let context: Vec<&CodeBlock> = indices.iter().filter_map(|&i| blocks.all().get(i)).collect();
            if context.is_empty() {
                continue;
            }
            let (answers, facts) = (answers.into_sorted(), facts.into_sorted());
            out.ideal.push(make_example(file, path, query, example_type == 1, &context, answers, facts));
        }
        // File level: all blocks, all positive spans together.
        let all: Vec<&CodeBlock> = blocks.all().iter().collect();
        let mut answers = UniqueSpans::default();
        let mut facts = UniqueSpans::default();
        for f in findings.iter().filter(|f| f.example_type == 1) {
            answers.extend(&f.answer_spans);
            facts.extend(&f.supporting_fact_spans);
        }
        let (answers, facts) = (answers.into_sorted(), facts.into_sorted());
        let positive = !answers.is_empty();
        // Relevant blocks: those any finding of the query needs.
        let mut relevant: Vec<usize> =
            findings.iter().flat_map(|f| f.relevant_blocks.iter().map(|b| b.index)).collect();
        relevant.sort_unstable();
        relevant.dedup();
        deadline.check(source, stage)?;
        let mut file_level = make_example(file, path, query, positive, &all, answers, facts);
        file_level.relevant_blocks = relevant.clone();
        file_level.id = format!("{path}#Q{}#file", find_query(query).map_or(0, |q| q.meta.index));
        out.file_level.push(file_level);
        // Relevance rows: every block, labelled by that relevance.
        for block in blocks.all() {
            tick()?;
            out.relevance.push(RelevanceRow {
                query_name: query.to_string(),
                code_file_path: path.to_string(),
                context_block: context_block(file, block),
                relevance_label: u8::from(relevant.binary_search(&block.index).is_ok()),
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
    Ok(out)
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::AtomicBool;
    use std::sync::Arc;

    use quarry_query::report::analyze_parsed;
    use quarry_query::{find_query, Polarity};
    use quarry_stdx::rng::SplitMix64;
    use quarry_syntax::{code_blocks, BlockKind, Language, SourceFile};

    use super::*;

    /// The accumulation this module did before [`UniqueSpans`]: a scan for each span and
    /// a stable sort after each finding.
    fn push_unique_reference(target: &mut Vec<SpanRecord>, spans: &[SpanRecord]) {
        for span in spans {
            if !target.contains(span) {
                target.push(span.clone());
            }
        }
        target.sort_by_key(|s| (s.start_line, s.start_column, s.end_line, s.end_column));
    }

    fn span(rng: &mut SplitMix64, lines: usize) -> SpanRecord {
        let start_line = rng.below(lines);
        SpanRecord {
            // Few texts and positions, so that equal positions with other texts occur.
            span: ["a", "b", "c"][rng.below(3)].to_string(),
            start_line,
            start_column: rng.below(3),
            end_line: start_line + rng.below(3),
            end_column: rng.below(3),
        }
    }

    #[test]
    fn unique_spans_keep_the_order_and_the_spans_of_the_scan_and_sort() {
        let mut rng = SplitMix64::new(7);
        for _ in 0..200 {
            let findings: Vec<Vec<SpanRecord>> = (0..rng.below(12))
                .map(|_| {
                    let n = rng.below(6);
                    (0..n).map(|_| span(&mut rng, 4)).collect()
                })
                .collect();
            let mut reference = Vec::new();
            let mut unique = UniqueSpans::default();
            for spans in &findings {
                push_unique_reference(&mut reference, spans);
                unique.extend(spans);
            }
            assert_eq!(unique.into_sorted(), reference);
        }
    }

    fn block(index: usize, lines: Vec<LineRun>) -> CodeBlock {
        CodeBlock {
            index,
            kind: BlockKind::ModuleLevel,
            name: String::new(),
            class_header: None,
            lines,
            definition: None,
        }
    }

    #[test]
    fn the_context_index_places_spans_as_the_scan_does() {
        let mut rng = SplitMix64::new(11);
        for round in 0..300 {
            // Lines 0..40 dealt to up to five blocks (some lines to none), as runs.
            let count = 1 + rng.below(5);
            let mut owner: Vec<Option<usize>> = Vec::new();
            for _ in 0..40 {
                owner.push((rng.below(5) != 0).then(|| rng.below(count)));
            }
            let mut blocks: Vec<CodeBlock> = (0..count).map(|i| block(i, Vec::new())).collect();
            for (line, owner) in owner.iter().enumerate() {
                let Some(b) = owner else { continue };
                match blocks[*b].lines.last_mut() {
                    Some(run) if run.end + 1 == line => run.end = line,
                    _ => blocks[*b].lines.push(LineRun { start: line, end: line }),
                }
            }
            if round % 10 == 0 {
                // Runs out of order and overlapping: the index must fall back.
                blocks[0].lines.reverse();
                blocks[0].lines.push(LineRun { start: 3, end: 9 });
            }
            let mut context: Vec<&CodeBlock> = blocks.iter().filter(|_| rng.below(4) != 0).collect();
            if round % 7 == 0 && !context.is_empty() {
                context.push(context[0]);
            }
            let index = ContextIndex::new(&context);
            for _ in 0..30 {
                let s = span(&mut rng, 45);
                assert_eq!(index.span(&s), span_in_blocks(&s, &context), "{s:?} in round {round}");
            }
        }
    }

    const BARE_EXCEPTS: &str = "def f():\n    try:\n        pass\n    except:\n        pass\n";

    fn generated(functions: usize) -> String {
        (0..functions).map(|i| BARE_EXCEPTS.replace("f()", &format!("f{i}()"))).collect()
    }

    fn bare_except_findings(text: String) -> (ParsedFile, Blocks, Vec<FindingRecord>) {
        let file = ParsedFile::parse(SourceFile::from_text("gen.py", text), Language::Python).unwrap();
        let blocks = code_blocks(&file);
        let queries = vec![find_query("Q17").unwrap()];
        let report = analyze_parsed(&file, &queries, &[Polarity::Positive, Polarity::Negative]);
        (file, blocks, report.findings)
    }

    #[test]
    fn a_file_with_many_findings_gives_every_span_once_in_order() {
        let functions = 3_000;
        let (file, blocks, findings) = bare_except_findings(generated(functions));
        assert_eq!(blocks.all().len(), functions);
        let positives = findings.iter().filter(|f| f.example_type == 1).count();
        assert_eq!(positives, functions, "one bare except per function");
        let examples = file_examples(&file, &blocks, "gen.py", &findings);
        let [file_level] = examples.file_level.as_slice() else { panic!("one query, one file-level example") };
        assert_eq!(file_level.answer_spans.len(), functions);
        let lines: Vec<usize> = file_level.answer_spans.iter().map(|s| s.start_line).collect();
        assert!(lines.windows(2).all(|w| w[0] < w[1]), "sorted by position, each once");
        // In the file-level example every block is context: block i holds function i.
        for (i, (span, in_blocks)) in file_level.answer_spans.iter().zip(&file_level.answer_spans_in_blocks).enumerate()
        {
            assert_eq!(in_blocks.block, i);
            assert_eq!(in_blocks.start_line, span.start_line - 5 * i);
        }
        assert_eq!(examples.ideal.iter().filter(|e| e.example_type == 1).count(), functions);
        assert_eq!(examples.relevance.len(), functions);
        assert!(examples.relevance.iter().all(|row| row.relevance_label == 1));
    }

    #[test]
    fn example_building_stops_at_a_passed_deadline() {
        let (file, blocks, findings) = bare_except_findings(generated(50));
        let flag = Arc::new(AtomicBool::new(true));
        let deadline = Deadline::unlimited().cancelled_by(flag);
        let error = file_examples_within(&file, &blocks, "gen.py", &findings, &deadline, Path::new("gen.py"))
            .err()
            .expect("a cancelled deadline stops the work");
        assert!(matches!(error, SyntaxError::Cancelled { .. }), "{error}");
        let open = Deadline::unlimited().cancelled_by(Arc::new(AtomicBool::new(false)));
        let built = file_examples_within(&file, &blocks, "gen.py", &findings, &open, Path::new("gen.py")).unwrap();
        assert_eq!(built.ideal.len(), 50);
    }
}
