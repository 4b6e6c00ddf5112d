//! The arguments of `quarry train answer`, which the Transformer trainer (`train`) and the
//! recurrent baselines' (`train_recurrent`) both read.

use clap::Args;

use super::training::TrainArgs;

/// Arguments of `quarry train answer`.
#[derive(Args)]
pub struct AnswerArgs {
    /// The settings shared with `quarry train span`; `--train` and `--valid` are split
    /// prefixes, `--max-len` is the source length cap (CodeQA's scripts: 400).
    #[command(flatten)]
    pub common: TrainArgs,
    /// Which model: `transformer` (a BERT encoder from scratch, `--model
    /// scratch:LAYERSxHIDDEN[xHEADS]`, with the Transformer decoder), `pretrained` (a Hugging
    /// Face encoder, `--model DIR|ORG/NAME`, with the Transformer decoder), or CodeQA's
    /// recurrent baselines over words, `seq2seq` (a bidirectional LSTM over question and
    /// code, an LSTM decoder with attention and copying) and `dual-encoder` (one
    /// bidirectional LSTM for the code, one for the question), shaped by `--model
    /// scratch:LAYERSxHIDDEN` (the paper: scratch:2x512) [default: transformer for a
    /// `scratch:` model, else pretrained].
    #[arg(long, value_enum)]
    pub arch: Option<AnswerArch>,
    /// Recurrent baselines: source vocabulary size (the most frequent code and question
    /// words of the training split).
    #[arg(value_parser = crate::commands::numbers::size, long, default_value_t = 50_000)]
    pub source_vocab: usize,
    /// Recurrent baselines: answer vocabulary size (the most frequent words of the training
    /// answers; others are copied from the source or unknown).
    #[arg(value_parser = crate::commands::numbers::size, long, default_value_t = 30_000)]
    pub target_vocab: usize,
    /// Answer length cap in sub-tokens (words for the recurrent baselines), start and end tokens included; also the generation
    /// limit.
    #[arg(value_parser = crate::commands::numbers::length, long, default_value_t = 30)]
    pub max_target_len: usize,
    /// Decoder layers (CodeQA: 6).
    #[arg(value_parser = crate::commands::numbers::size, long, default_value_t = quarry_model::models::answer::DEFAULT_DECODER_LAYERS)]
    pub decoder_layers: usize,
    /// Decoder feed-forward size (CodeQA: PyTorch's default, 2048).
    #[arg(value_parser = crate::commands::numbers::length, long, default_value_t = quarry_model::models::answer::DEFAULT_DECODER_FFN)]
    pub decoder_ffn: usize,
    /// How a fresh decoder starts: `random` (CodeQA) or `encoder`: layer i copies the
    /// pretrained encoder's layer i (self-attention, feed-forward, their layer norms; the
    /// encoder's feed-forward size and activation replace --decoder-ffn), cross-attention
    /// random. Ignored when --model is a trained answer checkpoint.
    #[arg(long, default_value = "random")]
    pub decoder_init: quarry_model::models::answer::DecoderInit,
    /// Keep the encoder layers fixed (embeddings and decoder still train); about half the
    /// step time, at some cost in accuracy (CodeQA trains everything).
    #[arg(long)]
    pub freeze_encoder: bool,
    /// With --freeze-encoder: also keep the embeddings fixed (they feed the decoder and are
    /// its tied output layer), so that only the decoder trains and the encoder is a fixed
    /// function of the source.
    #[arg(long, requires = "freeze_encoder")]
    pub freeze_embeddings: bool,
    /// With --freeze-embeddings: run the encoder once per distinct training and validation
    /// source before training and keep its outputs in memory (4 x hidden bytes per source
    /// token), so that each step runs the decoder alone. Changes no result.
    #[arg(long, requires = "freeze_embeddings")]
    pub cache_encoder_outputs: bool,
}

/// `--arch` of `quarry train answer`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum AnswerArch {
    /// CodeQA's Seq2seq baseline.
    Seq2seq,
    /// CodeQA's Dual Encoder baseline.
    DualEncoder,
    /// A BERT encoder trained from scratch with the Transformer decoder.
    Transformer,
    /// A pretrained encoder with the Transformer decoder.
    Pretrained,
}
