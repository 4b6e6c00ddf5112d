//! A Transformer decoder with cross-attention, the layer of PyTorch's
//! `nn.TransformerDecoderLayer` (post-norm: self-attention, cross-attention over the encoder's
//! output, ReLU feed-forward, each followed by dropout, a residual sum and layer norm), with
//! a key/value cache so that generation computes each new token against stored keys and
//! values instead of re-running the whole prefix.

use std::sync::Arc;

use candle_core::{DType, Tensor};
use serde::{Deserialize, Serialize};

use crate::config::HiddenAct;
use crate::error::{ModelError, Result};
use crate::kernels::decoder_attention;
use crate::nn::layer_norm::LayerNorm;
use crate::nn::layers::{affine, Dropout, Linear};
use crate::nn::params::{Init, ParamStore};

/// PyTorch's default layer-norm epsilon in `nn.TransformerDecoderLayer`.
pub(crate) const DECODER_LAYER_NORM_EPS: f64 = 1e-5;

/// The decoder's shape.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub(crate) struct DecoderConfig {
    /// Number of decoder layers (CodeQA's `run.py`: 6).
    pub layers: usize,
    /// Hidden size (the encoder's).
    pub hidden: usize,
    /// Attention heads (the encoder's).
    pub heads: usize,
    /// Feed-forward size (`nn.TransformerDecoderLayer`'s default: 2048).
    pub ffn: usize,
    /// Dropout on attention weights, sub-layer outputs and the feed-forward activation.
    pub dropout: f64,
    /// Feed-forward activation: ReLU in `nn.TransformerDecoderLayer`; the encoder's when the
    /// decoder is warm-started from encoder layers.
    pub activation: HiddenAct,
}

impl DecoderConfig {
    /// Checks that the shape is usable.
    pub(crate) fn validate(&self) -> Result<()> {
        if self.layers == 0 || self.hidden == 0 || self.ffn == 0 || self.heads == 0 {
            return Err(ModelError::Config(format!("decoder sizes must be positive: {self:?}")));
        }
        if !self.hidden.is_multiple_of(self.heads) {
            return Err(ModelError::Config(format!(
                "decoder hidden size {} is not a multiple of its {} heads",
                self.hidden, self.heads
            )));
        }
        if !(0.0..1.0).contains(&self.dropout) {
            return Err(ModelError::Config(format!("decoder dropout {} is not in [0, 1)", self.dropout)));
        }
        Ok(())
    }
}

fn layer_norm(store: &mut ParamStore, prefix: &str, dim: usize, required: bool) -> Result<LayerNorm> {
    let w = store.get(&format!("{prefix}.weight"), dim, Init::Ones, required)?;
    let b = store.get(&format!("{prefix}.bias"), dim, Init::Zeros, required)?;
    Ok(LayerNorm::new(w, b, DECODER_LAYER_NORM_EPS))
}

/// Multi-head attention with separate query, key, value and output projections.
struct Attention {
    q: Linear,
    k: Linear,
    v: Linear,
    out: Linear,
    heads: usize,
    head_dim: usize,
    dropout: Dropout,
}

impl Attention {
    fn new(store: &mut ParamStore, prefix: &str, c: &DecoderConfig, required: bool) -> Result<Self> {
        let h = c.hidden;
        Ok(Attention {
            q: Linear::new(store, &format!("{prefix}.q_proj"), h, h, required)?,
            k: Linear::new(store, &format!("{prefix}.k_proj"), h, h, required)?,
            v: Linear::new(store, &format!("{prefix}.v_proj"), h, h, required)?,
            out: Linear::new(store, &format!("{prefix}.out_proj"), h, h, required)?,
            heads: c.heads,
            head_dim: h / c.heads,
            dropout: Dropout::new(c.dropout, Arc::clone(store.rng())),
        })
    }

    /// `(b, s, hidden)` to `(b, heads, s, head_dim)`.
    fn split(&self, x: &Tensor) -> candle_core::Result<Tensor> {
        let (b, s, _) = x.dims3()?;
        x.reshape((b, s, self.heads, self.head_dim))?.transpose(1, 2)?.contiguous()
    }

