//! CodeQA's recurrent baselines (the paper's section 6.1 and appendix B): **Seq2seq**, a
//! bidirectional LSTM encoder over the words of `question <s> code` and an LSTM decoder with
//! attention and a copy mechanism (See et al., 2017); **Dual Encoder**, the same decoder over
//! two bidirectional encoders, one for the code and one for the question, whose outputs are
//! concatenated (positions of both are attended to and copied from) and whose final states
//! are joined by a linear bridge into the decoder's initial state.
//!
//! Words come from [`crate::models::answer::words`]. The decoder's state starts from the
//! encoder's final states (forward and backward side by side); at every position it attends
//! to the encoder states (Luong's `general` score), mixes the context with its state
//! (`tanh(W [c; s])`), and predicts the next word as a mixture, by a learned gate, of a
//! softmax over the answer vocabulary and the attention over source positions, whose words
//! include those outside the vocabulary (each input's own extended ids). The decoder does
//! not feed the attentional vector back as input (no input feeding), so teacher-forced
//! training runs the decoder LSTM over the whole answer and then attends for all positions
//! at once.

use std::path::Path;

use candle_core::{Device, IndexOp, Tensor, D};
use serde::{Deserialize, Serialize};

use crate::error::{ModelError, Result};
use crate::models::answer::beam::{search, BeamStep, Hypothesis};
use crate::models::answer::selection::Candidate;
use crate::models::answer::words::{Vocabularies, END, START};
use crate::models::answer::DecodeOptions;
use crate::nn::heads::HeadConfig;
use crate::nn::layers::{Dropout, Embedding, Linear};
use crate::nn::lstm::Lstm;
use crate::nn::params::{sorted_vars, ParamStore};
use crate::training::train::{Trainable, Validation};

/// Dropout of the recurrent baselines (the paper's appendix B: 0.2).
pub const RECURRENT_DROPOUT: f64 = 0.2;

/// A memory position no answer word can be copied from (the separator, padding).
const NO_COPY: u32 = u32::MAX;
/// Added to the attention scores of padding positions.
const MASKED: f32 = -1e9;

/// Which recurrent baseline.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum RecurrentArch {
    /// One bidirectional encoder over `question <s> code`.
    #[serde(rename = "codeqa-seq2seq")]
    Seq2seq,
    /// A code encoder and a question encoder.
    #[serde(rename = "codeqa-dual-encoder")]
    DualEncoder,
}

/// The model's shape, stored as the checkpoint's `config.json`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct RecurrentConfig {
    /// Which baseline.
    pub model_type: RecurrentArch,
    /// LSTM layers of every encoder and of the decoder (the paper: 2).
    pub layers: usize,
    /// Word vector size, decoder state size, and the width of an encoder's output (both
    /// directions together; the paper: 512).
    pub hidden: usize,
    /// Dropout on word vectors, between layers and before the output layer (the paper: 0.2).
    pub dropout: f64,
    /// Most source words (Seq2seq: question, separator and code; Dual Encoder: the code, and
    /// the question separately).
    pub max_source_len: usize,
    /// Most answer words, start and end included; also the generation limit.
    pub max_target_len: usize,
    /// Source vocabulary size (checked against `vocab.json`).
    pub source_vocab: usize,
    /// Answer vocabulary size (checked against `vocab.json`).
    pub target_vocab: usize,
}

/// One encoded example.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecurrentExample {
    /// Source word ids: Seq2seq `question <s> code`, Dual Encoder the code.
    pub source: Vec<u32>,
    /// Dual Encoder: the question's word ids (empty for Seq2seq).
    pub question: Vec<u32>,
    /// For `source` then `question`, each word's extended answer id (`u32::MAX` for the
    /// separator): its answer vocabulary id, or the vocabulary size plus its index in `oov`.
    pub copy: Vec<u32>,
    /// The example's source words outside the answer vocabulary, in order of appearance.
    pub oov: Vec<String>,
    /// `<s> answer </s>` in extended ids (a word neither in the vocabulary nor in the source
    /// is `<unk>`); empty when there is no answer.
    pub target: Vec<u32>,
}

