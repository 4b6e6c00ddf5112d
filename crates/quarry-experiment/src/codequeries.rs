//! The CodeQueries protocol (paper Section 5, Tables 2–5 and Figure 5) in one resumable run:
//! build the dataset from a corpus, train the span model (also without supporting facts, and
//! on the limited budgets) and the relevance classifier, evaluate the ideal, file-level ideal,
//! prefix, sliding-window and two-step settings and the perturbed test set, and write the
//! report.
//!
//! Layout of `OUT`: `dataset/` (the builder's output, plus `ideal_test_perturbed.jsonl`),
//! `tokenizer/tokenizer.json` (the model's tokenizer, which lays out every input),
//! `train/NAME/{best,last}` (one training run each, resumable mid-epoch), `stages/*.json`
//! (finished stages and their results), and `report.md` / `report.html` / `report.json`.

use std::path::{Path, PathBuf};

use candle_core::Device;
use quarry_data::codequeries::build::{build, BuildOptions, CutPositives};
use quarry_data::codequeries::labels::Subtokenizer;
use quarry_data::codequeries::perturb::{perturb_file, PerturbOptions};
use quarry_data::codequeries::selection::Negatives;
use quarry_data::codequeries::split::Ratios;
use quarry_data::codequeries::Example;
use quarry_data::records::read_numbered;
use quarry_model::evaluation::eval_checks::EvalChecks;
use quarry_model::evaluation::file_level::{Runner, Setting};
use quarry_model::evaluation::span_eval::declared_positives;
use quarry_model::evaluation::spans::{Breakdown, ExactMatch};
use quarry_model::models::relevance::RELEVANCE_CLASSES;
use quarry_model::training::data::{
    class_weights_for, encode_examples, encode_relevance, read_relevance_jsonl, read_span_jsonl, EncodedExample,
    RelevanceExample, SpanExample,
};
use quarry_model::training::train::{TrainConfig, Trainable};
use quarry_model::{
    load_model, load_model_in, LabelWeighting, LoadedModel, ModelSource, Precision, RelevanceModel, SpanModel,
    Tokenizer,
};
use quarry_query::all_queries;
use quarry_stdx::rng::sample_per_key;
use serde::{Deserialize, Serialize};

use crate::error::{ExperimentError, Result};
pub use crate::report::Trained;
use crate::report::{render, Rate, RelevanceRow, Report, Row};
pub use crate::runs::Progress;
use crate::runs::TrainingRun;
use crate::sample::{budget_sample, is_positive, without_facts};
use crate::stages::Stages;

/// Settings of a CodeQueries experiment.
#[derive(Debug, Clone)]
pub struct Config {
    /// Directory of Python files the dataset is built from.
    pub corpus: PathBuf,
    /// The encoder: a Hugging Face directory, a hub id, or `scratch:LAYERSxHIDDEN[xHEADS]`.
    pub model: String,
    /// Tokenizer (file or directory); required for scratch models, else the model's own.
    pub tokenizer: Option<PathBuf>,
    /// Output directory (see the module documentation).
    pub out: PathBuf,
    /// Queries to build the dataset for (id, name or Q-index); empty: all.
    pub queries: Vec<String>,
    /// Share of files per split.
    pub ratios: Ratios,
    /// Longest model input in sub-tokens (also the dataset's pruning length).
    pub max_len: usize,
    /// Epochs of every span training run.
    pub epochs: usize,
    /// Epochs of the relevance classifier.
    pub relevance_epochs: usize,
    /// Examples per forward pass.
    pub batch_size: usize,
    /// Peak learning rate.
    pub lr: f64,
    /// Warm-up steps of every run.
    pub warmup_steps: usize,
    /// How every span run's training loss weighs the labels (the paper's: plain).
    pub label_weights: LabelWeighting,
    /// Seed of splits, samples, initialization, dropout and data order.
    pub seed: u64,
    /// Training examples per query of the limited-budget runs (Section 5.2.2; the paper uses
    /// 512, 256, 128 and 64).
    pub budgets: Vec<usize>,
    /// Runs per budget, each with its own sample (the paper repeats three times).
    pub budget_repeats: usize,
    /// Evaluate at most this many positive and as many negative test examples per query.
    pub test_limit: Option<usize>,
    /// Train (span and relevance) on at most this many positive and as many negative
    /// examples per query, and validate the relevance classifier on as many, for a run sized
    /// for a CPU.
    pub train_limit: Option<usize>,
    /// Keep `last/` every this many optimizer steps, so an interrupted run resumes mid-epoch.
    pub checkpoint_every: Option<usize>,
    /// Where models run.
    pub device: Device,
    /// The precision models compute in (`bf16`: mixed precision, for CUDA).
    pub precision: Precision,
}

