//! Span and relevance examples in the CodeQueries formats (JSON Lines or Parquet), their encoding to ids and
//! their batching.

use std::path::Path;

use candle_core::{Device, Tensor};
use quarry_data::records;
use quarry_data::DataError;
use serde::de::DeserializeOwned;
use serde::Deserialize;

use crate::error::{ModelError, Result};
use crate::evaluation::spans::Label;
use crate::nn::heads::IGNORE_INDEX;
use crate::tokenizer::Tokenizer;

/// One span-task example: already split tokens with their labels.
#[derive(Debug, Clone, PartialEq)]
pub struct SpanExample {
    /// Sub-tokens, special tokens included, exactly as they go to the model.
    pub tokens: Vec<String>,
    /// One label per token; `None` where the token has no label (ignored in loss and match).
    pub labels: Vec<Option<Label>>,
    /// The query the example belongs to, when the line names one.
    pub query: Option<String>,
    /// Whether that query is single-hop, when the line says.
    pub single_hop: Option<bool>,
}

#[derive(Deserialize)]
struct RawExample {
    subtokenized_input_sequence: Vec<String>,
    label_sequence: Vec<serde_json::Value>,
    #[serde(default)]
    query_name: Option<String>,
    #[serde(default)]
    single_hop: Option<bool>,
}

fn parse_label(v: &serde_json::Value) -> std::result::Result<Option<Label>, String> {
    match v {
        serde_json::Value::String(s) => match Label::parse(s) {
            Some(l) => Ok(Some(l)),
            None if s.parse::<i64>().is_ok_and(|n| n < 0) => Ok(None),
            None => Err(format!("unknown label \"{s}\" (expected B, I, O, F or a negative ignore index)")),
        },
        serde_json::Value::Number(n) if n.as_i64().is_some_and(|n| n < 0) => Ok(None),
        // The public CodeQueries dataset's integer encoding: B=0, I=1, O=2,
        // F=3, and 4 for special and query tokens (ignored).
        serde_json::Value::Number(n) if n.as_u64().is_some_and(|n| n <= 3) => {
            Ok(n.as_u64().and_then(|i| Label::ALL.get(i as usize).copied()))
        }
        serde_json::Value::Number(n) if n.as_u64() == Some(4) => Ok(None),
        serde_json::Value::Null => Ok(None),
        other => Err(format!("unknown label {other} (expected B, I, O, F or a negative ignore index)")),
    }
}

/// Reads a JSONL file whose lines have `subtokenized_input_sequence` (strings) and
/// `label_sequence` (`"B"`, `"I"`, `"O"`, `"F"`, or a negative number such as -100 for
/// unlabeled positions; or the public dataset's integers B=0, I=1, O=2, F=3, 4 ignored), and
/// optionally `query_name`. Blank lines are skipped.
pub fn read_span_jsonl(path: &Path) -> Result<Vec<SpanExample>> {
    read_jsonl(path, |raw: RawExample| {
        if raw.subtokenized_input_sequence.len() != raw.label_sequence.len() {
            return Err(format!(
                "{} tokens but {} labels",
                raw.subtokenized_input_sequence.len(),
                raw.label_sequence.len()
            ));
        }
        let labels = raw.label_sequence.iter().map(parse_label).collect::<std::result::Result<Vec<_>, _>>()?;
        Ok(SpanExample {
            tokens: raw.subtokenized_input_sequence,
            labels,
            query: raw.query_name,
            single_hop: raw.single_hop,
        })
    })
}

/// Reads every record of the files `path` names (a JSON Lines or Parquet file, a directory
/// of them, or a `*` pattern; see [`quarry_data::records::record_files`]) as `R`, one at a
/// time, and turns it into an example with `convert`; a record that does not parse or
/// convert is an error naming its file and line (or row), and so is a path without examples.
fn read_jsonl<R: DeserializeOwned, T>(
    path: &Path,
    convert: impl Fn(R) -> std::result::Result<T, String>,
) -> Result<Vec<T>> {
    let mut out = Vec::new();
    records::for_each_record(path, |file, line, value| {
        let example = serde_json::from_value::<R>(value).map_err(|e| e.to_string()).and_then(&convert);
        match example {
            Ok(example) => {
                out.push(example);
                Ok(())
            }
            Err(message) => Err(DataError::BadRecord { path: file.to_path_buf(), line, message }),
        }
    })
    .map_err(|e| match e {
        DataError::BadRecord { path, line, message } => {
            ModelError::Json { path, message: format!("line {line}: {message}") }
        }
        other => data_error(other),
    })?;
    if out.is_empty() {
        return Err(ModelError::Data(format!("{}: no examples", path.display())));
    }
    Ok(out)
}