/// One encoder over one side of a batch: states, per-layer final states, lengths, padded
/// length.
type EncoderRun = (Tensor, Vec<(Tensor, Tensor)>, Vec<usize>, usize);

/// The encoder side of a batch.
struct Encoded {
    /// `(b, s, hidden)`.
    memory: Tensor,
    /// `(b, s)`: 0 at real positions, [`MASKED`] at padding.
    bias: Tensor,
    /// Per decoder layer, its initial `(h, c)` `(b, hidden)`.
    init: Vec<(Tensor, Tensor)>,
    /// `(b * s)` extended ids of the memory positions, row-major.
    copy: Vec<u32>,
    /// `s`.
    len: usize,
}

/// Seq2seq or Dual Encoder with its vocabularies and parameters.
pub struct RecurrentAnswerModel {
    config: RecurrentConfig,
    vocab: Vocabularies,
    store: ParamStore,
    source_embeddings: Embedding,
    target_embeddings: Embedding,
    encoders: Vec<Lstm>,
    bridge: Option<(Linear, Linear)>,
    decoder: Lstm,
    attention: Linear,
    combine: Linear,
    output: Linear,
    copy_gate: Linear,
    dropout: Dropout,
}

impl RecurrentAnswerModel {
    /// A fresh model of `config`'s shape over `vocab`, initialized from `seed`.
    pub fn new(config: RecurrentConfig, vocab: Vocabularies, device: &Device, seed: u64) -> Result<Self> {
        let store = ParamStore::random(crate::nn::bert::seeded(seed), device);
        Self::build(config, vocab, store, false)
    }

    /// Loads a checkpoint written by training (`config.json`, `vocab.json`,
    /// `model.safetensors`); `seed` drives dropout if it trains further.
    pub fn load(dir: &Path, device: &Device, seed: u64) -> Result<Self> {
        let path = dir.join("config.json");
        let text = quarry_stdx::read::read_text(&path, quarry_stdx::read::MAX_TEXT_FILE_BYTES)
            .map_err(|e| ModelError::io(&path, e.source))?;
        let config: RecurrentConfig =
            serde_json::from_str(&text).map_err(|e| ModelError::Json { path: path.clone(), message: e.to_string() })?;
        let vocab = Vocabularies::load(dir)?;
        let weights = crate::weights::find_weights(dir)?;
        let tensors = crate::weights::read_tensors(&weights)?;
        let store = ParamStore::pretrained(weights, tensors, crate::nn::bert::seeded(seed), device);
        Self::build(config, vocab, store, true)
    }

    fn build(config: RecurrentConfig, vocab: Vocabularies, mut store: ParamStore, trained: bool) -> Result<Self> {
        let h = config.hidden;
        if config.layers == 0 || h < 2 || !h.is_multiple_of(2) {
            return Err(ModelError::Config(format!(
                "a recurrent answer model needs at least one layer and an even hidden size, got {} and {h}",
                config.layers
            )));
        }
        if config.max_source_len < 3 || config.max_target_len < 2 {
            return Err(ModelError::Config(format!(
                "source length must be at least 3 and target length at least 2, got {} and {}",
                config.max_source_len, config.max_target_len
            )));
        }
        if (config.source_vocab, config.target_vocab) != (vocab.source.len(), vocab.target.len()) {
            return Err(ModelError::Config(format!(
                "config.json gives vocabularies of {} and {} words, vocab.json has {} and {}",
                config.source_vocab,
                config.target_vocab,
                vocab.source.len(),
                vocab.target.len()
            )));
        }
        let s = &mut store;
        let (layers, p) = (config.layers, config.dropout);
        let source_embeddings = Embedding::new(s, "source_embeddings", config.source_vocab, h, trained)?;
        let target_embeddings = Embedding::new(s, "target_embeddings", config.target_vocab, h, trained)?;
        let (encoders, bridge) = match config.model_type {
            RecurrentArch::Seq2seq => (vec![Lstm::new(s, "encoder", layers, h, h / 2, true, p, trained)?], None),
            RecurrentArch::DualEncoder => {
                let code = Lstm::new(s, "code_encoder", layers, h, h / 2, true, p, trained)?;
                let question = Lstm::new(s, "question_encoder", layers, h, h / 2, true, p, trained)?;
                let bridge =
                    (Linear::new(s, "bridge_h", 2 * h, h, trained)?, Linear::new(s, "bridge_c", 2 * h, h, trained)?);
                (vec![code, question], Some(bridge))
            }
        };
        let decoder = Lstm::new(s, "decoder", layers, h, h, false, p, trained)?;
        let attention = Linear::without_bias(s, "attention", h, h)?;
        let combine = Linear::new(s, "combine", 2 * h, h, trained)?;
        let output = Linear::new(s, "output", h, config.target_vocab, trained)?;
        let copy_gate = Linear::new(s, "copy_gate", 3 * h, 1, trained)?;
        let dropout = Dropout::new(p, store.rng().clone());
        Ok(RecurrentAnswerModel {
            config,
            vocab,
            store,
            source_embeddings,
            target_embeddings,
            encoders,
            bridge,
            decoder,
            attention,
            combine,
            output,
            copy_gate,
            dropout,
        })
    }