    /// Keys and values of `x` `(b, s, hidden)`, each `(b, heads, s, head_dim)`.
    fn keys_values(&self, x: &Tensor, train: bool) -> candle_core::Result<(Tensor, Tensor)> {
        Ok((self.split(&self.k.forward(x, train)?)?, self.split(&self.v.forward(x, train)?)?))
    }

    /// Keys and values of `x` `(b, s, hidden)` side by side, `(b, s, 2 hidden)`: one product
    /// with the two projections' weights stacked, the layout [`decoder_attention::attention`]
    /// reads.
    fn keys_values_packed(&self, x: &Tensor, train: bool) -> candle_core::Result<Tensor> {
        let w = Tensor::cat(&[self.k.weight(train), self.v.weight(train)], 0)?;
        let b = Tensor::cat(&[self.k.bias(train), self.v.bias(train)], 0)?;
        affine(x, &w, &b)
    }

    /// [`Attention::attend`] through the fused CPU kernel, over packed keys and values `kv`
    /// `(b, keys, 2 hidden)`; `causal` masks later positions (queries and keys the same).
    fn attend_fused(
        &self,
        x: &Tensor,
        kv: &Tensor,
        key_bias: &Tensor,
        causal: bool,
        train: bool,
    ) -> candle_core::Result<Tensor> {
        let q = self.q.forward(x, train)?;
        let ctx = decoder_attention::attention(&q, kv, self.heads, key_bias, causal, self.dropout.key(train))?;
        self.out.forward(&ctx, train)
    }

    /// Attends from queries `x` `(b, t, hidden)` over `k`, `v`; `key_bias` `(b, keys)` is 0 for
    /// keys to use and a large negative for padding; `causal` `(t, keys)` is added to the
    /// scores when given.
    fn attend(
        &self,
        x: &Tensor,
        k: &Tensor,
        v: &Tensor,
        key_bias: &Tensor,
        causal: Option<&Tensor>,
        train: bool,
    ) -> candle_core::Result<Tensor> {
        let (b, t, h) = x.dims3()?;
        let scale = 1.0 / (self.head_dim as f64).sqrt();
        let q = self.split(&(self.q.forward(x, train)? * scale)?)?;
        let mut scores = q.matmul(&k.t()?)?;
        if let Some(c) = causal {
            scores = scores.broadcast_add(&crate::nn::autocast::cast(c, scores.dtype())?)?;
        }
        let probs = crate::kernels::masked_softmax::masked_softmax(&scores, key_bias)?;
        let probs = self.dropout.forward(&probs, train)?;
        let ctx = probs.matmul(v)?.transpose(1, 2)?.reshape((b, t, h))?;
        self.out.forward(&ctx, train)
    }
}

struct DecoderLayer {
    self_attn: Attention,
    cross_attn: Attention,
    linear1: Linear,
    linear2: Linear,
    activation: HiddenAct,
    norm1: LayerNorm,
    norm2: LayerNorm,
    norm3: LayerNorm,
    dropout: Dropout,
}

/// The keys and values cross-attention reads: split into heads `(b, heads, s, head_dim)`
/// each (the generation cache's layout), or side by side `(b, s, 2 hidden)` for the fused
/// kernel.
enum CrossKv<'a> {
    Split(&'a Tensor, &'a Tensor),
    Packed(&'a Tensor),
}

/// The cached keys and values of one layer: self-attention over the tokens so far, and
/// cross-attention over the encoder output (computed once).
#[derive(Debug, Clone)]
struct LayerCache {
    self_k: Option<Tensor>,
    self_v: Option<Tensor>,
    cross_k: Tensor,
    cross_v: Tensor,
}

