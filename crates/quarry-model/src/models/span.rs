//! The span-prediction model: encoder plus B/I/O/F token classifier.

use candle_core::{Tensor, D};

use crate::checkpoint::read_head_config;
use crate::error::{ModelError, Result};
use crate::evaluation::spans::{aligned, ExactMatch, ExampleGroup, Label};
use crate::loading::LoadedModel;
use crate::nn::heads::{cross_entropy, HeadConfig, TokenClassifier};
use crate::training::data::{balanced_weights_of_counts, make_batch, EncodedExample};
use crate::training::train::{Trainable, Validation};

/// An encoder with a token classifier over B/I/O/F.
pub struct SpanModel {
    /// Encoder, tokenizer and parameters.
    pub model: LoadedModel,
    head: TokenClassifier,
    dropout: f64,
    class_weights: Option<Vec<f32>>,
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
    /// A checkpoint trained with label weights brings them (see [`Self::set_class_weights`]).
    pub fn new(mut model: LoadedModel) -> Result<Self> {
        let stored = match &model.dir {
            Some(dir) => match read_head_config(dir)? {
                Some(HeadConfig::Span { class_weights, .. }) => class_weights,
                _ => None,
            },
            None => None,
        };
        let hidden = model.config.hidden_size;
        let dropout = model.config.classifier_dropout();
        let head = TokenClassifier::new(&mut model.store, hidden, Label::ALL.len(), dropout)?;
        let mut span = SpanModel { model, head, dropout, class_weights: None };
        span.set_class_weights(stored)?;
        Ok(span)
    }

    /// The span model of a checkpoint trained by `quarry train span`, for evaluation and
    /// prediction; any other checkpoint is an error ([`crate::checkpoint::expect_trained_head`]).
    pub fn trained(model: LoadedModel) -> Result<Self> {
        crate::checkpoint::expect_trained_head(model.dir.as_deref(), "span", "quarry train span")?;
        SpanModel::new(model)
    }

    /// Weights the training loss per label (in [`Label::ALL`]'s order; `None`: the paper's
    /// plain cross-entropy). The weighted loss's minimum scales each label's odds by its
    /// weight, so evaluation and prediction divide the weights back out (logit adjustment,
    /// Menon et al. 2021: `ln w` is subtracted from the logits): validation loss, exact match
    /// and predicted labels estimate the unweighted posterior, as under the paper's loss.
    pub fn set_class_weights(&mut self, class_weights: Option<Vec<f32>>) -> Result<()> {
        if let Some(w) = &class_weights {
            if w.len() != Label::ALL.len() || w.iter().any(|x| !x.is_finite() || *x <= 0.0) {
                return Err(ModelError::Data(format!(
                    "span class weights must be {} positive numbers (B, I, O, F), got {w:?}",
                    Label::ALL.len()
                )));
            }
        }
        self.class_weights = class_weights;
        Ok(())
    }

    /// The head description written into checkpoints.
    pub fn head_config(&self) -> HeadConfig {
        HeadConfig::Span {
            labels: Label::ALL.iter().map(|l| l.name().to_string()).collect(),
            dropout: self.dropout,
            class_weights: self.class_weights.clone(),
        }
    }

    /// Logits `(batch, seq, 4)`.
    pub fn logits(&self, ids: &Tensor, mask: &Tensor, train: bool) -> Result<Tensor> {
        let out = self.model.encoder.forward(ids, mask, train)?;
        self.head.forward(&out.last, train)
    }

    /// Logits `(batch, seq, 4)` with the label weights divided back out, in evaluation mode.
    fn posterior_logits(&self, ids: &Tensor, mask: &Tensor) -> Result<Tensor> {
        let logits = self.logits(ids, mask, false)?;
        match &self.class_weights {
            None => Ok(logits),
            Some(w) => {
                let log_w: Vec<f32> = w.iter().map(|x| x.ln()).collect();
                let log_w = Tensor::new(log_w.as_slice(), logits.device())?.to_dtype(logits.dtype())?;
                Ok(logits.broadcast_sub(&log_w)?)
            }
        }
    }

    /// The training loss of a batch: mean cross-entropy, weighted per label when class
    /// weights are set; labels `(batch * seq,)` with ignore index.
    pub fn loss(&self, ids: &Tensor, mask: &Tensor, labels: &Tensor, train: bool) -> Result<Tensor> {
        let logits = self.logits(ids, mask, train)?;
        let (b, s, c) = logits.dims3()?;
        cross_entropy(&logits.reshape((b * s, c))?, labels, self.class_weights.as_deref())
    }

