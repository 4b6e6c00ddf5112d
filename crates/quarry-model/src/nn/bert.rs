//! A BERT/RoBERTa encoder whose every parameter trains, with all-layer outputs.

use std::sync::Arc;

use candle_core::{DType, Device, IndexOp, Tensor};

use crate::config::{EncoderConfig, Family, HiddenAct};
use crate::error::{ModelError, Result};
use crate::nn::layer_norm::LayerNorm;
use crate::nn::layers::{affine, Dropout, Embedding, Linear};
use crate::nn::params::{Init, ParamStore};
use crate::nn::rng::SeededRng;

fn layer_norm(store: &mut ParamStore, prefix: &str, dim: usize, eps: f64, required: bool) -> Result<LayerNorm> {
    let w = store.get(&format!("{prefix}.weight"), dim, Init::Ones, required)?;
    let b = store.get(&format!("{prefix}.bias"), dim, Init::Zeros, required)?;
    Ok(LayerNorm::new(w, b, eps))
}

struct Embeddings {
    word: Embedding,
    position: Embedding,
    token_type: Embedding,
    norm: LayerNorm,
    dropout: Dropout,
    family: Family,
    pad_id: u32,
}

impl Embeddings {
    fn new(c: &EncoderConfig, store: &mut ParamStore) -> Result<Self> {
        let h = c.hidden_size;
        Ok(Embeddings {
            word: Embedding::new(store, "embeddings.word_embeddings", c.vocab_size, h, true)?,
            position: Embedding::new(store, "embeddings.position_embeddings", c.max_position_embeddings, h, true)?,
            token_type: Embedding::new(store, "embeddings.token_type_embeddings", c.type_vocab_size, h, true)?,
            norm: layer_norm(store, "embeddings.LayerNorm", h, c.layer_norm_eps, true)?,
            dropout: Dropout::new(c.hidden_dropout_prob, store.rng().clone()),
            family: c.family()?,
            pad_id: c.pad_token_id,
        })
    }

    /// Position ids of `input_ids` when its first column is position `start` of the sequence.
    fn position_ids(&self, input_ids: &Tensor, start: usize) -> candle_core::Result<Tensor> {
        let (b, s) = input_ids.dims2()?;
        match self.family {
            Family::Bert => Tensor::arange(start as u32, (start + s) as u32, input_ids.device())?
                .unsqueeze(0)?
                .broadcast_as((b, s))?
                .contiguous(),
            Family::Roberta => {
                // Padding tokens keep position padding_idx; the others count up from padding_idx + 1
                // (a continued sequence is taken to hold no padding before `start`).
                let ids = input_ids.to_vec2::<u32>()?;
                let mut pos = Vec::with_capacity(b * s);
                for row in ids {
                    let mut count = start as u32;
                    for id in row {
                        if id == self.pad_id {
                            pos.push(self.pad_id);
                        } else {
                            count += 1;
                            pos.push(self.pad_id + count);
                        }
                    }
                }
                Tensor::from_vec(pos, (b, s), input_ids.device())
            }
        }
    }

    fn forward(&self, input_ids: &Tensor, start: usize, train: bool) -> candle_core::Result<Tensor> {
        self.forward_words(&self.word.forward(input_ids, train)?, input_ids, start, train)
    }

    /// The embedding of `input_ids` from its word vectors `x` `(batch, seq, hidden)`, already
    /// looked up: position and token-type vectors added, layer norm, dropout.
    fn forward_words(&self, x: &Tensor, input_ids: &Tensor, start: usize, train: bool) -> candle_core::Result<Tensor> {
        let positions = self.position_ids(input_ids, start)?;
        let types = input_ids.zeros_like()?;
        let x = x.add(&self.position.forward(&positions, train)?)?;
        let x = x.add(&self.token_type.forward(&types, train)?)?;
        let x = self.norm.forward(&x, train)?;
        self.dropout.forward(&x, train)
    }
}

struct Layer {
    query: Linear,
    key: Linear,
    value: Linear,
    attn_out: Linear,
    attn_norm: LayerNorm,
    intermediate: Linear,
    output: Linear,
    out_norm: LayerNorm,
    dropout: Dropout,
    attn_dropout: Dropout,
    act: HiddenAct,
    heads: usize,
    head_dim: usize,
}