impl DecoderLayer {
    fn new(store: &mut ParamStore, i: usize, c: &DecoderConfig, required: bool) -> Result<Self> {
        let p = format!("decoder.layers.{i}");
        Ok(DecoderLayer {
            self_attn: Attention::new(store, &format!("{p}.self_attn"), c, required)?,
            cross_attn: Attention::new(store, &format!("{p}.cross_attn"), c, required)?,
            linear1: Linear::new(store, &format!("{p}.linear1"), c.hidden, c.ffn, required)?,
            linear2: Linear::new(store, &format!("{p}.linear2"), c.ffn, c.hidden, required)?,
            activation: c.activation,
            norm1: layer_norm(store, &format!("{p}.norm1"), c.hidden, required)?,
            norm2: layer_norm(store, &format!("{p}.norm2"), c.hidden, required)?,
            norm3: layer_norm(store, &format!("{p}.norm3"), c.hidden, required)?,
            dropout: Dropout::new(c.dropout, Arc::clone(store.rng())),
        })
    }

    /// Everything after self-attention: residual and norm, cross-attention over `cross`,
    /// feed-forward.
    fn finish(
        &self,
        x: &Tensor,
        sa: &Tensor,
        cross: CrossKv<'_>,
        memory_bias: &Tensor,
        train: bool,
    ) -> candle_core::Result<Tensor> {
        let x = self.norm1.forward_residual(sa, x, self.dropout.key(train), train)?;
        let ca = match cross {
            CrossKv::Split(k, v) => self.cross_attn.attend(&x, k, v, memory_bias, None, train)?,
            CrossKv::Packed(kv) => self.cross_attn.attend_fused(&x, kv, memory_bias, false, train)?,
        };
        let x = self.norm2.forward_residual(&ca, &x, self.dropout.key(train), train)?;
        let ff = self.activation.apply(&self.linear1.forward(&x, train)?)?;
        let ff = self.linear2.forward(&self.dropout.forward(&ff, train)?, train)?;
        self.norm3.forward_residual(&ff, &x, self.dropout.key(train), train)
    }

    /// The teacher-forced pass over a whole target `x` `(b, t, hidden)`. f32 on the CPU runs
    /// both attentions through the fused kernel; elsewhere they are composed, and `causal`
    /// `(t, t)` is added to the self-attention scores.
    fn forward(
        &self,
        x: &Tensor,
        memory: &Tensor,
        memory_bias: &Tensor,
        causal: &Tensor,
        self_bias: &Tensor,
        train: bool,
    ) -> candle_core::Result<Tensor> {
        let plain_f32 = x.dtype() == DType::F32 && memory.dtype() == DType::F32;
        if x.device().is_cpu() && plain_f32 && self.self_attn.q.compute_dtype().is_none() {
            let kv = self.self_attn.keys_values_packed(x, train)?;
            let sa = self.self_attn.attend_fused(x, &kv, self_bias, true, train)?;
            let cross = self.cross_attn.keys_values_packed(memory, train)?;
            return self.finish(x, &sa, CrossKv::Packed(&cross), memory_bias, train);
        }
        let (k, v) = self.self_attn.keys_values(x, train)?;
        let sa = self.self_attn.attend(x, &k, &v, self_bias, Some(causal), train)?;
        let (ck, cv) = self.cross_attn.keys_values(memory, train)?;
        self.finish(x, &sa, CrossKv::Split(&ck, &cv), memory_bias, train)
    }

    /// One new position `x` `(b, 1, hidden)` against the cache, which it extends;
    /// `self_bias` `(b, steps + 1)` is all zeros (every earlier position is visible).
    fn step(
        &self,
        x: &Tensor,
        cache: &mut LayerCache,
        memory_bias: &Tensor,
        self_bias: &Tensor,
    ) -> candle_core::Result<Tensor> {
        let (k, v) = self.self_attn.keys_values(x, false)?;
        let (k, v) = match (&cache.self_k, &cache.self_v) {
            (Some(pk), Some(pv)) => (Tensor::cat(&[pk, &k], 2)?, Tensor::cat(&[pv, &v], 2)?),
            _ => (k, v),
        };
        let sa = self.self_attn.attend(x, &k, &v, self_bias, None, false)?;
        cache.self_k = Some(k);
        cache.self_v = Some(v);
        self.finish(x, &sa, CrossKv::Split(&cache.cross_k, &cache.cross_v), memory_bias, false)
    }
}

