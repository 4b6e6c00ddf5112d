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
    /// A stable hash of the tokenizer (its JSON), which tells two tokenizers apart.
    pub fn fingerprint(&self) -> u64 {
        quarry_stdx::rng::stable_hash(&self.tokenizer.to_string(false).unwrap_or_default())
    }

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

    /// The whole, unpruned input of an example, `[CLS] query [SEP] block [SEP]
    /// block ... [SEP]`, with every subtoken's label and origin.
    pub fn labeled_input(&self, example: &Example, cache: &mut TokenCache) -> Result<LabeledInput, DataError> {
        let spans = char_spans(example);
        let mut input = LabeledInput::default();
        input.push(&self.cls, label::IGNORE, None);
        for (token, _, _) in self.name_pieces(cache, &example.query_name)?.iter() {
            input.push(token, label::IGNORE, None);
        }
        input.push(&self.sep, label::IGNORE, None);
        input.query_end = input.tokens.len();
        input.span_tokens = vec![Vec::new(); spans.len()];
        for (position, block) in example.context_blocks.iter().enumerate() {
            let first = input.tokens.len();
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
                        input.span_tokens[i].push(input.tokens.len());
                        break;
                    }
                }
                input.push(token, value, Some(TokenOrigin { block: position, start, end }));
            }
            input.push(&self.sep, label::IGNORE, None);
            input.blocks.push(first..input.tokens.len());
        }
        Ok(input)
    }

    /// [`Subtokenizer::label_example`] with a cache shared by the examples of
    /// one file (a cache must not be shared across files).
    pub fn label_example_cached(
        &self,
        example: &mut Example,
        max_len: usize,
        cache: &mut TokenCache,
    ) -> Result<(), DataError> {
        let LabeledInput { mut tokens, labels: mut values, span_tokens, .. } = self.labeled_input(example, cache)?;
        let max_len = max_len.max(2);
        example.pruned = tokens.len() > max_len;
        if example.pruned {
            tokens.truncate(max_len - 1);
            values.truncate(max_len - 1);
            tokens.push(self.sep.clone());
            values.push(label::IGNORE);
        }
        let kept = |i: &usize| *i < max_len - 1 || !example.pruned;
        example.spans_after_pruning =
            Some(span_tokens.iter().filter(|toks| !toks.is_empty() && toks.iter().all(kept)).count());
        example.subtokenized_input_sequence = tokens;
        example.label_sequence = values;
        Ok(())
    }

    /// The separator token (`[SEP]` or `</s>`).
    pub fn separator(&self) -> &str {
        &self.sep
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

    /// Decodes the example's label sequence back to character spans in its
    /// blocks: a B or F label starts a span, following I labels extend it.
    pub fn decode_labels(&self, example: &Example) -> Result<Vec<CharSpan>, DataError> {
        let input = self.labeled_input(example, &mut TokenCache::default())?;
        Ok(decode_spans(&example.label_sequence, &input.origins))
    }
}

/// Where a subtoken of a block comes from: the block's position in the
/// example's context and the subtoken's character range in its content.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TokenOrigin {
    /// Position of the block in the example's context.
    pub block: usize,
    /// First character, counted from the start of the block content.
    pub start: usize,
    /// One past the last character.
    pub end: usize,
}

/// A whole model input with its labels, before any pruning.
#[derive(Debug, Clone, Default)]
pub struct LabeledInput {
    /// Subtokens, special tokens included.
    pub tokens: Vec<String>,
    /// One label per subtoken, in the public encoding (B=0 … IGNORE=4).
    pub labels: Vec<u8>,
    /// Where each subtoken comes from (`None` for special and query tokens).
    pub origins: Vec<Option<TokenOrigin>>,
    /// Index of the first token after `[CLS] query [SEP]`.
    pub query_end: usize,
    /// Per context block, its token range including the closing separator.
    pub blocks: Vec<std::ops::Range<usize>>,
    /// Per gold span (in [`char_spans`] order), the tokens it labels.
    pub span_tokens: Vec<Vec<usize>>,
}

