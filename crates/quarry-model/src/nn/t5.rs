//! T5's encoder stack (CodeT5, CodeReviewer), after transformers' `T5Stack`: pre-norm layers
//! with RMS norms and bias-free products, attention without `1/sqrt(d)` scaling whose only
//! position information is a learned bias per bidirectional relative-position bucket (the
//! first layer's table, shared by every layer), and a final norm on the last layer's output.

use candle_core::Tensor;

use crate::config::{EncoderConfig, HiddenAct};
use crate::error::Result;
use crate::family_config::T5Settings;
use crate::nn::autocast::{cast, widen};
use crate::nn::layer_norm::RmsNorm;
use crate::nn::layers::{Dropout, Embedding, Linear};
use crate::nn::params::{Init, ParamStore};

fn rms_norm(store: &mut ParamStore, prefix: &str, dim: usize, eps: f64) -> Result<RmsNorm> {
    Ok(RmsNorm::new(store.get(&format!("{prefix}.weight"), dim, Init::Ones, true)?, eps))
}

/// The bucket of a key `relative` positions after its query (negative: before), as
/// transformers' `T5Attention._relative_position_bucket` computes it for an encoder: half the
/// buckets for each direction, the first half of those exact distances, the rest logarithmic
/// up to `max_distance`, in float32 arithmetic as PyTorch does it.
pub(crate) fn relative_bucket(relative: i64, buckets: usize, max_distance: usize) -> usize {
    let per_side = buckets / 2;
    let base = if relative > 0 { per_side } else { 0 };
    let n = relative.unsigned_abs() as usize;
    let max_exact = per_side / 2;
    if n < max_exact {
        return base + n;
    }
    let log_ratio = (max_distance as f64 / max_exact as f64).ln() as f32;
    let scaled = (n as f32 / max_exact as f32).ln() / log_ratio * (per_side - max_exact) as f32;
    base + (max_exact + scaled as usize).min(per_side - 1)
}

struct T5Layer {
    q: Linear,
    k: Linear,
    v: Linear,
    o: Linear,
    attn_norm: RmsNorm,
    wi: Linear,
    /// The linear half of a gated feed-forward block (`wi_1`).
    wi_gate: Option<Linear>,
    wo: Linear,
    ff_norm: RmsNorm,
    act: HiddenAct,
    dropout: Dropout,
    attn_dropout: Dropout,
    heads: usize,
    d_kv: usize,
}

impl T5Layer {
    fn new(c: &EncoderConfig, s: &T5Settings, store: &mut ParamStore, i: usize) -> Result<Self> {
        let p = format!("encoder.block.{i}.layer");
        let (h, inner, ff) = (c.hidden_size, c.num_attention_heads * s.d_kv, c.intermediate_size);
        let attn = |store: &mut ParamStore, name: &str, i, o| {
            Linear::without_bias(store, &format!("{p}.0.SelfAttention.{name}"), i, o)
        };
        let dense = |store: &mut ParamStore, name: &str, i, o| {
            Linear::without_bias(store, &format!("{p}.1.DenseReluDense.{name}"), i, o)
        };
        let (wi, wi_gate) = if s.gated {
            (dense(store, "wi_0", h, ff)?, Some(dense(store, "wi_1", h, ff)?))
        } else {
            (dense(store, "wi", h, ff)?, None)
        };
        let rng = store.rng().clone();
        Ok(T5Layer {
            q: attn(store, "q", h, inner)?,
            k: attn(store, "k", h, inner)?,
            v: attn(store, "v", h, inner)?,
            o: attn(store, "o", inner, h)?,
            attn_norm: rms_norm(store, &format!("{p}.0.layer_norm"), h, c.layer_norm_eps)?,
            wi,
            wi_gate,
            wo: dense(store, "wo", ff, h)?,
            ff_norm: rms_norm(store, &format!("{p}.1.layer_norm"), h, c.layer_norm_eps)?,
            act: c.hidden_act,
            dropout: Dropout::new(c.hidden_dropout_prob, rng.clone()),
            attn_dropout: Dropout::new(c.attention_probs_dropout_prob, rng),
            heads: c.num_attention_heads,
            d_kv: s.d_kv,
        })
    }

    fn split_heads(&self, x: &Tensor) -> candle_core::Result<Tensor> {
        let (b, s, _) = x.dims3()?;
        x.reshape((b, s, self.heads, self.d_kv))?.transpose(1, 2)?.contiguous()
    }

    /// Unscaled self-attention over `x` with `position_bias` `(1, heads, seq, seq)` added to
    /// the scores and padding masked by `mask_bias` `(batch, seq)`; heads merged back.
    fn attention(
        &self,
        x: &Tensor,
        position_bias: &Tensor,
        mask_bias: &Tensor,
        train: bool,
    ) -> candle_core::Result<Tensor> {
        let (b, s, _) = x.dims3()?;
        let q = self.split_heads(&self.q.forward(x, train)?)?;
        let k = self.split_heads(&self.k.forward(x, train)?)?;
        let v = self.split_heads(&self.v.forward(x, train)?)?;
        let scores = widen(&q.matmul(&k.t()?)?)?.broadcast_add(position_bias)?;
        let probs = crate::kernels::masked_softmax::masked_softmax(&scores, mask_bias)?;
        let probs = cast(&self.attn_dropout.forward(&probs, train)?, v.dtype())?;
        let ctx = probs.matmul(&v)?.transpose(1, 2)?.reshape((b, s, self.heads * self.d_kv))?;
        self.o.forward(&ctx, train)
    }