impl Config {
    /// The run's settings in sentences for its report, each beside the paper's where they
    /// differ from it, so that no figure is read without them.
    pub fn settings(&self) -> String {
        let per_query = |limit: Option<usize>, what: &str| {
            limit.map_or(format!("all {what} examples"), |n| {
                format!("at most {n} positive and {n} negative {what} examples per query (paper: all)")
            })
        };
        let weights = match self.label_weights {
            LabelWeighting::Plain => "plain cross-entropy, as the paper".to_string(),
            other => format!("{} label weights (paper: plain cross-entropy)", other.name()),
        };
        let budgets: Vec<String> = self.budgets.iter().map(usize::to_string).collect();
        format!(
            "Settings: inputs of at most {} sub-tokens (paper: 1,024 for CuBERT-1K); {} epoch(s) per span run, \
             {} for the relevance classifier; batch {}, peak learning rate {:e}, {} warm-up step(s); {weights}; \
             {}; {}; files split {}/{}/{} by a hash of their path; budgets {} per query, {} run(s) each; seed {}; \
             on the {}, in {}.",
            self.max_len,
            self.epochs,
            self.relevance_epochs,
            self.batch_size,
            self.lr,
            self.warmup_steps,
            per_query(self.train_limit, "training"),
            per_query(self.test_limit, "test"),
            self.ratios.train,
            self.ratios.valid,
            self.ratios.test,
            budgets.join("/"),
            self.budget_repeats,
            self.seed,
            if self.device.is_cuda() { "GPU" } else { "CPU" },
            self.precision,
        )
    }

    /// The paper's protocol for `corpus`, `model` and `out`, sized for a CPU: 3 epochs,
    /// batch 8, learning rate 5e-5, budgets 512/256/128/64 once each.
    pub fn new(corpus: PathBuf, model: String, out: PathBuf) -> Self {
        Config {
            corpus,
            model,
            tokenizer: None,
            out,
            queries: Vec::new(),
            ratios: Ratios::default(),
            max_len: 512,
            epochs: 3,
            relevance_epochs: 1,
            batch_size: 8,
            lr: 5e-5,
            warmup_steps: 0,
            label_weights: LabelWeighting::Plain,
            seed: 0,
            budgets: vec![512, 256, 128, 64],
            budget_repeats: 1,
            test_limit: None,
            train_limit: None,
            checkpoint_every: Some(200),
            device: Device::Cpu,
            precision: Precision::F32,
        }
    }
}

/// What an exact-match evaluation stage records.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Evaluated {
    /// Answer and fact spans both matching.
    pub full: [Rate; 3],
    /// Answer spans matching.
    pub answer_only: [Rate; 3],
    /// Examples evaluated.
    pub examples: usize,
    /// What produced the numbers: model, data and setting.
    pub produced_by: String,
    /// Predicting no span on the same examples: answer and fact spans.
    #[serde(default)]
    pub baseline_full: [Rate; 3],
    /// Predicting no span: answer spans.
    #[serde(default)]
    pub baseline_answer_only: [Rate; 3],
    /// The evaluation's warnings ([`EvalChecks::warnings`]).
    #[serde(default)]
    pub warnings: Vec<String>,
}

