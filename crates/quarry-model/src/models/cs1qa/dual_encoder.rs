//! A DPR-style dual encoder (Karpukhin et al., 2020) for CS1QA answer retrieval (paper
//! Section 6): queries and corpus questions are embedded separately, scored by dot
//! product, and trained with in-batch negatives: each query's positive is its own corpus
//! question and the other queries' positives in the batch are its negatives.
//!
//! Both towers are one encoder loaded from the model directory (shared weights), so a
//! checkpoint is an ordinary Hugging Face directory and the training loop sees one set of
//! parameters; DPR trains two copies, which doubles memory and time for a corpus of
//! questions as short as its queries.

use std::collections::BTreeMap;

use candle_core::{DType, Tensor, D};

use crate::checkpoint::read_head_config;
use crate::error::{ModelError, Result};
use crate::loading::LoadedModel;
use crate::nn::heads::{cross_entropy, HeadConfig};
use crate::training::data::pad_ids;
use crate::training::train::{Trainable, Validation};

/// How the token vectors of the last layer become one embedding.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pooling {
    /// The summary token (`[CLS]`), as DPR does.
    Cls,
    /// The mean over real tokens, as sentence-transformers models (MiniLM) are trained.
    Mean,
}

impl Pooling {
    /// Parses `cls` or `mean`.
    pub fn parse(name: &str) -> Result<Pooling> {
        match name {
            "cls" => Ok(Pooling::Cls),
            "mean" => Ok(Pooling::Mean),
            other => Err(ModelError::Config(format!("unknown pooling '{other}' (expected cls or mean)"))),
        }
    }

    /// The name `parse` reads.
    pub fn name(self) -> &'static str {
        match self {
            Pooling::Cls => "cls",
            Pooling::Mean => "mean",
        }
    }
}

/// A training pair: a query and its positive corpus question, both tokenized.
#[derive(Debug, Clone, PartialEq)]
pub struct PairExample {
    /// The query's ids.
    pub query: Vec<u32>,
    /// The positive's ids.
    pub positive: Vec<u32>,
}

/// One encoder used as both towers.
pub struct DualEncoder {
    /// Encoder, tokenizer and parameters.
    pub model: LoadedModel,
    pooling: Pooling,
}

impl DualEncoder {
    /// Wraps `model`; `pooling` `None` takes a checkpoint's stored pooling, else `cls`.
    pub fn new(model: LoadedModel, pooling: Option<Pooling>) -> Result<Self> {
        let stored = match &model.dir {
            Some(dir) => match read_head_config(dir)? {
                Some(HeadConfig::DualEncoder { pooling }) => Some(Pooling::parse(&pooling)?),
                _ => None,
            },
            None => None,
        };
        Ok(DualEncoder { model, pooling: pooling.or(stored).unwrap_or(Pooling::Cls) })
    }

    /// The pooling in use.
    pub fn pooling(&self) -> Pooling {
        self.pooling
    }

    /// Tokenizes `text` with special tokens, truncated to `max_len` ids.
    pub fn tokenize(&self, text: &str, max_len: usize) -> Result<Vec<u32>> {
        Ok(self.model.tokenizer.encode(text, Some(max_len.min(self.model.config.max_input_len())))?.ids)
    }

    /// Embeddings `(n, hidden)` of id sequences.
    pub fn embed_ids(&self, sequences: &[&[u32]], train: bool) -> Result<Tensor> {
        if sequences.iter().any(|s| s.is_empty()) {
            return Err(ModelError::Data("an input sequence is empty".into()));
        }
        let (ids, mask) = pad_ids(sequences, self.model.tokenizer.pad_id(), self.model.encoder.device())?;
        let out = self.model.encoder.forward(&ids, &mask, train)?;
        match self.pooling {
            Pooling::Cls => Ok(out.cls()?),
            Pooling::Mean => {
                let m = mask.to_dtype(DType::F32)?.unsqueeze(2)?;
                let sum = out.last.broadcast_mul(&m)?.sum(1)?;
                Ok(sum.broadcast_div(&m.sum(1)?)?)
            }
        }
    }

    /// Embeddings of many sequences in evaluation mode, `batch_size` per pass, as rows in
    /// input order. Sequences are batched in order of length, so little padding is computed.
    pub fn embed_all(&self, sequences: &[Vec<u32>], batch_size: usize) -> Result<Vec<Vec<f32>>> {
        let mut order: Vec<usize> = (0..sequences.len()).collect();
        order.sort_by_key(|&i| sequences[i].len());
        let mut out = vec![Vec::new(); sequences.len()];
        for chunk in order.chunks(batch_size.max(1)) {
            let refs: Vec<&[u32]> = chunk.iter().map(|&i| sequences[i].as_slice()).collect();
            for (&i, row) in chunk.iter().zip(self.embed_ids(&refs, false)?.to_vec2::<f32>()?) {
                out[i] = row;
            }
        }
        Ok(out)
    }

    /// In-batch scores `(batch, batch)`: query i against positive j.
    fn scores(&self, batch: &[&PairExample], train: bool) -> Result<Tensor> {
        let q: Vec<&[u32]> = batch.iter().map(|e| e.query.as_slice()).collect();
        let p: Vec<&[u32]> = batch.iter().map(|e| e.positive.as_slice()).collect();
        let q = self.embed_ids(&q, train)?;
        let p = self.embed_ids(&p, train)?;
        Ok(q.matmul(&p.t()?)?)
    }

    fn diagonal(&self, n: usize) -> Result<Tensor> {
        Ok(Tensor::from_vec((0..n as i64).collect::<Vec<_>>(), n, self.model.encoder.device())?)
    }
}

impl Trainable for DualEncoder {
    type Example = PairExample;

    fn store(&self) -> &crate::nn::params::ParamStore {
        &self.model.store
    }

    fn save(&self, dir: &std::path::Path) -> Result<()> {
        self.model.save(dir, &self.head_config())
    }

    fn head_config(&self) -> HeadConfig {
        HeadConfig::DualEncoder { pooling: self.pooling.name().into() }
    }

    /// Cross-entropy of each query over the batch's positives, its own being the target.
    fn batch_loss(&self, batch: &[&PairExample], train: bool) -> Result<Tensor> {
        cross_entropy(&self.scores(batch, train)?, &self.diagonal(batch.len())?, None)
    }

    /// In-batch loss and `in_batch_accuracy` (the own positive scores highest).
    fn validate(&self, valid: &[PairExample], batch_size: usize) -> Result<Validation> {
        let (mut loss, mut correct, mut batches) = (0.0, 0usize, 0usize);
        for chunk in valid.chunks(batch_size.max(1)) {
            let refs: Vec<&PairExample> = chunk.iter().collect();
            let s = self.scores(&refs, false)?;
            loss += cross_entropy(&s, &self.diagonal(chunk.len())?, None)?.to_scalar::<f32>()? as f64;
            let best = s.argmax(D::Minus1)?.to_vec1::<u32>()?;
            correct += best.iter().enumerate().filter(|(i, b)| *i == **b as usize).count();
            batches += 1;
        }
        if batches == 0 {
            return Err(ModelError::Data("no validation pairs".into()));
        }
        let metrics: BTreeMap<String, f64> =
            [("in_batch_accuracy".to_string(), correct as f64 / valid.len() as f64)].into();
        Ok(Validation { loss: loss / batches as f64, metric_name: "in_batch_accuracy".into(), metrics })
    }
}
