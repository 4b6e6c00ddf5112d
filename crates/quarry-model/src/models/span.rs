//! The span-prediction model: encoder plus B/I/O/F token classifier.

use candle_core::{Tensor, D};

use crate::error::{ModelError, Result};
use crate::evaluation::spans::{aligned, ExactMatch, ExampleGroup, Label};
use crate::loading::LoadedModel;
use crate::nn::heads::{cross_entropy, HeadConfig, TokenClassifier};
use crate::training::data::{make_batch, EncodedExample};
use crate::training::train::{Trainable, Validation};

/// An encoder with a token classifier over B/I/O/F.
pub struct SpanModel {
    /// Encoder, tokenizer and parameters.
    pub model: LoadedModel,
    head: TokenClassifier,
    dropout: f64,
}

/// Validation results: mean loss and exact match.
#[derive(Debug, Clone)]
pub struct Evaluation {
    /// Mean token cross-entropy over batches.
    pub loss: f64,
    /// Exact match of span sets.
    pub exact_match: ExactMatch,
    /// Predicted labels per example (`None` where the gold had no label).
    pub predictions: Vec<Vec<Label>>,
}

impl SpanModel {
    /// Adds the span head to `model`; a checkpoint's `classifier.*` weights are reused. The
    /// head's dropout is Hugging Face's choice for `BertForTokenClassification`:
    /// `classifier_dropout` of the configuration, else `hidden_dropout_prob`.
    pub fn new(mut model: LoadedModel) -> Result<Self> {
        let hidden = model.config.hidden_size;
        let dropout = model.config.classifier_dropout();
        let head = TokenClassifier::new(&mut model.store, hidden, Label::ALL.len(), dropout)?;
        Ok(SpanModel { model, head, dropout })
    }

    /// The head description written into checkpoints.
    pub fn head_config(&self) -> HeadConfig {
        HeadConfig::Span { labels: Label::ALL.iter().map(|l| l.name().to_string()).collect(), dropout: self.dropout }
    }

    /// Logits `(batch, seq, 4)`.
    pub fn logits(&self, ids: &Tensor, mask: &Tensor, train: bool) -> Result<Tensor> {
        let out = self.model.encoder.forward(ids, mask, train)?;
        self.head.forward(&out.last, train)
    }

    /// Mean cross-entropy of a batch; labels `(batch * seq,)` with ignore index.
    pub fn loss(&self, ids: &Tensor, mask: &Tensor, labels: &Tensor, train: bool) -> Result<Tensor> {
        let logits = self.logits(ids, mask, train)?;
        let (b, s, c) = logits.dims3()?;
        cross_entropy(&logits.reshape((b * s, c))?, labels, None)
    }

    /// Loss, exact match and predictions over `examples` in evaluation mode.
    pub fn evaluate(&self, examples: &[EncodedExample], batch_size: usize) -> Result<Evaluation> {
        if examples.is_empty() {
            return Err(ModelError::Data("no examples to evaluate".into()));
        }
        let dev = self.model.encoder.device().clone();
        let pad = self.model.tokenizer.pad_id();
        let mut em = ExactMatch::default();
        let mut loss_sum = 0.0;
        let mut batches = 0;
        let mut predictions = Vec::with_capacity(examples.len());
        for chunk in examples.chunks(batch_size.max(1)) {
            let refs: Vec<&EncodedExample> = chunk.iter().collect();
            let batch = make_batch(&refs, pad, &dev)?;
            let logits = self.logits(&batch.ids, &batch.mask, false)?;
            let (b, s, c) = logits.dims3()?;
            let loss = cross_entropy(&logits.reshape((b * s, c))?, &batch.labels, None)?;
            loss_sum += loss.to_scalar::<f32>()? as f64;
            batches += 1;
            for (e, pred) in chunk.iter().zip(best_labels(&logits, &batch.lengths)?) {
                let (p, g) = aligned(&pred, &e.labels);
                em.add_grouped(&p, &g, ExampleGroup { query: e.query.as_deref(), single_hop: e.single_hop });
                predictions.push(pred);
            }
        }
        Ok(Evaluation { loss: loss_sum / batches as f64, exact_match: em, predictions })
    }

    /// The most likely label of every token of every id sequence, in evaluation mode, in
    /// padded batches of `batch_size`.
    pub fn predict_labels(&self, sequences: &[Vec<u32>], batch_size: usize) -> Result<Vec<Vec<Label>>> {
        let dev = self.model.encoder.device().clone();
        let pad = self.model.tokenizer.pad_id();
        let mut out = Vec::with_capacity(sequences.len());
        for chunk in sequences.chunks(batch_size.max(1)) {
            let examples: Vec<EncodedExample> = chunk
                .iter()
                .map(|ids| EncodedExample {
                    ids: ids.clone(),
                    labels: vec![None; ids.len()],
                    query: None,
                    single_hop: None,
                })
                .collect();
            let batch = make_batch(&examples.iter().collect::<Vec<_>>(), pad, &dev)?;
            let logits = self.logits(&batch.ids, &batch.mask, false)?;
            out.extend(best_labels(&logits, &batch.lengths)?);
        }
        Ok(out)
    }

    /// The token classifier.
    pub fn head(&self) -> &TokenClassifier {
        &self.head
    }
}

/// The argmax label of every unpadded position of `logits` `(batch, seq, 4)`.
fn best_labels(logits: &Tensor, lengths: &[usize]) -> Result<Vec<Vec<Label>>> {
    let best = logits.argmax(D::Minus1)?.to_vec2::<u32>()?;
    Ok(best
        .into_iter()
        .zip(lengths)
        .map(|(row, &n)| row[..n].iter().map(|&i| Label::from_index(i as usize).unwrap_or(Label::O)).collect())
        .collect())
}

impl Trainable for SpanModel {
    type Example = EncodedExample;

    fn store(&self) -> &crate::nn::params::ParamStore {
        &self.model.store
    }

    fn save(&self, dir: &std::path::Path) -> Result<()> {
        self.model.save(dir, &self.head_config())
    }

    fn head_config(&self) -> HeadConfig {
        SpanModel::head_config(self)
    }

    fn batch_loss(&self, batch: &[&EncodedExample], train: bool) -> Result<Tensor> {
        let batch = make_batch(batch, self.model.tokenizer.pad_id(), self.model.encoder.device())?;
        self.loss(&batch.ids, &batch.mask, &batch.labels, train)
    }

    /// Validation loss and exact match over all examples (`exact_match`).
    fn validate(&self, valid: &[EncodedExample], batch_size: usize) -> Result<Validation> {
        let eval = self.evaluate(valid, batch_size)?;
        let name = "exact_match".to_string();
        let metrics = [(name.clone(), eval.exact_match.all.rate())].into_iter().collect();
        Ok(Validation { loss: eval.loss, metric_name: name, metrics })
    }
}