    /// The model's shape.
    pub fn config(&self) -> &RecurrentConfig {
        &self.config
    }

    /// Encodes one example from CodeQA's tokenized text (words separated by spaces).
    pub fn encode(&self, question: &str, code: &str, answer: Option<&str>) -> RecurrentExample {
        let (src, tgt) = (&self.vocab.source, &self.vocab.target);
        let max = self.config.max_source_len;
        let q: Vec<&str> = question.split_whitespace().collect();
        let c: Vec<&str> = code.split_whitespace().collect();
        // Words and whether each is a real word (copyable) rather than the separator.
        let (source_words, question_words): (Vec<Option<&str>>, Vec<Option<&str>>) = match self.config.model_type {
            RecurrentArch::Seq2seq => {
                let words = q.iter().map(|w| Some(*w)).chain([None]).chain(c.iter().map(|w| Some(*w)));
                (words.take(max).collect(), Vec::new())
            }
            RecurrentArch::DualEncoder => (cut_side(&c, max), cut_side(&q, max)),
        };
        let ids = |words: &[Option<&str>]| -> Vec<u32> { words.iter().map(|w| w.map_or(2, |w| src.id(w))).collect() };
        let mut oov: Vec<String> = Vec::new();
        let mut copy = Vec::with_capacity(source_words.len() + question_words.len());
        for w in source_words.iter().chain(&question_words) {
            copy.push(match w {
                None | Some("") => NO_COPY,
                Some(w) => tgt.get(w).unwrap_or_else(|| {
                    let i = oov.iter().position(|o| o == w).unwrap_or_else(|| {
                        oov.push(w.to_string());
                        oov.len() - 1
                    });
                    (tgt.len() + i) as u32
                }),
            });
        }
        let target = match answer {
            Some(a) => {
                let words = a.split_whitespace().take(self.config.max_target_len - 2);
                let body = words.map(|w| {
                    tgt.get(w).or_else(|| oov.iter().position(|o| o == w).map(|i| (tgt.len() + i) as u32)).unwrap_or(1)
                });
                std::iter::once(2).chain(body).chain([3]).collect()
            }
            None => Vec::new(),
        };
        RecurrentExample { source: ids(&source_words), question: ids(&question_words), copy, oov, target }
    }