/// quarry-data's error as this crate's: an I/O error stays one, any other says its file.
fn data_error(e: DataError) -> ModelError {
    match e {
        DataError::Io(io) => ModelError::Io(io),
        other => ModelError::Data(other.to_string()),
    }
}

/// An example mapped to ids, truncated to the model's length.
#[derive(Debug, Clone, PartialEq)]
pub struct EncodedExample {
    /// Token ids.
    pub ids: Vec<u32>,
    /// Gold labels, `None` where unlabeled.
    pub labels: Vec<Option<Label>>,
    /// The query name, if any.
    pub query: Option<String>,
    /// Whether the query is single-hop, if known.
    pub single_hop: Option<bool>,
}

/// Maps tokens to ids through the tokenizer's vocabulary and truncates to `max_len`.
pub fn encode_examples(examples: &[SpanExample], tokenizer: &Tokenizer, max_len: usize) -> Result<Vec<EncodedExample>> {
    examples
        .iter()
        .map(|e| {
            let n = e.tokens.len().min(max_len);
            Ok(EncodedExample {
                ids: tokenizer.ids_of_tokens(&e.tokens[..n])?,
                labels: e.labels[..n].to_vec(),
                query: e.query.clone(),
                single_hop: e.single_hop,
            })
        })
        .collect()
}

/// A padded batch: ids and mask `(batch, seq)` u32, labels `(batch * seq,)` i64.
pub struct Batch {
    /// Token ids, padded with the pad id.
    pub ids: Tensor,
    /// 1 for real tokens, 0 for padding.
    pub mask: Tensor,
    /// Label indices, [`IGNORE_INDEX`] for padding and unlabeled tokens.
    pub labels: Tensor,
    /// Length of every sequence before padding.
    pub lengths: Vec<usize>,
}

/// Pads id sequences to the longest one (at least 1) and moves them to `device`:
/// ids (padded with `pad_id`) and mask (1 for real tokens, 0 for padding), both
/// `(batch, seq)` u32.
pub fn pad_ids(sequences: &[&[u32]], pad_id: u32, device: &Device) -> Result<(Tensor, Tensor)> {
    let seq = sequences.iter().map(|s| s.len()).max().unwrap_or(0).max(1);
    let b = sequences.len();
    let mut ids = vec![pad_id; b * seq];
    let mut mask = vec![0u32; b * seq];
    for (r, s) in sequences.iter().enumerate() {
        ids[r * seq..r * seq + s.len()].copy_from_slice(s);
        mask[r * seq..r * seq + s.len()].fill(1);
    }
    Ok((Tensor::from_vec(ids, (b, seq), device)?, Tensor::from_vec(mask, (b, seq), device)?))
}

/// Pads `examples` to the longest one and moves them to `device`.
pub fn make_batch(examples: &[&EncodedExample], pad_id: u32, device: &Device) -> Result<Batch> {
    let sequences: Vec<&[u32]> = examples.iter().map(|e| e.ids.as_slice()).collect();
    let (ids, mask) = pad_ids(&sequences, pad_id, device)?;
    let seq = ids.dim(1)?;
    let mut labels = vec![IGNORE_INDEX; examples.len() * seq];
    for (r, e) in examples.iter().enumerate() {
        for (c, l) in e.labels.iter().enumerate() {
            if let Some(l) = l {
                labels[r * seq + c] = l.index() as i64;
            }
        }
    }
    Ok(Batch {
        ids,
        mask,
        labels: Tensor::from_vec(labels, examples.len() * seq, device)?,
        lengths: sequences.iter().map(|s| s.len()).collect(),
    })
}

/// One relevance example: `[CLS] query [SEP] block [SEP]` sub-tokens and whether the block
/// is relevant to the query.
#[derive(Debug, Clone, PartialEq)]
pub struct RelevanceExample {
    /// Sub-tokens, special tokens included, exactly as they go to the model.
    pub tokens: Vec<String>,
    /// The gold label: `true` for `relevance_label` 1.
    pub relevant: bool,
    /// The query the row belongs to, when the line names one.
    pub query: Option<String>,
}

#[derive(Deserialize)]
struct RawRelevanceRow {
    #[serde(default)]
    subtokenized_input_sequence: Vec<String>,
    relevance_label: Option<serde_json::Value>,
    #[serde(default)]
    query_name: Option<String>,
}

