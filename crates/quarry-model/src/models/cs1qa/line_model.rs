//! CS1QA code-line selection (paper Section 6): for each segment of the program the model
//! picks a start and an end token (a linear layer `qa_outputs` over every token, as
//! extractive question answering does); the lines between them are the segment's
//! selection, N/A by the paper's three rules, and the question's selection is the union
//! over its segments. Training labels mark the first and last code token of the gold lines
//! within each segment, or the summary token when the segment holds none of them (or the
//! question has no relevant line).

use std::collections::BTreeMap;

use candle_core::{IndexOp, Tensor, D};
use quarry_data::cs1qa::{alternative_spans, Cs1qaRow};
use quarry_eval::cs1qa::{line_report, LineCase, LineReport, LineSpan};

use super::segments::{segment, PairLayout, Segment};
use crate::error::{ModelError, Result};
use crate::loading::LoadedModel;
use crate::nn::heads::{cross_entropy, HeadConfig};
use crate::nn::layers::Linear;
use crate::training::data::pad_ids;
use crate::training::train::{Trainable, Validation};

/// One segment of one row with its labels.
#[derive(Debug, Clone, PartialEq)]
pub struct LineExample {
    /// The model input and its token lines.
    pub segment: Segment,
    /// Gold start position (0: none in this segment).
    pub start: usize,
    /// Gold end position (0: none in this segment).
    pub end: usize,
    /// Index of the row the segment belongs to.
    pub row: usize,
    /// The row's own gold span.
    pub own: Option<LineSpan>,
    /// Gold spans of every row of the same question.
    pub alternatives: Vec<Option<LineSpan>>,
}

/// A row's own gold span and every alternative of its question.
type Gold<'a> = (Option<LineSpan>, &'a [Option<LineSpan>]);

/// Results of [`LineModel::evaluate`].
#[derive(Debug, Clone)]
pub struct LineEvaluation {
    /// Mean start/end cross-entropy over segment batches.
    pub loss: f64,
    /// The selected ranges of every row (empty: N/A), one per segment that selected lines.
    pub selections: Vec<Vec<LineSpan>>,
    /// Line F1 and EM over all rows and over rows with valid lines.
    pub report: LineReport,
}

/// An encoder with a start/end token head.
pub struct LineModel {
    /// Encoder, tokenizer and parameters.
    pub model: LoadedModel,
    head: Linear,
    layout: PairLayout,
}

/// Scores `selections` (one per row) against the rows' gold spans with the authors' rules.
pub fn score_selections(rows: &[Cs1qaRow], selections: &[Vec<LineSpan>]) -> Result<LineReport> {
    if rows.len() != selections.len() {
        return Err(ModelError::Data(format!("{} selections for {} rows", selections.len(), rows.len())));
    }
    let alternatives = alternative_spans(rows);
    let cases: Vec<LineCase<'_>> = rows
        .iter()
        .zip(selections)
        .zip(&alternatives)
        .map(|((r, s), a)| LineCase { selection: s, own: r.span(), alternatives: a })
        .collect();
    line_report(&cases).map_err(|e| ModelError::Data(e.to_string()))
}

/// The naive baseline of the paper: the middle `width` lines of every row's program (60 in
/// the paper), N/A for an empty program.
pub fn middle_baseline(rows: &[Cs1qaRow], width: u64) -> Vec<Vec<LineSpan>> {
    rows.iter().map(|r| quarry_eval::cs1qa::middle_lines(r.code_lines() as u64, width).into_iter().collect()).collect()
}

impl LineModel {
    /// Adds the start/end head (`qa_outputs`, reused from a checkpoint) to `model`.
    pub fn new(mut model: LoadedModel) -> Result<Self> {
        let layout = PairLayout::of(&model.tokenizer, model.config.family()?)?;
        let hidden = model.config.hidden_size;
        let head = Linear::new(&mut model.store, "qa_outputs", hidden, 2, false)?;
        Ok(LineModel { model, head, layout })
    }

    /// The head description written into checkpoints.
    pub fn head_config(&self) -> HeadConfig {
        HeadConfig::LineSelection
    }

    /// Cuts every row into labelled segments of at most `max_len` ids.
    pub fn encode(&self, rows: &[Cs1qaRow], max_len: usize) -> Result<Vec<LineExample>> {
        let max_len = max_len.min(self.model.config.max_input_len());
        let alternatives = alternative_spans(rows);
        let mut out = Vec::new();
        for (i, (r, alts)) in rows.iter().zip(alternatives).enumerate() {
            for s in segment(&self.model.tokenizer, self.layout, &r.input_text(), &r.code, max_len)? {
                let (start, end) = s.label(r.span());
                out.push(LineExample { segment: s, start, end, row: i, own: r.span(), alternatives: alts.clone() });
            }
        }
        Ok(out)
    }

