//! The relevance classifier of CodeQueries' two-step procedure (paper Section 4.2): an
//! encoder with a sequence classifier over `[CLS] query [SEP] block [SEP]` that tells
//! whether the block is relevant to the query, trained with class-weighted cross-entropy.

use std::collections::BTreeMap;

use candle_core::{Tensor, D};
use quarry_eval::classification;

use crate::checkpoint::read_head_config;
use crate::error::{ModelError, Result};
use crate::loading::LoadedModel;
use crate::nn::heads::{cross_entropy, HeadConfig, SequenceClassifier};
use crate::training::data::{pad_ids, EncodedRelevance};
use crate::training::train::{Trainable, Validation};

/// Dropout before each of the classifier's two feed-forward layers when the encoder
/// configuration sets none (see [`crate::EncoderConfig::classifier_dropout`]).
pub const RELEVANCE_HEAD_DROPOUT: f64 = 0.1;
/// Classes of the relevance head: 0 not relevant, 1 relevant.
pub const RELEVANCE_CLASSES: usize = 2;

/// An encoder with a two-class sequence classifier over the summary token.
pub struct RelevanceModel {
    /// Encoder, tokenizer and parameters.
    pub model: LoadedModel,
    head: SequenceClassifier,
    class_weights: Option<Vec<f32>>,
    dropout: f64,
}

/// Counts of predictions against gold labels, the relevant class being positive.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Confusion {
    /// Relevant, predicted relevant.
    pub true_positives: usize,
    /// Not relevant, predicted relevant.
    pub false_positives: usize,
    /// Not relevant, predicted not relevant.
    pub true_negatives: usize,
    /// Relevant, predicted not relevant.
    pub false_negatives: usize,
}

impl Confusion {
    /// Counts one prediction.
    pub fn add(&mut self, predicted: bool, gold: bool) {
        match (predicted, gold) {
            (true, true) => self.true_positives += 1,
            (true, false) => self.false_positives += 1,
            (false, false) => self.true_negatives += 1,
            (false, true) => self.false_negatives += 1,
        }
    }

    /// Number of predictions counted.
    pub fn total(&self) -> usize {
        self.true_positives + self.false_positives + self.true_negatives + self.false_negatives
    }

    /// Fraction of correct predictions.
    pub fn accuracy(&self) -> f64 {
        classification::ratio(self.true_positives + self.true_negatives, self.total())
    }

    /// Fraction of predicted-relevant blocks that are relevant (0 when none is predicted).
    pub fn precision(&self) -> f64 {
        classification::precision(self.true_positives, self.false_positives)
    }

    /// Fraction of relevant blocks predicted relevant (0 when none is relevant).
    pub fn recall(&self) -> f64 {
        classification::recall(self.true_positives, self.false_negatives)
    }

    /// Harmonic mean of precision and recall (0 when both are 0).
    pub fn f1(&self) -> f64 {
        classification::f1(self.true_positives, self.false_positives, self.false_negatives)
    }
}

/// Results of [`RelevanceModel::evaluate`].
#[derive(Debug, Clone)]
pub struct RelevanceEvaluation {
    /// Mean (class-weighted, if the model has weights) cross-entropy over batches.
    pub loss: f64,
    /// Fraction of correct predictions.
    pub accuracy: f64,
    /// Precision of the relevant class.
    pub precision: f64,
    /// Recall of the relevant class.
    pub recall: f64,
    /// F1 of the relevant class.
    pub f1: f64,
    /// The counts the fractions come from.
    pub confusion: Confusion,
    /// Whether each example was predicted relevant, in input order.
    pub predictions: Vec<bool>,
}

fn check_weights(weights: &Option<Vec<f32>>) -> Result<()> {
    match weights {
        Some(w) if w.len() != RELEVANCE_CLASSES || w.iter().any(|x| !x.is_finite() || *x <= 0.0) => {
            Err(ModelError::Data(format!(
                "relevance class weights must be {RELEVANCE_CLASSES} positive numbers, got {w:?}"
            )))
        }
        _ => Ok(()),
    }
}

