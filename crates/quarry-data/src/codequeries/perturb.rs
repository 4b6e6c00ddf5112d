//! Minor syntax errors for robustness tests (paper Section 5.2.3): up to a
//! few edits per example — wrong indentation, a dropped or extra bracket or
//! colon, a missing keyword or operator — placed with a bias towards the
//! start of the code, never inside a ground-truth span, keeping every span
//! position correct. Each edit stays on one line, so only columns after the
//! edit on that line move.

use std::path::Path;

use quarry_stdx::rng::SplitMix64;
use quarry_stdx::AtomicFile;
use quarry_syntax::python_lexer::PYTHON_KEYWORDS;
use quarry_syntax::{tokenize, Language, SpanRecord, TokenKind};

use super::labels::{block_span_text, Subtokenizer};
use super::schema::Example;
use crate::error::DataError;
use crate::jsonl::{open_lines, stream_records};

/// How to perturb.
#[derive(Debug, Clone, Copy)]
pub struct PerturbOptions {
    /// Edits per example: between 1 and this many.
    pub max_edits: usize,
    /// Attempts per example before it is dropped.
    pub retries: usize,
}

impl Default for PerturbOptions {
    fn default() -> Self {
        PerturbOptions { max_edits: 3, retries: 5 }
    }
}

/// What [`perturb_file`] did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PerturbSummary {
    /// Examples perturbed and written.
    pub perturbed: usize,
    /// Examples with no valid perturbation, left out.
    pub dropped: usize,
    /// Lines that were not an example, reported to `on_bad` and left out.
    pub bad: usize,
}

/// Perturbs every example of the JSON Lines file `input` (`.gz` read) into `output`
/// (written atomically): example `n` (the 0-based line) draws from
/// `SplitMix64::new(seed ^ n * 0x9E37_79B9)`, examples with no valid perturbation are
/// dropped, and with `labels` the perturbed code is labelled again for that tokenizer and
/// maximum length. A line that is not an example goes to `on_bad`, which may stop the run
/// by returning the error.
pub fn perturb_file(
    input: &Path,
    output: &Path,
    seed: u64,
    options: &PerturbOptions,
    labels: Option<(&Subtokenizer, usize)>,
    on_bad: &mut dyn FnMut(DataError) -> Result<(), DataError>,
) -> Result<PerturbSummary, DataError> {
    let mut out = AtomicFile::create(output)?;
    let mut summary = PerturbSummary::default();
    for item in stream_records::<Example>(open_lines(input)?, input) {
        let (line, record) = item?;
        let number = line - 1;
        let mut example = match record {
            Ok(e) => e,
            Err(e) => {
                summary.bad += 1;
                on_bad(DataError::BadRecord { path: input.to_path_buf(), line, message: e.to_string() })?;
                continue;
            }
        };
        let mut rng = SplitMix64::new(seed ^ (number as u64).wrapping_mul(0x9E37_79B9));
        if perturb_example(&mut example, &mut rng, options).is_none() {
            summary.dropped += 1;
            continue;
        }
        if let Some((tokenizer, max_len)) = labels {
            tokenizer.label_example(&mut example, max_len)?;
        }
        out.write_json_line(&example)?;
        summary.perturbed += 1;
    }
    out.commit()?;
    Ok(summary)
}

/// The kinds of edit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EditKind {
    /// Spaces added to or removed from the start of a line.
    Indentation,
    /// A bracket or colon removed.
    DropBracketOrColon,
    /// A bracket or colon inserted.
    ExtraBracketOrColon,
    /// A keyword or operator removed.
    MissingKeywordOrOperator,
}

/// One single-line edit in block coordinates: replace `delete` characters at
/// `column` of `line` in block `block` with `insert`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Edit {
    /// What kind of error it introduces.
    pub kind: EditKind,
    /// Position of the block in the example's context.
    pub block: usize,
    /// Line within the block.
    pub line: usize,
    /// Character column.
    pub column: usize,
    /// Characters removed.
    pub delete: usize,
    /// Text inserted.
    pub insert: String,
}