/// Reads the relevance rows the dataset builder writes (`twostep_*.jsonl`): each line needs
/// `subtokenized_input_sequence` (non-empty; present when the dataset was built with
/// `--tokenizer`) and `relevance_label` (1 relevant, 0 not; anything else is an error naming
/// the file and line), and may have `query_name`. Other fields are ignored; blank lines are
/// skipped.
pub fn read_relevance_jsonl(path: &Path) -> Result<Vec<RelevanceExample>> {
    read_jsonl(path, |raw: RawRelevanceRow| {
        let relevant = match raw.relevance_label.as_ref().and_then(|v| v.as_u64()) {
            Some(0) => false,
            Some(1) => true,
            _ => {
                let got = raw.relevance_label.map_or("nothing".to_string(), |v| v.to_string());
                return Err(format!("relevance_label must be 0 or 1, got {got}"));
            }
        };
        if raw.subtokenized_input_sequence.is_empty() {
            return Err("no subtokenized_input_sequence (build the dataset with --tokenizer to get one)".into());
        }
        Ok(RelevanceExample { tokens: raw.subtokenized_input_sequence, relevant, query: raw.query_name })
    })
}

/// A relevance example mapped to ids, truncated to the model's length.
#[derive(Debug, Clone, PartialEq)]
pub struct EncodedRelevance {
    /// Token ids, ending with the closing special token.
    pub ids: Vec<u32>,
    /// The gold label.
    pub relevant: bool,
    /// The query name, if any.
    pub query: Option<String>,
}

/// Maps tokens to ids through the tokenizer's vocabulary. A sequence longer than `max_len`
/// (at least 2) keeps its first `max_len - 1` tokens and its last one, the closing `[SEP]`,
/// as the dataset builder prunes.
pub fn encode_relevance(
    examples: &[RelevanceExample],
    tokenizer: &Tokenizer,
    max_len: usize,
) -> Result<Vec<EncodedRelevance>> {
    let max_len = max_len.max(2);
    examples
        .iter()
        .map(|e| {
            let mut ids = tokenizer.ids_of_tokens(&e.tokens)?;
            if ids.len() > max_len {
                let last = ids[ids.len() - 1];
                ids.truncate(max_len - 1);
                ids.push(last);
            }
            Ok(EncodedRelevance { ids, relevant: e.relevant, query: e.query.clone() })
        })
        .collect()
}

/// Inverse-frequency class weights, as scikit-learn's
/// `compute_class_weight("balanced", classes=range(num_classes), y=labels)`:
/// `n_samples / (num_classes * count_c)` for class `c`, so that every class contributes
/// equally to a weighted loss. Every class must occur (scikit-learn refuses too); a label
/// outside `0..num_classes` is an error.
pub fn class_weights_for(labels: impl IntoIterator<Item = usize>, num_classes: usize) -> Result<Vec<f32>> {
    let mut counts = vec![0usize; num_classes];
    for l in labels {
        *counts.get_mut(l).ok_or_else(|| ModelError::Data(format!("label {l} outside 0..{num_classes}")))? += 1;
    }
    if let Some(c) = counts.iter().position(|&n| n == 0) {
        return Err(ModelError::Data(format!("no example of class {c}, so balanced class weights are undefined")));
    }
    Ok(balanced_weights_of_counts(&counts))
}

