//! The CS1QA protocol (paper sections 6–7) in one resumable run. On the released
//! answer-retrieval files: BM25 over the corpus questions, DPR trained on the training
//! questions with each one's BM25 top-1 as its positive (in-batch negatives), and the recall
//! of that top-1 on the test questions beside the untrained encoder's. On the annotated
//! rows, when given (`train/dev/test_cleaned.jsonl`, not released with the retrieval
//! files): for each seed the type classifier and the line selector trained for the paper's
//! epochs, the best development epoch scored on the test rows, beside the majority type and
//! the middle-60-lines baseline; the type confusion matrix.
//!
//! Layout of `OUT`: `retrieval/{bm25,dense,untrained}_test.jsonl` (hits per test question),
//! `train/{dense,type-seedS,lines-seedS}/{best,last}`, `stages/*.json`, and `report.md`,
//! `report.html`, `report.json`.

pub mod report;

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use candle_core::Device;
use quarry_data::cs1qa::{read_questions, read_rows, write_retrieved, Bm25Retriever, Cs1qaRow, RetrievalQuestion};
use quarry_data::jsonl::Lenient;
use quarry_model::models::cs1qa::{
    bm25_pairs, dense_search, middle_baseline, recall_at, score_selections, DualEncoder, LineModel, Pooling, TypeModel,
};
use quarry_model::training::train::TrainConfig;
use quarry_model::{load_model_in, LoadedModel, ModelSource, Precision};

use crate::error::{ExperimentError, Result};
use crate::report::Trained;
pub use crate::runs::Progress;
use crate::runs::TrainingRun;
use crate::stages::Stages;
pub use report::{Cs1qaReport, LinesResult, Recall, TypeResult};

/// Settings of a CS1QA experiment.
#[derive(Debug, Clone)]
pub struct Config {
    /// The released answer-retrieval folder: `corpus.jsonl`, `q_train.jsonl`,
    /// `q_dev.jsonl`, `q_test.jsonl`.
    pub retrieval: PathBuf,
    /// The annotated rows' folder (`train_cleaned.jsonl`, `dev_cleaned.jsonl`,
    /// `test_cleaned.jsonl`), when at hand.
    pub annotated: Option<PathBuf>,
    /// The encoder: a Hugging Face directory, a hub id, or `scratch:LAYERSxHIDDEN[xHEADS]`.
    pub model: String,
    /// The model's name in reports (`None`: `model` as given).
    pub name: Option<String>,
    /// Tokenizer (file or directory); required for scratch models.
    pub tokenizer: Option<PathBuf>,
    /// Output directory (see the module documentation).
    pub out: PathBuf,
    /// Seeds of the type and line runs (the authors': 7, 42, 312).
    pub seeds: Vec<u64>,
    /// Epochs of the type and line runs (the paper: 10).
    pub epochs: usize,
    /// Learning rate of the type and line runs (the authors' scripts: 1e-5).
    pub lr: f64,
    /// Batch of the type and line runs.
    pub batch_size: usize,
    /// Sub-tokens per question + code segment (the paper: 512).
    pub max_len: usize,
    /// Epochs of the dense retriever.
    pub dense_epochs: usize,
    /// Learning rate of the dense retriever.
    pub dense_lr: f64,
    /// Questions per batch of the dense retriever (the in-batch negatives).
    pub dense_batch_size: usize,
    /// Sub-tokens per question for the dense retriever.
    pub dense_max_len: usize,
    /// How the dense retriever pools a question's states (DPR: `[CLS]`; a sentence encoder
    /// such as all-MiniLM-L6-v2 was trained with the mean).
    pub pooling: Pooling,
    /// Keep `last/` every this many optimizer steps.
    pub checkpoint_every: Option<usize>,
    /// Where models run.
    pub device: Device,
    /// The precision models compute in.
    pub precision: Precision,
}

impl Config {
    /// The paper's protocol for the given folders, model and output: seeds 7, 42 and 312,
    /// 10 epochs at 1e-5, batch 8, 512 sub-tokens; the dense retriever 3 epochs at 2e-5,
    /// batch 32, 64 sub-tokens.
    pub fn new(retrieval: PathBuf, model: String, out: PathBuf) -> Self {
        Config {
            retrieval,
            annotated: None,
            model,
            name: None,
            tokenizer: None,
            out,
            seeds: vec![7, 42, 312],
            epochs: 10,
            lr: 1e-5,
            batch_size: 8,
            max_len: 512,
            dense_epochs: 3,
            dense_lr: 2e-5,
            dense_batch_size: 32,
            dense_max_len: 64,
            pooling: Pooling::Cls,
            checkpoint_every: Some(200),
            device: Device::Cpu,
            precision: Precision::F32,
        }
    }
}

