//! CS1QA question-type classification (paper Sections 6–7.1): a sequence classifier over
//! `[CLS] labNo taskNo questioner question [SEP] code segment [SEP]`; every segment of a
//! program votes and the most voted type wins (ties to the earlier type in label order,
//! as `np.bincount(...).argmax()` in the authors' code).

use std::collections::BTreeMap;

use candle_core::{Tensor, D};
use quarry_data::cs1qa::{Cs1qaRow, QuestionType};
use quarry_eval::classification::{classification_report, ClassificationReport};
use quarry_eval::cs1qa::majority_vote;

use super::segments::{segment, PairLayout};
use crate::checkpoint::read_head_config;
use crate::error::{ModelError, Result};
use crate::loading::LoadedModel;
use crate::nn::heads::{cross_entropy, HeadConfig, SequenceClassifier};
use crate::training::data::pad_ids;
use crate::training::train::{Trainable, Validation};

/// Dropout before each of the classifier's feed-forward layers.
pub(crate) const TYPE_HEAD_DROPOUT: f64 = 0.1;

/// One segment of one row.
#[derive(Debug, Clone, PartialEq)]
pub struct TypeExample {
    /// `[CLS] question [SEP] segment [SEP]`.
    pub ids: Vec<u32>,
    /// Index of the gold type in [`QuestionType::ALL`].
    pub label: usize,
    /// Index of the row the segment belongs to.
    pub row: usize,
}

/// An encoder with a nine-way sequence classifier.
pub struct TypeModel {
    /// Encoder, tokenizer and parameters.
    pub model: LoadedModel,
    head: SequenceClassifier,
    layout: PairLayout,
}

/// Results of [`TypeModel::evaluate`].
#[derive(Debug, Clone)]
pub struct TypeEvaluation {
    /// Mean cross-entropy over segment batches.
    pub loss: f64,
    /// The voted type of every row, in row order.
    pub predictions: Vec<QuestionType>,
    /// Accuracy, per-class precision/recall/F1 and confusion over rows.
    pub report: ClassificationReport,
}

fn labels() -> Vec<String> {
    QuestionType::ALL.iter().map(|t| t.name().to_string()).collect()
}

impl TypeModel {
    /// Adds the type head to `model` (a checkpoint's `classifier.*` weights are reused; a
    /// checkpoint with another head's labels is an error).
    pub fn new(mut model: LoadedModel) -> Result<Self> {
        if let Some(dir) = &model.dir {
            if let Some(HeadConfig::QuestionType { labels: stored, .. }) = read_head_config(dir)? {
                if stored != labels() {
                    return Err(ModelError::Config(format!(
                        "{}: the checkpoint's type labels {stored:?} are not CS1QA's nine types",
                        dir.display()
                    )));
                }
            }
        }
        let layout = PairLayout::of(&model.tokenizer, model.config.family()?)?;
        let hidden = model.config.hidden_size;
        let head = SequenceClassifier::new(&mut model.store, hidden, QuestionType::ALL.len(), TYPE_HEAD_DROPOUT)?;
        Ok(TypeModel { model, head, layout })
    }

    /// The head description written into checkpoints.
    pub fn head_config(&self) -> HeadConfig {
        HeadConfig::QuestionType { labels: labels(), dropout: TYPE_HEAD_DROPOUT }
    }

    /// Cuts every row into segments of at most `max_len` ids (capped at the model's limit).
    pub fn encode(&self, rows: &[Cs1qaRow], max_len: usize) -> Result<Vec<TypeExample>> {
        let max_len = max_len.min(self.model.config.max_input_len());
        let mut out = Vec::new();
        for (i, r) in rows.iter().enumerate() {
            for s in segment(&self.model.tokenizer, self.layout, &r.input_text(), &r.code, max_len)? {
                out.push(TypeExample { ids: s.ids, label: r.question_type.index(), row: i });
            }
        }
        Ok(out)
    }