/// scikit-learn's balanced weights over the classes that occur: `n / (k * count_c)` for each
/// of the `k` classes with a count, 1 for a class without (which no target then uses).
pub fn balanced_weights_of_counts(counts: &[usize]) -> Vec<f32> {
    let present = counts.iter().filter(|&&c| c > 0).count().max(1);
    let n: usize = counts.iter().sum();
    counts.iter().map(|&c| if c == 0 { 1.0 } else { (n as f64 / (present * c) as f64) as f32 }).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_public_integer_labels() {
        let labels: Vec<Option<Label>> =
            [4, 0, 1, 2, 3].iter().map(|&n| parse_label(&serde_json::json!(n)).unwrap()).collect();
        assert_eq!(labels, vec![None, Some(Label::B), Some(Label::I), Some(Label::O), Some(Label::F)]);
        assert!(parse_label(&serde_json::json!(5)).is_err());
    }

    #[test]
    fn reads_codequeries_lines() {
        let path = std::env::temp_dir().join(format!("quarry-span-{}.jsonl", std::process::id()));
        std::fs::write(
            &path,
            "{\"subtokenized_input_sequence\":[\"[CLS]\",\"a\",\"b\"],\"label_sequence\":[-100,\"B\",\"I\"],\"query_name\":\"q\"}\n\n\
             {\"subtokenized_input_sequence\":[\"a\"],\"label_sequence\":[\"O\"]}\n",
        )
        .unwrap();
        let ex = read_span_jsonl(&path).unwrap();
        assert_eq!(ex.len(), 2);
        assert_eq!(ex[0].labels, vec![None, Some(Label::B), Some(Label::I)]);
        assert_eq!(ex[0].query.as_deref(), Some("q"));
        std::fs::write(&path, "{\"subtokenized_input_sequence\":[\"a\"],\"label_sequence\":[\"X\"]}\n").unwrap();
        let err = read_span_jsonl(&path).unwrap_err().to_string();
        assert!(err.contains("line 1") && err.contains("\"X\""), "{err}");
        std::fs::write(&path, "{\"subtokenized_input_sequence\":[\"a\"],\"label_sequence\":[]}\n").unwrap();
        assert!(read_span_jsonl(&path).unwrap_err().to_string().contains("1 tokens but 0 labels"));
        std::fs::remove_file(&path).unwrap();
    }

    #[test]
    fn reads_relevance_rows_and_names_bad_lines() {
        let path = std::env::temp_dir().join(format!("quarry-relevance-{}.jsonl", std::process::id()));
        std::fs::write(
            &path,
            "{\"query_name\":\"q\",\"context_block\":{\"content\":\"x\"},\"relevance_label\":1,\
             \"single_hop\":true,\"subtokenized_input_sequence\":[\"[CLS]\",\"a\",\"[SEP]\"]}\n\n\
             {\"relevance_label\":0,\"subtokenized_input_sequence\":[\"b\"]}\n",
        )
        .unwrap();
        let ex = read_relevance_jsonl(&path).unwrap();
        assert_eq!(ex.len(), 2);
        assert_eq!(ex[0].tokens, vec!["[CLS]", "a", "[SEP]"]);
        assert!(ex[0].relevant && !ex[1].relevant);
        assert_eq!(ex[0].query.as_deref(), Some("q"));
        assert_eq!(ex[1].query, None);
        for (line, why) in [
            ("{\"relevance_label\":2,\"subtokenized_input_sequence\":[\"a\"]}", "got 2"),
            ("{\"relevance_label\":\"1\",\"subtokenized_input_sequence\":[\"a\"]}", "got \"1\""),
            ("{\"subtokenized_input_sequence\":[\"a\"]}", "got nothing"),
            ("{\"relevance_label\":1}", "--tokenizer"),
        ] {
            std::fs::write(
                &path,
                format!("{{\"relevance_label\":0,\"subtokenized_input_sequence\":[\"a\"]}}\n{line}\n"),
            )
            .unwrap();
            let err = read_relevance_jsonl(&path).unwrap_err().to_string();
            assert!(err.contains(&path.display().to_string()) && err.contains("line 2") && err.contains(why), "{err}");
        }
        std::fs::remove_file(&path).unwrap();
    }

    #[test]
    fn relevance_encoding_keeps_the_closing_token() {
        let dir = std::env::temp_dir().join(format!("quarry-relevance-vocab-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("vocab.txt"), "[PAD]\n[UNK]\n[CLS]\n[SEP]\na\nb\n").unwrap();
        let tok = Tokenizer::from_path(&dir).unwrap();
        let tokens: Vec<String> = ["[CLS]", "a", "[SEP]", "b", "zz", "[SEP]"].iter().map(|t| t.to_string()).collect();
        let ex = [RelevanceExample { tokens, relevant: true, query: None }];
        assert_eq!(encode_relevance(&ex, &tok, 512).unwrap()[0].ids, vec![2, 4, 3, 5, 1, 3]);
        assert_eq!(encode_relevance(&ex, &tok, 4).unwrap()[0].ids, vec![2, 4, 3, 3]);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn class_weights_are_balanced_inverse_frequencies() {
        // sklearn: compute_class_weight("balanced", classes=[0, 1], y=[0, 0, 0, 1]) == [2/3, 2].
        let w = class_weights_for([0, 0, 0, 1], 2).unwrap();
        assert!((w[0] - 2.0 / 3.0).abs() < 1e-6 && (w[1] - 2.0).abs() < 1e-6, "{w:?}");
        assert_eq!(class_weights_for([1, 0], 2).unwrap(), vec![1.0, 1.0]);
        assert!(class_weights_for([0, 0], 2).unwrap_err().to_string().contains("class 1"));
        assert!(class_weights_for([0, 2], 2).is_err());
    }
}
