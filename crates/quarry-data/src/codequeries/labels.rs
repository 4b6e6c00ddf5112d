//! Subtokenized model inputs and B/I/O/F labels for a Hugging Face tokenizer
//! (`tokenizer.json`): `[CLS] query [SEP] block [SEP] block ... [SEP]`,
//! pruned to a maximum length, and the decoding of labels back to spans.

use std::path::Path;

use tokenizers::Tokenizer;

use super::schema::{label, BlockSpan, Example, RelevanceRow};
use crate::error::DataError;

/// A tokenizer with the special tokens of its family (`[CLS]`/`[SEP]` for
/// BERT, `<s>`/`</s>` for RoBERTa).
pub struct Subtokenizer {
    tokenizer: Tokenizer,
    cls: String,
    sep: String,
}

/// A subtoken with its character offsets in the text it came from.
type Piece = (String, usize, usize);

/// Subtokens already computed for one file: each block is tokenized once,
/// however many examples and relevance rows contain it.
#[derive(Default)]
pub struct TokenCache {
    blocks: std::collections::HashMap<(usize, usize), std::rc::Rc<Vec<Piece>>>,
    names: std::collections::HashMap<String, std::rc::Rc<Vec<Piece>>>,
}

/// A span as a character range inside one block's content, with its kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct CharSpan {
    /// Position of the block in the example's context.
    pub block: usize,
    /// First character, counted from the start of the block content.
    pub start: usize,
    /// One past the last character.
    pub end: usize,
    /// True for a supporting fact, false for an answer.
    pub fact: bool,
}

impl Subtokenizer {
    /// Loads `tokenizer.json` from a directory (or the file itself).
    pub fn load(path: &Path) -> Result<Subtokenizer, DataError> {
        let file = if path.is_dir() { path.join("tokenizer.json") } else { path.to_path_buf() };
        let mut tokenizer = Tokenizer::from_file(&file)
            .map_err(|e| DataError::Tokenizer { path: file.clone(), message: e.to_string() })?;
        // Inputs are assembled and pruned here; the file's own padding and
        // truncation settings would distort them.
        tokenizer.with_padding(None);
        tokenizer
            .with_truncation(None)
            .map_err(|e| DataError::Tokenizer { path: file.clone(), message: e.to_string() })?;
        let has = |t: &str| tokenizer.token_to_id(t).is_some();
        let (cls, sep) = if has("[CLS]") && has("[SEP]") {
            ("[CLS]", "[SEP]")
        } else if has("<s>") && has("</s>") {
            ("<s>", "</s>")
        } else {
            return Err(DataError::Tokenizer { path: file, message: "no [CLS]/[SEP] or <s>/</s> tokens".into() });
        };
        Ok(Subtokenizer { tokenizer, cls: cls.into(), sep: sep.into() })
    }

    /// Subtokens of `text` with their character offsets, without special tokens.
    fn pieces(&self, text: &str) -> Result<Vec<(String, usize, usize)>, DataError> {
        let encoding = self
            .tokenizer
            .encode_char_offsets(text, false)
            .map_err(|e| DataError::Tokenizer { path: "tokenizer.json".into(), message: e.to_string() })?;
        Ok(encoding.get_tokens().iter().zip(encoding.get_offsets()).map(|(t, &(s, e))| (t.clone(), s, e)).collect())
    }

    /// The subtokens of a block, from the cache when the same block (file
    /// index and length) was tokenized before.
    fn block_pieces(
        &self,
        cache: &mut TokenCache,
        index: usize,
        content: &str,
    ) -> Result<std::rc::Rc<Vec<Piece>>, DataError> {
        let key = (index, content.len());
        if let Some(pieces) = cache.blocks.get(&key) {
            return Ok(pieces.clone());
        }
        let pieces = std::rc::Rc::new(self.pieces(content)?);
        cache.blocks.insert(key, pieces.clone());
        Ok(pieces)
    }

    fn name_pieces(&self, cache: &mut TokenCache, name: &str) -> Result<std::rc::Rc<Vec<Piece>>, DataError> {
        if let Some(pieces) = cache.names.get(name) {
            return Ok(pieces.clone());
        }
        let pieces = std::rc::Rc::new(self.pieces(name)?);
        cache.names.insert(name.to_string(), pieces.clone());
        Ok(pieces)
    }

    /// Fills `subtokenized_input_sequence`, `label_sequence`, `pruned` and
    /// `spans_after_pruning` of an example, pruning to `max_len` subtokens.
    pub fn label_example(&self, example: &mut Example, max_len: usize) -> Result<(), DataError> {
        self.label_example_cached(example, max_len, &mut TokenCache::default())
    }

