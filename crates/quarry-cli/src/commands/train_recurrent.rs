//! `quarry train answer --arch seq2seq|dual-encoder`: CodeQA's recurrent baselines, trained
//! by the same loop as every other model (best and resumable last checkpoints).

use std::path::Path;

use anyhow::{bail, Context, Result};
use quarry_data::codeqa::CodeQaExample;
use quarry_model::device::Device;
use quarry_model::models::answer::recurrent::{
    RecurrentAnswerModel, RecurrentArch, RecurrentConfig, RecurrentExample, RECURRENT_DROPOUT,
};
use quarry_model::models::answer::words::Vocabularies;
use quarry_model::nn::heads::HeadConfig;
use quarry_model::training::train::read_state;
use quarry_model::{ModelSource, Precision};

use super::answer_args::AnswerArgs;
use super::training::{run_training, Setup};

/// Trains `arch` as `args` say: from `--model scratch:LAYERSxHIDDEN` with vocabularies of
/// the training split, from a recurrent checkpoint given as `--model`, or resuming `OUT/last`.
pub fn train(args: &AnswerArgs, arch: RecurrentArch) -> Result<()> {
    let common = &args.common;
    if common.device.dtype != Precision::F32 {
        bail!("the recurrent baselines compute in f32 only (--dtype {})", common.device.dtype);
    }
    let device = common.device.device()?;
    let read = |prefix: &Path| -> Result<Vec<CodeQaExample>> {
        let mut examples = quarry_data::codeqa::read_split(prefix, true, false)?;
        if let Some(n) = common.limit {
            examples.truncate(n);
        }
        Ok(examples)
    };
    let (train_set, valid_set) = (read(&common.train)?, read(&common.valid)?);
    let resuming = common.resume && read_state(&common.out)?.is_some();
    let model = if resuming {
        let last = common.out.join("last");
        eprintln!("resuming from {}", last.display());
        load_recurrent(&last, arch, &device, common.seed)?
    } else {
        match super::model_arg::model_source(&common.model)? {
            ModelSource::Scratch(spec) => {
                let answered = train_set.iter().map(|e| (e.question.as_str(), e.code.as_str(), answer_of(e)));
                let vocab = Vocabularies::build(answered, args.source_vocab, args.target_vocab);
                let config = RecurrentConfig {
                    model_type: arch,
                    layers: spec.layers,
                    hidden: spec.hidden,
                    dropout: RECURRENT_DROPOUT,
                    max_source_len: common.max_len,
                    max_target_len: args.max_target_len,
                    source_vocab: vocab.source.len(),
                    target_vocab: vocab.target.len(),
                };
                eprintln!(
                    "vocabularies of {}: {} source and {} answer words",
                    common.train.display(),
                    config.source_vocab,
                    config.target_vocab
                );
                RecurrentAnswerModel::new(config, vocab, &device, common.seed)?
            }
            ModelSource::Dir(dir) => load_recurrent(&dir, arch, &device, common.seed)?,
            ModelSource::Hub(id) => bail!(
                "--arch {} builds its model: --model scratch:LAYERSxHIDDEN (the paper: scratch:2x512) or a \
                 checkpoint of the same baseline, not the hub id '{id}'",
                arch_name(arch)
            ),
        }
    };
    let encode = |set: &[CodeQaExample]| -> Vec<RecurrentExample> {
        set.iter().map(|e| model.encode(&e.question, &e.code, Some(answer_of(e)))).collect()
    };
    let (train, valid) = (encode(&train_set), encode(&valid_set));
    let setup = Setup { max_len: model.config().max_source_len, resuming };
    run_training(&model, &train, &valid, common, &setup)
}

fn answer_of(e: &CodeQaExample) -> &str {
    e.answer.as_deref().unwrap_or("")
}

fn arch_name(arch: RecurrentArch) -> &'static str {
    match arch {
        RecurrentArch::Seq2seq => "seq2seq",
        RecurrentArch::DualEncoder => "dual-encoder",
    }
}

/// Loads the recurrent checkpoint `dir`, which must be of `arch`.
fn load_recurrent(dir: &Path, arch: RecurrentArch, device: &Device, seed: u64) -> Result<RecurrentAnswerModel> {
    match quarry_model::checkpoint::read_head_config(dir)? {
        Some(HeadConfig::RecurrentAnswer) => {}
        _ => bail!(
            "{} is not a checkpoint of `quarry train answer --arch {}` (no recurrent head_config.json)",
            dir.display(),
            arch_name(arch)
        ),
    }
    let model = RecurrentAnswerModel::load(dir, device, seed).with_context(|| format!("loading {}", dir.display()))?;
    if model.config().model_type != arch {
        bail!("{} holds a {:?} model, not --arch {}", dir.display(), model.config().model_type, arch_name(arch));
    }
    Ok(model)
}