impl Layer {
    fn new(c: &EncoderConfig, store: &mut ParamStore, i: usize) -> Result<Self> {
        let p = format!("encoder.layer.{i}");
        let h = c.hidden_size;
        let rng = store.rng().clone();
        Ok(Layer {
            query: Linear::new(store, &format!("{p}.attention.self.query"), h, h, true)?,
            key: Linear::new(store, &format!("{p}.attention.self.key"), h, h, true)?,
            value: Linear::new(store, &format!("{p}.attention.self.value"), h, h, true)?,
            attn_out: Linear::new(store, &format!("{p}.attention.output.dense"), h, h, true)?,
            attn_norm: layer_norm(store, &format!("{p}.attention.output.LayerNorm"), h, c.layer_norm_eps, true)?,
            intermediate: Linear::new(store, &format!("{p}.intermediate.dense"), h, c.intermediate_size, true)?,
            output: Linear::new(store, &format!("{p}.output.dense"), c.intermediate_size, h, true)?,
            out_norm: layer_norm(store, &format!("{p}.output.LayerNorm"), h, c.layer_norm_eps, true)?,
            dropout: Dropout::new(c.hidden_dropout_prob, rng.clone()),
            attn_dropout: Dropout::new(c.attention_probs_dropout_prob, rng),
            act: c.hidden_act,
            heads: c.num_attention_heads,
            head_dim: c.head_dim(),
        })
    }

    fn split_heads(&self, x: &Tensor) -> candle_core::Result<Tensor> {
        let (b, s, _) = x.dims3()?;
        x.reshape((b, s, self.heads, self.head_dim))?.transpose(1, 2)?.contiguous()
    }

    /// The key bias, whose gradient is exactly zero. It adds `q . b` to every score of a
    /// query, which softmax cancels, so the loss does not depend on it; differentiating
    /// through the graph would give rounding noise instead (sums of terms that cancel, of
    /// order 1e-9), which Adam, dividing by the gradient's own magnitude, turns into steps
    /// of up to the learning rate in a direction set by rounding.
    fn key_bias(&self, train: bool) -> candle_core::Result<Tensor> {
        crate::kernels::ops::with_zero_gradient(self.key.bias(train))
    }

    /// Self-attention over `x` with the heads merged back, `(batch, seq, hidden)`.
    fn attention(&self, x: &Tensor, mask_bias: &Tensor, train: bool) -> candle_core::Result<Tensor> {
        let (b, s, h) = x.dims3()?;
        let key_bias = self.key_bias(train)?;
        if x.device().is_cpu() && x.dtype() == DType::F32 && self.query.compute_dtype().is_none() {
            // One product for queries, keys and values, and the fused attention kernel.
            let w = Tensor::cat(&[self.query.weight(train), self.key.weight(train), self.value.weight(train)], 0)?;
            let bias = Tensor::cat(&[self.query.bias(train), &key_bias, self.value.bias(train)], 0)?;
            let qkv = affine(x, &w, &bias)?;
            return crate::kernels::attention::self_attention(
                &qkv,
                self.heads,
                mask_bias,
                self.attn_dropout.key(train),
            );
        }
        // Scaling the queries is cheaper than scaling the (seq x seq) scores.
        let scale = 1.0 / (self.head_dim as f64).sqrt();
        let q = self.split_heads(&(self.query.forward(x, train)? * scale)?)?;
        let k = self.split_heads(&self.key.forward_with_bias(x, &key_bias, train)?)?;
        let v = self.split_heads(&self.value.forward(x, train)?)?;
        let scores = q.matmul(&k.t()?)?;
        let probs = crate::kernels::ops::masked_softmax(&scores, mask_bias)?;
        let probs = self.attn_dropout.forward(&probs, train)?;
        probs.matmul(&v)?.transpose(1, 2)?.reshape((b, s, h))
    }

    /// `mask_bias` has shape `(batch, seq)`: 0 for real tokens, a large negative for padding.
    fn forward(&self, x: &Tensor, mask_bias: &Tensor, train: bool) -> candle_core::Result<Tensor> {
        let ctx = self.attention(x, mask_bias, train)?;
        let attn = self.attn_out.forward(&ctx, train)?;
        let attn = self.attn_norm.forward_residual(&attn, x, self.dropout.key(train), train)?;
        let inter = self.intermediate.forward(&attn, train)?;
        let inter = self.act.apply(&inter)?;
        let out = self.output.forward(&inter, train)?;
        self.out_norm.forward_residual(&out, &attn, self.dropout.key(train), train)
    }
}

