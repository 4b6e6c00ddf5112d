//! The CodeQA answer-generation protocol (paper section 6, Tables 7 and 8) in one resumable
//! run: split the released dev pairs into training and validation pairs (the released
//! training split has no code), train the encoder-decoder (a decoder over the frozen
//! encoder first, then everything, as quarry's measured CPU schedule does; either stage can
//! be left out), answer the test questions, answer them with the two floors too, score all
//! with CodeQA's scorers, and write the report beside the paper's table.
//!
//! Layout of `OUT`: `data/{train,valid,test}.{code,question,answer}` (the pairs used),
//! `train/{frozen,full}/{best,last}` (the training runs), `answers/*.hyp` (one answer per
//! test question for the model and each floor), `stages/*.json`, and `report.md`,
//! `report.html`, `report.json`.

pub mod floors;
pub mod report;

use std::path::{Path, PathBuf};
use std::time::Instant;

use candle_core::Device;
use quarry_data::codeqa::{read_split, write_answers, write_split, CodeQaExample};
use quarry_model::models::answer::text::TrueCaser;
use quarry_model::training::train::TrainConfig;
use quarry_model::{
    load_model_in, AnswerConfig, AnswerModel, AnswerSelection, DecodeOptions, EncodedAnswer, LoadedModel, ModelSource,
    Precision,
};
use quarry_stdx::rng::sample_per_key;
use serde::{Deserialize, Serialize};

use crate::error::{ExperimentError, Result};
use crate::report::Trained;
pub use crate::runs::Progress;
use crate::runs::TrainingRun;
use crate::stages::Stages;
pub use report::{CodeQaReport, Scores, System};

/// Settings of a CodeQA experiment.
#[derive(Debug, Clone)]
pub struct Config {
    /// The released folder of one language: `dev.{code,question,answer}` and
    /// `test.{code,question,answer}`.
    pub data: PathBuf,
    /// `python` or `java` (which of the paper's tables the report sets beside ours).
    pub lang: String,
    /// The encoder: a Hugging Face directory, a hub id, or `scratch:LAYERSxHIDDEN[xHEADS]`.
    pub model: String,
    /// The model's name in reports (`None`: `model` as given).
    pub name: Option<String>,
    /// Tokenizer (file or directory); required for scratch models.
    pub tokenizer: Option<PathBuf>,
    /// Output directory (see the module documentation).
    pub out: PathBuf,
    /// The last this many dev pairs validate (best checkpoint by validation loss).
    pub valid: usize,
    /// Train on N of the other dev pairs only, drawn at random with the seed.
    pub train_limit: Option<usize>,
    /// Answer N test questions only, drawn at random with the seed.
    pub test_limit: Option<usize>,
    /// Source length cap in sub-tokens, special tokens included.
    pub max_source_len: usize,
    /// Answer length cap in sub-tokens.
    pub max_target_len: usize,
    /// Decoder layers.
    pub decoder_layers: usize,
    /// Decoder feed-forward size.
    pub decoder_ffn: usize,
    /// Epochs of the decoder alone over the frozen, cached encoder (0: no such stage).
    pub frozen_epochs: usize,
    /// Peak learning rate of the frozen-encoder stage.
    pub frozen_lr: f64,
    /// Epochs of fine-tuning everything (0: no such stage).
    pub epochs: usize,
    /// Peak learning rate of fine-tuning.
    pub lr: f64,
    /// Examples per forward pass.
    pub batch_size: usize,
    /// Warm-up steps of each stage.
    pub warmup_steps: usize,
    /// Beam width of answering.
    pub beam: usize,
    /// Which of a beam's candidates answers.
    pub selection: AnswerSelection,
    /// METEOR 1.5's jar (else `$QUARRY_METEOR_JAR`; without one METEOR is reported missing).
    pub meteor_jar: Option<PathBuf>,
    /// Seed of initialization, dropout and data order.
    pub seed: u64,
    /// Keep `last/` every this many optimizer steps.
    pub checkpoint_every: Option<usize>,
    /// Where models run.
    pub device: Device,
    /// The precision models compute in.
    pub precision: Precision,
}

impl Config {
    /// quarry's measured CPU schedule for `data`, `model` and `out` (crates/quarry-model's
    /// README): 200 validation pairs, sources of 128 and answers of 24 sub-tokens, a 2-layer
    /// decoder (feed-forward 1024) trained 10 epochs over the frozen encoder at 1e-3, then
    /// everything 2 epochs at 1e-4, batch 32, beam 10 with minimum Bayes risk (T = 4).
    pub fn new(data: PathBuf, model: String, out: PathBuf) -> Self {
        let lang = data.file_name().and_then(|n| n.to_str()).unwrap_or("python").to_ascii_lowercase();
        Config {
            data,
            lang,
            model,
            name: None,
            tokenizer: None,
            out,
            valid: 200,
            train_limit: None,
            test_limit: None,
            max_source_len: 128,
            max_target_len: 24,
            decoder_layers: 2,
            decoder_ffn: 1024,
            frozen_epochs: 10,
            frozen_lr: 1e-3,
            epochs: 2,
            lr: 1e-4,
            batch_size: 32,
            warmup_steps: 50,
            beam: 10,
            selection: AnswerSelection::ExpectedF1 { temperature: 4.0 },
            meteor_jar: None,
            seed: 0,
            checkpoint_every: Some(200),
            device: Device::Cpu,
            precision: Precision::F32,
        }
    }
}

