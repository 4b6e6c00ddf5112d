//! `quarry generate answer`: answers CodeQA questions with a model trained by
//! `quarry train answer`, one answer per input line, in input order.

use std::path::PathBuf;
use std::time::Instant;

use anyhow::{Context, Result};
use clap::{Args, Subcommand};
use quarry_model::device::parse_device;
use quarry_model::{load_model, AnswerConfig, AnswerModel, DecodeOptions, ModelSource};
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
    /// A checkpoint written by `quarry train answer` (its `best/` directory).
    #[arg(long)]
    pub model: String,
    /// Split prefix: reads `PREFIX.code` and `PREFIX.question`.
    #[arg(long)]
    pub data: PathBuf,
    /// Beam width (CodeQA's scripts: 10); 1 decodes greedily.
    #[arg(long, default_value_t = 10)]
    pub beam: usize,
    /// Longest answer in sub-tokens [default: the model's target length cap].
    #[arg(long)]
    pub max_len: Option<usize>,
    /// Rank finished beams by score / length^ALPHA (0: raw scores, as CodeQA's model.py).
    #[arg(long, default_value_t = 0.0)]
    pub length_penalty: f64,
    /// Inputs decoded together.
    #[arg(long, default_value_t = 32)]
    pub batch_size: usize,
    /// Answer only the first N questions.
    #[arg(long)]
    pub limit: Option<usize>,
    /// Training answers (e.g. `RUN/train.answer`) to learn each word's usual written form
    /// from: an uncased model's `yes` is written `Yes` when the training answers write it so.
    #[arg(long)]
    pub case_from: Option<PathBuf>,
    /// Output file: one answer per line.
    #[arg(long)]
    pub out: PathBuf,
    /// `cpu`, `cuda` or `cuda:N`.
    #[arg(long, default_value = "cpu")]
    pub device: String,
}

/// Runs `quarry generate ...`.
pub fn run(task: GenerateTask) -> i32 {
    let result = match task {
        GenerateTask::Answer(args) => generate_answers(args),
    };
    match result {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("quarry: error: {e:#}");
            2
        }
    }
}

fn generate_answers(args: GenerateAnswerArgs) -> Result<()> {
    let device = parse_device(&args.device)?;
    let source = ModelSource::parse(&args.model)?;
    let loaded = load_model(&source, None, &device, 0).with_context(|| format!("loading model '{}'", args.model))?;
    if loaded.dir.as_ref().is_none_or(|d| !d.join(quarry_model::checkpoint::HEAD_CONFIG).is_file()) {
        anyhow::bail!("'{}' is not a checkpoint of `quarry train answer` (no head_config.json)", args.model);
    }
    let model = AnswerModel::new(loaded, AnswerConfig::default())?;
    let mut examples = quarry_data::codeqa::read_split(&args.data, false, false)?;
    if let Some(n) = args.limit {
        examples.truncate(n);
    }
    let sources =
        examples.iter().map(|e| Ok(model.encode(&e.question, &e.code, None)?.source)).collect::<Result<Vec<_>>>()?;
    let options = DecodeOptions {
        beam_size: args.beam,
        max_len: args.max_len,
        length_penalty: args.length_penalty,
        batch_size: args.batch_size,
    };
    let start = Instant::now();
    let mut answers = model.generate(&sources, &options)?;
    let seconds = start.elapsed().as_secs_f64();
    if let Some(path) = &args.case_from {
        let train = quarry_data::codeqa::read_lines(path)?;
        let caser = quarry_model::answer_text::TrueCaser::learn(train.iter().map(String::as_str));
        answers = answers.iter().map(|a| caser.apply(a)).collect();
    }
    let mut out = AtomicFile::create(&args.out)?;
    for a in &answers {
        // One answer per line, whatever the tokenizer's decoder produced.
        let line: String = a.chars().map(|c| if c == '\n' || c == '\r' { ' ' } else { c }).collect();
        out.write_all(line.as_bytes())?;
        out.write_all(b"\n")?;
    }
    out.commit()?;
    eprintln!(
        "{} answers in {seconds:.1}s ({:.2} answers/s, beam {}) -> {}",
        answers.len(),
        answers.len() as f64 / seconds.max(1e-9),
        args.beam,
        args.out.display()
    );
    Ok(())
}