/// Applies 1 to `max_edits` random edits. Returns the edits made, or `None`
/// when no attempt produced code that still tokenizes (the example is then
/// left unchanged and should be dropped).
pub fn perturb_example(example: &mut Example, rng: &mut SplitMix64, options: &PerturbOptions) -> Option<Vec<Edit>> {
    let texts_before = span_texts(example);
    for _ in 0..options.retries.max(1) {
        let mut candidate = example.clone();
        let wanted = 1 + rng.below_modulo(options.max_edits.max(1));
        let mut edits = Vec::new();
        let mut attempts = 0;
        while edits.len() < wanted && attempts < 50 {
            attempts += 1;
            if let Some(edit) = propose_edit(&candidate, rng) {
                apply_edit(&mut candidate, &edit);
                edits.push(edit);
            }
        }
        if edits.is_empty() || !still_tokenizes(example, &candidate) || span_texts(&candidate) != texts_before {
            continue;
        }
        *example = candidate;
        return Some(edits);
    }
    None
}

fn span_texts(example: &Example) -> Vec<Option<String>> {
    example
        .answer_spans_in_blocks
        .iter()
        .chain(&example.supporting_fact_spans_in_blocks)
        .map(|s| block_span_text(example, s))
        .collect()
}

/// A perturbation must not create text the lexer cannot read (an
/// unterminated string, a stray character) where there was none.
fn still_tokenizes(before: &Example, after: &Example) -> bool {
    let errors = |e: &Example| -> usize {
        e.context_blocks
            .iter()
            .map(|b| tokenize(&b.content, Language::Python).iter().filter(|t| t.kind == TokenKind::Error).count())
            .sum()
    };
    errors(after) <= errors(before)
}

/// Picks a line with a bias towards the start (index = n·u², u uniform),
/// then an edit on it that touches no span.
fn propose_edit(example: &Example, rng: &mut SplitMix64) -> Option<Edit> {
    let lines: Vec<(usize, usize, &str)> = example
        .context_blocks
        .iter()
        .enumerate()
        .flat_map(|(b, block)| block.content.lines().enumerate().map(move |(l, text)| (b, l, text)))
        .filter(|(_, _, text)| !text.trim().is_empty())
        .collect();
    if lines.is_empty() {
        return None;
    }
    let u = rng.unit();
    let (block, line, text) = lines[((lines.len() as f64) * u * u) as usize % lines.len()];
    let chars: Vec<char> = text.chars().collect();
    let kind = [
        EditKind::Indentation,
        EditKind::DropBracketOrColon,
        EditKind::ExtraBracketOrColon,
        EditKind::MissingKeywordOrOperator,
    ][rng.below_modulo(4)];
    let (column, delete, insert) = match kind {
        EditKind::Indentation => {
            let indent = chars.iter().take_while(|c| **c == ' ').count();
            if indent >= 2 && rng.below_modulo(2) == 0 {
                (0, 1 + rng.below_modulo(2), String::new())
            } else {
                (0, 0, " ".repeat(1 + rng.below_modulo(3)))
            }
        }
        EditKind::DropBracketOrColon => {
            let candidates: Vec<usize> =
                chars.iter().enumerate().filter(|(_, c)| "()[]{}:".contains(**c)).map(|(i, _)| i).collect();
            let column = *candidates.get(rng.below_modulo(candidates.len().max(1)))?;
            (column, 1, String::new())
        }
        EditKind::ExtraBracketOrColon => {
            let column = rng.below_modulo(chars.len() + 1);
            (column, 0, ["(", ")", "[", "]", ":"][rng.below_modulo(5)].to_string())
        }
        EditKind::MissingKeywordOrOperator => {
            let tokens = tokenize(text, Language::Python);
            let candidates: Vec<(usize, usize)> = tokens
                .iter()
                .filter(|t| {
                    let word = t.text(text);
                    (t.kind == TokenKind::Keyword && PYTHON_KEYWORDS.contains(&word)) || t.kind == TokenKind::Operator
                })
                .map(|t| (text[..t.start].chars().count(), t.text(text).chars().count()))
                .collect();
            let (column, len) = *candidates.get(rng.below_modulo(candidates.len().max(1)))?;
            (column, len, String::new())
        }
    };
    let edit = Edit { kind, block, line, column, delete, insert };
    (!touches_span(example, &edit)).then_some(edit)
}

