//! Answering a query over more code than the model takes at once: the settings of the
//! paper's Table 3 (Section 5.2). Every setting cuts model inputs ("windows") out of the
//! whole labeled input `[CLS] query [SEP] block [SEP] block ... [SEP]` of an example;
//! predictions go back to their positions in it, positions no window covers count as
//! outside, and exact match is taken over the whole input, so gold spans the model never
//! saw count against it.

use std::str::FromStr;

use quarry_data::codequeries::labels::{LabeledInput, Subtokenizer, TokenCache};
use quarry_data::codequeries::schema::label;
use quarry_data::codequeries::Example;

use crate::error::{ModelError, Result};
use crate::evaluation::eval_checks::EvalChecks;
use crate::evaluation::spans::{aligned, ExactMatch, ExampleGroup, Label};
use crate::models::span::SpanModel;

/// How a span model is applied to an example.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Setting {
    /// The example's context blocks (the relevant ones, in ideal examples), pruned to the
    /// model's length.
    Ideal,
    /// The longest prefix of the whole input the model takes.
    Prefix,
    /// Non-overlapping windows covering the whole input, each behind the query; results
    /// combined.
    SlidingWindow,
    /// A relevance classifier picks blocks; the span model reads the picked blocks.
    TwoStep,
    /// The union of the blocks relevant to the query (by the ground truth).
    FileIdeal,
}

impl Setting {
    /// Every setting, in the order of the paper's Table 3.
    pub const ALL: [Setting; 5] =
        [Setting::Ideal, Setting::Prefix, Setting::SlidingWindow, Setting::TwoStep, Setting::FileIdeal];

    /// The name used on the command line and in reports.
    pub fn name(self) -> &'static str {
        match self {
            Setting::Ideal => "ideal",
            Setting::Prefix => "prefix",
            Setting::SlidingWindow => "sliding-window",
            Setting::TwoStep => "two-step",
            Setting::FileIdeal => "file-ideal",
        }
    }
}

impl FromStr for Setting {
    type Err = ModelError;

    fn from_str(s: &str) -> Result<Setting> {
        Setting::ALL.into_iter().find(|setting| setting.name() == s).ok_or_else(|| {
            ModelError::Data(format!(
                "unknown setting `{s}` (expected ideal, prefix, sliding-window, two-step or file-ideal)"
            ))
        })
    }
}

/// Picks the blocks a span model should read: the first step of the two-step procedure.
pub trait BlockSelector {
    /// For every input `[CLS] query [SEP] block [SEP]` (sub-tokens), whether the block is
    /// relevant.
    fn relevant(&self, inputs: &[Vec<String>], batch_size: usize) -> Result<Vec<bool>>;
}

/// One model input: positions of the whole input, in order. The model reads their tokens
/// followed by a separator when the last one is not a separator already.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Window {
    /// Positions in the whole input.
    pub positions: Vec<usize>,
}

/// The query part `[CLS] query [SEP]`, cut to leave at least one position for code.
fn query_positions(input: &LabeledInput, max_len: usize) -> std::ops::Range<usize> {
    0..input.query_end.min(max_len.saturating_sub(2))
}

/// The longest prefix of `input` that fits in `max_len` with its closing separator.
pub fn prefix_window(input: &LabeledInput, max_len: usize) -> Window {
    let n = input.tokens.len();
    let take = if n <= max_len { n } else { max_len.saturating_sub(1) };
    Window { positions: (0..take).collect() }
}

/// Non-overlapping windows over everything after the query, each behind the query
/// and closed by a separator, as many as it takes to cover the input.
pub fn sliding_windows(input: &LabeledInput, max_len: usize) -> Vec<Window> {
    let query = query_positions(input, max_len);
    let room = max_len.saturating_sub(query.len() + 1).max(1);
    let body: Vec<usize> = (input.query_end..input.tokens.len()).collect();
    body.chunks(room).map(|chunk| Window { positions: query.clone().chain(chunk.iter().copied()).collect() }).collect()
}

/// The query and the chosen context blocks (positions in the example's context, each with
/// its separator), pruned to `max_len`.
pub fn blocks_window(input: &LabeledInput, blocks: &[usize], max_len: usize) -> Window {
    let mut positions: Vec<usize> = query_positions(input, max_len).collect();
    for range in blocks.iter().filter_map(|&b| input.blocks.get(b)) {
        positions.extend(range.clone());
    }
    if positions.len() > max_len {
        positions.truncate(max_len.saturating_sub(1));
    }
    Window { positions }
}

/// One relevance-classifier input per context block: `[CLS] query [SEP] block [SEP]`.
pub fn relevance_windows(input: &LabeledInput, max_len: usize) -> Vec<Window> {
    (0..input.blocks.len()).map(|b| blocks_window(input, &[b], max_len)).collect()
}

