//! Task heads on top of the encoder and their losses.

use std::sync::Arc;

use candle_core::{DType, IndexOp, Tensor, D};

use crate::error::{ModelError, Result};
use crate::nn::autocast::widen;
use crate::nn::layers::{Dropout, Linear};
use crate::nn::params::ParamStore;

/// Label index used for positions that take no part in the loss.
pub const IGNORE_INDEX: i64 = -100;

pub use crate::nn::head_config::HeadConfig;

/// Dropout then one linear layer over every token's last hidden state; logits in f32
/// whatever the autocast precision.
pub struct TokenClassifier {
    dropout: Dropout,
    linear: Linear,
}

impl TokenClassifier {
    /// Loads or initializes `classifier.weight`/`classifier.bias` for `num_labels` labels.
    pub fn new(store: &mut ParamStore, hidden: usize, num_labels: usize, dropout: f64) -> Result<Self> {
        let rng = Arc::clone(store.rng());
        Ok(TokenClassifier {
            dropout: Dropout::new(dropout, rng),
            linear: Linear::new(store, "classifier", hidden, num_labels, false)?,
        })
    }

    /// Logits `(batch, seq, labels)` from hidden states `(batch, seq, hidden)`.
    pub fn forward(&self, hidden: &Tensor, train: bool) -> Result<Tensor> {
        Ok(widen(&self.linear.forward(&self.dropout.forward(hidden, train)?, train)?)?)
    }
}

/// Dropout, a tanh feed-forward layer, dropout and an output layer over the summary token.
pub struct SequenceClassifier {
    dropout: Dropout,
    dense: Linear,
    out: Linear,
}

impl SequenceClassifier {
    /// Loads or initializes `classifier.dense` and `classifier.out_proj` for `num_classes`.
    pub fn new(store: &mut ParamStore, hidden: usize, num_classes: usize, dropout: f64) -> Result<Self> {
        let rng = Arc::clone(store.rng());
        Ok(SequenceClassifier {
            dropout: Dropout::new(dropout, rng),
            dense: Linear::new(store, "classifier.dense", hidden, hidden, false)?,
            out: Linear::new(store, "classifier.out_proj", hidden, num_classes, false)?,
        })
    }

    /// Logits `(batch, classes)` from hidden states `(batch, seq, hidden)`.
    pub fn forward(&self, hidden: &Tensor, train: bool) -> Result<Tensor> {
        let cls = hidden.i((.., 0, ..))?;
        let x = self.dense.forward(&self.dropout.forward(&cls, train)?, train)?.tanh()?;
        Ok(widen(&self.out.forward(&self.dropout.forward(&x, train)?, train)?)?)
    }
}

/// Mean cross-entropy of `logits` `(n, classes)` against `labels` `(n,)` (i64), skipping
/// labels equal to [`IGNORE_INDEX`]; with `class_weights`, PyTorch's weighted mean
/// (the sum of weighted losses over the sum of the targets' weights).
pub fn cross_entropy(logits: &Tensor, labels: &Tensor, class_weights: Option<&[f32]>) -> Result<Tensor> {
    let (n, classes) = logits.dims2()?;
    let labels_host = labels.to_dtype(DType::I64)?.to_vec1::<i64>()?;
    if labels_host.len() != n {
        return Err(ModelError::Data(format!("{} labels for {n} logit rows", labels_host.len())));
    }
    if let Some(w) = class_weights {
        if w.len() != classes {
            return Err(ModelError::Data(format!("{} class weights for {classes} classes", w.len())));
        }
    }
    let mut targets = Vec::with_capacity(n);
    let mut weights = Vec::with_capacity(n);
    for &l in &labels_host {
        if l == IGNORE_INDEX {
            targets.push(0u32);
            weights.push(0f32);
        } else if l < 0 || l as usize >= classes {
            return Err(ModelError::Data(format!("label {l} outside 0..{classes}")));
        } else {
            targets.push(l as u32);
            weights.push(class_weights.map_or(1.0, |w| w[l as usize]));
        }
    }
    let total: f32 = weights.iter().sum();
    let dev = logits.device();
    let log_probs = candle_nn::ops::log_softmax(logits, D::Minus1)?;
    if total == 0.0 {
        return Ok((log_probs.sum_all()? * 0.0)?);
    }
    let targets = Tensor::from_vec(targets, (n, 1), dev)?;
    let weights = Tensor::from_vec(weights, n, dev)?;
    let picked = log_probs.gather(&targets, 1)?.squeeze(1)?;
    Ok(((picked * weights)?.sum_all()? * (-1.0 / total as f64))?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use candle_core::Device;

    #[test]
    fn sequence_classifier_trains_on_the_summary_token() {
        let rng = std::sync::Arc::new(crate::nn::rng::SeededRng::new(1));
        let mut store = ParamStore::random(rng.clone(), &Device::Cpu);
        let head = SequenceClassifier::new(&mut store, 8, 2, 0.1).unwrap();
        let hidden = rng.normal(&candle_core::Shape::from((3, 5, 8)), 1.0, &Device::Cpu).unwrap();
        let logits = head.forward(&hidden, true).unwrap();
        assert_eq!(logits.dims(), &[3, 2]);
        let labels = Tensor::new(&[0i64, 1, 1], &Device::Cpu).unwrap();
        let loss = cross_entropy(&logits, &labels, Some(&[1.0, 3.0])).unwrap();
        let grads = loss.backward().unwrap();
        for (name, var) in crate::nn::params::sorted_vars(store.vars()) {
            let g = grads.get(var.as_tensor()).unwrap_or_else(|| panic!("no gradient for {name}"));
            let n: f32 = g.abs().unwrap().sum_all().unwrap().to_scalar().unwrap();
            assert!(n > 0.0, "zero gradient for {name}");
        }
        // In evaluation mode the head is deterministic.
        let a = head.forward(&hidden, false).unwrap();
        let b = head.forward(&hidden, false).unwrap();
        let d: f32 = (a - b).unwrap().abs().unwrap().max_all().unwrap().to_scalar().unwrap();
        assert_eq!(d, 0.0);
    }

    #[test]
    fn cross_entropy_matches_hand_computation() {
        let dev = Device::Cpu;
        let logits = Tensor::new(&[[2f32, 0., 0.], [0., 1., 0.], [5., 5., 5.]], &dev).unwrap();
        let labels = Tensor::new(&[0i64, 2, IGNORE_INDEX], &dev).unwrap();
        let l0 = -(2f32.exp() / (2f32.exp() + 2.0)).ln();
        let l1 = -(1.0 / (2.0 + 1f32.exp())).ln();
        let got: f32 = cross_entropy(&logits, &labels, None).unwrap().to_scalar().unwrap();
        assert!((got - (l0 + l1) / 2.0).abs() < 1e-6);
        let w = [1.0, 1.0, 3.0];
        let got: f32 = cross_entropy(&logits, &labels, Some(&w)).unwrap().to_scalar().unwrap();
        assert!((got - (l0 + 3.0 * l1) / 4.0).abs() < 1e-6);
        let bad = Tensor::new(&[0i64, 7, 1], &dev).unwrap();
        assert!(cross_entropy(&logits, &bad, None).is_err());
    }
}
