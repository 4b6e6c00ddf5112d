//! A BERT/RoBERTa encoder whose every parameter trains, with all-layer outputs; the same
//! type runs BART's encoder (its post-norm layers are BERT's under other weight names; its
//! embeddings are scaled words, positions offset by 2 and `layernorm_embedding`) and T5's
//! (word embeddings, then [`crate::nn::t5::T5Stack`]).

use std::sync::Arc;

use candle_core::{DType, Device, IndexOp, Tensor};

use crate::config::{EncoderConfig, Family, HiddenAct};
use crate::error::{ModelError, Result};
use crate::kernels::concat::concat3;
use crate::nn::layer_norm::LayerNorm;
use crate::nn::layers::{autocast_affine, Dropout, Embedding, Linear};
use crate::nn::params::{Init, ParamStore};
use crate::nn::rng::SeededRng;
use crate::nn::t5::T5Stack;

/// How far down its table BART's learned positions start (transformers'
/// `BartLearnedPositionalEmbedding.offset`).
const BART_POSITION_OFFSET: u32 = 2;

/// The weight names of a post-norm layer's parts, BERT's or BART's.
struct LayerNames {
    prefix: &'static str,
    query: &'static str,
    key: &'static str,
    value: &'static str,
    attn_out: &'static str,
    attn_norm: &'static str,
    intermediate: &'static str,
    output: &'static str,
    out_norm: &'static str,
}

const BERT_NAMES: LayerNames = LayerNames {
    prefix: "encoder.layer",
    query: "attention.self.query",
    key: "attention.self.key",
    value: "attention.self.value",
    attn_out: "attention.output.dense",
    attn_norm: "attention.output.LayerNorm",
    intermediate: "intermediate.dense",
    output: "output.dense",
    out_norm: "output.LayerNorm",
};

const BART_NAMES: LayerNames = LayerNames {
    prefix: "encoder.layers",
    query: "self_attn.q_proj",
    key: "self_attn.k_proj",
    value: "self_attn.v_proj",
    attn_out: "self_attn.out_proj",
    attn_norm: "self_attn_layer_norm",
    intermediate: "fc1",
    output: "fc2",
    out_norm: "final_layer_norm",
};

fn layer_norm(store: &mut ParamStore, prefix: &str, dim: usize, eps: f64, required: bool) -> Result<LayerNorm> {
    let w = store.get(&format!("{prefix}.weight"), dim, Init::Ones, required)?;
    let b = store.get(&format!("{prefix}.bias"), dim, Init::Zeros, required)?;
    Ok(LayerNorm::new(w, b, eps))
}

struct Embeddings {
    word: Embedding,
    /// BART's `embed_scale` (`sqrt(d_model)` when `scale_embedding`), else 1.
    word_scale: f64,
    /// Absolute positions (none for T5).
    position: Option<Embedding>,
    /// Segment embeddings (BERT and RoBERTa only).
    token_type: Option<Embedding>,
    /// The embedding layer norm (none for T5).
    norm: Option<LayerNorm>,
    dropout: Dropout,
    family: Family,
    pad_id: u32,
}

impl Embeddings {
    fn new(c: &EncoderConfig, store: &mut ParamStore) -> Result<Self> {
        let h = c.hidden_size;
        let family = c.family()?;
        let (word, word_scale, position, token_type, norm) = match family {
            Family::Bert | Family::Roberta => (
                Embedding::new(store, "embeddings.word_embeddings", c.vocab_size, h, true)?,
                1.0,
                Some(Embedding::new(store, "embeddings.position_embeddings", c.max_position_embeddings, h, true)?),
                Some(Embedding::new(store, "embeddings.token_type_embeddings", c.type_vocab_size, h, true)?),
                Some(layer_norm(store, "embeddings.LayerNorm", h, c.layer_norm_eps, true)?),
            ),
            Family::Bart | Family::T5 => {
                // The table shared with the decoder; a checkpoint may hold only the encoder's copy.
                store.alias_pretrained("shared.weight", "encoder.embed_tokens.weight");
                let word = Embedding::new(store, "shared", c.vocab_size, h, true)?;
                if family == Family::T5 {
                    (word, 1.0, None, None, None)
                } else {
                    let rows = c.max_position_embeddings + BART_POSITION_OFFSET as usize;
                    (
                        word,
                        crate::family_config::bart_embed_scale(&c.model_type, h, &c.extra),
                        Some(Embedding::new(store, "encoder.embed_positions", rows, h, true)?),
                        None,
                        Some(layer_norm(store, "encoder.layernorm_embedding", h, c.layer_norm_eps, true)?),
                    )
                }
            }
        };
        Ok(Embeddings {
            word,
            word_scale,
            position,
            token_type,
            norm,
            dropout: Dropout::new(c.hidden_dropout_prob, store.rng().clone()),
            family,
            pad_id: c.pad_token_id,
        })
    }