/// What the data stage records: how many pairs each split has.
#[derive(Debug, Clone, Copy, Serialize, Deserialize)]
struct Counts {
    train: usize,
    valid: usize,
    test: usize,
    /// Training and test pairs there were to draw from (0 in older records).
    #[serde(default)]
    train_of: usize,
    #[serde(default)]
    test_of: usize,
}

/// Runs the protocol and writes the reports; a rerun skips finished stages.
pub fn run(config: &Config, progress: &mut Progress<'_>) -> Result<CodeQaReport> {
    if config.frozen_epochs == 0 && config.epochs == 0 {
        return Err(ExperimentError::Invalid("no training stage: both epoch counts are 0".into()));
    }
    std::fs::create_dir_all(&config.out).map_err(|e| ExperimentError::io(&config.out, e))?;
    let stages = Stages::new(&config.out);
    let data = config.out.join("data");
    let prefix = |split: &str| data.join(split);

    let counts: Counts = stages.run("data", progress, |_| split_data(config, &data))?;
    let train_pairs = read_split(&prefix("train"), true, false)?;

    let load = |dir: Option<&Path>| -> Result<LoadedModel> {
        let source = match dir {
            Some(dir) => ModelSource::Dir(dir.to_path_buf()),
            None => ModelSource::parse(&config.model)?,
        };
        let model = load_model_in(&source, config.tokenizer.as_deref(), &config.device, config.seed, config.precision)?;
        Ok(model)
    };
    let mut training: Vec<Trained> = Vec::new();
    let mut latest: Option<PathBuf> = None;
    for (name, epochs, lr, frozen) in
        [("frozen", config.frozen_epochs, config.frozen_lr, true), ("full", config.epochs, config.lr, false)]
    {
        if epochs == 0 {
            continue;
        }
        let trained: Trained = stages.run(&format!("train-{name}"), progress, |progress| {
            let start_from = latest.clone();
            let load_stage = |dir: Option<&Path>| load(dir.or(start_from.as_deref()));
            let schedule = TrainConfig {
                epochs,
                batch_size: config.batch_size,
                lr,
                warmup_steps: config.warmup_steps,
                weight_decay: 0.0,
                seed: config.seed,
                checkpoint_every: config.checkpoint_every,
                ..TrainConfig::default()
            };
            let run = TrainingRun { dir: config.out.join("train").join(name), load: &load_stage, config: schedule };
            run.train(|loaded| answer_model(config, loaded, frozen, &prefix), progress)
        })?;
        latest = Some(trained.dir.join("best"));
        training.push(trained);
    }
    let model_dir = latest.ok_or_else(|| ExperimentError::Invalid("no trained model".into()))?;

    let answers = config.out.join("answers");
    std::fs::create_dir_all(&answers).map_err(|e| ExperimentError::io(&answers, e))?;
    let answer_seconds: f64 = stages.run("answers", progress, |_| {
        answer(config, load(Some(&model_dir))?, &prefix("test"), &train_pairs, &answers)
    })?;
    let (top, top_count) =
        floors::most_frequent(&train_pairs).ok_or_else(|| ExperimentError::Invalid("no training pairs".into()))?;
    let top_note = format!("\"{top}\", {top_count} of {} training answers", counts.train);
    stages.run("floors", progress, |_| {
        let test = read_split(&prefix("test"), true, false)?;
        write_answers(&answers.join("most_frequent.hyp"), &vec![top; test.len()])?;
        write_answers(&answers.join("bm25.hyp"), &floors::bm25_nearest(&train_pairs, &test)?)?;
        Ok(true)
    })?;
    let relative = |path: &Path| path.strip_prefix(&config.out).unwrap_or(path).display().to_string();
    let systems = [
        (
            "quarry",
            "model.hyp",
            format!("{} ({} test questions, beam {})", relative(&model_dir), counts.test, config.beam),
        ),
        ("floor: most frequent training answer", "most_frequent.hyp", top_note),
        (
            "floor: answer of the BM25-nearest training question",
            "bm25.hyp",
            format!("{} training questions", counts.train),
        ),
    ];
    let references = quarry_data::codeqa::read_lines(&prefix("test").with_extension("answer"))?;
    let mut scored = Vec::new();
    for (name, file, produced_by) in systems {
        let path = answers.join(file);
        let hyps = quarry_data::codeqa::read_lines_with(&path, quarry_data::codeqa::LineRules::AS_WRITTEN_OR_EMPTY)?;
        let scores = Scores::of(&hyps, &references, config.meteor_jar.as_deref())?;
        scored.push(System {
            name: name.into(),
            answers: relative(&path),
            produced_by,
            scores,
            distinct: distinct(&hyps),
        });
    }
    let report = CodeQaReport {
        model: config.name.clone().unwrap_or_else(|| config.model.clone()),
        data: config.data.display().to_string(),
        lang: config.lang.clone(),
        train: counts.train,
        valid: counts.valid,
        test: counts.test,
        drawn_from: (counts.train_of, counts.test_of),
        seed: config.seed,
        training,
        answer_seconds,
        systems: scored,
    };
    report::write(&config.out, &report)?;
    Ok(report)
}