    /// Loss, exact match and predictions over `examples` in evaluation mode (label weights
    /// divided back out).
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
            let logits = self.posterior_logits(&batch.ids, &batch.mask)?;
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
            let logits = self.posterior_logits(&batch.ids, &batch.mask)?;
            out.extend(best_labels(&logits, &batch.lengths)?);
        }
        Ok(out)
    }

    /// The token classifier.
    pub fn head(&self) -> &TokenClassifier {
        &self.head
    }
}

/// How the span model's training loss weighs the labels.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum LabelWeighting {
    /// The paper's plain cross-entropy.
    #[default]
    Plain,
    /// Each label weighted by its inverse frequency in the training set
    /// ([`balanced_class_weights`]): not the paper's, but short schedules leave the
    /// all-`O` start sooner.
    Balanced,
}

impl LabelWeighting {
    /// Its name on the command line and in reports.
    pub fn name(self) -> &'static str {
        match self {
            LabelWeighting::Plain => "plain",
            LabelWeighting::Balanced => "balanced",
        }
    }

    /// The class weights it gives for training on `examples`.
    pub fn weights(self, examples: &[EncodedExample]) -> Option<Vec<f32>> {
        match self {
            LabelWeighting::Plain => None,
            LabelWeighting::Balanced => Some(balanced_class_weights(examples)),
        }
    }
}

impl std::str::FromStr for LabelWeighting {
    type Err = String;

    fn from_str(s: &str) -> std::result::Result<Self, String> {
        match s {
            "plain" => Ok(LabelWeighting::Plain),
            "balanced" => Ok(LabelWeighting::Balanced),
            other => Err(format!("unknown label weighting `{other}` (expected plain or balanced)")),
        }
    }
}

/// Per-label loss weights for `examples`, as scikit-learn's
/// `compute_class_weight("balanced", classes=np.unique(y), y=y)` over their labelled tokens:
/// `n / (k * count)` for each of the `k` labels that occur. A label that never occurs (F
/// without supporting facts) gets 1, which no target uses.
pub fn balanced_class_weights(examples: &[EncodedExample]) -> Vec<f32> {
    let mut counts = [0usize; Label::ALL.len()];
    for label in examples.iter().flat_map(|e| e.labels.iter().flatten()) {
        counts[label.index()] += 1;
    }
    balanced_weights_of_counts(&counts)
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

#[cfg(test)]
mod tests {
    use super::*;

    fn example(labels: Vec<Option<Label>>) -> EncodedExample {
        EncodedExample { ids: vec![0; labels.len()], labels, query: None, single_hop: None }
    }

    #[test]
    fn balanced_weights_are_inverse_frequencies_of_the_labels_present() {
        use Label::*;
        let set = [example(vec![None, Some(B), Some(O), Some(O), Some(O)]), example(vec![Some(I), Some(O)])];
        // scikit-learn: compute_class_weight("balanced", classes=[B, I, O], y=[B, O, O, O, I, O])
        // == [2, 2, 0.5]; F never occurs and gets 1.
        assert_eq!(balanced_class_weights(&set), vec![2.0, 2.0, 0.5, 1.0]);
        assert_eq!(LabelWeighting::Balanced.weights(&set), Some(vec![2.0, 2.0, 0.5, 1.0]));
        assert_eq!(LabelWeighting::Plain.weights(&set), None);
    }

    #[test]
    fn label_weighting_reads_its_names() {
        for w in [LabelWeighting::Plain, LabelWeighting::Balanced] {
            assert_eq!(w.name().parse::<LabelWeighting>().unwrap(), w);
        }
        assert!("inverse".parse::<LabelWeighting>().unwrap_err().contains("plain or balanced"));
    }

    #[test]
    fn span_head_configs_without_weights_still_read() {
        let old: HeadConfig =
            serde_json::from_str(r#"{"task":"span","labels":["B","I","O","F"],"dropout":0.1}"#).unwrap();
        assert!(matches!(old, HeadConfig::Span { class_weights: None, .. }));
        let weighted = HeadConfig::Span { labels: vec!["B".into()], dropout: 0.1, class_weights: Some(vec![2.0]) };
        let text = serde_json::to_string(&weighted).unwrap();
        assert_eq!(serde_json::from_str::<HeadConfig>(&text).unwrap(), weighted);
        assert!(!serde_json::to_string(&old).unwrap().contains("class_weights"));
    }
}