/// Runs the protocol and writes the reports; a rerun skips finished stages.
pub fn run(config: &Config, progress: &mut Progress<'_>) -> Result<Cs1qaReport> {
    std::fs::create_dir_all(&config.out).map_err(|e| ExperimentError::io(&config.out, e))?;
    let stages = Stages::new(&config.out);
    let load = |dir: Option<&Path>| -> Result<LoadedModel> {
        let source = match dir {
            Some(dir) => ModelSource::Dir(dir.to_path_buf()),
            None => ModelSource::parse(&config.model)?,
        };
        let model =
            load_model_in(&source, config.tokenizer.as_deref(), &config.device, config.seed(), config.precision)?;
        Ok(model)
    };
    let retrieval = stages.run("retrieval", progress, |progress| retrieval_stage(config, &load, progress))?;
    let mut types = Vec::new();
    let mut lines = Vec::new();
    let mut baseline = None;
    if let Some(dir) = &config.annotated {
        let mut read = |name: &str| annotated_rows(&dir.join(name), progress);
        let (train, valid, test) =
            (read("train_cleaned.jsonl")?, read("dev_cleaned.jsonl")?, read("test_cleaned.jsonl")?);
        for &seed in &config.seeds {
            let name = format!("type-seed{seed}");
            types.push(stages.run(&name, progress, |progress| {
                type_run(config, &load, &name, seed, [&train, &valid, &test], progress)
            })?);
            let name = format!("lines-seed{seed}");
            lines.push(stages.run(&name, progress, |progress| {
                lines_run(config, &load, &name, seed, [&train, &valid, &test], progress)
            })?);
        }
        let middle = score_selections(&test, &middle_baseline(&test, 60))?;
        baseline = Some(LinesResult::baseline(&middle, test.len()));
    }
    let report = Cs1qaReport {
        model: config.name.clone().unwrap_or_else(|| config.model.clone()),
        retrieval,
        annotated: config.annotated.as_ref().map(|d| d.display().to_string()),
        types,
        lines,
        middle_baseline: baseline,
    };
    report::write(&config.out, &report)?;
    Ok(report)
}

impl Config {
    /// The seed of model initialization outside the per-seed runs.
    fn seed(&self) -> u64 {
        self.seeds.first().copied().unwrap_or(0)
    }
}

/// Malformed lines are named and skipped; a file left with nothing usable is an error.
fn usable<T>(path: &Path, loaded: Lenient<T>, skipped: &mut dyn FnMut(String)) -> Result<Vec<T>> {
    for e in &loaded.errors {
        skipped(format!("skipping {e}"));
    }
    if loaded.records.is_empty() {
        return Err(ExperimentError::Invalid(format!("{}: no usable records", path.display())));
    }
    Ok(loaded.into_records())
}

fn annotated_rows(path: &Path, progress: &mut Progress<'_>) -> Result<Vec<Cs1qaRow>> {
    usable(path, read_rows(path)?, &mut |line| (progress.message)(&line))
}

fn questions(path: &Path, progress: &mut Progress<'_>) -> Result<Vec<RetrievalQuestion>> {
    usable(path, read_questions(path)?, &mut |line| (progress.message)(&line))
}

/// BM25 on the test questions, DPR trained on BM25 positives, and the recall of the BM25
/// top-1 by the trained and the untrained encoder.
fn retrieval_stage(
    config: &Config,
    load: &dyn Fn(Option<&Path>) -> Result<LoadedModel>,
    progress: &mut Progress<'_>,
) -> Result<report::RetrievalResult> {
    let dir = &config.retrieval;
    let corpus = questions(&dir.join("corpus.jsonl"), progress)?;
    let train = questions(&dir.join("q_train.jsonl"), progress)?;
    let valid = questions(&dir.join("q_dev.jsonl"), progress)?;
    let test = questions(&dir.join("q_test.jsonl"), progress)?;
    let bm25 = Bm25Retriever::new(&corpus)?;
    let out = config.out.join("retrieval");
    std::fs::create_dir_all(&out).map_err(|e| ExperimentError::io(&out, e))?;
    let bm25_hits = bm25.search_all(&test, 5);
    write_retrieved(&out.join("bm25_test.jsonl"), &bm25_hits)?;
    let reference: HashMap<u64, u64> = bm25_hits.iter().filter_map(|r| r.hits.first().map(|h| (r.id, h.id))).collect();
    let recall = |model: &DualEncoder, file: &str| -> Result<Recall> {
        let hits = dense_search(model, &corpus, &test, 5, config.dense_max_len, config.dense_batch_size)?;
        write_retrieved(&out.join(file), &hits)?;
        Ok(Recall {
            at1: recall_at(&hits, &reference, 1),
            at5: recall_at(&hits, &reference, 5),
            hits: format!("retrieval/{file}"),
        })
    };
    let untrained = recall(&DualEncoder::new(load(None)?, Some(config.pooling))?, "untrained_test.jsonl")?;
    let schedule = TrainConfig {
        epochs: config.dense_epochs,
        batch_size: config.dense_batch_size,
        lr: config.dense_lr,
        seed: config.seed(),
        checkpoint_every: config.checkpoint_every,
        ..TrainConfig::default()
    };
    let run = TrainingRun { dir: config.out.join("train").join("dense"), load, config: schedule };
    let trained = run.train(
        |loaded| {
            let model = DualEncoder::new(loaded, Some(config.pooling))?;
            let pairs = |qs: &[RetrievalQuestion]| bm25_pairs(&model, &bm25, &corpus, qs, config.dense_max_len);
            let (t, v) = (pairs(&train)?, pairs(&valid)?);
            Ok((model, t, v))
        },
        progress,
    )?;
    let dense = recall(&DualEncoder::new(load(Some(&trained.dir.join("best")))?, None)?, "dense_test.jsonl")?;
    Ok(report::RetrievalResult {
        corpus: corpus.len(),
        train: train.len(),
        test: test.len(),
        untrained,
        dense,
        training: trained,
    })
}