    /// The answer text of extended ids `ids` of `example`.
    pub fn decode_text(&self, ids: &[u32], example: &RecurrentExample) -> String {
        let v = self.vocab.target.len();
        let words = ids.iter().map(|&id| match (id as usize).checked_sub(v) {
            Some(i) => example.oov.get(i).map_or(self.vocab.target.word(1), String::as_str),
            None => self.vocab.target.word(id),
        });
        words
            .filter(|w| *w != START && *w != END && *w != crate::models::answer::words::PAD)
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// Embeds padded `seqs` with the source table and runs `encoder`: states, final states,
    /// lengths, padded length.
    fn run_encoder(&self, encoder: &Lstm, seqs: &[&[u32]], train: bool) -> Result<EncoderRun> {
        let dev = self.store.device();
        let (ids, _) = crate::training::data::pad_ids(seqs, 0, dev)?;
        let len = ids.dim(1)?;
        let lengths: Vec<usize> = seqs.iter().map(|s| s.len()).collect();
        let x = self.dropout.forward(&self.source_embeddings.forward(&ids, train)?, train)?;
        let out = encoder.forward(&x, &lengths, None, train)?;
        Ok((out.outputs, out.finals, lengths, len))
    }

    /// Runs the encoder(s) over a batch.
    fn encode_batch(&self, batch: &[&RecurrentExample], train: bool) -> Result<Encoded> {
        let dev = self.store.device();
        let sources: Vec<&[u32]> = batch.iter().map(|e| e.source.as_slice()).collect();
        let (mut memory, mut init, lengths, len) = self.run_encoder(&self.encoders[0], &sources, train)?;
        let mut sides = vec![(lengths, len, 0usize)];
        if let (Some(encoder), Some((bh, bc))) = (self.encoders.get(1), &self.bridge) {
            let questions: Vec<&[u32]> = batch.iter().map(|e| e.question.as_slice()).collect();
            let (q_memory, q_init, q_lengths, q_len) = self.run_encoder(encoder, &questions, train)?;
            memory = Tensor::cat(&[memory, q_memory], 1)?;
            init = init
                .iter()
                .zip(&q_init)
                .map(|((h, c), (qh, qc))| {
                    let h = bh.forward(&Tensor::cat(&[h, qh], D::Minus1)?, train)?;
                    let c = bc.forward(&Tensor::cat(&[c, qc], D::Minus1)?, train)?;
                    Ok((h, c))
                })
                .collect::<Result<_>>()?;
            sides.push((q_lengths, q_len, 1));
        }
        let total: usize = sides.iter().map(|s| s.1).sum();
        let mut bias = vec![MASKED; batch.len() * total];
        let mut copy = vec![NO_COPY; batch.len() * total];
        for (r, e) in batch.iter().enumerate() {
            let mut at = r * total;
            let mut from = 0;
            for (lengths, len, _) in &sides {
                let l = lengths[r];
                bias[at..at + l].fill(0.0);
                copy[at..at + l].copy_from_slice(&e.copy[from..from + l]);
                at += len;
                from += l;
            }
        }
        let bias = Tensor::from_vec(bias, (batch.len(), total), dev)?;
        Ok(Encoded { memory, bias, init, copy, len: total })
    }

    /// Decoder input ids: extended ids outside the vocabulary read as `<unk>`.
    fn inputs(&self, ids: &[u32]) -> Vec<u32> {
        let v = self.vocab.target.len() as u32;
        ids.iter().map(|&id| if id >= v { 1 } else { id }).collect()
    }

    /// Attention, output layer and copy gate for decoder states `states` `(b, t, h)` whose
    /// inputs were `x` `(b, t, h)` over `enc` (rows of `enc` match rows of `states`):
    /// next-word log probabilities over the vocabulary `(b, t, V)`, attention `(b, t, s)`,
    /// generation probability `(b, t, 1)`.
    fn predict(&self, states: &Tensor, x: &Tensor, enc: &Encoded, train: bool) -> Result<(Tensor, Tensor, Tensor)> {
        let keys = self.attention.forward(&enc.memory, train)?;
        let scores = states.matmul(&keys.transpose(1, 2)?.contiguous()?)?;
        let (b, s) = enc.bias.dims2()?;
        let scores = scores.broadcast_add(&enc.bias.reshape((b, 1, s))?)?;
        let attn = crate::kernels::ops::trained_softmax(&scores.contiguous()?)?;
        let context = attn.matmul(&enc.memory)?;
        let mixed = self.combine.forward(&Tensor::cat(&[&context, states], D::Minus1)?, train)?.tanh()?;
        let logits = self.output.forward(&self.dropout.forward(&mixed, train)?, train)?;
        let log_probs = candle_nn::ops::log_softmax(&logits, D::Minus1)?;
        let gate =
            candle_nn::ops::sigmoid(&self.copy_gate.forward(&Tensor::cat(&[&context, states, x], D::Minus1)?, train)?)?;
        Ok((log_probs, attn, gate))
    }

    /// Mean negative log likelihood of the answers of `batch` and the number of words.
    fn loss_and_count(&self, batch: &[&RecurrentExample], train: bool) -> Result<(Tensor, usize)> {
        if batch.iter().any(|e| e.target.len() < 2) {
            return Err(ModelError::Data("an example has no answer to train on".into()));
        }
        let dev = self.store.device();
        let enc = self.encode_batch(batch, train)?;
        let inputs: Vec<Vec<u32>> = batch.iter().map(|e| self.inputs(&e.target[..e.target.len() - 1])).collect();
        let refs: Vec<&[u32]> = inputs.iter().map(Vec::as_slice).collect();
        let (ids, _) = crate::training::data::pad_ids(&refs, 0, dev)?;
        let t = ids.dim(1)?;
        let lengths: Vec<usize> = inputs.iter().map(Vec::len).collect();
        let x = self.dropout.forward(&self.target_embeddings.forward(&ids, train)?, train)?;
        let states = self.decoder.forward(&x, &lengths, Some(&enc.init), train)?.outputs;
        let (log_probs, attn, gate) = self.predict(&states, &x, &enc, train)?;
        // The positions with a label, and what each needs: its row, the label's vocabulary
        // column (0 weight when the label is outside the vocabulary), the memory positions
        // holding the label's word.
        let v = self.vocab.target.len() as u32;
        let s = enc.len;
        let (mut rows, mut columns, mut in_vocab, mut copy_mask) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        for (r, e) in batch.iter().enumerate() {
            for (i, &label) in e.target.iter().enumerate().skip(1) {
                rows.push((r * t + i - 1) as u32);
                columns.push(if label < v { label } else { 1 });
                in_vocab.push(if label < v { 1f32 } else { 0.0 });
                let positions = &enc.copy[r * s..(r + 1) * s];
                // <unk> labels copy nothing: an unknown word is not in the source.
                copy_mask.extend(positions.iter().map(|&p| if p == label && label != 1 { 1f32 } else { 0.0 }));
            }
        }
        let n = rows.len();
        let rows = Tensor::from_vec(rows, n, dev)?;
        let pick = |t3: &Tensor| -> Result<Tensor> {
            let width = t3.dim(2)?;
            Ok(t3.reshape(((), width))?.index_select(&rows, 0)?)
        };
        let columns = Tensor::from_vec(columns, (n, 1), dev)?;
        let vocab_p = (pick(&log_probs)?.gather(&columns, 1)?.exp()? * Tensor::from_vec(in_vocab, (n, 1), dev)?)?;
        let copy_mask = Tensor::from_vec(copy_mask, (n, s), dev)?;
        let copy_p = (pick(&attn)? * copy_mask)?.sum_keepdim(1)?;
        let gate = pick(&gate)?;
        let p = ((&gate * vocab_p)? + ((1.0 - &gate)? * copy_p)?)?;
        let loss = (p + 1e-10)?.log()?.mean_all()?.neg()?;
        Ok((loss, n))
    }

    /// Every hypothesis of every example's beam (in input order), best first, with its
    /// log probability.
    pub fn generate_ranked_ids(
        &self,
        examples: &[RecurrentExample],
        options: &DecodeOptions,
    ) -> Result<Vec<Vec<Hypothesis>>> {
        if options.beam_size == 0 || options.batch_size == 0 {
            return Err(ModelError::Data("beam size and batch size must be positive".into()));
        }
        let max_len = options.max_len.unwrap_or(self.config.max_target_len);
        let mut order: Vec<usize> = (0..examples.len()).collect();
        order.sort_by_key(|&i| std::cmp::Reverse(examples[i].source.len() + examples[i].question.len()));
        let mut out = vec![Vec::new(); examples.len()];
        for chunk in order.chunks(options.batch_size) {
            let batch: Vec<&RecurrentExample> = chunk.iter().map(|&i| &examples[i]).collect();
            let ranked = self.generate_batch(&batch, options.beam_size, max_len, options.length_penalty)?;
            for (&i, r) in chunk.iter().zip(ranked) {
                out[i] = r;
            }
        }
        Ok(out)
    }

    fn generate_batch(
        &self,
        batch: &[&RecurrentExample],
        beam: usize,
        max_len: usize,
        alpha: f64,
    ) -> Result<Vec<Vec<Hypothesis>>> {
        let dev = self.store.device();
        let enc = self.encode_batch(batch, false)?;
        let rows: Vec<u32> = (0..batch.len()).flat_map(|r| std::iter::repeat_n(r as u32, beam)).collect();
        let rows = Tensor::from_vec(rows, batch.len() * beam, dev)?;
        let expand = |t: &Tensor| t.contiguous()?.index_select(&rows, 0);
        let state = enc.init.iter().map(|(h, c)| Ok((expand(h)?, expand(c)?))).collect::<Result<Vec<_>>>()?;
        let keys = self.attention.forward(&enc.memory, false)?;
        let vocab = self.vocab.target.len();
        let mut stepper = RecurrentStep {
            model: self,
            state,
            memory: expand(&enc.memory)?,
            keys: expand(&keys)?,
            bias: expand(&enc.bias)?,
            copy: enc.copy.chunks(enc.len).map(<[u32]>::to_vec).collect(),
            vocabs: batch.iter().map(|e| vocab + e.oov.len()).collect(),
            beam,
        };
        search(batch.len(), beam, max_len, [2, 3, 0], alpha, &mut stepper)
    }

    /// Every example's candidate answers, best first, each text once.
    pub fn generate_candidates(
        &self,
        examples: &[RecurrentExample],
        options: &DecodeOptions,
    ) -> Result<Vec<Vec<Candidate>>> {
        let ranked = self.generate_ranked_ids(examples, options)?;
        Ok(ranked
            .iter()
            .zip(examples)
            .map(|(hyps, e)| Candidate::merge(hyps.iter().map(|(ids, lp)| (self.decode_text(ids, e), *lp)).collect()))
            .collect())
    }
}

/// A Dual Encoder side's words, cut to `max`; an empty side still has one position to
/// encode, an unknown word copied by nothing.
fn cut_side<'a>(words: &[&'a str], max: usize) -> Vec<Option<&'a str>> {
    if words.is_empty() {
        vec![Some("")]
    } else {
        words.iter().take(max).map(|w| Some(*w)).collect()
    }
}

