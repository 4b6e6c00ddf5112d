//! `quarry train span|relevance|answer`: fine-tunes an encoder with a B/I/O/F head, or with
//! the two-step procedure's relevance classifier, on CodeQueries-style JSONL; or trains
//! CodeQA's encoder-decoder answer generator on CodeQA's parallel files.

use std::path::PathBuf;

use anyhow::{bail, Context, Result};
use clap::{Args, Subcommand};
use quarry_model::evaluation::eval_checks::EvalChecks;
use quarry_model::models::answer::recurrent::RecurrentArch;
use quarry_model::models::relevance::RELEVANCE_CLASSES;
use quarry_model::nn::heads::HeadConfig;
use quarry_model::training::data::{
    class_weights_for, encode_examples, encode_relevance, read_relevance_jsonl, read_span_jsonl, RelevanceExample,
};
use quarry_model::{AnswerConfig, AnswerModel, LabelWeighting, RelevanceModel, SpanModel};

use super::answer_args::{AnswerArch, AnswerArgs};
use super::training::{load, run_training, TrainArgs};

/// What to train.
#[derive(Subcommand)]
pub enum TrainTask {
    /// Span prediction: one B/I/O/F label per sub-token.
    Span(SpanArgs),
    /// Block relevance (two-step procedure): is `[CLS] query [SEP] block [SEP]` relevant?
    Relevance(RelevanceArgs),
    /// CodeQA answer generation on `PREFIX.code`, `PREFIX.question` and `PREFIX.answer`
    /// (`--train`/`--valid` are such prefixes, e.g. `data/codeqa/python/dev`; `--max-len`
    /// caps the source sequence): an encoder with a Transformer decoder, or one of the
    /// paper's recurrent baselines (`--arch`).
    #[command(
        mut_arg("train", |a| a.help("Training pairs: the prefix of `PREFIX.code`, `PREFIX.question` and `PREFIX.answer` (e.g. `data/codeqa/python/dev`)")),
        mut_arg("valid", |a| a.help("Validation pairs: a prefix, as --train")),
        mut_arg("max_len", |a| a.help("Source (question and code) length cap in sub-tokens; longer sources are truncated"))
    )]
    Answer(AnswerArgs),
}

/// Arguments of `quarry train span`.
#[derive(Args)]
pub struct SpanArgs {
    /// The settings shared with `quarry train relevance`.
    #[command(flatten)]
    pub common: TrainArgs,
    /// `plain`: the paper's cross-entropy; `balanced`: each label weighted by its inverse
    /// frequency in the training set (stored in the checkpoint's head configuration), so that
    /// a short schedule leaves the all-O start sooner
    #[arg(long, default_value = "plain")]
    pub label_weights: LabelWeighting,
}

/// Arguments of `quarry train relevance`.
#[derive(Args)]
pub struct RelevanceArgs {
    /// The settings shared with `quarry train span`.
    #[command(flatten)]
    pub common: TrainArgs,
    /// Train with an unweighted loss; by default each class is weighted by its inverse
    /// frequency in the training set (stored in the checkpoint's head configuration).
    #[arg(long)]
    pub no_class_weights: bool,
}

/// Runs `quarry train ...`.
pub fn run(task: TrainTask) -> i32 {
    let result = match task {
        TrainTask::Span(args) => train_span(args),
        TrainTask::Relevance(args) => train_relevance(args),
        TrainTask::Answer(args) => train_answer(args),
    };
    match result {
        Ok(()) => 0,
        Err(e) => {
            crate::commands::output::error(&crate::commands::output::describe(&e));
            super::output::EXIT_INPUT_ERROR
        }
    }
}

fn train_span(args: SpanArgs) -> Result<()> {
    let common = &args.common;
    let (model, setup) = load(common)?;
    let mut model = SpanModel::new(model)?;
    let tok = &model.model.tokenizer;
    let encode = |path: &PathBuf| -> Result<_> {
        let examples = read_span_jsonl(path)?;
        let encoded =
            encode_examples(&examples, tok, setup.max_len).with_context(|| format!("encoding {}", path.display()))?;
        // What would make the validation figures mislead, said before training starts.
        let checks = EvalChecks::of_inputs(&encoded, &examples, setup.max_len, tok.unk_id());
        for warning in checks.input_warnings() {
            super::output::warning(&format!("{}: {warning}", path.display()));
        }
        Ok(encoded)
    };
    let (train, valid) = (encode(&common.train)?, encode(&common.valid)?);
    let weights = args.label_weights.weights(&train);
    if let Some(w) = &weights {
        eprintln!("label weights: B {:.4}, I {:.4}, O {:.4}, F {:.4}", w[0], w[1], w[2], w[3]);
    }
    model.set_class_weights(weights)?;
    run_training(&model, &train, &valid, common, &setup)
}