/// Whether an edit falls inside a ground-truth span (an insertion exactly at
/// a span's start or end is outside it).
fn touches_span(example: &Example, edit: &Edit) -> bool {
    let (from, to) = (edit.column, edit.column + edit.delete);
    example.answer_spans_in_blocks.iter().chain(&example.supporting_fact_spans_in_blocks).any(|s| {
        if s.block != edit.block || edit.line < s.start_line || edit.line > s.end_line {
            return false;
        }
        let span_from = if edit.line == s.start_line { s.start_column } else { 0 };
        let span_to = if edit.line == s.end_line { s.end_column } else { usize::MAX };
        if edit.delete == 0 {
            span_from < from && from < span_to
        } else {
            from < span_to && to > span_from
        }
    })
}

fn apply_edit(example: &mut Example, edit: &Edit) {
    let Some(block) = example.context_blocks.get_mut(edit.block) else { return };
    let mut out = String::with_capacity(block.content.len() + edit.insert.len());
    for (i, line) in block.content.split_inclusive('\n').enumerate() {
        if i == edit.line {
            let chars: Vec<char> = line.chars().collect();
            let column = edit.column.min(chars.len());
            out.extend(&chars[..column]);
            out.push_str(&edit.insert);
            out.extend(chars.iter().skip(column + edit.delete));
        } else {
            out.push_str(line);
        }
    }
    block.content = out;
    let file_line = block_line_to_file(&block.lines, edit.line);
    let delta = edit.insert.chars().count() as isize - edit.delete as isize;
    let shift = Shift { threshold: edit.column + edit.delete, delta, insertion: edit.delete == 0 };
    for span in example.answer_spans_in_blocks.iter_mut().chain(example.supporting_fact_spans_in_blocks.iter_mut()) {
        if span.block == edit.block {
            shift.apply(
                &mut span.start_line,
                &mut span.start_column,
                &mut span.end_line,
                &mut span.end_column,
                edit.line,
            );
        }
    }
    if let Some(file_line) = file_line {
        for span in example.answer_spans.iter_mut().chain(example.supporting_fact_spans.iter_mut()) {
            let SpanRecord { start_line, start_column, end_line, end_column, .. } = span;
            shift.apply(start_line, start_column, end_line, end_column, file_line);
        }
    }
}

/// How an edit moves the columns after it on its line.
struct Shift {
    threshold: usize,
    delta: isize,
    insertion: bool,
}

impl Shift {
    /// Moves a span's ends that lie after the edit on `line`. Text inserted
    /// exactly at a span's start goes before the span; at its end, after it.
    fn apply(&self, start_line: &mut usize, start: &mut usize, end_line: &mut usize, end: &mut usize, line: usize) {
        let moved = |column: usize| (column as isize + self.delta).max(0) as usize;
        if *start_line == line && *start >= self.threshold {
            *start = moved(*start);
        }
        let end_moves = if self.insertion { *end > self.threshold } else { *end >= self.threshold };
        if *end_line == line && end_moves {
            *end = moved(*end);
        }
    }
}

/// The file line of a line within a block, through the block's line runs.
fn block_line_to_file(runs: &[quarry_syntax::LineRun], mut line: usize) -> Option<usize> {
    for run in runs {
        let len = run.end - run.start + 1;
        if line < len {
            return Some(run.start + line);
        }
        line -= len;
    }
    None
}
