//! Encoder configuration: Hugging Face `config.json` for the BERT and RoBERTa families (T5
//! and BART/PLBART ones through [`crate::family_config`]), and
//! `scratch:LAYERSxHIDDEN[xHEADS]` specifications.

use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::error::{ModelError, Result};

/// The encoder family, which decides position ids and weight names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Family {
    /// BERT, MiniLM and other models with absolute positions starting at 0.
    Bert,
    /// RoBERTa, CodeBERT, GraphCodeBERT, CodeBERTa, UniXcoder: positions start after the pad id.
    Roberta,
    /// T5's encoder (CodeT5, CodeReviewer): relative position buckets, RMS layer norms before
    /// each sub-layer, no attention scaling.
    T5,
    /// BART's and PLBART's encoder: learned positions offset by 2, `layernorm_embedding`,
    /// post-norm layers.
    Bart,
}

/// Activation of the feed-forward block.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum HiddenAct {
    /// Exact GELU (erf form).
    #[serde(rename = "gelu")]
    Gelu,
    /// GELU with the tanh approximation.
    #[serde(rename = "gelu_new", alias = "gelu_pytorch_tanh", alias = "gelu_fast")]
    GeluNew,
    /// Rectified linear unit.
    #[serde(rename = "relu")]
    Relu,
}

impl HiddenAct {
    /// Applies the activation elementwise (the encoder's feed-forward and a decoder's).
    pub fn apply(self, x: &candle_core::Tensor) -> candle_core::Result<candle_core::Tensor> {
        match self {
            HiddenAct::Gelu => crate::kernels::ops::gelu(x),
            HiddenAct::GeluNew => x.gelu(),
            HiddenAct::Relu => x.relu(),
        }
    }
}

fn default_act() -> HiddenAct {
    HiddenAct::Gelu
}
fn default_max_pos() -> usize {
    512
}
fn default_type_vocab() -> usize {
    2
}
fn default_eps() -> f64 {
    1e-12
}
fn default_dropout() -> f64 {
    0.1
}
fn default_model_type() -> String {
    "bert".to_string()
}

/// The fields of a Hugging Face BERT/RoBERTa `config.json` that the encoder uses.
///
/// Unknown fields are kept in `extra` so a configuration round-trips through a checkpoint.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct EncoderConfig {
    /// `bert`, `roberta` or `xlm-roberta`.
    #[serde(default = "default_model_type")]
    pub model_type: String,
    /// Number of token embeddings.
    pub vocab_size: usize,
    /// Width of every hidden state.
    pub hidden_size: usize,
    /// Number of transformer layers.
    pub num_hidden_layers: usize,
    /// Number of attention heads per layer.
    pub num_attention_heads: usize,
    /// Width of the feed-forward block.
    pub intermediate_size: usize,
    /// Feed-forward activation.
    #[serde(default = "default_act")]
    pub hidden_act: HiddenAct,
    /// Number of position embeddings.
    #[serde(default = "default_max_pos")]
    pub max_position_embeddings: usize,
    /// Number of token-type (segment) embeddings.
    #[serde(default = "default_type_vocab")]
    pub type_vocab_size: usize,
    /// Epsilon of every layer norm.
    #[serde(default = "default_eps")]
    pub layer_norm_eps: f64,
    /// Id of the padding token.
    #[serde(default)]
    pub pad_token_id: u32,
    /// Dropout on embeddings and sub-layer outputs, in training only.
    #[serde(default = "default_dropout")]
    pub hidden_dropout_prob: f64,
    /// Dropout on attention probabilities, in training only.
    #[serde(default = "default_dropout")]
    pub attention_probs_dropout_prob: f64,
    /// Every other field of the file, preserved as is.
    #[serde(flatten)]
    pub extra: serde_json::Map<String, serde_json::Value>,
}

impl EncoderConfig {
    /// Parses and validates a `config.json` file.
    pub fn from_file(path: &Path) -> Result<Self> {
        let text = quarry_stdx::read::read_text(path, quarry_stdx::read::MAX_TEXT_FILE_BYTES)
            .map_err(|e| ModelError::io(path, e.source))?;
        Self::from_json_text(&text, path)
    }

    /// Parses and validates the text of `path`, a `config.json`; T5 and BART fields are read
    /// under their own names ([`crate::family_config`]).
    pub(crate) fn from_json_text(text: &str, path: &Path) -> Result<Self> {
        let json_error = |e: serde_json::Error| ModelError::Json { path: path.to_path_buf(), message: e.to_string() };
        let mut value: serde_json::Value = serde_json::from_str(text).map_err(json_error)?;
        let in_file = |e: ModelError| match e {
            ModelError::Config(message) => ModelError::Config(format!("{}: {message}", path.display())),
            other => other,
        };
        if let Some(model_type) = value.get("model_type").and_then(serde_json::Value::as_str) {
            family_of(model_type).map_err(in_file)?;
        }
        if let Some(fields) = value.as_object_mut() {
            crate::family_config::to_encoder_fields(fields).map_err(in_file)?;
        }
        let config: EncoderConfig = serde_json::from_value(value).map_err(json_error)?;
        config.validate()?;
        Ok(config)
    }