fn rates(b: &Breakdown) -> [Rate; 3] {
    [Rate::from(b.all), Rate::from(b.positive), Rate::from(b.negative)]
}

impl Evaluated {
    fn new(em: &ExactMatch, checks: &EvalChecks, examples: usize, produced_by: String) -> Self {
        let full = Breakdown { all: em.all, positive: em.positive, negative: em.negative };
        let b = &checks.baseline;
        let baseline = Breakdown { all: b.all, positive: b.positive, negative: b.negative };
        Evaluated {
            full: rates(&full),
            answer_only: rates(&em.answer_only),
            examples,
            produced_by,
            baseline_full: rates(&baseline),
            baseline_answer_only: rates(&b.answer_only),
            warnings: checks.warnings(em),
        }
    }

    /// The report row of the answer-and-fact figures.
    fn row(&self, name: &str) -> Row {
        Row::new(name, &self.full, &self.baseline_full, &self.warnings, self.produced_by.clone())
    }

    /// The report row of the answer-only figures.
    fn answer_only_row(&self, name: &str) -> Row {
        Row::new(name, &self.answer_only, &self.baseline_answer_only, &self.warnings, self.produced_by.clone())
    }
}

/// Loads `source` onto the configured device, computing in the configured precision.
fn load_on(config: &Config, source: &ModelSource, tokenizer: Option<&Path>) -> Result<LoadedModel> {
    let model = load_model_in(source, tokenizer, &config.device, config.seed, config.precision)?;
    Ok(model)
}

/// Everything the stages share.
struct Run<'a, 'p> {
    config: &'a Config,
    stages: Stages,
    progress: &'a mut Progress<'p>,
    tokenizer: Tokenizer,
    max_len: usize,
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> ExperimentError + '_ {
    move |e| ExperimentError::io(path, e)
}

impl Run<'_, '_> {
    fn dataset(&self) -> PathBuf {
        self.config.out.join("dataset")
    }

    fn data_file(&self, family: &str, split: &str) -> PathBuf {
        self.dataset().join(format!("{family}_{split}.jsonl"))
    }

    fn say(&mut self, text: &str) {
        (self.progress.message)(text);
    }

    /// Runs stage `name` unless it finished before.
    fn stage<T: Serialize + serde::de::DeserializeOwned>(
        &mut self,
        name: &str,
        body: impl FnOnce(&mut Self) -> Result<T>,
    ) -> Result<T> {
        if let Some(done) = self.stages.done(name) {
            self.say(&format!("{name}: done before, skipped"));
            return Ok(done);
        }
        self.say(&format!("{name}: running"));
        let result = body(self)?;
        self.stages.finish(name, &result)?;
        Ok(result)
    }

    fn checkpoint(&self, dir: &Path) -> Result<LoadedModel> {
        self.load(&ModelSource::Dir(dir.to_path_buf()), None)
    }

    fn load(&self, source: &ModelSource, tokenizer: Option<&Path>) -> Result<LoadedModel> {
        load_on(self.config, source, tokenizer)
    }

    /// Trains with `fit` in `train/NAME`, resuming an interrupted run of the same stage.
    fn train<M: Trainable>(
        &mut self,
        name: &str,
        make: impl FnOnce(LoadedModel) -> Result<M>,
        train: &[M::Example],
        valid: &[M::Example],
        epochs: usize,
        seed: u64,
    ) -> Result<Trained>
    where
        M::Example: Clone,
    {
        let settings = self.config;
        let load = |dir: Option<&Path>| match dir {
            Some(dir) => load_on(settings, &ModelSource::Dir(dir.to_path_buf()), None),
            None => load_on(settings, &ModelSource::parse(&settings.model)?, settings.tokenizer.as_deref()),
        };
        let config = TrainConfig {
            epochs,
            batch_size: self.config.batch_size,
            lr: self.config.lr,
            warmup_steps: self.config.warmup_steps,
            seed,
            checkpoint_every: self.config.checkpoint_every,
            ..TrainConfig::default()
        };
        let run = TrainingRun { dir: self.config.out.join("train").join(name), load: &load, config };
        run.train(|loaded| Ok((make(loaded)?, train.to_vec(), valid.to_vec())), self.progress)
    }