fn train_relevance(args: RelevanceArgs) -> Result<()> {
    let common = &args.common;
    let (model, setup) = load(common)?;
    let train_set = read_relevance_jsonl(&common.train)?;
    let valid_set = read_relevance_jsonl(&common.valid)?;
    let weights = if args.no_class_weights {
        None
    } else {
        let labels = train_set.iter().map(|e| usize::from(e.relevant));
        let w = class_weights_for(labels, RELEVANCE_CLASSES)
            .with_context(|| format!("class weights of {} (or pass --no-class-weights)", common.train.display()))?;
        eprintln!("class weights: not relevant {:.4}, relevant {:.4}", w[0], w[1]);
        Some(w)
    };
    // These weights, or none, replace any that a relevance checkpoint given as --model has.
    let mut model = RelevanceModel::new(model, None)?;
    model.set_class_weights(weights)?;
    let tok = &model.model.tokenizer;
    let encode = |set: &[RelevanceExample], path: &PathBuf| {
        encode_relevance(set, tok, setup.max_len).with_context(|| format!("encoding {}", path.display()))
    };
    let train = encode(&train_set, &common.train)?;
    let valid = encode(&valid_set, &common.valid)?;
    run_training(&model, &train, &valid, common, &setup)
}

fn train_answer(args: AnswerArgs) -> Result<()> {
    let common = &args.common;
    let scratch = common.model.starts_with("scratch:");
    let arch = args.arch.unwrap_or(if scratch { AnswerArch::Transformer } else { AnswerArch::Pretrained });
    match arch {
        AnswerArch::Seq2seq => return super::train_recurrent::train(&args, RecurrentArch::Seq2seq),
        AnswerArch::DualEncoder => return super::train_recurrent::train(&args, RecurrentArch::DualEncoder),
        AnswerArch::Transformer if !scratch && !common.resume && !is_answer_checkpoint(&common.model) => bail!(
            "--arch transformer trains an encoder from scratch: --model scratch:LAYERSxHIDDEN[xHEADS] (or an \
             answer checkpoint to train further), not '{}'; a Hugging Face encoder is --arch pretrained",
            common.model
        ),
        AnswerArch::Pretrained if scratch => bail!(
            "--arch pretrained starts from a Hugging Face directory or hub id, not '{}'; a scratch model is \
             --arch transformer",
            common.model
        ),
        _ => {}
    }
    let (model, setup) = load(common)?;
    let config = AnswerConfig {
        decoder_layers: args.decoder_layers,
        decoder_ffn: args.decoder_ffn,
        decoder_init: args.decoder_init,
        max_source_len: setup.max_len,
        max_target_len: args.max_target_len,
        freeze_encoder: args.freeze_encoder,
        freeze_embeddings: args.freeze_embeddings,
        ..AnswerConfig::default()
    };
    let model = AnswerModel::new(model, config)?;
    let encode = |prefix: &PathBuf| -> Result<Vec<quarry_model::EncodedAnswer>> {
        let mut examples = quarry_data::codeqa::read_split(prefix, true, false)?;
        // `--limit` before encoding: the rest would be encoded (and their encoder outputs
        // cached) for nothing.
        if let Some(n) = common.limit {
            examples.truncate(n);
        }
        examples
            .iter()
            .map(|e| model.encode(&e.question, &e.code, e.answer.as_deref()))
            .collect::<quarry_model::Result<Vec<_>>>()
            .with_context(|| format!("encoding {}", prefix.display()))
    };
    let train = encode(&common.train)?;
    let valid = encode(&common.valid)?;
    if args.cache_encoder_outputs {
        let start = std::time::Instant::now();
        let n = model.cache_encoder_outputs(&train, common.schedule.batch_size)?
            + model.cache_encoder_outputs(&valid, common.schedule.batch_size)?;
        eprintln!("encoder outputs of {n} sources cached in {:.1}s", start.elapsed().as_secs_f64());
    }
    run_training(&model, &train, &valid, common, &setup)
}

/// Whether `spec` names a checkpoint of the Transformer answer generator.
fn is_answer_checkpoint(spec: &str) -> bool {
    match quarry_model::ModelSource::parse(spec) {
        Ok(quarry_model::ModelSource::Dir(dir)) => {
            matches!(quarry_model::checkpoint::read_head_config(&dir), Ok(Some(HeadConfig::Answer(_))))
        }
        _ => false,
    }
}