    /// Position ids of `input_ids` when its first column is position `start` of the sequence.
    fn position_ids(&self, input_ids: &Tensor, start: usize) -> candle_core::Result<Tensor> {
        let (b, s) = input_ids.dims2()?;
        let counted = |first: usize| {
            Tensor::arange(first as u32, (first + s) as u32, input_ids.device())?
                .unsqueeze(0)?
                .broadcast_as((b, s))?
                .contiguous()
        };
        match self.family {
            Family::Bert | Family::T5 => counted(start),
            // Every position, padding included, 2 rows down the table.
            Family::Bart => counted(start + BART_POSITION_OFFSET as usize),
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
        let mut x = if self.word_scale == 1.0 { x.clone() } else { (x * self.word_scale)? };
        if let Some(position) = &self.position {
            x = x.add(&position.forward(&self.position_ids(input_ids, start)?, train)?)?;
        }
        if let Some(token_type) = &self.token_type {
            x = x.add(&token_type.forward(&input_ids.zeros_like()?, train)?)?;
        }
        if let Some(norm) = &self.norm {
            x = norm.forward(&x, train)?;
        }
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
    fn new(c: &EncoderConfig, store: &mut ParamStore, names: &LayerNames, i: usize) -> Result<Self> {
        let p = format!("{}.{i}", names.prefix);
        let h = c.hidden_size;
        let rng = store.rng().clone();
        let eps = c.layer_norm_eps;
        Ok(Layer {
            query: Linear::new(store, &format!("{p}.{}", names.query), h, h, true)?,
            key: Linear::new(store, &format!("{p}.{}", names.key), h, h, true)?,
            value: Linear::new(store, &format!("{p}.{}", names.value), h, h, true)?,
            attn_out: Linear::new(store, &format!("{p}.{}", names.attn_out), h, h, true)?,
            attn_norm: layer_norm(store, &format!("{p}.{}", names.attn_norm), h, eps, true)?,
            intermediate: Linear::new(store, &format!("{p}.{}", names.intermediate), h, c.intermediate_size, true)?,
            output: Linear::new(store, &format!("{p}.{}", names.output), c.intermediate_size, h, true)?,
            out_norm: layer_norm(store, &format!("{p}.{}", names.out_norm), h, eps, true)?,
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
        let compute = self.query.compute_dtype();
        if crate::kernels::attention::fuses(x, compute, self.head_dim) {
            // One product for queries, keys and values, and the fused attention kernel.
            let (query, key, value) = (&self.query, &self.key, &self.value);
            let w = concat3(query.weight(train), key.weight(train), value.weight(train))?;
            let bias = concat3(query.bias(train), &key_bias, value.bias(train))?;
            let qkv = autocast_affine(x, &w, &bias, compute)?;
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
        let probs = crate::kernels::masked_softmax::masked_softmax(&scores, mask_bias)?;
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

/// The layers after the embeddings.
enum Body {
    /// BERT's, RoBERTa's and BART's post-norm layers.
    PostNorm(Vec<Layer>),
    /// T5's pre-norm layers with their relative-position bias and final norm.
    T5(T5Stack),
}

/// A BERT, RoBERTa, BART or T5 encoder (without task head).
pub struct Encoder {
    config: EncoderConfig,
    embeddings: Embeddings,
    body: Body,
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
        let post_norm = |names: &LayerNames, store: &mut ParamStore| {
            (0..config.num_hidden_layers).map(|i| Layer::new(config, store, names, i)).collect::<Result<Vec<_>>>()
        };
        let body = match config.family()? {
            Family::Bert | Family::Roberta => Body::PostNorm(post_norm(&BERT_NAMES, store)?),
            Family::Bart => Body::PostNorm(post_norm(&BART_NAMES, store)?),
            Family::T5 => Body::T5(T5Stack::new(config, store)?),
        };
        let bert_like = matches!(config.family()?, Family::Bert | Family::Roberta);
        let pooler = if bert_like && store.has_pretrained("pooler.dense.weight") {
            Some(Linear::new(store, "pooler.dense", config.hidden_size, config.hidden_size, true)?)
        } else {
            None
        };
        Ok(Encoder { config: config.clone(), embeddings, body, pooler, device: store.device().clone() })
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
        let mut x = match words {
            Some(w) => self.embeddings.forward_words(w, &ids, 0, train)?,
            None => self.embeddings.forward(&ids, 0, train)?,
        };
        // In the residual stream's dtype: f32, or f64 for a model built in f64.
        let mask = attention_mask.to_dtype(x.dtype())?;
        let mask_bias = ((mask.ones_like()? - mask)? * -1e9f64)?;
        let mut hidden_states = Vec::with_capacity(self.config.num_hidden_layers + 1);
        hidden_states.push(x.clone());
        match &self.body {
            Body::PostNorm(layers) => {
                for layer in layers {
                    x = layer.forward(&x, &mask_bias, train)?;
                    hidden_states.push(x.clone());
                }
            }
            Body::T5(stack) => x = stack.forward(x, &mask_bias, train, &mut hidden_states)?,
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
            Some(p) => Ok(Some(crate::nn::autocast::widen(&p.forward(&output.cls()?, false)?.tanh()?)?)),
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