    fn logits(&self, batch: &[&TypeExample], train: bool) -> Result<Tensor> {
        let sequences: Vec<&[u32]> = batch.iter().map(|e| e.ids.as_slice()).collect();
        let (ids, mask) = pad_ids(&sequences, self.model.tokenizer.pad_id(), self.model.encoder.device())?;
        let out = self.model.encoder.forward(&ids, &mask, train)?;
        self.head.forward(&out.last, train)
    }

    fn gold(&self, batch: &[&TypeExample]) -> Result<Tensor> {
        let labels: Vec<i64> = batch.iter().map(|e| e.label as i64).collect();
        Ok(Tensor::from_vec(labels, batch.len(), self.model.encoder.device())?)
    }

    /// Votes of every segment, then the voted type per row; `examples` must hold at least one
    /// segment of every row `0..=max row`.
    pub fn evaluate(&self, examples: &[TypeExample], batch_size: usize) -> Result<TypeEvaluation> {
        let rows = examples
            .iter()
            .map(|e| e.row + 1)
            .max()
            .ok_or_else(|| ModelError::Data("no examples to evaluate".into()))?;
        let mut votes: Vec<Vec<usize>> = vec![Vec::new(); rows];
        let mut gold: Vec<Option<usize>> = vec![None; rows];
        let (mut loss_sum, mut batches) = (0.0, 0);
        for chunk in examples.chunks(batch_size.max(1)) {
            let refs: Vec<&TypeExample> = chunk.iter().collect();
            let logits = self.logits(&refs, false)?;
            loss_sum += cross_entropy(&logits, &self.gold(&refs)?, None)?.to_scalar::<f32>()? as f64;
            batches += 1;
            for (e, p) in chunk.iter().zip(logits.argmax(D::Minus1)?.to_vec1::<u32>()?) {
                votes[e.row].push(p as usize);
                gold[e.row] = Some(e.label);
            }
        }
        let mut predictions = Vec::with_capacity(rows);
        let mut truth = Vec::with_capacity(rows);
        for (r, (v, g)) in votes.iter().zip(&gold).enumerate() {
            let (Some(p), Some(g)) = (majority_vote(v), g) else {
                return Err(ModelError::Data(format!("row {r} has no segment")));
            };
            predictions.push(QuestionType::ALL[p.min(QuestionType::ALL.len() - 1)]);
            truth.push(QuestionType::ALL[*g]);
        }
        let t: Vec<&str> = truth.iter().map(|t| t.name()).collect();
        let p: Vec<&str> = predictions.iter().map(|t| t.name()).collect();
        let report = classification_report(&t, &p).map_err(|e| ModelError::Data(e.to_string()))?;
        Ok(TypeEvaluation { loss: loss_sum / batches as f64, predictions, report })
    }
}

impl Trainable for TypeModel {
    type Example = TypeExample;

    fn store(&self) -> &crate::nn::params::ParamStore {
        &self.model.store
    }

    fn save(&self, dir: &std::path::Path) -> Result<()> {
        self.model.save(dir, &self.head_config())
    }

    fn head_config(&self) -> HeadConfig {
        TypeModel::head_config(self)
    }

    fn batch_loss(&self, batch: &[&TypeExample], train: bool) -> Result<Tensor> {
        cross_entropy(&self.logits(batch, train)?, &self.gold(batch)?, None)
    }

    /// Segment loss; `accuracy` (the headline) and `macro_f1` of the voted types per row.
    fn validate(&self, valid: &[TypeExample], batch_size: usize) -> Result<Validation> {
        let e = self.evaluate(valid, batch_size)?;
        let metrics: BTreeMap<String, f64> =
            [("accuracy".to_string(), e.report.accuracy), ("macro_f1".to_string(), e.report.macro_f1)].into();
        Ok(Validation { loss: e.loss, metric_name: "accuracy".into(), metrics })
    }
}