/// The decoder as beam search drives it: one word at a time, each row's LSTM state, the
/// encoder output of its input.
struct RecurrentStep<'a> {
    model: &'a RecurrentAnswerModel,
    state: Vec<(Tensor, Tensor)>,
    memory: Tensor,
    keys: Tensor,
    bias: Tensor,
    /// Per input of the batch, its memory positions' extended ids.
    copy: Vec<Vec<u32>>,
    /// Per input of the batch, its extended vocabulary size.
    vocabs: Vec<usize>,
    beam: usize,
}

impl BeamStep for RecurrentStep<'_> {
    fn vocab(&self, input: usize) -> usize {
        self.vocabs[input]
    }

    fn step(&mut self, tokens: &[u32], active: &[usize], _step: usize) -> Result<Vec<f32>> {
        let m = self.model;
        let n = tokens.len();
        let ids = Tensor::from_vec(m.inputs(tokens), n, m.store.device())?;
        let x = m.target_embeddings.forward(&ids, false)?;
        let (out, state) = m.decoder.step(&x, &self.state, false)?;
        self.state = state;
        let enc = Encoded {
            memory: self.memory.clone(),
            bias: self.bias.clone(),
            init: Vec::new(),
            copy: Vec::new(),
            len: self.memory.dim(1)?,
        };
        let (log_probs, attn, gate) = m.predict(&out.unsqueeze(1)?, &x.unsqueeze(1)?, &enc, false)?;
        let v = log_probs.dim(D::Minus1)?;
        let probs = log_probs.i((.., 0))?.exp()?.flatten_all()?.to_vec1::<f32>()?;
        let attn = attn.i((.., 0))?.flatten_all()?.to_vec1::<f32>()?;
        let gate = gate.flatten_all()?.to_vec1::<f32>()?;
        let s = enc.len;
        let mut out = Vec::with_capacity(active.iter().map(|&i| self.beam * self.vocabs[i]).sum());
        for (slot, &input) in active.iter().enumerate() {
            for k in 0..self.beam {
                let row = slot * self.beam + k;
                let mut dist = vec![0f32; self.vocabs[input]];
                let g = gate[row];
                for (d, p) in dist.iter_mut().zip(&probs[row * v..(row + 1) * v]) {
                    *d = g * p;
                }
                for (&id, a) in self.copy[input].iter().zip(&attn[row * s..(row + 1) * s]) {
                    if id != NO_COPY {
                        dist[id as usize] += (1.0 - g) * a;
                    }
                }
                out.extend(dist.iter().map(|d| d.max(1e-30).ln()));
            }
        }
        Ok(out)
    }

    fn keep(&mut self, rows: &[u32], inputs_left: Option<&[u32]>) -> Result<()> {
        let dev = self.model.store.device();
        let rows = Tensor::from_vec(rows.to_vec(), rows.len(), dev)?;
        for (h, c) in self.state.iter_mut() {
            *h = h.contiguous()?.index_select(&rows, 0)?;
            *c = c.contiguous()?.index_select(&rows, 0)?;
        }
        if let Some(left) = inputs_left {
            let left = Tensor::from_vec(left.to_vec(), left.len(), dev)?;
            self.memory = self.memory.index_select(&left, 0)?;
            self.keys = self.keys.index_select(&left, 0)?;
            self.bias = self.bias.index_select(&left, 0)?;
        }
        Ok(())
    }
}