/// Distinct answers among `hyps` (1 for a model that answers everything the same way).
fn distinct(hyps: &[String]) -> usize {
    hyps.iter().collect::<std::collections::HashSet<_>>().len()
}

/// Writes the pairs used: all dev pairs but the last `valid` train (`train_limit` of them
/// drawn at random with the seed), the last `valid` validate, and the test pairs test
/// (`test_limit` of them drawn the same way). Drawn, not the first ones: the released files
/// are not shuffled (every "Yes" answer of the Python test file is in its first 500 lines).
fn split_data(config: &Config, data: &Path) -> Result<Counts> {
    let dev = read_split(&config.data.join("dev"), true, false)?;
    let mut test = read_split(&config.data.join("test"), true, false)?;
    if dev.len() <= config.valid {
        return Err(ExperimentError::Invalid(format!(
            "{}: {} dev pairs leave none for training after {} validation pairs",
            config.data.join("dev.code").display(),
            dev.len(),
            config.valid
        )));
    }
    let (train, valid) = dev.split_at(dev.len() - config.valid);
    let (train_of, test_of) = (train.len(), test.len());
    let drawn = |pairs: Vec<_>, limit: Option<usize>| match limit {
        Some(n) => sample_per_key(pairs, n, config.seed, |_| ()),
        None => pairs,
    };
    let train = drawn(train.to_vec(), config.train_limit);
    test = drawn(test, config.test_limit);
    if test.is_empty() {
        return Err(ExperimentError::Invalid(format!("{}: no test pairs", config.data.join("test.code").display())));
    }
    std::fs::create_dir_all(data).map_err(|e| ExperimentError::io(data, e))?;
    for (split, pairs) in [("train", &train[..]), ("valid", valid), ("test", &test[..])] {
        write_split(&data.join(split), pairs)?;
    }
    Ok(Counts { train: train.len(), valid: valid.len(), test: test.len(), train_of, test_of })
}

/// The answer model of one training stage over `loaded`, with its encoded training and
/// validation pairs; over a frozen encoder the encoder's outputs are computed once.
fn answer_model(
    config: &Config,
    loaded: LoadedModel,
    frozen: bool,
    prefix: &dyn Fn(&str) -> PathBuf,
) -> Result<(AnswerModel, Vec<EncodedAnswer>, Vec<EncodedAnswer>)> {
    let answer_config = AnswerConfig {
        decoder_layers: config.decoder_layers,
        decoder_ffn: config.decoder_ffn,
        max_source_len: config.max_source_len.min(loaded.config.max_input_len()),
        max_target_len: config.max_target_len,
        freeze_encoder: frozen,
        freeze_embeddings: frozen,
        ..AnswerConfig::default()
    };
    let model = AnswerModel::new(loaded, answer_config)?;
    let encode = |split: &str| -> Result<Vec<EncodedAnswer>> {
        let pairs = read_split(&prefix(split), true, false)?;
        Ok(pairs
            .iter()
            .map(|e| model.encode(&e.question, &e.code, e.answer.as_deref()))
            .collect::<quarry_model::Result<Vec<_>>>()?)
    };
    let (train, valid) = (encode("train")?, encode("valid")?);
    if frozen {
        model.cache_encoder_outputs(&train, config.batch_size)?;
        model.cache_encoder_outputs(&valid, config.batch_size)?;
    }
    Ok((model, train, valid))
}

/// Answers the test questions at `test` with the checkpoint `loaded`, words in their usual
/// case in the training answers, into `answers/model.hyp`; returns the seconds it took.
fn answer(config: &Config, loaded: LoadedModel, test: &Path, train: &[CodeQaExample], answers: &Path) -> Result<f64> {
    let model = AnswerModel::new(loaded, AnswerConfig::default())?;
    let questions = read_split(test, false, false)?;
    let sources =
        questions.iter().map(|e| Ok(model.encode(&e.question, &e.code, None)?.source)).collect::<Result<Vec<_>>>()?;
    let options = DecodeOptions { beam_size: config.beam, selection: config.selection, ..DecodeOptions::default() };
    let start = Instant::now();
    let candidates = model.generate_candidates(&sources, &options)?;
    let caser = TrueCaser::learn(train.iter().filter_map(|e| e.answer.as_deref()));
    let texts: Vec<String> = options.selection.pick_each(&candidates).iter().map(|a| caser.apply(a)).collect();
    let seconds = start.elapsed().as_secs_f64();
    write_answers(&answers.join("model.hyp"), &texts)?;
    Ok(seconds)
}