/// One seed's type classifier: trained, its best development epoch scored on the test rows.
fn type_run(
    config: &Config,
    load: &dyn Fn(Option<&Path>) -> Result<LoadedModel>,
    name: &str,
    seed: u64,
    rows: [&[Cs1qaRow]; 3],
    progress: &mut Progress<'_>,
) -> Result<TypeResult> {
    let seed_run = SeedRun { config, load, name, seed, rows };
    let (model, test, trained) =
        seed_run.train(progress, |m| Ok(TypeModel::new(m)?), |m, rows| Ok(m.encode(rows, config.max_len)?))?;
    let evaluation = model.evaluate(&test, config.batch_size)?;
    let majority = majority_share(rows[0], rows[2]);
    Ok(TypeResult::new(seed, &evaluation.report, majority, trained))
}

/// One seed's line selector: trained, its best development epoch scored on the test rows.
fn lines_run(
    config: &Config,
    load: &dyn Fn(Option<&Path>) -> Result<LoadedModel>,
    name: &str,
    seed: u64,
    rows: [&[Cs1qaRow]; 3],
    progress: &mut Progress<'_>,
) -> Result<LinesResult> {
    let seed_run = SeedRun { config, load, name, seed, rows };
    let (model, test, trained) =
        seed_run.train(progress, |m| Ok(LineModel::new(m)?), |m, rows| Ok(m.encode(rows, config.max_len)?))?;
    let selections = model.evaluate(&test, config.batch_size)?.selections;
    let scores = score_selections(rows[2], &selections)?;
    Ok(LinesResult::model(seed, &scores, rows[2].len(), trained))
}

/// One seed's training run of an annotated-rows task.
struct SeedRun<'a> {
    config: &'a Config,
    load: &'a dyn Fn(Option<&Path>) -> Result<LoadedModel>,
    name: &'a str,
    seed: u64,
    /// Training, development and test rows.
    rows: [&'a [Cs1qaRow]; 3],
}

impl SeedRun<'_> {
    /// Trains the model `new` makes on the encoded training rows (the development rows
    /// choose the best epoch); returns the best checkpoint's model, the encoded test rows
    /// and the run.
    fn train<M: quarry_model::training::train::Trainable>(
        &self,
        progress: &mut Progress<'_>,
        new: impl Fn(LoadedModel) -> Result<M>,
        encode: impl Fn(&M, &[Cs1qaRow]) -> Result<Vec<M::Example>>,
    ) -> Result<(M, Vec<M::Example>, Trained)> {
        let config = self.config;
        let schedule = TrainConfig {
            epochs: config.epochs,
            batch_size: config.batch_size,
            lr: config.lr,
            seed: self.seed,
            checkpoint_every: config.checkpoint_every,
            ..TrainConfig::default()
        };
        let run = TrainingRun { dir: config.out.join("train").join(self.name), load: self.load, config: schedule };
        let [train, valid, test] = self.rows;
        let trained = run.train(
            |loaded| {
                let model = new(loaded)?;
                let (t, v) = (encode(&model, train)?, encode(&model, valid)?);
                Ok((model, t, v))
            },
            progress,
        )?;
        let best = new((self.load)(Some(&trained.dir.join("best")))?)?;
        let test = encode(&best, test)?;
        Ok((best, test, trained))
    }
}

/// The share of test rows of the most frequent training type.
fn majority_share(train: &[Cs1qaRow], test: &[Cs1qaRow]) -> f64 {
    let mut counts: HashMap<_, usize> = HashMap::new();
    for row in train {
        *counts.entry(row.question_type).or_default() += 1;
    }
    let Some((top, _)) = counts.into_iter().max_by_key(|&(t, n)| (n, std::cmp::Reverse(t.index()))) else {
        return 0.0;
    };
    test.iter().filter(|r| r.question_type == top).count() as f64 / test.len().max(1) as f64
}