    fn span_set(&self, split: &str) -> Result<Vec<SpanExample>> {
        let path = self.data_file("ideal", split);
        non_empty(read_span_jsonl(&path)?, &path)
    }

    fn encode(&self, examples: &[SpanExample]) -> Result<Vec<EncodedExample>> {
        Ok(encode_examples(examples, &self.tokenizer, self.max_len)?)
    }

    /// The training examples used, sampled per query when `train_limit` is set.
    fn train_sample<T>(&self, items: Vec<T>, key: impl Fn(&T) -> (String, bool)) -> Vec<T> {
        match self.config.train_limit {
            Some(limit) => sample_per_key(items, limit, self.config.seed, key),
            None => items,
        }
    }

    /// The test examples evaluated, sampled per query when `test_limit` is set.
    fn test_sample<T>(&self, items: Vec<T>, key: impl Fn(&T) -> (String, bool)) -> Vec<T> {
        match self.config.test_limit {
            Some(limit) => sample_per_key(items, limit, self.config.seed, key),
            None => items,
        }
    }

    fn ideal_eval(&mut self, name: &str, model_dir: &Path, data: &Path) -> Result<Evaluated> {
        let dir = model_dir.join("best");
        let data = data.to_path_buf();
        self.stage(name, |run| {
            let model = SpanModel::trained(run.checkpoint(&dir)?)?;
            let examples = non_empty(read_span_jsonl(&data)?, &data)?;
            let declared = declared_positives(&data)?;
            if declared.len() != examples.len() {
                return Err(ExperimentError::Invalid(format!("{}: examples changed while reading", data.display())));
            }
            let items: Vec<_> = examples.into_iter().zip(declared).collect();
            let items = run.test_sample(items, |(e, _)| (e.query.clone().unwrap_or_default(), is_positive(e)));
            let (examples, declared): (Vec<_>, Vec<_>) = items.into_iter().unzip();
            let encoded = run.encode(&examples)?;
            let eval = model.evaluate(&encoded, run.config.batch_size)?;
            let unk = model.model.tokenizer.unk_id();
            let checks = EvalChecks::of_encoded(&encoded, &eval.predictions, &examples, &declared, (run.max_len, unk));
            let by =
                format!("model {}, data {} ({} examples), ideal setting", dir.display(), data.display(), encoded.len());
            Ok(Evaluated::new(&eval.exact_match, &checks, encoded.len(), by))
        })
    }

    fn file_eval(&mut self, setting: Setting, span_dir: &Path, relevance_dir: &Path) -> Result<Evaluated> {
        let name = format!("eval-{}", setting.name());
        let span_best = span_dir.join("best");
        let relevance_best = relevance_dir.join("best");
        let data = self.data_file("file_ideal", "test");
        self.stage(&name, |run| {
            let span = SpanModel::trained(run.checkpoint(&span_best)?)?;
            let subtokenizer = Subtokenizer::load(&span_best)?;
            let selector = if setting == Setting::TwoStep {
                Some(RelevanceModel::trained(run.checkpoint(&relevance_best)?)?)
            } else {
                None
            };
            let examples: Vec<Example> =
                read_numbered(&data, "a file-level example")?.into_iter().map(|(_, e)| e).collect();
            let examples = non_empty(examples, &data)?;
            let examples = run.test_sample(examples, |e| (e.query_name.clone(), e.example_type == 1));
            let runner = Runner {
                span: &span,
                subtokenizer: &subtokenizer,
                selector: selector.as_ref().map(|s| s as &dyn quarry_model::evaluation::file_level::BlockSelector),
                max_len: run.max_len,
                batch_size: run.config.batch_size,
            };
            let (em, checks) = runner.evaluate_checked(setting, &examples, &mut |_, _| {})?;
            let mut by = format!(
                "model {}, data {} ({} examples), {} setting",
                span_best.display(),
                data.display(),
                examples.len(),
                setting.name()
            );
            if setting == Setting::TwoStep {
                by.push_str(&format!(", relevance model {}", relevance_best.display()));
            }
            Ok(Evaluated::new(&em, &checks, examples.len(), by))
        })
    }
}

