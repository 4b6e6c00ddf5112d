//! What a checkpoint's `head_config.json` holds: which task head sits on the encoder and
//! its settings. Plain data, so checkpoints, heads and models all read it without
//! importing one another.

use serde::{Deserialize, Serialize};

use crate::config::HiddenAct;

/// Which head a checkpoint carries, stored as `head_config.json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "task", rename_all = "snake_case")]
pub enum HeadConfig {
    /// Per-token B/I/O/F classification for span prediction.
    Span {
        /// Label names in logit order.
        labels: Vec<String>,
        /// Dropout before the linear layer.
        dropout: f64,
        /// Per-label weights of the training loss, if any (absent in checkpoints trained
        /// with the paper's plain cross-entropy).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        class_weights: Option<Vec<f32>>,
    },
    /// Whole-sequence classification (e.g. block relevance).
    Relevance {
        /// Number of classes.
        num_classes: usize,
        /// Dropout before each feed-forward layer.
        dropout: f64,
        /// Per-class loss weights, if any.
        class_weights: Option<Vec<f32>>,
    },
    /// CS1QA question type over question + code segments, one vote per segment.
    QuestionType {
        /// Type names in logit order.
        labels: Vec<String>,
        /// Dropout before each feed-forward layer.
        dropout: f64,
    },
    /// CS1QA code-line selection: a start and an end logit per token.
    LineSelection,
    /// A dual encoder for retrieval: one shared encoder embeds queries and documents.
    DualEncoder {
        /// How token vectors become one vector: `cls` or `mean`.
        pooling: String,
    },
    /// Answer generation: a Transformer decoder over the encoder, output tied to the input
    /// embeddings (see `answer_model`).
    Answer(AnswerConfig),
    /// CodeQA's recurrent baselines (Seq2seq, Dual Encoder): the checkpoint's `config.json`
    /// and `vocab.json` describe the model, which has no encoder of the BERT families.
    RecurrentAnswer,
}

impl HeadConfig {
    /// The `task` name `head_config.json` stores for this head (`span`, `relevance`, ...).
    pub fn task(&self) -> &'static str {
        match self {
            HeadConfig::Span { .. } => "span",
            HeadConfig::Relevance { .. } => "relevance",
            HeadConfig::QuestionType { .. } => "question_type",
            HeadConfig::LineSelection => "line_selection",
            HeadConfig::DualEncoder { .. } => "dual_encoder",
            HeadConfig::Answer(_) => "answer",
            HeadConfig::RecurrentAnswer => "recurrent_answer",
        }
    }
}

/// Default decoder depth, as in `run.py`.
pub const DEFAULT_DECODER_LAYERS: usize = 6;
/// Default feed-forward size: `nn.TransformerDecoderLayer`'s default, which `run.py` keeps.
pub const DEFAULT_DECODER_FFN: usize = 2048;

/// The generator's settings, stored as the checkpoint's `head_config.json`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct AnswerConfig {
    /// Decoder layers.
    pub decoder_layers: usize,
    /// Decoder feed-forward size.
    pub decoder_ffn: usize,
    /// Dropout in the decoder.
    pub dropout: f64,
    /// Source length cap, special tokens included (`--max_source_length`).
    pub max_source_len: usize,
    /// Target length cap, special tokens included (`--max_target_length`); also the
    /// generation length limit.
    pub max_target_len: usize,
    /// Keep the encoder layers fixed (no dropout, no gradient): only the embeddings (shared
    /// with the decoder and its output layer), the decoder and its dense layer train.
    /// `run.py` trains everything; this trades accuracy for about half the step time.
    #[serde(default)]
    pub freeze_encoder: bool,
    /// With `freeze_encoder`, also keep the embedding block fixed (word, position and type
    /// embeddings and their layer norm), which the decoder reads its input through and whose
    /// word matrix is the tied output layer: the encoder is then a fixed function of the
    /// source, so its outputs can be computed once per example
    /// ([`crate::AnswerModel::cache_encoder_outputs`]); only the decoder and its dense layer
    /// train.
    #[serde(default)]
    pub freeze_embeddings: bool,
    /// Where a fresh decoder's weights come from (a checkpoint's stored decoder is always
    /// read back as stored).
    #[serde(default)]
    pub decoder_init: DecoderInit,
    /// The decoder's feed-forward activation: ReLU as in `run.py`'s
    /// `nn.TransformerDecoderLayer`; the encoder's when warm-started from it.
    #[serde(default = "relu")]
    pub decoder_activation: HiddenAct,
}

impl std::str::FromStr for DecoderInit {
    type Err = String;

    /// `random` or `encoder`.
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "random" => Ok(DecoderInit::Random),
            "encoder" => Ok(DecoderInit::Encoder),
            other => Err(format!("unknown decoder initialization '{other}' (random, encoder)")),
        }
    }
}

fn relu() -> HiddenAct {
    HiddenAct::Relu
}

/// How a fresh answer decoder is initialized.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DecoderInit {
    /// Random weights, as in `run.py`.
    #[default]
    Random,
    /// Decoder layer `i` starts as a copy of pretrained encoder layer `i` (self-attention,
    /// its layer norm, feed-forward and its layer norm; the decoder takes the encoder's
    /// feed-forward size and activation), cross-attention random: the warm start of
    /// Rothe et al. (2020), which helps most when training pairs are few.
    Encoder,
}

impl Default for AnswerConfig {
    fn default() -> Self {
        AnswerConfig {
            decoder_layers: DEFAULT_DECODER_LAYERS,
            decoder_ffn: DEFAULT_DECODER_FFN,
            dropout: 0.1,
            max_source_len: 400,
            max_target_len: 30,
            freeze_encoder: false,
            freeze_embeddings: false,
            decoder_init: DecoderInit::Random,
            decoder_activation: HiddenAct::Relu,
        }
    }
}