impl Trainable for RecurrentAnswerModel {
    type Example = RecurrentExample;

    fn store(&self) -> &ParamStore {
        &self.store
    }

    fn head_config(&self) -> HeadConfig {
        HeadConfig::RecurrentAnswer
    }

    /// `config.json`, `vocab.json`, `model.safetensors` and `head_config.json`.
    fn save(&self, dir: &Path) -> Result<()> {
        std::fs::create_dir_all(dir).map_err(|e| ModelError::io(dir, e))?;
        crate::checkpoint::write_json(&dir.join("config.json"), &self.config)?;
        crate::checkpoint::write_json(&dir.join(crate::checkpoint::HEAD_CONFIG), &self.head_config())?;
        self.vocab.save(dir)?;
        let tensors: std::collections::HashMap<String, Tensor> = sorted_vars(self.store.vars())
            .into_iter()
            .map(|(name, var)| Ok((name, var.as_tensor().to_device(&Device::Cpu)?)))
            .collect::<Result<_>>()?;
        let weights = dir.join("model.safetensors");
        candle_core::safetensors::save(&tensors, &weights)
            .map_err(|e| ModelError::Weights { path: weights.clone(), message: e.to_string() })
    }

    fn batch_loss(&self, batch: &[&RecurrentExample], train: bool) -> Result<Tensor> {
        Ok(self.loss_and_count(batch, train)?.0)
    }