    /// The encoder family this configuration belongs to.
    pub fn family(&self) -> Result<Family> {
        family_of(&self.model_type)
    }

    /// Dropout of a task head, as Hugging Face's token and sequence classifiers choose it:
    /// `classifier_dropout` when the configuration sets it, else `hidden_dropout_prob`.
    pub fn classifier_dropout(&self) -> f64 {
        self.extra.get("classifier_dropout").and_then(serde_json::Value::as_f64).unwrap_or(self.hidden_dropout_prob)
    }

    /// Width of one attention head.
    pub fn head_dim(&self) -> usize {
        self.hidden_size / self.num_attention_heads
    }

    /// Checks that the numbers describe a buildable encoder.
    pub fn validate(&self) -> Result<()> {
        self.family()?;
        let positive = [
            ("vocab_size", self.vocab_size),
            ("hidden_size", self.hidden_size),
            ("num_hidden_layers", self.num_hidden_layers),
            ("num_attention_heads", self.num_attention_heads),
            ("intermediate_size", self.intermediate_size),
            ("max_position_embeddings", self.max_position_embeddings),
            ("type_vocab_size", self.type_vocab_size),
        ];
        for (name, value) in positive {
            if value == 0 {
                return Err(ModelError::Config(format!("{name} must be positive")));
            }
        }
        if self.family()? == Family::T5 {
            // Heads are d_kv wide, whatever d_model is.
            crate::family_config::T5Settings::of(&self.extra)?;
        } else if !self.hidden_size.is_multiple_of(self.num_attention_heads) {
            return Err(ModelError::Config(format!(
                "hidden_size {} is not a multiple of num_attention_heads {}",
                self.hidden_size, self.num_attention_heads
            )));
        }
        for (name, p) in [
            ("hidden_dropout_prob", self.hidden_dropout_prob),
            ("attention_probs_dropout_prob", self.attention_probs_dropout_prob),
        ] {
            if !(0.0..1.0).contains(&p) {
                return Err(ModelError::Config(format!("{name} must be in [0, 1), got {p}")));
            }
        }
        // BERT and RoBERTa's relative position embeddings (Shaw et al., Huang et al.) are not
        // implemented: loading such a checkpoint as absolute would give other vectors silently.
        if let Some(kind) = self.extra.get("position_embedding_type") {
            if kind.as_str() != Some("absolute") {
                return Err(ModelError::Config(format!(
                    "position_embedding_type {kind} is not supported (only \"absolute\")"
                )));
            }
        }
        if self.layer_norm_eps.is_nan() || self.layer_norm_eps <= 0.0 {
            return Err(ModelError::Config("layer_norm_eps must be positive".into()));
        }
        if self.family()? == Family::Roberta && self.max_position_embeddings <= self.pad_token_id as usize + 1 {
            return Err(ModelError::Config(format!(
                "max_position_embeddings {} leaves no positions after padding_idx {}",
                self.max_position_embeddings, self.pad_token_id
            )));
        }
        Ok(())
    }

    /// The longest input (in tokens, specials included) the position embeddings allow.
    pub fn max_input_len(&self) -> usize {
        match self.family() {
            Ok(Family::Roberta) => self.max_position_embeddings - self.pad_token_id as usize - 1,
            // BART's table has two rows more than max_position_embeddings; T5 has no table, and
            // max_position_embeddings is its n_positions, the length it was trained with.
            _ => self.max_position_embeddings,
        }
    }
}

/// The family of a `model_type`, or an error naming the supported ones.
fn family_of(model_type: &str) -> Result<Family> {
    match model_type {
        "bert" => Ok(Family::Bert),
        "roberta" | "xlm-roberta" | "camembert" => Ok(Family::Roberta),
        "t5" => Ok(Family::T5),
        "bart" | "plbart" => Ok(Family::Bart),
        other => Err(ModelError::Config(format!(
            "unsupported model_type '{other}' (supported: bert, roberta, xlm-roberta, camembert, t5, bart, plbart)"
        ))),
    }
}

/// A randomly initialized encoder's shape, parsed from `scratch:LAYERSxHIDDEN[xHEADS]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ScratchSpec {
    /// Number of transformer layers.
    pub layers: usize,
    /// Hidden width.
    pub hidden: usize,
    /// Attention heads; defaults to `max(1, hidden / 64)`.
    pub heads: usize,
}

/// The most parameters (12 · layers · width², the transformer layers') a scratch model may
/// have: 2e9, eight gigabytes in f32, so that a mistyped size is refused rather than allocated
/// until memory runs out.
pub const MAX_SCRATCH_PARAMETERS: f64 = 2e9;

