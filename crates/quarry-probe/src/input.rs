//! How a sample becomes an encoder's input ids, for every model family: INSPECT's rule (what
//! its feature extractor, `probe_extractor.py` of the paper's repository, does) or the
//! tokenizer's own special tokens.
//!
//! INSPECT's extractor, for every model: reads the last tab-separated field of the line,
//! stripped (backslashes stay doubled as the file has them); tokenizes it without special
//! tokens; cuts the sub-tokens to `L - 2` (Python's slice, so a negative bound drops tokens
//! from the end), where `L` is the longest tokenization in the whole dataset file, at most the
//! model's input length; puts the *strings* `[CLS]` and `[SEP]` around them and looks them up
//! with `convert_tokens_to_ids`: BERT's vocabularies have them, while RoBERTa's (CodeBERT,
//! GraphCodeBERT, CodeBERTa, UniXcoder), CodeT5's, CodeReviewer's and PLBART's do not, so
//! there both become the unknown token. Sequences are padded with id 0 to `L`. Encoder-only
//! models get the attention mask, so padding changes nothing; T5 and BART models are called
//! without one (`model(input_ids=...)`), so their encoders attend to the padding as to tokens,
//! and a sample's features depend on the dataset's longest sample. The extractor probes
//! position 0 (the `[CLS]` string's token) for every task; quarry probes KTX's token itself,
//! as the paper's section 3 says (`encoder::ProbedToken`).

use std::str::FromStr;

use quarry_model::{Family, Tokenizer};

use crate::dataset::Sample;
use crate::error::{ProbeError, Result};

/// How samples become input ids.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum InputRule {
    /// INSPECT's extractor, for every family (the module doc says how).
    #[default]
    Inspect,
    /// The tokenizer's own special tokens (BERT `[CLS] … [SEP]`, RoBERTa and CodeT5
    /// `<s> … </s>`, T5's and PLBART's SentencePiece `… </s>`, as its post-processor adds
    /// them), the sample's code with INSPECT's doubled backslashes undone, cut to the model's
    /// length, and the attention mask for every family.
    Tokenizer,
}

impl InputRule {
    /// Its name on the command line and in cache folders.
    pub fn name(self) -> &'static str {
        match self {
            InputRule::Inspect => "inspect",
            InputRule::Tokenizer => "tokenizer",
        }
    }
}

impl FromStr for InputRule {
    type Err = String;

    fn from_str(s: &str) -> std::result::Result<Self, String> {
        match s {
            "inspect" => Ok(InputRule::Inspect),
            "tokenizer" => Ok(InputRule::Tokenizer),
            other => Err(format!("unknown input rule `{other}` (expected inspect or tokenizer)")),
        }
    }
}

fn model_error(e: quarry_model::ModelError) -> ProbeError {
    ProbeError::Model(e.to_string())
}

/// The text INSPECT's extractor feeds the tokenizer: the last tab-separated field of the
/// sample's line as the file has it, whitespace stripped from its end. A sample continued on
/// further lines gives its first line's (the extractor reads every line as a sample of its
/// own, so that file's later features are out of step with its labels there).
fn inspect_text(sample: &Sample) -> &str {
    let line = sample.text.split('\n').next().unwrap_or_default();
    line.rsplit('\t').next().unwrap_or_default().trim_end()
}

/// What of a model its inputs depend on.
#[derive(Clone, Copy)]
pub struct InputModel<'a> {
    /// Its tokenizer.
    pub tokenizer: &'a Tokenizer,
    /// Its family (T5 and BART encoders are called without an attention mask by INSPECT).
    pub family: Family,
    /// Its input length (`EncoderConfig::max_input_len`).
    pub max_len: usize,
}

/// INSPECT's `L`: the longest tokenization (special tokens left out) of `samples`, at most
/// the model's input length.
pub fn inspect_length(model: InputModel, samples: &[Sample]) -> Result<usize> {
    let mut longest = 0;
    for sample in samples {
        longest = longest.max(model.tokenizer.tokenize_ids(inspect_text(sample)).map_err(model_error)?.len());
    }
    Ok(longest.min(model.max_len))
}

/// Python's `items[0:end]` for a possibly negative `end`.
fn python_prefix(items: &mut Vec<u32>, end: isize) {
    let keep = if end >= 0 { end as usize } else { items.len().saturating_sub(end.unsigned_abs()) };
    items.truncate(keep);
}

/// The input ids of `samples` under `rule`. `length` is INSPECT's `L` for the dataset the
/// samples belong to ([`inspect_length`] of all its samples); the tokenizer rule ignores it.
pub fn input_ids(rule: InputRule, model: InputModel, samples: &[Sample], length: usize) -> Result<Vec<Vec<u32>>> {
    let tokenizer = model.tokenizer;
    match rule {
        InputRule::Tokenizer => {
            let max_len = model.max_len.max(3);
            samples.iter().map(|s| Ok(tokenizer.encode(&s.code(), Some(max_len)).map_err(model_error)?.ids)).collect()
        }
        InputRule::Inspect => {
            let ends = tokenizer.ids_of_tokens(&["[CLS]", "[SEP]"]).map_err(model_error)?;
            // T5 and BART models are called without an attention mask: padding is input.
            let unmasked = matches!(model.family, Family::T5 | Family::Bart);
            let mut all = Vec::with_capacity(samples.len());
            for sample in samples {
                let mut tokens = tokenizer.tokenize_ids(inspect_text(sample)).map_err(model_error)?;
                let bound = length as isize - 2;
                if tokens.len() as isize > bound {
                    python_prefix(&mut tokens, bound);
                }
                let mut ids = Vec::with_capacity(length.max(tokens.len() + 2));
                ids.push(ends[0]);
                ids.extend(tokens);
                ids.push(ends[1]);
                if unmasked && ids.len() < length {
                    ids.resize(length, 0);
                }
                all.push(ids);
            }
            Ok(all)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn python_prefix_follows_slicing() {
        let cut = |end: isize| {
            let mut v = vec![1, 2, 3, 4];
            python_prefix(&mut v, end);
            v
        };
        assert_eq!(cut(2), vec![1, 2]);
        assert_eq!(cut(9), vec![1, 2, 3, 4]);
        assert_eq!(cut(0), Vec::<u32>::new());
        assert_eq!(cut(-1), vec![1, 2, 3]);
        assert_eq!(cut(-9), Vec::<u32>::new());
    }

    #[test]
    fn inspect_reads_the_last_field_of_the_first_line_as_the_extractor_does() {
        let sample = |text: &str| Sample { split: crate::Split::Train, label: "A".into(), text: text.into(), line: 1 };
        assert_eq!(inspect_text(&sample(" int x ;  ")), " int x ;");
        assert_eq!(inspect_text(&sample("a\tb c \r")), "b c");
        assert_eq!(inspect_text(&sample("int x ;\ncontinued")), "int x ;");
    }

    #[test]
    fn rules_parse_by_name() {
        for rule in [InputRule::Inspect, InputRule::Tokenizer] {
            assert_eq!(rule.name().parse::<InputRule>().unwrap(), rule);
        }
        assert!("cls".parse::<InputRule>().unwrap_err().contains("inspect or tokenizer"));
    }
}