/// What one forward pass of the encoder produces.
#[derive(Debug, Clone)]
pub struct EncoderOutput {
    /// The embedding output followed by every layer's output, each `(batch, seq, hidden)`.
    pub hidden_states: Vec<Tensor>,
    /// The last layer's output, `(batch, seq, hidden)`.
    pub last: Tensor,
}

impl EncoderOutput {
    /// The vectors of the token at `position` (0 is the summary token, [CLS] or `<s>`) in
    /// every hidden state: `hidden_states.len()` tensors of shape `(batch, hidden)`.
    /// This is the per-layer feature set probing classifiers use.
    pub fn token_features(&self, position: usize) -> candle_core::Result<Vec<Tensor>> {
        self.hidden_states.iter().map(|h| h.i((.., position, ..))).collect()
    }

    /// The last layer's summary-token vectors, `(batch, hidden)`, contiguous: a strided view
    /// cannot be a CUDA matrix product's operand (cuBLAS needs unit stride in one dimension
    /// and the row length in the other).
    pub fn cls(&self) -> candle_core::Result<Tensor> {
        self.last.i((.., 0, ..))?.contiguous()
    }
}

/// A BERT or RoBERTa encoder (without task head).
pub struct Encoder {
    config: EncoderConfig,
    embeddings: Embeddings,
    layers: Vec<Layer>,
    pooler: Option<Linear>,
    device: Device,
}

impl Encoder {
    /// Builds the encoder from `store`, which supplies pretrained or fresh parameters.
    ///
    /// The pooler is built when the store has pretrained pooler weights or is random.
    pub fn new(config: &EncoderConfig, store: &mut ParamStore) -> Result<Self> {
        config.validate()?;
        let embeddings = Embeddings::new(config, store)?;
        let layers = (0..config.num_hidden_layers).map(|i| Layer::new(config, store, i)).collect::<Result<Vec<_>>>()?;
        let pooler = if store.has_pretrained("pooler.dense.weight") {
            Some(Linear::new(store, "pooler.dense", config.hidden_size, config.hidden_size, true)?)
        } else {
            None
        };
        Ok(Encoder { config: config.clone(), embeddings, layers, pooler, device: store.device().clone() })
    }

    /// The configuration the encoder was built from.
    pub fn config(&self) -> &EncoderConfig {
        &self.config
    }

    /// The device the parameters live on.
    pub fn device(&self) -> &Device {
        &self.device
    }

    /// Runs the encoder on `input_ids` (`(batch, seq)`, u32) with `attention_mask`
    /// (`(batch, seq)`, 1 for real tokens, 0 for padding; any numeric dtype).
    ///
    /// With `train`, dropout acts and the outputs record the gradient graph of every
    /// parameter. Without it the pass is pure inference: no dropout and no graph, so
    /// intermediate tensors are freed at once (call `backward` only on training outputs).
    pub fn forward(&self, input_ids: &Tensor, attention_mask: &Tensor, train: bool) -> Result<EncoderOutput> {
        self.forward_with_words(None, input_ids, attention_mask, train)
    }

    /// [`Encoder::forward`] with the word vectors `(batch, seq, hidden)` of `input_ids` given
    /// when `words` is (looked up by the caller, see [`Encoder::embed_words`]).
    pub fn forward_with_words(
        &self,
        words: Option<&Tensor>,
        input_ids: &Tensor,
        attention_mask: &Tensor,
        train: bool,
    ) -> Result<EncoderOutput> {
        let (b, s) = input_ids.dims2()?;
        if let Some(w) = words {
            if w.dims() != [b, s, self.config.hidden_size] {
                return Err(ModelError::Data(format!(
                    "word vectors of shape {:?} do not fit input ids {:?}",
                    w.dims(),
                    input_ids.dims()
                )));
            }
        }
        if attention_mask.dims() != [b, s] {
            return Err(ModelError::Data(format!(
                "attention mask has shape {:?}, input ids have {:?}",
                attention_mask.dims(),
                input_ids.dims()
            )));
        }
        if s > self.config.max_input_len() {
            return Err(ModelError::Data(format!(
                "input of {s} tokens exceeds the model's maximum of {}",
                self.config.max_input_len()
            )));
        }
        let ids = input_ids.to_dtype(DType::U32)?;
        let max_id = ids.max_all()?.to_scalar::<u32>()?;
        if max_id as usize >= self.config.vocab_size {
            return Err(ModelError::Data(format!(
                "token id {max_id} is outside the vocabulary of {} tokens",
                self.config.vocab_size
            )));
        }
        let mask = attention_mask.to_dtype(DType::F32)?;
        let mask_bias = ((mask.ones_like()? - mask)? * -1e9f64)?;
        let mut x = match words {
            Some(w) => self.embeddings.forward_words(w, &ids, 0, train)?,
            None => self.embeddings.forward(&ids, 0, train)?,
        };
        let mut hidden_states = Vec::with_capacity(self.layers.len() + 1);
        hidden_states.push(x.clone());
        for layer in &self.layers {
            x = layer.forward(&x, &mask_bias, train)?;
            hidden_states.push(x.clone());
        }
        Ok(EncoderOutput { hidden_states, last: x })
    }