/// The decoder's state during generation: per-layer caches over `rows` sequences.
#[derive(Debug, Clone)]
pub(crate) struct DecoderCache {
    layers: Vec<LayerCache>,
    memory_bias: Tensor,
    steps: usize,
}

impl DecoderCache {
    /// Tokens decoded so far (the position of the next one).
    #[cfg(test)]
    pub fn steps(&self) -> usize {
        self.steps
    }

    /// Keeps the rows `rows` (indices into the current rows, repeats allowed), in that order:
    /// how beams are reordered after a step and finished inputs dropped.
    #[cfg(test)]
    pub fn select(&mut self, rows: &Tensor) -> Result<()> {
        self.select_rows(rows, Some(rows))
    }

    /// Keeps the self-attention rows `rows` and, when `memory_rows` is given, the encoder
    /// rows `memory_rows` (the same length). Beam search passes `None` when only beams
    /// were reordered within their inputs: every row of an input attends to the same
    /// encoder output, so the cross-attention keys and values (the largest part of the
    /// cache) stay where they are.
    pub(crate) fn select_rows(&mut self, rows: &Tensor, memory_rows: Option<&Tensor>) -> Result<()> {
        for l in &mut self.layers {
            if let (Some(k), Some(v)) = (&l.self_k, &l.self_v) {
                l.self_k = Some(k.index_select(rows, 0)?);
                l.self_v = Some(v.index_select(rows, 0)?);
            }
            if let Some(m) = memory_rows {
                l.cross_k = l.cross_k.index_select(m, 0)?;
                l.cross_v = l.cross_v.index_select(m, 0)?;
            }
        }
        if let Some(m) = memory_rows {
            self.memory_bias = self.memory_bias.index_select(m, 0)?;
        }
        Ok(())
    }
}

/// A stack of decoder layers.
pub(crate) struct Decoder {
    layers: Vec<DecoderLayer>,
}

/// `(b, s)` additive bias from a 0/1 mask: 0 where 1, -1e9 where 0.
pub(crate) fn mask_bias(mask: &Tensor) -> Result<Tensor> {
    let mask = mask.to_dtype(DType::F32)?;
    Ok(((mask.ones_like()? - mask)? * -1e9f64)?)
}

impl Decoder {
    /// Builds the decoder from `store` (`decoder.layers.N.*`); `required` when the store is a
    /// trained checkpoint that must hold every decoder tensor.
    pub(crate) fn new(config: DecoderConfig, store: &mut ParamStore, required: bool) -> Result<Self> {
        config.validate()?;
        let layers =
            (0..config.layers).map(|i| DecoderLayer::new(store, i, &config, required)).collect::<Result<Vec<_>>>()?;
        Ok(Decoder { layers })
    }

    /// Teacher-forced pass: `target` `(b, t, hidden)` (embedded target tokens) attends
    /// causally to itself and to `memory` `(b, s, hidden)`, whose padding `memory_mask`
    /// `(b, s)` marks with 0. Returns `(b, t, hidden)`.
    pub(crate) fn forward(
        &self,
        target: &Tensor,
        memory: &Tensor,
        memory_mask: &Tensor,
        train: bool,
    ) -> Result<Tensor> {
        let (b, t, _) = target.dims3()?;
        let dev = target.device();
        let memory_bias = mask_bias(memory_mask)?;
        // run.py's `-1e4 * (1 - tril(ones))`: future positions are masked, padding is not.
        let causal: Vec<f32> = (0..t).flat_map(|i| (0..t).map(move |j| if j <= i { 0.0 } else { -1e4 })).collect();
        let causal = Tensor::from_vec(causal, (t, t), dev)?;
        let self_bias = Tensor::zeros((b, t), DType::F32, dev)?;
        let mut x = target.clone();
        for layer in &self.layers {
            x = layer.forward(&x, memory, &memory_bias, &causal, &self_bias, train)?;
        }
        Ok(x)
    }

