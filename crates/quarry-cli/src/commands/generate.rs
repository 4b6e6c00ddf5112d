//! `quarry generate answer`: answers CodeQA questions with a model trained by
//! `quarry train answer`, one answer per input line, in input order.

use std::path::PathBuf;
use std::time::Instant;

use super::model_arg::DeviceArgs;
use anyhow::{Context, Result};
use clap::{Args, Subcommand, ValueEnum};
use quarry_model::models::answer::recurrent::RecurrentAnswerModel;
use quarry_model::nn::heads::HeadConfig;
use quarry_model::{AnswerConfig, AnswerModel, AnswerSelection, Candidate, DecodeOptions, ModelSource};
use quarry_stdx::AtomicFile;

/// What to generate.
#[derive(Subcommand)]
pub enum GenerateTask {
    /// Free-form answers to CodeQA questions about code.
    Answer(GenerateAnswerArgs),
}

/// Arguments of `quarry generate answer`.
#[derive(Args)]
pub struct GenerateAnswerArgs {
    /// A checkpoint written by `quarry train answer` (its `best/` directory), of any
    /// `--arch`.
    #[arg(long)]
    pub model: String,
    /// Split prefix: reads `PREFIX.code` and `PREFIX.question`.
    #[arg(long)]
    pub data: PathBuf,
    /// Beam width (CodeQA's scripts: 10); 1 decodes greedily.
    #[arg(value_parser = crate::commands::numbers::size, long, default_value_t = 10)]
    pub beam: usize,
    /// Longest answer in sub-tokens [default: the model's target length cap].
    #[arg(value_parser = crate::commands::numbers::length, long)]
    pub max_len: Option<usize>,
    /// Rank finished beams by score / length^ALPHA (0: raw scores, as CodeQA's model.py).
    #[arg(value_parser = crate::commands::numbers::real, long, default_value_t = 0.0)]
    pub length_penalty: f64,
    /// Inputs decoded together.
    #[arg(value_parser = crate::commands::numbers::size, long, default_value_t = 32)]
    pub batch_size: usize,
    /// Answer only the first N questions.
    #[arg(value_parser = crate::commands::numbers::amount, long)]
    pub limit: Option<usize>,
    /// Training answers (e.g. `RUN/train.answer`) to learn each word's usual written form
    /// from: an uncased model's `yes` is written `Yes` when the training answers write it so.
    #[arg(long)]
    pub case_from: Option<PathBuf>,
    /// Which of a beam's candidates answers: `best` (the most probable, as CodeQA's
    /// model.py) or `expected-f1` (minimum Bayes risk: the highest expected token F1
    /// against all candidates, weighted by their probabilities).
    #[arg(long, value_enum, default_value_t = Select::Best)]
    pub select: Select,
    /// Temperature of `--select expected-f1`: the candidates' probabilities are flattened
    /// to `p^(1/T)` (1: as the model gives them; the default 4 was best on held-out CodeQA
    /// pairs, where beam search's probabilities are too peaked).
    #[arg(value_parser = crate::commands::numbers::positive, long, default_value_t = 4.0)]
    pub select_temperature: f64,
    /// Also write every input's candidates, best first, as JSON lines
    /// (`{"line": N, "candidates": [{"text": ..., "log_prob": ...}, ...]}`).
    #[arg(long)]
    pub candidates: Option<PathBuf>,
    /// Output file: one answer per line.
    #[arg(long)]
    pub out: PathBuf,
    /// Device and precision.
    #[command(flatten)]
    pub device: DeviceArgs,
}

/// `--select` of `quarry generate answer`.
#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum Select {
    /// The beam's most probable answer.
    Best,
    /// The answer of highest expected token F1 among the beam's candidates.
    ExpectedF1,
}

impl Select {
    /// The library's selection, with the temperature `--select-temperature` gave.
    pub fn selection(self, temperature: f64) -> Result<AnswerSelection> {
        if temperature.is_nan() || temperature <= 0.0 {
            anyhow::bail!("--select-temperature must be positive, got {temperature}");
        }
        Ok(match self {
            Select::Best => AnswerSelection::Best,
            Select::ExpectedF1 => AnswerSelection::ExpectedF1 { temperature },
        })
    }
}