/// Argmax of `(batch, 2)` logits: whether each row is predicted relevant.
fn predicted(logits: &Tensor) -> Result<Vec<bool>> {
    Ok(logits.argmax(D::Minus1)?.to_vec1::<u32>()?.into_iter().map(|c| c == 1).collect())
}

impl RelevanceModel {
    /// Adds the relevance head to `model`; a checkpoint's `classifier.dense` and
    /// `classifier.out_proj` weights are reused. `class_weights` (one positive weight per
    /// class, e.g. from [`crate::training::data::class_weights_for`]) weight the loss; when `None` and
    /// the checkpoint's `head_config.json` is a relevance head with weights, those are used.
    pub fn new(mut model: LoadedModel, class_weights: Option<Vec<f32>>) -> Result<Self> {
        let stored = match &model.dir {
            Some(dir) => read_head_config(dir)?,
            None => None,
        };
        let class_weights = match stored {
            Some(HeadConfig::Relevance { num_classes, .. }) if num_classes != RELEVANCE_CLASSES => {
                return Err(ModelError::Config(format!(
                    "the checkpoint's relevance head has {num_classes} classes, not {RELEVANCE_CLASSES}"
                )))
            }
            Some(HeadConfig::Relevance { class_weights: stored, .. }) => class_weights.or(stored),
            _ => class_weights,
        };
        check_weights(&class_weights)?;
        let hidden = model.config.hidden_size;
        // Hugging Face's classification heads: `classifier_dropout`, else the hidden dropout.
        let dropout = model.config.classifier_dropout();
        let head = SequenceClassifier::new(&mut model.store, hidden, RELEVANCE_CLASSES, dropout)?;
        Ok(RelevanceModel { model, head, class_weights, dropout })
    }

    /// The relevance model of a checkpoint trained by `quarry train relevance`, for evaluation
    /// and prediction; any other checkpoint is an error
    /// ([`crate::checkpoint::expect_trained_head`]).
    pub fn trained(model: LoadedModel) -> Result<Self> {
        crate::checkpoint::expect_trained_head(model.dir.as_deref(), "relevance", "quarry train relevance")?;
        RelevanceModel::new(model, None)
    }

    /// The loss's class weights, if any.
    pub fn class_weights(&self) -> Option<&[f32]> {
        self.class_weights.as_deref()
    }

    /// Replaces the loss's class weights (`None`: an unweighted loss).
    pub fn set_class_weights(&mut self, class_weights: Option<Vec<f32>>) -> Result<()> {
        check_weights(&class_weights)?;
        self.class_weights = class_weights;
        Ok(())
    }

    /// The head description written into checkpoints, class weights included.
    pub fn head_config(&self) -> HeadConfig {
        HeadConfig::Relevance {
            num_classes: RELEVANCE_CLASSES,
            dropout: self.dropout,
            class_weights: self.class_weights.clone(),
        }
    }

    /// Logits `(batch, 2)` from ids and mask `(batch, seq)`.
    pub fn logits(&self, ids: &Tensor, mask: &Tensor, train: bool) -> Result<Tensor> {
        let out = self.model.encoder.forward(ids, mask, train)?;
        self.head.forward(&out.last, train)
    }

    /// Class-weighted mean cross-entropy of a batch; labels `(batch,)` i64, 1 relevant.
    pub fn loss(&self, ids: &Tensor, mask: &Tensor, labels: &Tensor, train: bool) -> Result<Tensor> {
        cross_entropy(&self.logits(ids, mask, train)?, labels, self.class_weights.as_deref())
    }