/// Makes a span model whose loss weighs labels as `config` says, for training on `train`.
fn span_model<'a>(config: &Config, train: &'a [EncodedExample]) -> impl FnOnce(LoadedModel) -> Result<SpanModel> + 'a {
    let weighting = config.label_weights;
    move |m| {
        let mut model = SpanModel::new(m)?;
        model.set_class_weights(weighting.weights(train))?;
        Ok(model)
    }
}

fn non_empty<T>(items: Vec<T>, path: &Path) -> Result<Vec<T>> {
    if items.is_empty() {
        return Err(ExperimentError::Invalid(format!(
            "{}: no examples (the corpus is too small for this split; use a larger corpus or other --split ratios)",
            path.display()
        )));
    }
    Ok(items)
}

/// Perturbs every ideal test example (up to three minor syntax errors outside the spans,
/// paper Section 5.2.3) and relabels it; returns how many were written and dropped.
fn perturb_test(
    input: &Path,
    output: &Path,
    subtokenizer: &Subtokenizer,
    max_len: usize,
    seed: u64,
) -> Result<(usize, usize)> {
    let options = PerturbOptions::default();
    let s = perturb_file(input, output, seed, &options, Some((subtokenizer, max_len)), &mut Err)?;
    Ok((s.perturbed, s.dropped))
}