    /// [`Subtokenizer::label_example`] with a cache shared by the examples of
    /// one file (a cache must not be shared across files).
    pub fn label_example_cached(
        &self,
        example: &mut Example,
        max_len: usize,
        cache: &mut TokenCache,
    ) -> Result<(), DataError> {
        let spans = char_spans(example);
        let mut tokens = vec![self.cls.clone()];
        let mut labels = vec![label::IGNORE];
        for (token, _, _) in self.name_pieces(cache, &example.query_name)?.iter() {
            tokens.push(token.clone());
            labels.push(label::IGNORE);
        }
        tokens.push(self.sep.clone());
        labels.push(label::IGNORE);
        // For each span, where its tokens are: to count survivors after pruning.
        let mut span_tokens: Vec<Vec<usize>> = vec![Vec::new(); spans.len()];
        for (position, block) in example.context_blocks.iter().enumerate() {
            let mut started = vec![false; spans.len()];
            for (token, start, end) in self.block_pieces(cache, block.index, &block.content)?.iter() {
                let (start, end) = (*start, *end);
                let mut value = label::O;
                for (i, span) in spans.iter().enumerate() {
                    if span.block == position && start < span.end && end > span.start {
                        value = if started[i] {
                            label::I
                        } else if span.fact {
                            label::F
                        } else {
                            label::B
                        };
                        started[i] = true;
                        span_tokens[i].push(tokens.len());
                        break;
                    }
                }
                tokens.push(token.clone());
                labels.push(value);
            }
            tokens.push(self.sep.clone());
            labels.push(label::IGNORE);
        }
        let max_len = max_len.max(2);
        example.pruned = tokens.len() > max_len;
        if example.pruned {
            tokens.truncate(max_len - 1);
            labels.truncate(max_len - 1);
            tokens.push(self.sep.clone());
            labels.push(label::IGNORE);
        }
        let kept = |i: &usize| *i < max_len - 1 || !example.pruned;
        example.spans_after_pruning =
            Some(span_tokens.iter().filter(|toks| !toks.is_empty() && toks.iter().all(kept)).count());
        example.subtokenized_input_sequence = tokens;
        example.label_sequence = labels;
        Ok(())
    }

    /// Fills the subtokens of a relevance row: `[CLS] query [SEP] block [SEP]`,
    /// pruned, with a cache shared by the rows of one file.
    pub fn tokenize_row(
        &self,
        row: &mut RelevanceRow,
        max_len: usize,
        cache: &mut TokenCache,
    ) -> Result<(), DataError> {
        let mut tokens = vec![self.cls.clone()];
        tokens.extend(self.name_pieces(cache, &row.query_name)?.iter().map(|p| p.0.clone()));
        tokens.push(self.sep.clone());
        let block = &row.context_block;
        tokens.extend(self.block_pieces(cache, block.index, &block.content)?.iter().map(|p| p.0.clone()));
        tokens.truncate(max_len.max(2) - 1);
        tokens.push(self.sep.clone());
        row.subtokenized_input_sequence = tokens;
        Ok(())
    }

    /// Decodes a label sequence back to character spans in the example's
    /// blocks: a B or F label starts a span, following I labels extend it.
    pub fn decode_labels(&self, example: &Example) -> Result<Vec<CharSpan>, DataError> {
        let mut offsets: Vec<Option<(usize, usize, usize)>> = Vec::new();
        offsets.push(None);
        offsets.extend(self.pieces(&example.query_name)?.iter().map(|_| None));
        offsets.push(None);
        for (position, block) in example.context_blocks.iter().enumerate() {
            offsets.extend(self.pieces(&block.content)?.into_iter().map(|(_, s, e)| Some((position, s, e))));
            offsets.push(None);
        }
        let mut spans: Vec<CharSpan> = Vec::new();
        let mut open: Option<CharSpan> = None;
        for (value, offset) in example.label_sequence.iter().zip(offsets) {
            match (value, offset) {
                (&label::B | &label::F, Some((block, start, end))) => {
                    spans.extend(open.take());
                    open = Some(CharSpan { block, start, end, fact: *value == label::F });
                }
                (&label::I, Some((block, _, end))) => {
                    if let Some(span) = open.as_mut().filter(|s| s.block == block) {
                        span.end = end;
                    }
                }
                _ => spans.extend(open.take()),
            }
        }
        spans.extend(open);
        spans.sort();
        Ok(spans)
    }
}

/// The answer and fact spans of an example as character ranges in its blocks.
pub fn char_spans(example: &Example) -> Vec<CharSpan> {
    let mut spans = Vec::new();
    for (list, fact) in [(&example.answer_spans_in_blocks, false), (&example.supporting_fact_spans_in_blocks, true)] {
        for span in list.iter() {
            if let Some(block) = example.context_blocks.get(span.block) {
                if let (Some(start), Some(end)) = (
                    char_offset(&block.content, span.start_line, span.start_column),
                    char_offset(&block.content, span.end_line, span.end_column),
                ) {
                    spans.push(CharSpan { block: span.block, start, end, fact });
                }
            }
        }
    }
    spans.sort();
    spans
}

/// Character offset of a (line, column) position inside a block's content.
pub fn char_offset(content: &str, line: usize, column: usize) -> Option<usize> {
    let mut offset = 0;
    let mut current = 0;
    let mut chars = content.chars().peekable();
    while current < line {
        match chars.next()? {
            '\n' => current += 1,
            '\r' if chars.peek() != Some(&'\n') => current += 1,
            _ => {}
        }
        offset += 1;
    }
    Some(offset + column)
}

/// The span of a [`BlockSpan`] as text of its block, for checks.
pub fn block_span_text(example: &Example, span: &BlockSpan) -> Option<String> {
    let block = example.context_blocks.get(span.block)?;
    let start = char_offset(&block.content, span.start_line, span.start_column)?;
    let end = char_offset(&block.content, span.end_line, span.end_column)?;
    Some(block.content.chars().skip(start).take(end.checked_sub(start)?).collect())
}