    /// Pads `sequences` and returns their logits in evaluation mode.
    fn eval_logits(&self, sequences: &[&[u32]]) -> Result<Tensor> {
        if sequences.iter().any(|s| s.is_empty()) {
            return Err(ModelError::Data("an input sequence is empty".into()));
        }
        let (ids, mask) = pad_ids(sequences, self.model.tokenizer.pad_id(), self.model.encoder.device())?;
        self.logits(&ids, &mask, false)
    }

    /// Gold labels `(batch,)` as the loss takes them.
    fn labels(&self, examples: &[&EncodedRelevance]) -> Result<Tensor> {
        let labels: Vec<i64> = examples.iter().map(|e| i64::from(e.relevant)).collect();
        Ok(Tensor::from_vec(labels, examples.len(), self.model.encoder.device())?)
    }

    /// Loss, accuracy, precision, recall and F1 of the relevant class, and predictions over
    /// `examples` in evaluation mode.
    pub fn evaluate(&self, examples: &[EncodedRelevance], batch_size: usize) -> Result<RelevanceEvaluation> {
        if examples.is_empty() {
            return Err(ModelError::Data("no examples to evaluate".into()));
        }
        let mut confusion = Confusion::default();
        let mut loss_sum = 0.0;
        let mut batches = 0;
        let mut predictions = Vec::with_capacity(examples.len());
        for chunk in examples.chunks(batch_size.max(1)) {
            let refs: Vec<&EncodedRelevance> = chunk.iter().collect();
            let sequences: Vec<&[u32]> = chunk.iter().map(|e| e.ids.as_slice()).collect();
            let logits = self.eval_logits(&sequences)?;
            let loss = cross_entropy(&logits, &self.labels(&refs)?, self.class_weights.as_deref())?;
            loss_sum += loss.to_scalar::<f32>()? as f64;
            batches += 1;
            for (e, p) in chunk.iter().zip(predicted(&logits)?) {
                confusion.add(p, e.relevant);
                predictions.push(p);
            }
        }
        Ok(RelevanceEvaluation {
            loss: loss_sum / batches as f64,
            accuracy: confusion.accuracy(),
            precision: confusion.precision(),
            recall: confusion.recall(),
            f1: confusion.f1(),
            confusion,
            predictions,
        })
    }

    /// Whether each id sequence (`[CLS] query [SEP] block [SEP]`, at most the model's length)
    /// is classified relevant (argmax = 1), in evaluation mode, `batch_size` sequences per
    /// padded forward pass.
    pub fn relevant(&self, sequences: &[Vec<u32>], batch_size: usize) -> Result<Vec<bool>> {
        let mut out = Vec::with_capacity(sequences.len());
        for chunk in sequences.chunks(batch_size.max(1)) {
            let refs: Vec<&[u32]> = chunk.iter().map(|s| s.as_slice()).collect();
            out.extend(predicted(&self.eval_logits(&refs)?)?);
        }
        Ok(out)
    }

    /// The sequence classifier.
    pub fn head(&self) -> &SequenceClassifier {
        &self.head
    }
}

impl Trainable for RelevanceModel {
    type Example = EncodedRelevance;

    fn store(&self) -> &crate::nn::params::ParamStore {
        &self.model.store
    }

    fn save(&self, dir: &std::path::Path) -> Result<()> {
        self.model.save(dir, &self.head_config())
    }

    fn head_config(&self) -> HeadConfig {
        RelevanceModel::head_config(self)
    }

    fn batch_loss(&self, batch: &[&EncodedRelevance], train: bool) -> Result<Tensor> {
        let sequences: Vec<&[u32]> = batch.iter().map(|e| e.ids.as_slice()).collect();
        let (ids, mask) = pad_ids(&sequences, self.model.tokenizer.pad_id(), self.model.encoder.device())?;
        self.loss(&ids, &mask, &self.labels(batch)?, train)
    }