    /// Refuses `input_ids` `(batch, seq)` starting at position `start` when they reach past
    /// the model's last position.
    fn check_positions(&self, input_ids: &Tensor, start: usize) -> Result<()> {
        let (_, s) = input_ids.dims2()?;
        if start + s > self.config.max_input_len() {
            return Err(ModelError::Data(format!(
                "position {} exceeds the model's maximum of {}",
                start + s,
                self.config.max_input_len()
            )));
        }
        Ok(())
    }

    /// The embedding layer's output (word, position and type embeddings, layer norm, dropout)
    /// for `input_ids` `(batch, seq)` whose first column sits at position `start`: how a
    /// decoder sharing the encoder's embeddings embeds its target tokens, `start` letting a
    /// cached decoder embed one new token at a time.
    pub fn embed(&self, input_ids: &Tensor, start: usize, train: bool) -> Result<Tensor> {
        self.check_positions(input_ids, start)?;
        Ok(self.embeddings.forward(&input_ids.to_dtype(DType::U32)?, start, train)?)
    }

    /// [`Encoder::embed`] with the word vectors `words` `(batch, seq, hidden)` of `input_ids`
    /// given (looked up by the caller, as a decoder whose output layer shares the table does
    /// to gather its gradients in one place); the same checks and result.
    pub fn embed_words(&self, words: &Tensor, input_ids: &Tensor, start: usize, train: bool) -> Result<Tensor> {
        self.check_positions(input_ids, start)?;
        Ok(self.embeddings.forward_words(words, &input_ids.to_dtype(DType::U32)?, start, train)?)
    }

    /// The word embedding matrix `(vocab, hidden)` (tracked when `train`), for output layers
    /// tied to the input embeddings.
    pub fn word_embeddings(&self, train: bool) -> &Tensor {
        self.embeddings.word.weight(train)
    }

    /// The pooled output `tanh(W h_[CLS] + b)` when the checkpoint has a pooler
    /// (computed for inference: no gradient reaches the pooler).
    pub fn pooled(&self, output: &EncoderOutput) -> Result<Option<Tensor>> {
        match &self.pooler {
            Some(p) => Ok(Some(crate::nn::autocast::to_f32(&p.forward(&output.cls()?, false)?.tanh()?)?)),
            None => Ok(None),
        }
    }
}

/// A shared generator seeded with `seed`, for building and training a model.
pub(crate) fn seeded(seed: u64) -> Arc<SeededRng> {
    Arc::new(SeededRng::new(seed))
}

#[cfg(test)]
mod tests {
    use candle_core::{Device, Tensor};

    use crate::{load_model, ModelSource};

    #[test]
    fn summary_vectors_are_contiguous_for_cuda_matrix_products() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("vocab.txt"), "[PAD]\n[UNK]\n[CLS]\n[SEP]\na\nb\n").unwrap();
        let source = ModelSource::parse("scratch:1x16x2").unwrap();
        let model = load_model(&source, Some(dir.path()), &Device::Cpu, 1).unwrap();
        let ids = Tensor::new(&[[2u32, 4, 5, 3], [2, 5, 4, 3]], &Device::Cpu).unwrap();
        let out = model.encoder.forward(&ids, &ids.ones_like().unwrap(), false).unwrap();
        let cls = out.cls().unwrap();
        assert_eq!(cls.dims(), [2, 16]);
        assert!(cls.is_contiguous(), "a strided [CLS] view fails cuBLAS's stride check");
    }
}