impl LabeledInput {
    fn push(&mut self, token: &str, value: u8, origin: Option<TokenOrigin>) {
        self.tokens.push(token.to_string());
        self.labels.push(value);
        self.origins.push(origin);
    }
}

/// Decodes labels (public encoding) over tokens of known origin into
/// character spans: B or F starts a span, following I labels on the same
/// block extend it; anything else (or a token without origin) closes it.
pub fn decode_spans(labels: &[u8], origins: &[Option<TokenOrigin>]) -> Vec<CharSpan> {
    let mut spans: Vec<CharSpan> = Vec::new();
    let mut open: Option<CharSpan> = None;
    for (value, origin) in labels.iter().zip(origins) {
        match (*value, origin) {
            (label::B | label::F, Some(o)) => {
                spans.extend(open.take());
                open = Some(CharSpan { block: o.block, start: o.start, end: o.end, fact: *value == label::F });
            }
            (label::I, Some(o)) => {
                if let Some(span) = open.as_mut().filter(|s| s.block == o.block) {
                    span.end = o.end;
                } else {
                    // A stray I opens an answer span, as the model's span decoder does.
                    spans.extend(open.take());
                    open = Some(CharSpan { block: o.block, start: o.start, end: o.end, fact: false });
                }
            }
            _ => spans.extend(open.take()),
        }
    }
    spans.extend(open);
    spans.sort();
    spans
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

/// The file position (0-based line, character column) of a character
/// offset inside a block's content, through the block's line runs; `None`
/// past the block's last line.
pub fn file_position(block: &super::schema::ContextBlock, offset: usize) -> Option<(usize, usize)> {
    let (mut line, mut column) = (0, 0);
    let mut chars = block.content.chars().peekable();
    for _ in 0..offset {
        match chars.next()? {
            '\n' => (line, column) = (line + 1, 0),
            '\r' if chars.peek() != Some(&'\n') => (line, column) = (line + 1, 0),
            _ => column += 1,
        }
    }
    let mut remaining = line;
    for run in &block.lines {
        let count = run.end - run.start + 1;
        if remaining < count {
            return Some((run.start + remaining, column));
        }
        remaining -= count;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codequeries::schema::ContextBlock;
    use quarry_syntax::LineRun;

    #[test]
    fn block_offsets_map_to_file_positions_across_line_runs() {
        // A method block made of file lines 3-4 and 9 (a nested class was left out).
        let block = ContextBlock {
            content: "    def f(self):\r\n        x = 1\n        return x\n".into(),
            metadata: "root.C.f".into(),
            header: "class C:".into(),
            index: 2,
            lines: vec![LineRun { start: 3, end: 4 }, LineRun { start: 9, end: 9 }],
        };
        assert_eq!(file_position(&block, 8), Some((3, 8)));
        let x = block.content.find("x = 1").unwrap();
        assert_eq!(file_position(&block, x), Some((4, 8)));
        let ret = block.content.find("return").unwrap();
        assert_eq!(file_position(&block, ret + 6), Some((9, 14)));
        assert_eq!(file_position(&block, block.content.chars().count()), None);
        assert_eq!(char_offset(&block.content, 2, 8), Some(ret));
    }

    #[test]
    fn decoding_follows_the_paper_layout() {
        let o = |block, start| Some(TokenOrigin { block, start, end: start + 2 });
        let origins = [None, o(0, 0), o(0, 2), o(0, 4), o(0, 6), None, o(1, 0), o(1, 2)];
        let labels = [label::IGNORE, label::B, label::I, label::F, label::I, label::IGNORE, label::I, label::O];
        let spans = decode_spans(&labels, &origins);
        assert_eq!(
            spans,
            vec![
                CharSpan { block: 0, start: 0, end: 4, fact: false },
                CharSpan { block: 0, start: 4, end: 8, fact: true },
                CharSpan { block: 1, start: 0, end: 2, fact: false },
            ]
        );
    }
}