    /// A cache for generating from `memory` `(rows, s, hidden)` with padding mask
    /// `memory_mask` `(rows, s)`: cross-attention keys and values are computed here once.
    pub(crate) fn start(&self, memory: &Tensor, memory_mask: &Tensor) -> Result<DecoderCache> {
        let layers = self
            .layers
            .iter()
            .map(|l| {
                let (cross_k, cross_v) = l.cross_attn.keys_values(memory, false)?;
                Ok(LayerCache { self_k: None, self_v: None, cross_k, cross_v })
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(DecoderCache { layers, memory_bias: mask_bias(memory_mask)?, steps: 0 })
    }

    /// Runs one new position `x` `(rows, 1, hidden)` against `cache` and extends it; returns
    /// `(rows, 1, hidden)`. The same as the last position of [`Decoder::forward`] over the
    /// whole prefix, without recomputing it.
    pub(crate) fn step(&self, x: &Tensor, cache: &mut DecoderCache) -> Result<Tensor> {
        let mut x = x.clone();
        let self_bias = Tensor::zeros((x.dim(0)?, cache.steps + 1), DType::F32, x.device())?;
        for (layer, c) in self.layers.iter().zip(cache.layers.iter_mut()) {
            x = layer.step(&x, c, &cache.memory_bias, &self_bias)?;
        }
        cache.steps += 1;
        Ok(x)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use candle_core::{Device, IndexOp, Shape};

    fn max_diff(a: &Tensor, b: &Tensor) -> f32 {
        (a - b).unwrap().abs().unwrap().max_all().unwrap().to_scalar().unwrap()
    }

    #[test]
    fn cached_steps_equal_the_full_causal_pass() {
        let rng = crate::nn::bert::seeded(5);
        let dev = Device::Cpu;
        let mut store = ParamStore::random(rng.clone(), &dev);
        let c = DecoderConfig { layers: 2, hidden: 16, heads: 4, ffn: 32, dropout: 0.1, activation: HiddenAct::Relu };
        let dec = Decoder::new(c, &mut store, false).unwrap();
        let memory = rng.normal(&Shape::from((2, 5, 16)), 1.0, &dev).unwrap();
        let mask = Tensor::new(&[[1u32, 1, 1, 0, 0], [1, 1, 1, 1, 1]], &dev).unwrap();
        let target = rng.normal(&Shape::from((2, 4, 16)), 1.0, &dev).unwrap();
        let full = dec.forward(&target, &memory, &mask, false).unwrap();
        let mut cache = dec.start(&memory, &mask).unwrap();
        for t in 0..4 {
            let out = dec.step(&target.i((.., t..t + 1, ..)).unwrap(), &mut cache).unwrap();
            assert!(max_diff(&out.squeeze(1).unwrap(), &full.i((.., t, ..)).unwrap()) < 1e-4, "step {t}");
        }
        assert_eq!(cache.steps(), 4);
        // Padding in the memory is ignored: changing padded positions changes nothing.
        let noise = rng.normal(&Shape::from((2, 5, 16)), 1.0, &dev).unwrap();
        let keep = Tensor::new(&[[1f32, 1., 1., 0., 0.], [1., 1., 1., 1., 1.]], &dev).unwrap().unsqueeze(2).unwrap();
        let changed = (memory.broadcast_mul(&keep).unwrap()
            + noise.broadcast_mul(&(keep.ones_like().unwrap() - &keep).unwrap()).unwrap())
        .unwrap();
        let again = dec.forward(&target, &changed, &mask, false).unwrap();
        assert!(max_diff(&again, &full) < 1e-5);
        // Reordering the cache reorders the rows.
        let mut c2 = dec.start(&memory, &mask).unwrap();
        c2.select(&Tensor::new(&[1u32, 1, 0], &dev).unwrap()).unwrap();
        let x = target
            .i((.., 0..1, ..))
            .unwrap()
            .contiguous()
            .unwrap()
            .index_select(&Tensor::new(&[1u32, 1, 0], &dev).unwrap(), 0)
            .unwrap();
        let out = dec.step(&x, &mut c2).unwrap();
        assert!(max_diff(&out.i(2).unwrap(), &full.i((0, 0..1, ..)).unwrap()) < 1e-4);
        assert!(DecoderConfig { heads: 3, ..c }.validate().is_err());
    }
}