/// The sub-tokens a window feeds the model.
pub fn window_tokens(input: &LabeledInput, window: &Window, separator: &str) -> Vec<String> {
    let mut tokens: Vec<String> = window.positions.iter().map(|&p| input.tokens[p].clone()).collect();
    if tokens.last().map(String::as_str) != Some(separator) {
        tokens.push(separator.to_string());
    }
    tokens
}

/// Runs the span model on every window and puts the predictions back: one label per
/// position of the whole input, [`Label::O`] where no window reached.
pub fn predict_windows(
    model: &SpanModel,
    input: &LabeledInput,
    windows: &[Window],
    separator: &str,
    batch_size: usize,
) -> Result<Vec<Label>> {
    let ids = windows
        .iter()
        .map(|w| model.model.tokenizer.ids_of_tokens(&window_tokens(input, w, separator)))
        .collect::<Result<Vec<_>>>()?;
    let predicted = model.predict_labels(&ids, batch_size)?;
    let mut labels = vec![Label::O; input.tokens.len()];
    for (window, row) in windows.iter().zip(predicted) {
        for (&position, label) in window.positions.iter().zip(row) {
            // The query part repeats in every window; it carries no label.
            if input.origins[position].is_some() {
                labels[position] = label;
            }
        }
    }
    Ok(labels)
}

/// Everything a setting needs besides the span model.
pub struct Runner<'a> {
    /// The span model.
    pub span: &'a SpanModel,
    /// The tokenizer that lays out inputs (the span model's own `tokenizer.json`).
    pub subtokenizer: &'a Subtokenizer,
    /// The relevance classifier (two-step only).
    pub selector: Option<&'a dyn BlockSelector>,
    /// Longest model input, special tokens included.
    pub max_len: usize,
    /// Windows per forward pass.
    pub batch_size: usize,
}

impl Runner<'_> {
    /// The windows `setting` cuts out of `input`, the whole input of `example`.
    pub fn windows(&self, setting: Setting, example: &Example, input: &LabeledInput) -> Result<Vec<Window>> {
        let all: Vec<usize> = (0..input.blocks.len()).collect();
        Ok(match setting {
            Setting::Ideal => vec![blocks_window(input, &all, self.max_len)],
            Setting::Prefix => vec![prefix_window(input, self.max_len)],
            Setting::SlidingWindow => sliding_windows(input, self.max_len),
            Setting::FileIdeal => {
                let chosen: Vec<usize> = all
                    .into_iter()
                    .filter(|&b| example.relevant_blocks.contains(&example.context_blocks[b].index))
                    .collect();
                vec![blocks_window(input, &chosen, self.max_len)]
            }
            Setting::TwoStep => {
                let selector = self.selector.ok_or_else(|| {
                    ModelError::Data("the two-step setting needs a relevance model (--relevance-model)".into())
                })?;
                let candidates = relevance_windows(input, self.max_len);
                let separator = self.subtokenizer.separator();
                let inputs: Vec<Vec<String>> = candidates.iter().map(|w| window_tokens(input, w, separator)).collect();
                let keep = selector.relevant(&inputs, self.batch_size)?;
                let chosen: Vec<usize> = all.into_iter().filter(|&b| keep.get(b).copied().unwrap_or(false)).collect();
                if chosen.is_empty() {
                    Vec::new()
                } else {
                    vec![blocks_window(input, &chosen, self.max_len)]
                }
            }
        })
    }

    /// Predicted labels over the whole input of `example` in `setting`, with the input.
    pub fn predict(&self, setting: Setting, example: &Example) -> Result<(LabeledInput, Vec<Label>)> {
        self.predict_cached(setting, example, &mut TokenCache::default())
    }

    /// [`Runner::predict`] with a sub-token cache shared by the examples of one file, so
    /// each block is tokenized once however many queries read it.
    pub fn predict_cached(
        &self,
        setting: Setting,
        example: &Example,
        cache: &mut TokenCache,
    ) -> Result<(LabeledInput, Vec<Label>)> {
        let input = self
            .subtokenizer
            .labeled_input(example, cache)
            .map_err(|e| ModelError::Data(format!("{}: {e}", example.code_file_path)))?;
        let windows = self.windows(setting, example, &input)?;
        let labels = predict_windows(self.span, &input, &windows, self.subtokenizer.separator(), self.batch_size)?;
        Ok((input, labels))
    }

    /// Exact match of `setting` over `examples`; `on_example(done, total)` follows progress.
    pub fn evaluate(
        &self,
        setting: Setting,
        examples: &[Example],
        on_example: &mut dyn FnMut(usize, usize),
    ) -> Result<ExactMatch> {
        Ok(self.evaluate_checked(setting, examples, on_example)?.0)
    }

    /// [`Runner::evaluate`] with the predict-nothing baseline and the counts its warnings
    /// need ([`EvalChecks`]).
    pub fn evaluate_checked(
        &self,
        setting: Setting,
        examples: &[Example],
        on_example: &mut dyn FnMut(usize, usize),
    ) -> Result<(ExactMatch, EvalChecks)> {
        let mut em = ExactMatch::default();
        let mut checks = EvalChecks::default();
        for (i, example) in examples.iter().enumerate() {
            let (input, predicted) = self.predict(setting, example)?;
            let gold = gold_labels(&input.labels);
            let (p, g) = aligned(&predicted, &gold);
            let group = ExampleGroup { query: Some(&example.query_name), single_hop: Some(example.single_hop) };
            em.add_grouped(&p, &g, group);
            checks.add(&p, &g, None, Some(example.example_type == 1), group);
            on_example(i + 1, examples.len());
        }
        Ok((em, checks))
    }
}