/// Runs `quarry generate ...`.
pub fn run(task: GenerateTask) -> i32 {
    let result = match task {
        GenerateTask::Answer(args) => generate_answers(args),
    };
    match result {
        Ok(()) => 0,
        Err(e) => {
            crate::commands::output::error(&crate::commands::output::describe(&e));
            2
        }
    }
}

fn generate_answers(args: GenerateAnswerArgs) -> Result<()> {
    let selection = args.select.selection(args.select_temperature)?;
    let source = ModelSource::parse(&args.model)?;
    let recurrent = match &source {
        ModelSource::Dir(dir) => {
            matches!(quarry_model::checkpoint::read_head_config(dir)?, Some(HeadConfig::RecurrentAnswer))
        }
        _ => false,
    };
    let mut examples = quarry_data::codeqa::read_split(&args.data, false, false)?;
    if examples.is_empty() {
        anyhow::bail!("{}: no question to answer (its .code and .question files are empty)", args.data.display());
    }
    if let Some(n) = args.limit {
        examples.truncate(n);
    }
    let options = DecodeOptions {
        beam_size: args.beam,
        max_len: args.max_len,
        length_penalty: args.length_penalty,
        batch_size: args.batch_size,
        selection,
    };
    // Seconds of generation alone, loading and encoding left out.
    let (candidates, seconds) = match (&source, recurrent) {
        (ModelSource::Dir(dir), true) => {
            if args.device.dtype != quarry_model::Precision::F32 {
                anyhow::bail!("the recurrent baselines compute in f32 only (--dtype {})", args.device.dtype);
            }
            let model = RecurrentAnswerModel::load(dir, &args.device.device()?, 0)
                .with_context(|| format!("loading model '{}'", args.model))?;
            let encoded: Vec<_> = examples.iter().map(|e| model.encode(&e.question, &e.code, None)).collect();
            let start = Instant::now();
            (model.generate_candidates(&encoded, &options)?, start.elapsed().as_secs_f64())
        }
        _ => {
            let loaded =
                args.device.load(&source, None, 0).with_context(|| format!("loading model '{}'", args.model))?;
            if loaded.dir.as_ref().is_none_or(|d| !d.join(quarry_model::checkpoint::HEAD_CONFIG).is_file()) {
                anyhow::bail!("'{}' is not a checkpoint of `quarry train answer` (no head_config.json)", args.model);
            }
            let model = AnswerModel::new(loaded, AnswerConfig::default())?;
            let sources = examples
                .iter()
                .map(|e| Ok(model.encode(&e.question, &e.code, None)?.source))
                .collect::<Result<Vec<_>>>()?;
            let start = Instant::now();
            (model.generate_candidates(&sources, &options)?, start.elapsed().as_secs_f64())
        }
    };
    let mut answers = options.selection.pick_each(&candidates);
    if let Some(path) = &args.candidates {
        write_candidates(path, &candidates)?;
    }
    if let Some(path) = &args.case_from {
        let train = quarry_data::codeqa::read_lines(path)?;
        let caser = quarry_model::models::answer::text::TrueCaser::learn(train.iter().map(String::as_str));
        answers = answers.iter().map(|a| caser.apply(a)).collect();
    }
    quarry_data::codeqa::write_answers(&args.out, &answers)?;
    eprintln!(
        "{} answers in {seconds:.1}s ({:.2} answers/s, beam {}) -> {}",
        answers.len(),
        answers.len() as f64 / seconds.max(1e-9),
        args.beam,
        args.out.display()
    );
    Ok(())
}

/// Every input's candidates as JSON lines, written whole or not at all.
fn write_candidates(path: &std::path::Path, candidates: &[Vec<Candidate>]) -> Result<()> {
    let mut out = AtomicFile::create(path)?;
    for (i, list) in candidates.iter().enumerate() {
        let list: Vec<_> = list.iter().map(|c| serde_json::json!({ "text": c.text, "log_prob": c.log_prob })).collect();
        out.write_all(serde_json::to_string(&serde_json::json!({ "line": i + 1, "candidates": list }))?.as_bytes())?;
        out.write_all(b"\n")?;
    }
    out.commit()?;
    Ok(())
}
