//! Span-task examples in the CodeQueries JSONL format and their batching.

use std::io::BufRead;
use std::path::Path;

use candle_core::{Device, Tensor};
use serde::Deserialize;

use crate::error::{ModelError, Result};
use crate::heads::IGNORE_INDEX;
use crate::spans::Label;
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
/// unlabeled positions; or the public dataset's integers B=0, I=1, O=2, F=3, 4 ignored), and optionally `query_name`. Blank lines are skipped.
pub fn read_span_jsonl(path: &Path) -> Result<Vec<SpanExample>> {
    let file = std::fs::File::open(path).map_err(|e| ModelError::io(path, e))?;
    let mut out = Vec::new();
    for (i, line) in std::io::BufReader::new(file).lines().enumerate() {
        let line = line.map_err(|e| ModelError::io(path, e))?;
        if line.trim().is_empty() {
            continue;
        }
        let bad = |message: String| ModelError::Json {
            path: path.to_path_buf(),
            message: format!("line {}: {message}", i + 1),
        };
        let raw: RawExample = serde_json::from_str(&line).map_err(|e| bad(e.to_string()))?;
        if raw.subtokenized_input_sequence.len() != raw.label_sequence.len() {
            return Err(bad(format!(
                "{} tokens but {} labels",
                raw.subtokenized_input_sequence.len(),
                raw.label_sequence.len()
            )));
        }
        let labels =
            raw.label_sequence.iter().map(parse_label).collect::<std::result::Result<Vec<_>, _>>().map_err(bad)?;
        out.push(SpanExample {
            tokens: raw.subtokenized_input_sequence,
            labels,
            query: raw.query_name,
            single_hop: raw.single_hop,
        });
    }
    if out.is_empty() {
        return Err(ModelError::Data(format!("{}: no examples", path.display())));
    }
    Ok(out)
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

/// Pads `examples` to the longest one and moves them to `device`.
pub fn make_batch(examples: &[&EncodedExample], pad_id: u32, device: &Device) -> Result<Batch> {
    let seq = examples.iter().map(|e| e.ids.len()).max().unwrap_or(0).max(1);
    let b = examples.len();
    let mut ids = vec![pad_id; b * seq];
    let mut mask = vec![0u32; b * seq];
    let mut labels = vec![IGNORE_INDEX; b * seq];
    for (r, e) in examples.iter().enumerate() {
        for (c, &id) in e.ids.iter().enumerate() {
            ids[r * seq + c] = id;
            mask[r * seq + c] = 1;
            if let Some(l) = e.labels[c] {
                labels[r * seq + c] = l.index() as i64;
            }
        }
    }
    Ok(Batch {
        ids: Tensor::from_vec(ids, (b, seq), device)?,
        mask: Tensor::from_vec(mask, (b, seq), device)?,
        labels: Tensor::from_vec(labels, b * seq, device)?,
        lengths: examples.iter().map(|e| e.ids.len()).collect(),
    })
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
}