    /// Word-level validation loss, with perplexity as the headline metric (as the
    /// Transformer's).
    fn validate(&self, valid: &[RecurrentExample], batch_size: usize) -> Result<Validation> {
        crate::models::answer::token_validation(valid, batch_size, |batch| self.loss_and_count(batch, false))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::training::train::{fit, TrainConfig};

    const PAIRS: [(&str, &str, &str); 4] = [
        ("What does the code return ?", "def f x return x", "x"),
        ("What does the code open ?", "def g path open path", "the file"),
        ("Does it have any rules ?", "def h rules return len rules", "Yes"),
        ("What does the code close ?", "def k handle handle close", "the handle"),
    ];

    fn tiny(arch: RecurrentArch, seed: u64) -> RecurrentAnswerModel {
        let vocab = Vocabularies::build(PAIRS.iter().map(|&(q, c, a)| (q, c, a)), 100, 7);
        let config = RecurrentConfig {
            model_type: arch,
            layers: 2,
            hidden: 16,
            dropout: 0.0,
            max_source_len: 16,
            max_target_len: 6,
            source_vocab: vocab.source.len(),
            target_vocab: vocab.target.len(),
        };
        RecurrentAnswerModel::new(config, vocab, &Device::Cpu, seed).unwrap()
    }

    #[test]
    fn words_outside_the_vocabulary_are_copied_from_the_source() {
        let m = tiny(RecurrentArch::Seq2seq, 1);
        // The target vocabulary keeps 3 answer words: "the", then two of the others.
        let e = m.encode("What does the code close ?", "def k handle handle close", Some("the handle"));
        assert_eq!(e.source.len(), 6 + 1 + 5, "question, separator, code");
        assert_eq!(e.copy[6], NO_COPY, "the separator copies nothing");
        let handle = m
            .vocab
            .target
            .get("handle")
            .unwrap_or_else(|| (m.vocab.target.len() + e.oov.iter().position(|w| w == "handle").unwrap()) as u32);
        assert_eq!(e.target, vec![2, m.vocab.target.id("the"), handle, 3]);
        assert_eq!(m.decode_text(&e.target, &e), "the handle");
        let unknown = m.encode("q", "c", Some("nowhere"));
        assert_eq!(unknown.target, vec![2, 1, 3], "neither in the vocabulary nor in the source");
        let dual = tiny(RecurrentArch::DualEncoder, 1).encode("What ?", "def f", Some("f"));
        assert_eq!((dual.source.len(), dual.question.len(), dual.copy.len()), (2, 2, 4));
    }

    #[test]
    fn both_baselines_learn_a_handful_of_pairs_save_and_answer_them() {
        for arch in [RecurrentArch::Seq2seq, RecurrentArch::DualEncoder] {
            let m = tiny(arch, 3);
            let examples: Vec<RecurrentExample> = PAIRS.iter().map(|(q, c, a)| m.encode(q, c, Some(a))).collect();
            let out = tempfile::tempdir().unwrap();
            let config = TrainConfig {
                epochs: 80,
                batch_size: 2,
                lr: 2e-2,
                weight_decay: 0.0,
                out_dir: Some(out.path().to_path_buf()),
                ..TrainConfig::default()
            };
            let logs = fit(&m, &examples, &examples, &config, &mut |_| {}).unwrap();
            let (first, last) = (logs[0].loss, logs.last().unwrap().loss);
            assert!(last < first / 10.0, "{arch:?}: the loss falls from {first} to {last}");
            let loaded = RecurrentAnswerModel::load(&out.path().join("best"), &Device::Cpu, 0).unwrap();
            for beam in [1, 3] {
                let options = DecodeOptions { beam_size: beam, batch_size: 3, ..DecodeOptions::default() };
                let answers = loaded.generate_candidates(&examples, &options).unwrap();
                let best: Vec<&str> = answers.iter().map(|c| c[0].text.as_str()).collect();
                assert_eq!(best, ["x", "the file", "Yes", "the handle"], "{arch:?}, beam {beam}");
                let one = DecodeOptions { batch_size: 1, ..options };
                let single = loaded.generate_ranked_ids(&examples, &one).unwrap();
                let batched = loaded.generate_ranked_ids(&examples, &options).unwrap();
                for (a, b) in single.iter().flatten().zip(batched.iter().flatten()) {
                    assert_eq!(a.0, b.0, "batching changes no answer");
                    assert!((a.1 - b.1).abs() < 1e-4, "nor a score beyond rounding");
                }
            }
        }
    }

    #[test]
    fn a_checkpoint_with_mismatched_vocabularies_is_refused() {
        let m = tiny(RecurrentArch::Seq2seq, 2);
        let dir = tempfile::tempdir().unwrap();
        m.save(dir.path()).unwrap();
        let small = Vocabularies::build([("a", "b", "c")], 10, 10);
        small.save(dir.path()).unwrap();
        let err = RecurrentAnswerModel::load(dir.path(), &Device::Cpu, 0).err().unwrap().to_string();
        assert!(err.contains("vocab.json"), "{err}");
    }
}