    /// Validation loss, `accuracy` (the headline), and `precision`, `recall` and `f1` of the
    /// relevant class.
    fn validate(&self, valid: &[EncodedRelevance], batch_size: usize) -> Result<Validation> {
        let eval = self.evaluate(valid, batch_size)?;
        let metrics: BTreeMap<String, f64> =
            [("accuracy", eval.accuracy), ("precision", eval.precision), ("recall", eval.recall), ("f1", eval.f1)]
                .into_iter()
                .map(|(k, v)| (k.to_string(), v))
                .collect();
        Ok(Validation { loss: eval.loss, metric_name: "accuracy".into(), metrics })
    }
}

impl crate::evaluation::file_level::BlockSelector for RelevanceModel {
    fn relevant(&self, inputs: &[Vec<String>], batch_size: usize) -> Result<Vec<bool>> {
        let ids = inputs.iter().map(|tokens| self.model.tokenizer.ids_of_tokens(tokens)).collect::<Result<Vec<_>>>()?;
        RelevanceModel::relevant(self, &ids, batch_size)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::ScratchSpec;
    use crate::loading::{load_model, ModelSource};
    use candle_core::Device;

    fn scratch(seed: u64) -> LoadedModel {
        let temp = tempfile::tempdir().unwrap();
        let dir = temp.path();
        std::fs::write(dir.join("vocab.txt"), "[PAD]\n[UNK]\n[CLS]\n[SEP]\na\nb\n").unwrap();
        let source = ModelSource::Scratch(ScratchSpec::parse("1x16x2").unwrap());
        load_model(&source, Some(dir), &Device::Cpu, seed).unwrap()
    }

    #[test]
    fn confusion_fractions_follow_scikit_learn() {
        let mut c = Confusion::default();
        for (p, g) in [(true, true), (true, false), (false, true), (false, false), (true, true)] {
            c.add(p, g);
        }
        assert_eq!(c.total(), 5);
        assert!((c.accuracy() - 0.6).abs() < 1e-12);
        assert!((c.precision() - 2.0 / 3.0).abs() < 1e-12);
        assert!((c.recall() - 2.0 / 3.0).abs() < 1e-12);
        assert!((c.f1() - 2.0 / 3.0).abs() < 1e-12);
        let none = Confusion { true_negatives: 3, ..Confusion::default() };
        assert_eq!((none.precision(), none.recall(), none.f1(), none.accuracy()), (0.0, 0.0, 0.0, 1.0));
    }

    #[test]
    fn predictions_are_batched_and_deterministic() {
        let model = RelevanceModel::new(scratch(3), Some(vec![0.75, 1.5])).unwrap();
        let seqs = vec![vec![2, 4, 3, 5, 3], vec![2, 5, 3], vec![2, 4, 4, 4, 3, 5, 5, 3]];
        let all = model.relevant(&seqs, 8).unwrap();
        assert_eq!(all.len(), 3);
        // Padding does not change a sequence's prediction.
        assert_eq!(model.relevant(&seqs, 1).unwrap(), all);
        let logits = model.eval_logits(&[&seqs[0]]).unwrap();
        assert_eq!(logits.dims(), &[1, 2]);
        assert!(model.relevant(&[vec![]], 1).is_err());
        assert!(RelevanceModel::new(scratch(3), Some(vec![1.0])).is_err());
        let encoded: Vec<EncodedRelevance> = seqs
            .iter()
            .zip([true, false, true])
            .map(|(s, r)| EncodedRelevance { ids: s.clone(), relevant: r, query: None })
            .collect();
        let eval = model.evaluate(&encoded, 2).unwrap();
        assert_eq!(eval.predictions, all);
        assert_eq!(eval.confusion.total(), 3);
        assert!(eval.loss.is_finite());
        assert_eq!(
            model.head_config(),
            HeadConfig::Relevance {
                num_classes: 2,
                dropout: RELEVANCE_HEAD_DROPOUT,
                class_weights: Some(vec![0.75, 1.5])
            }
        );
    }
}