/// Runs the whole protocol (skipping stages finished by an earlier run) and writes
/// `OUT/report.md`, `OUT/report.html` and `OUT/report.json`.
pub fn run(config: &Config, progress: &mut Progress<'_>) -> Result<Report> {
    if !config.corpus.is_dir() {
        return Err(ExperimentError::Invalid(format!("{}: not a directory", config.corpus.display())));
    }
    std::fs::create_dir_all(&config.out).map_err(io(&config.out))?;
    let base = {
        let source = ModelSource::parse(&config.model)?;
        load_model(&source, config.tokenizer.as_deref(), &config.device, config.seed)?
    };
    let max_len = config.max_len.min(base.config.max_input_len());
    // Every input is laid out with the model's own tokenizer, saved where the dataset
    // builder and the file-level settings read it.
    let tokenizer_dir = config.out.join("tokenizer");
    std::fs::create_dir_all(&tokenizer_dir).map_err(io(&tokenizer_dir))?;
    base.tokenizer.save(&tokenizer_dir.join("tokenizer.json"))?;
    let mut run = Run { config, stages: Stages::new(&config.out), progress, tokenizer: base.tokenizer, max_len };

    let mut queries = quarry_query::resolve_all(&config.queries).map_err(ExperimentError::Invalid)?;
    if queries.is_empty() {
        queries = all_queries();
    }
    let written: std::collections::BTreeMap<String, usize> = run.stage("dataset", |run| {
        let options = BuildOptions {
            corpus: config.corpus.clone(),
            out: run.dataset(),
            queries,
            tokenizer: Some(Subtokenizer::load(&tokenizer_dir)?),
            max_len,
            ratios: config.ratios,
            seed: config.seed,
            budget: None,
            negatives: Negatives::Paper,
            cut_positives: CutPositives::Drop,
            gzip: false,
            format: quarry_data::hub::Format::Jsonl,
            shard: quarry_data::shard::Shard::default(),
            files_from: None,
            chunk_size: 128,
            max_file_bytes: quarry_syntax::DEFAULT_MAX_FILE_BYTES,
            // The dataset command's default: pathological files are skipped
            // rather than stalling the experiment.
            time_budget: Some(std::time::Duration::from_secs(60)),
        };
        let summary = build(&options, &|_, _| {})?;
        Ok(summary.written)
    })?;
    // Every file a later stage reads must hold examples: say so now, not after training.
    let needed = [("ideal", "train"), ("ideal", "valid"), ("ideal", "test"), ("file_ideal", "test")];
    let needed = needed.into_iter().chain([("twostep", "train"), ("twostep", "valid"), ("twostep", "test")]);
    for (family, split) in needed {
        if written.get(&format!("{family}_{split}")).is_none_or(|&count| count == 0) {
            non_empty(Vec::<()>::new(), &run.data_file(family, split))?;
        }
    }

    // Section 5.1: the span model on ideal examples.
    let train_set = run.span_set("train")?;
    let train_set = run.train_sample(train_set, |e| (e.query.clone().unwrap_or_default(), is_positive(e)));
    let valid_set = run.span_set("valid")?;
    let (train, valid) = (run.encode(&train_set)?, run.encode(&valid_set)?);
    let seed = config.seed;
    let span: Trained = run.stage("train-span", |run| {
        run.train("span", span_model(config, &train), &train, &valid, config.epochs, seed)
    })?;
    // Table 4: the same without supporting facts.
    let no_facts: Trained = run.stage("train-span-no-facts", |run| {
        let strip = |set: &[SpanExample]| set.iter().map(without_facts).collect::<Vec<_>>();
        let (t, v) = (run.encode(&strip(&train_set))?, run.encode(&strip(&valid_set))?);
        run.train("span-no-facts", span_model(config, &t), &t, &v, config.epochs, seed)
    })?;
    // Section 4.2: the relevance classifier, class-weighted as in training by the CLI.
    let relevance: Trained = run.stage("train-relevance", |run| {
        let read = |split: &str| -> Result<_> {
            let path = run.data_file("twostep", split);
            non_empty(read_relevance_jsonl(&path)?, &path)
        };
        let (t, v) = (read("train")?, read("valid")?);
        let key = |e: &RelevanceExample| (e.query.clone().unwrap_or_default(), e.relevant);
        // Every block of the validation files is ~40 times the training sample: sampled alike.
        let (t, v) = (run.train_sample(t, key), run.train_sample(v, key));
        let weights = class_weights_for(t.iter().map(|e| usize::from(e.relevant)), RELEVANCE_CLASSES)?;
        let (t, v) = (encode_relevance(&t, &run.tokenizer, max_len)?, encode_relevance(&v, &run.tokenizer, max_len)?);
        let make = |m| Ok(RelevanceModel::new(m, Some(weights))?);
        run.train("relevance", make, &t, &v, config.relevance_epochs, seed)
    })?;
    // Section 5.2.2: limited budgets.
    let mut budget_runs = Vec::new();
    for &budget in &config.budgets {
        for repeat in 0..config.budget_repeats {
            let name = format!("budget-{budget}-run{}", repeat + 1);
            let sample_seed = seed.wrapping_add(1 + repeat as u64);
            let trained: Trained = run.stage(&format!("train-{name}"), |run| {
                let t = run.encode(&budget_sample(&train_set, budget, sample_seed))?;
                run.train(&name, span_model(config, &t), &t, &valid, config.epochs, sample_seed)
            })?;
            budget_runs.push((budget, repeat, trained));
        }
    }
    drop((train, valid, train_set, valid_set));

    // Section 5.2.3: the perturbed test set.
    let ideal_test = run.data_file("ideal", "test");
    let perturbed = run.dataset().join("ideal_test_perturbed.jsonl");
    let (perturbed_count, dropped): (usize, usize) = run.stage("perturb-test", |run| {
        let subtokenizer = Subtokenizer::load(&tokenizer_dir)?;
        perturb_test(&ideal_test, &perturbed, &subtokenizer, run.max_len, seed)
    })?;

    // Evaluations.
    let ideal = run.ideal_eval("eval-ideal", &span.dir, &ideal_test)?;
    let mut table3 = Vec::new();
    for setting in [Setting::Prefix, Setting::SlidingWindow, Setting::TwoStep, Setting::FileIdeal] {
        let e = run.file_eval(setting, &span.dir, &relevance.dir)?;
        table3.push(e.row(setting_label(setting)));
    }
    let relevance_best = relevance.dir.join("best");
    let relevance_row: RelevanceRow = run.stage("eval-relevance", |run| {
        let path = run.data_file("twostep", "test");
        let rows = non_empty(read_relevance_jsonl(&path)?, &path)?;
        let rows = run.test_sample(rows, |e| (e.query.clone().unwrap_or_default(), e.relevant));
        let model = RelevanceModel::trained(run.checkpoint(&relevance_best)?)?;
        let encoded = encode_relevance(&rows, &run.tokenizer, run.max_len)?;
        let eval = model.evaluate(&encoded, run.config.batch_size)?;
        Ok(RelevanceRow {
            accuracy: eval.accuracy,
            precision: eval.precision_if_defined(),
            recall: eval.recall_if_defined(),
            f1: eval.f1_if_defined(),
            examples: encoded.len(),
            predict_nothing_accuracy: (eval.confusion.true_negatives + eval.confusion.false_positives) as f64
                / eval.confusion.total().max(1) as f64,
            warnings: eval.warnings(),
            produced_by: format!(
                "model {}, data {} ({} rows)",
                relevance_best.display(),
                path.display(),
                encoded.len()
            ),
        })
    })?;
    let no_facts_eval = run.ideal_eval("eval-ideal-no-facts", &no_facts.dir, &ideal_test)?;
    let perturbed_eval =
        if perturbed_count > 0 { Some(run.ideal_eval("eval-perturbed", &span.dir, &perturbed)?) } else { None };
    let mut budgets = Vec::new();
    for (budget, repeat, trained) in &budget_runs {
        let e = run.ideal_eval(&format!("eval-budget-{budget}-run{}", repeat + 1), &trained.dir, &ideal_test)?;
        let label = format!("{budget} per query (run {}, {} training examples)", repeat + 1, trained.examples);
        let mut row = e.row(&label);
        row.budget = Some(*budget);
        budgets.push(row);
    }

    let report = Report {
        model: config.model.clone(),
        corpus: config.corpus.display().to_string(),
        settings: config.settings(),
        written,
        table2: vec![ideal.row("span model, ideal setting")],
        table3: {
            let mut rows = table3;
            rows.sort_by_key(|r| {
                ["Prefix", "Sliding window", "Two-step", "File-level ideal"].iter().position(|n| *n == r.name)
            });
            rows
        },
        relevance: relevance_row,
        table4: vec![
            no_facts_eval.answer_only_row("trained without supporting facts"),
            ideal.answer_only_row("trained with supporting facts"),
        ],
        table5: {
            let mut rows = Vec::new();
            if let Some(p) = perturbed_eval {
                rows.push(p.row(&format!("Perturbed ({dropped} examples dropped: no valid perturbation)")));
            }
            rows.push(ideal.row("Original"));
            rows
        },
        budgets,
        training: vec![span, no_facts, relevance]
            .into_iter()
            .chain(budget_runs.into_iter().map(|(_, _, t)| t))
            .collect(),
    };
    let json = serde_json::to_vec_pretty(&report).map_err(|e| ExperimentError::Invalid(e.to_string()))?;
    for (name, bytes) in [
        ("report.md", render(&report).into_bytes()),
        ("report.html", crate::html::render_html(&report).into_bytes()),
        ("report.json", json),
    ] {
        quarry_stdx::atomic::write_atomically(&config.out.join(name), &bytes)?;
    }
    Ok(report)
}

/// The row name of a setting in Table 3.
fn setting_label(setting: Setting) -> &'static str {
    match setting {
        Setting::Prefix => "Prefix",
        Setting::SlidingWindow => "Sliding window",
        Setting::TwoStep => "Two-step",
        Setting::FileIdeal => "File-level ideal",
        Setting::Ideal => "Ideal",
    }
}