/// Gold labels in the public encoding as model labels (`None` for ignored positions).
pub fn gold_labels(values: &[u8]) -> Vec<Option<Label>> {
    values.iter().map(|&v| if v == label::IGNORE { None } else { Label::from_index(v as usize) }).collect()
}

/// Model labels in the public encoding, [`label::IGNORE`] where the input has no origin.
pub fn public_labels(labels: &[Label], input: &LabeledInput) -> Vec<u8> {
    labels
        .iter()
        .zip(&input.origins)
        .map(|(l, origin)| if origin.is_some() { l.index() as u8 } else { label::IGNORE })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use quarry_data::codequeries::labels::TokenOrigin;

    /// `[CLS] q [SEP] a b c [SEP] d e [SEP]`: two blocks of three and two tokens.
    fn input() -> LabeledInput {
        let tokens = ["[CLS]", "q", "[SEP]", "a", "b", "c", "[SEP]", "d", "e", "[SEP]"];
        let code = |block, i| Some(TokenOrigin { block, start: i, end: i + 1 });
        LabeledInput {
            tokens: tokens.iter().map(|t| t.to_string()).collect(),
            labels: vec![4, 4, 4, 2, 0, 1, 4, 3, 2, 4],
            origins: vec![None, None, None, code(0, 0), code(0, 1), code(0, 2), None, code(1, 0), code(1, 1), None],
            query_end: 3,
            blocks: vec![3..7, 7..10],
            span_tokens: Vec::new(),
        }
    }

    fn positions(windows: &[Window]) -> Vec<Vec<usize>> {
        windows.iter().map(|w| w.positions.clone()).collect()
    }

    #[test]
    fn windows_of_each_setting() {
        let input = input();
        assert_eq!(prefix_window(&input, 100).positions, (0..10).collect::<Vec<_>>());
        assert_eq!(prefix_window(&input, 6).positions, vec![0, 1, 2, 3, 4]);
        // Room for 2 code tokens per window behind the 3 query tokens and a separator.
        let windows = sliding_windows(&input, 6);
        assert_eq!(
            positions(&windows),
            vec![vec![0, 1, 2, 3, 4], vec![0, 1, 2, 5, 6], vec![0, 1, 2, 7, 8], vec![0, 1, 2, 9]]
        );
        assert_eq!(blocks_window(&input, &[1], 100).positions, vec![0, 1, 2, 7, 8, 9]);
        assert_eq!(blocks_window(&input, &[0, 1], 6).positions, vec![0, 1, 2, 3, 4]);
        assert_eq!(positions(&relevance_windows(&input, 100)), vec![vec![0, 1, 2, 3, 4, 5, 6], vec![0, 1, 2, 7, 8, 9]]);
        let tokens = window_tokens(&input, &windows[0], "[SEP]");
        assert_eq!(tokens, vec!["[CLS]", "q", "[SEP]", "a", "b", "[SEP]"]);
        assert_eq!(window_tokens(&input, &windows[3], "[SEP]").len(), 4, "no second closing separator");
    }

    #[test]
    fn labels_convert_both_ways() {
        let input = input();
        let gold = gold_labels(&input.labels);
        assert_eq!(gold[..4], [None, None, None, Some(Label::O)]);
        assert_eq!(gold[7], Some(Label::F));
        let predicted = vec![Label::B; 10];
        assert_eq!(public_labels(&predicted, &input), vec![4, 4, 4, 0, 0, 0, 4, 0, 0, 4]);
        assert_eq!("two-step".parse::<Setting>().unwrap(), Setting::TwoStep);
        assert!("window".parse::<Setting>().is_err());
    }
}