    /// Start and end logits `(batch, seq)` each; padding positions get -1e9.
    fn logits(&self, batch: &[&LineExample], train: bool) -> Result<(Tensor, Tensor)> {
        let sequences: Vec<&[u32]> = batch.iter().map(|e| e.segment.ids.as_slice()).collect();
        let (ids, mask) = pad_ids(&sequences, self.model.tokenizer.pad_id(), self.model.encoder.device())?;
        let out = self.model.encoder.forward(&ids, &mask, train)?;
        let logits = crate::nn::autocast::widen(&self.head.forward(&out.last, train)?)?;
        let pad_bias = ((mask.to_dtype(candle_core::DType::F32)? - 1.0)? * 1e9)?;
        let start = (logits.i((.., .., 0))?.contiguous()? + &pad_bias)?;
        let end = (logits.i((.., .., 1))?.contiguous()? + &pad_bias)?;
        Ok((start, end))
    }

    fn loss_of(&self, batch: &[&LineExample], start: &Tensor, end: &Tensor) -> Result<Tensor> {
        let dev = self.model.encoder.device();
        let s: Vec<i64> = batch.iter().map(|e| e.start as i64).collect();
        let e: Vec<i64> = batch.iter().map(|e| e.end as i64).collect();
        let ls = cross_entropy(start, &Tensor::from_vec(s, batch.len(), dev)?, None)?;
        let le = cross_entropy(end, &Tensor::from_vec(e, batch.len(), dev)?, None)?;
        Ok(((ls + le)? * 0.5)?)
    }

    /// Predicts every segment (argmax start, argmax end), unions the segments of each row
    /// and scores the rows; `examples` must hold every segment of rows `0..=max row`.
    pub fn evaluate(&self, examples: &[LineExample], batch_size: usize) -> Result<LineEvaluation> {
        let rows = examples
            .iter()
            .map(|e| e.row + 1)
            .max()
            .ok_or_else(|| ModelError::Data("no examples to evaluate".into()))?;
        let mut selections: Vec<Vec<LineSpan>> = vec![Vec::new(); rows];
        // each row's own gold span and alternatives, from any of its segments
        let mut cases: Vec<Option<Gold<'_>>> = vec![None; rows];
        let (mut loss_sum, mut batches) = (0.0, 0);
        for chunk in examples.chunks(batch_size.max(1)) {
            let refs: Vec<&LineExample> = chunk.iter().collect();
            let (start, end) = self.logits(&refs, false)?;
            loss_sum += self.loss_of(&refs, &start, &end)?.to_scalar::<f32>()? as f64;
            batches += 1;
            let s = start.argmax(D::Minus1)?.to_vec1::<u32>()?;
            let e = end.argmax(D::Minus1)?.to_vec1::<u32>()?;
            for ((x, s), e) in chunk.iter().zip(s).zip(e) {
                if let Some(span) = x.segment.lines(s as usize, e as usize) {
                    selections[x.row].push(span);
                }
                cases[x.row] = Some((x.own, x.alternatives.as_slice()));
            }
        }
        let mut line_cases = Vec::with_capacity(rows);
        for (r, c) in cases.iter().enumerate() {
            let (own, alternatives) = c.ok_or_else(|| ModelError::Data(format!("row {r} has no segment")))?;
            line_cases.push(LineCase { selection: &selections[r], own, alternatives });
        }
        let report = line_report(&line_cases).map_err(|e| ModelError::Data(e.to_string()))?;
        Ok(LineEvaluation { loss: loss_sum / batches as f64, selections, report })
    }
}

impl Trainable for LineModel {
    type Example = LineExample;

    fn store(&self) -> &crate::nn::params::ParamStore {
        &self.model.store
    }

    fn save(&self, dir: &std::path::Path) -> Result<()> {
        self.model.save(dir, &self.head_config())
    }

    fn head_config(&self) -> HeadConfig {
        LineModel::head_config(self)
    }

    fn batch_loss(&self, batch: &[&LineExample], train: bool) -> Result<Tensor> {
        let (start, end) = self.logits(batch, train)?;
        self.loss_of(batch, &start, &end)
    }

    /// Segment loss; line `f1` (the headline) and `em` over all rows, and both over rows
    /// with valid lines.
    fn validate(&self, valid: &[LineExample], batch_size: usize) -> Result<Validation> {
        let e = self.evaluate(valid, batch_size)?;
        let metrics: BTreeMap<String, f64> = [
            ("f1".to_string(), e.report.all.f1),
            ("em".to_string(), e.report.all.em),
            ("valid_f1".to_string(), e.report.valid.f1),
            ("valid_em".to_string(), e.report.valid.em),
        ]
        .into();
        Ok(Validation { loss: e.loss, metric_name: "f1".into(), metrics })
    }
}