impl ScratchSpec {
    /// Parses the part after `scratch:`, e.g. `2x128` or `4x256x4`.
    pub fn parse(body: &str) -> Result<Self> {
        let bad = |message: String| ModelError::ModelSpec { spec: format!("scratch:{body}"), message };
        let parts: Vec<&str> = body.split('x').collect();
        if !(2..=3).contains(&parts.len()) {
            return Err(bad("expected scratch:LAYERSxHIDDEN or scratch:LAYERSxHIDDENxHEADS".into()));
        }
        let mut nums = Vec::with_capacity(3);
        for p in &parts {
            let n: usize = p.parse().map_err(|_| bad(format!("'{p}' is not a positive integer")))?;
            if n == 0 {
                return Err(bad("every number must be positive".into()));
            }
            nums.push(n);
        }
        let params = 12.0 * nums[0] as f64 * (nums[1] as f64).powi(2);
        if params > MAX_SCRATCH_PARAMETERS {
            return Err(bad(format!(
                "{} layers of width {} hold {:.3e} parameters, more than the {MAX_SCRATCH_PARAMETERS:.0e} a \
                 scratch model may have (BERT-large has 3.0e8)",
                nums[0], nums[1], params
            )));
        }
        let heads = nums.get(2).copied().unwrap_or((nums[1] / 64).max(1));
        if !nums[1].is_multiple_of(heads) {
            return Err(bad(format!("hidden size {} is not a multiple of {heads} heads", nums[1])));
        }
        Ok(ScratchSpec { layers: nums[0], hidden: nums[1], heads })
    }

    /// A BERT configuration of this shape for a vocabulary of `vocab_size` tokens.
    pub fn config(&self, vocab_size: usize, pad_token_id: u32) -> EncoderConfig {
        EncoderConfig {
            model_type: "bert".into(),
            vocab_size,
            hidden_size: self.hidden,
            num_hidden_layers: self.layers,
            num_attention_heads: self.heads,
            intermediate_size: 4 * self.hidden,
            hidden_act: HiddenAct::Gelu,
            max_position_embeddings: 512,
            type_vocab_size: 2,
            layer_norm_eps: 1e-12,
            pad_token_id,
            hidden_dropout_prob: 0.1,
            attention_probs_dropout_prob: 0.1,
            extra: serde_json::Map::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_scratch_specs() {
        assert_eq!(ScratchSpec::parse("2x128").unwrap(), ScratchSpec { layers: 2, hidden: 128, heads: 2 });
        assert_eq!(ScratchSpec::parse("4x256x8").unwrap().heads, 8);
        assert_eq!(ScratchSpec::parse("1x32").unwrap().heads, 1);
        assert!(ScratchSpec::parse("2").is_err());
        assert!(ScratchSpec::parse("2x0").is_err());
        assert!(ScratchSpec::parse("2x100x3").is_err());
        assert!(ScratchSpec::parse("axb").is_err());
        assert!(ScratchSpec::parse("24x1024").is_ok());
        for huge in ["1x1000000000", "1000000000x64", "1x65536", "18446744073709551615x64"] {
            let error = ScratchSpec::parse(huge).unwrap_err().to_string();
            assert!(error.contains("parameters"), "{huge}: {error}");
        }
    }

    #[test]
    fn parses_roberta_config_and_keeps_unknown_fields() {
        let text = r#"{"model_type":"roberta","vocab_size":50265,"hidden_size":768,
            "num_hidden_layers":12,"num_attention_heads":12,"intermediate_size":3072,
            "hidden_act":"gelu","max_position_embeddings":514,"type_vocab_size":1,
            "layer_norm_eps":1e-5,"pad_token_id":1,"bos_token_id":0}"#;
        let c: EncoderConfig = serde_json::from_str(text).unwrap();
        c.validate().unwrap();
        assert_eq!(c.family().unwrap(), Family::Roberta);
        assert_eq!(c.max_input_len(), 512);
        assert_eq!(c.extra["bos_token_id"], 0);
    }

    #[test]
    fn rejects_unknown_model_type_and_bad_shapes() {
        let mut c = ScratchSpec::parse("1x32").unwrap().config(10, 0);
        c.model_type = "gpt2".into();
        assert!(c.validate().unwrap_err().to_string().contains("gpt2"));
        let mut c = ScratchSpec::parse("1x32").unwrap().config(10, 0);
        c.num_attention_heads = 5;
        assert!(c.validate().is_err());
        let mut c = ScratchSpec::parse("1x32").unwrap().config(10, 0);
        c.extra.insert("position_embedding_type".into(), "absolute".into());
        assert!(c.validate().is_ok());
        c.extra.insert("position_embedding_type".into(), "relative_key".into());
        assert!(c.validate().unwrap_err().to_string().contains("relative_key"));
    }
}
