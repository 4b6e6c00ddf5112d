//! The fields of SentencePiece's `ModelProto` (`sentencepiece_model.proto`) that building a
//! tokenizer reads, decoded with prost; the other fields of a model file are skipped.

use prost::Message;

/// A SentencePiece model file.
#[derive(Clone, PartialEq, Message)]
pub struct ModelProto {
    /// The vocabulary, in id order.
    #[prost(message, repeated, tag = "1")]
    pub pieces: Vec<Piece>,
    /// How the model was trained (its algorithm, unknown piece, byte fallback).
    #[prost(message, optional, tag = "2")]
    pub trainer_spec: Option<TrainerSpec>,
    /// How text is normalized before it is segmented.
    #[prost(message, optional, tag = "3")]
    pub normalizer_spec: Option<NormalizerSpec>,
}

/// One vocabulary entry.
#[derive(Clone, PartialEq, Message)]
pub struct Piece {
    /// The piece's text (`▁` for a space).
    #[prost(string, optional, tag = "1")]
    pub piece: Option<String>,
    /// Its log probability (unigram) or merge priority (BPE; higher merges first).
    #[prost(float, optional, tag = "2")]
    pub score: Option<f32>,
    /// Its kind: [`NORMAL`], [`UNKNOWN`], [`CONTROL`], [`USER_DEFINED`], ...
    #[prost(int32, optional, tag = "3")]
    pub r#type: Option<i32>,
}

/// A piece that segmentation produces and BPE merges.
pub const NORMAL: i32 = 1;
/// The unknown piece.
pub const UNKNOWN: i32 = 2;
/// A control piece (`<s>`, `</s>`), never produced from text.
pub const CONTROL: i32 = 3;
/// A piece always emitted whole and never merged.
pub const USER_DEFINED: i32 = 4;

impl Piece {
    /// The piece's kind, [`NORMAL`] when the file leaves it out (the proto's default).
    pub fn kind(&self) -> i32 {
        self.r#type.unwrap_or(NORMAL)
    }
}

/// The training settings a tokenizer needs.
#[derive(Clone, PartialEq, Message)]
pub struct TrainerSpec {
    /// 1 unigram (the default), 2 BPE, 3 word, 4 char.
    #[prost(int32, optional, tag = "3")]
    pub model_type: Option<i32>,
    /// Whether unknown characters become their UTF-8 byte pieces.
    #[prost(bool, optional, tag = "35")]
    pub byte_fallback: Option<bool>,
    /// The id of the unknown piece (default 0).
    #[prost(int32, optional, tag = "40")]
    pub unk_id: Option<i32>,
}

/// The unigram algorithm.
pub const UNIGRAM: i32 = 1;
/// The BPE algorithm.
pub const BPE: i32 = 2;

/// The normalization settings (the proto's defaults where the file leaves them out).
#[derive(Clone, PartialEq, Message)]
pub struct NormalizerSpec {
    /// The normalization rule's compiled character map (empty: none).
    #[prost(bytes = "vec", optional, tag = "2")]
    pub precompiled_charsmap: Option<Vec<u8>>,
    /// Whether a `▁` is put before the text (default true).
    #[prost(bool, optional, tag = "3")]
    pub add_dummy_prefix: Option<bool>,
    /// Whether leading, trailing and repeated spaces are removed (default true).
    #[prost(bool, optional, tag = "4")]
    pub remove_extra_whitespaces: Option<bool>,
    /// Whether spaces become `▁` (default true).
    #[prost(bool, optional, tag = "5")]
    pub escape_whitespaces: Option<bool>,
}

impl ModelProto {
    /// Decodes a model file's bytes.
    pub fn decode_file(bytes: &[u8]) -> Result<Self, String> {
        Self::decode(bytes).map_err(|e| format!("not a SentencePiece model ({e})"))
    }

    /// The model's algorithm ([`UNIGRAM`] when left out).
    pub fn model_type(&self) -> i32 {
        self.trainer_spec.as_ref().and_then(|t| t.model_type).unwrap_or(UNIGRAM)
    }

    /// Whether unknown characters fall back to byte pieces.
    pub fn byte_fallback(&self) -> bool {
        self.trainer_spec.as_ref().and_then(|t| t.byte_fallback).unwrap_or(false)
    }

    /// The unknown piece's id (0 when left out).
    pub fn unk_id(&self) -> i32 {
        self.trainer_spec.as_ref().and_then(|t| t.unk_id).unwrap_or(0)
    }

    /// The normalization settings, the proto's defaults where absent.
    pub fn normalizer(&self) -> NormalizerSpec {
        self.normalizer_spec.clone().unwrap_or_default()
    }
}

impl NormalizerSpec {
    /// The compiled character map, `None` when empty.
    pub fn charsmap(&self) -> Option<&[u8]> {
        self.precompiled_charsmap.as_deref().filter(|m| !m.is_empty())
    }
}