    fn forward(
        &self,
        x: &Tensor,
        position_bias: &Tensor,
        mask_bias: &Tensor,
        train: bool,
    ) -> candle_core::Result<Tensor> {
        let attn = self.attention(&self.attn_norm.forward(x, train)?, position_bias, mask_bias, train)?;
        let x = (x + widen(&self.dropout.forward(&attn, train)?)?)?;
        let h = self.ff_norm.forward(&x, train)?;
        let mut inner = self.act.apply(&self.wi.forward(&h, train)?)?;
        if let Some(gate) = &self.wi_gate {
            inner = (inner * gate.forward(&h, train)?)?;
        }
        let out = self.wo.forward(&self.dropout.forward(&inner, train)?, train)?;
        x + widen(&self.dropout.forward(&out, train)?)?
    }
}

/// T5's encoder layers with their shared relative-position table and final norm.
pub(crate) struct T5Stack {
    layers: Vec<T5Layer>,
    /// `(buckets, heads)`: the first layer's `relative_attention_bias`.
    relative: Embedding,
    final_norm: RmsNorm,
    dropout: Dropout,
    settings: T5Settings,
}

impl T5Stack {
    /// Builds the stack from `store` (transformers' `encoder.block.N...` names).
    pub(crate) fn new(c: &EncoderConfig, store: &mut ParamStore) -> Result<Self> {
        let settings = T5Settings::of(&c.extra)?;
        let relative = Embedding::new(
            store,
            "encoder.block.0.layer.0.SelfAttention.relative_attention_bias",
            settings.buckets,
            c.num_attention_heads,
            true,
        )?;
        let layers =
            (0..c.num_hidden_layers).map(|i| T5Layer::new(c, &settings, store, i)).collect::<Result<Vec<_>>>()?;
        Ok(T5Stack {
            layers,
            relative,
            final_norm: rms_norm(store, "encoder.final_layer_norm", c.hidden_size, c.layer_norm_eps)?,
            dropout: Dropout::new(c.hidden_dropout_prob, store.rng().clone()),
            settings,
        })
    }

    /// The learned bias of every (query, key) pair of a sequence of `len`, `(1, heads, len, len)`.
    fn position_bias(&self, len: usize, train: bool, device: &candle_core::Device) -> candle_core::Result<Tensor> {
        let (buckets, max_distance) = (self.settings.buckets, self.settings.max_distance);
        // The bucket of every relative position -(len - 1)..=len - 1, then of every pair.
        let by_offset: Vec<u32> =
            (1 - len as i64..len as i64).map(|r| relative_bucket(r, buckets, max_distance) as u32).collect();
        let ids: Vec<u32> = (0..len).flat_map(|q| by_offset[len - 1 - q..2 * len - 1 - q].iter().copied()).collect();
        let ids = Tensor::from_vec(ids, (len, len), device)?;
        self.relative.forward(&ids, train)?.permute((2, 0, 1))?.unsqueeze(0)?.contiguous()
    }

    /// Runs the layers on the embedding output `x` `(batch, seq, hidden)`, appending to
    /// `hidden_states` each layer's output as transformers reports it: the last one after the
    /// final norm (and dropout). Returns that last state.
    pub(crate) fn forward(
        &self,
        x: Tensor,
        mask_bias: &Tensor,
        train: bool,
        hidden_states: &mut Vec<Tensor>,
    ) -> candle_core::Result<Tensor> {
        let bias = self.position_bias(x.dim(1)?, train, x.device())?;
        let mut x = x;
        for (i, layer) in self.layers.iter().enumerate() {
            x = layer.forward(&x, &bias, mask_bias, train)?;
            if i + 1 < self.layers.len() {
                hidden_states.push(x.clone());
            }
        }
        let x = self.dropout.forward(&self.final_norm.forward(&x, train)?, train)?;
        hidden_states.push(x.clone());
        Ok(x)
    }
}

#[cfg(test)]
mod tests {
    use super::relative_bucket;

    #[test]
    fn buckets_match_transformers() {
        // transformers' T5Attention._relative_position_bucket(torch.arange(-70, 71),
        // bidirectional=True, num_buckets=32, max_distance=128), at a few distances.
        let cases = [(-70, 14), (-33, 12), (-16, 10), (-15, 9), (-8, 8), (-7, 7), (0, 0), (1, 17), (7, 23)];
        for (relative, bucket) in cases {
            assert_eq!(relative_bucket(relative, 32, 128), bucket, "relative position {relative}");
        }
        assert_eq!(relative_bucket(8, 32, 128), 24);
        assert_eq!(relative_bucket(16, 32, 128), 26);
        assert_eq!(relative_bucket(1000, 32, 128), 31);
        assert_eq!(relative_bucket(-1000, 32, 128), 15);
    }
}
