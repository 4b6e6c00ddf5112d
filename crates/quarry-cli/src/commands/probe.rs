//! `quarry probe`: linear (or MLP) probes per layer on frozen features.

use std::io::{IsTerminal, Write as _};
use std::path::PathBuf;

use clap::Args;
use quarry_probe::cache::{CacheKey, FeatureCache};
use quarry_probe::encoder::{EncoderFeatures, ProbedToken};
use quarry_probe::experiment::{cached_or_extract, run_experiment, ExperimentOptions};
use quarry_probe::features::{HashedTokens, LayerFeatures};
use quarry_probe::input::InputRule;
use quarry_probe::outputs::write_reports;
use quarry_probe::report::pretty_table;
use quarry_probe::train::TrainConfig;
use quarry_probe::Task;

use super::input::Format;
use super::model_arg::DeviceArgs;
use super::output::{report_error, with_stdout, write_json};

/// Arguments of `quarry probe`.
#[derive(Args)]
pub struct ProbeArgs {
    /// Task code.
    #[arg(long)]
    task: String,
    /// Dataset file in INSPECT's format.
    #[arg(long)]
    data: PathBuf,
    /// Model: a Hugging Face directory, a cached hub id, `scratch:LxH[xA]` (with --tokenizer),
    /// or `hashed-tokens`, a built-in surface baseline.
    #[arg(long)]
    model: String,
    /// Name of the model in reports and the cache folder (default: the --model argument).
    #[arg(long)]
    name: Option<String>,
    /// Tokenizer file or directory, overriding the model's (required for scratch models).
    #[arg(long)]
    tokenizer: Option<PathBuf>,
    /// Device and precision of feature extraction.
    #[command(flatten)]
    device: DeviceArgs,
    /// Samples per encoder forward pass during extraction.
    #[arg(value_parser = crate::commands::numbers::size, long, default_value_t = 8)]
    encoder_batch: usize,
    /// How a sample becomes the encoder's input: `inspect` (INSPECT's extractor, per model
    /// family) or `tokenizer` (the tokenizer's own special tokens).
    #[arg(long, default_value = "inspect")]
    input: InputRule,
    /// Folder of precomputed features (layer_NN.bin); default: the cache under --out.
    #[arg(long)]
    features: Option<PathBuf>,
    /// Also write the features as NumPy arrays here (layer_NN.npy, labels.npy, splits.npy,
    /// meta.json), for probing them in Python.
    #[arg(long, value_parser = super::folder_arg::folder_output())]
    npy: Option<PathBuf>,
    /// Layers to probe: `all` or a comma-separated list.
    #[arg(long, default_value = "all")]
    layers: String,
    /// Output folder: results.csv, heatmaps, confusion matrices, feature cache.
    #[arg(long, value_parser = super::folder_arg::folder_output())]
    out: PathBuf,
    /// Use an MLP probe with one hidden layer of this width.
    #[arg(value_parser = crate::commands::numbers::length, long)]
    mlp: Option<usize>,
    /// Also train on the control task and report selectivity.
    #[arg(long)]
    control: bool,
    /// Maximum epochs.
    #[arg(value_parser = crate::commands::numbers::epochs, long, default_value_t = 20)]
    epochs: usize,
    /// Early-stopping patience (epochs).
    #[arg(long, default_value_t = 5)]
    patience: usize,
    /// Mini-batch size.
    #[arg(value_parser = crate::commands::numbers::size, long, default_value_t = 1)]
    batch_size: usize,
    /// Adam learning rate.
    #[arg(value_parser = crate::commands::numbers::positive_f32, long, visible_alias = "lr", default_value_t = 1e-3)]
    learning_rate: f32,
    /// Train on the raw features (by default each feature is standardised on the training split).
    #[arg(long)]
    no_standardize: bool,
    /// Seed of initialisation, shuffling and control labels.
    #[arg(long, default_value_t = 42)]
    seed: u64,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Pretty)]
    format: Format,
}

fn parse_layers(spec: &str) -> Result<Option<Vec<usize>>, String> {
    if spec.eq_ignore_ascii_case("all") {
        return Ok(None);
    }
    spec.split(',')
        .map(|p| p.trim().parse::<usize>().map_err(|_| format!("--layers: `{p}` is not a layer number")))
        .collect::<Result<Vec<_>, _>>()
        .map(Some)
}

/// What extracts the features probed: a model argument with its tokenizer, device and
/// batch size (`quarry probe` and `quarry experiment inspect` share it).
pub struct EncoderChoice<'a> {
    /// `--model`: a directory, hub id, `scratch:...` or `hashed-tokens`.
    pub model: &'a str,
    /// `--tokenizer`.
    pub tokenizer: Option<&'a std::path::Path>,
    /// `--device`, `--dtype`.
    pub device: &'a DeviceArgs,
    /// Seed of a scratch model's weights.
    pub seed: u64,
    /// Samples per forward pass.
    pub batch: usize,
    /// How samples become input ids.
    pub input: InputRule,
}

impl EncoderChoice<'_> {
    /// The encoder for `task`: the hashed-token baseline or a neural encoder loaded by
    /// quarry-model, probing the token the task asks for.
    pub fn encoder_for(&self, task: Task) -> Result<Box<dyn LayerFeatures>, String> {
        if self.model == HashedTokens::NAME {
            return Ok(Box::new(HashedTokens { dim: 256 }));
        }
        let load = || -> quarry_model::Result<quarry_model::LoadedModel> {
            let source = super::model_arg::model_source(self.model)?;
            self.device.load_features(&source, self.tokenizer, self.seed)
        };
        let model = load().map_err(|e| {
            format!("--model {}: {e}; or pass precomputed layer_NN.bin features with --features DIR", self.model)
        })?;
        Ok(Box::new(EncoderFeatures::new(model, ProbedToken::for_task(task), self.input, self.batch)))
    }
}

fn encoder_for(args: &ProbeArgs, task: Task) -> Result<Box<dyn LayerFeatures>, String> {
    let choice = EncoderChoice {
        model: &args.model,
        tokenizer: args.tokenizer.as_deref(),
        device: &args.device,
        seed: args.seed,
        batch: args.encoder_batch,
        input: args.input,
    };
    choice.encoder_for(task)
}

/// The identity of the model `spec` (with its `tokenizer`, and the `seed` of a scratch
/// model) for the feature cache: a retrained or replaced checkpoint is another model.
pub(crate) fn model_fingerprint(spec: &str, tokenizer: Option<&std::path::Path>, seed: u64) -> u64 {
    let model = quarry_model::ModelSource::parse(spec)
        .map_or_else(|_| quarry_stdx::rng::stable_hash(spec), |source| source.fingerprint(seed));
    match tokenizer {
        Some(dir) => model ^ quarry_model::files_fingerprint(dir).rotate_left(1),
        None => model,
    }
}

/// Runs `quarry probe`.
pub fn run(args: ProbeArgs) -> i32 {
    let task: Task = match args.task.parse() {
        Ok(task) => task,
        Err(e) => return report_error(&e.to_string()),
    };
    let layers = match parse_layers(&args.layers) {
        Ok(layers) => layers,
        Err(e) => return report_error(&e),
    };
    let (dataset, bytes) = match quarry_probe::hub::read_keyed(&args.data) {
        Ok(read) => read,
        Err(e) => return report_error(&e.to_string()),
    };
    if dataset.samples.is_empty() {
        return report_error(&format!("{}: no valid sample", args.data.display()));
    }
    if !dataset.malformed.is_empty() {
        eprintln!("{}: {} malformed lines (continued or skipped)", args.data.display(), dataset.malformed.len());
    }
    let name = args.name.clone().unwrap_or_else(|| args.model.clone());
    let model = (name.as_str(), model_fingerprint(&args.model, args.tokenizer.as_deref(), args.seed));
    let key = CacheKey::new(&args.out, model, task, args.input, args.device.dtype, &args.data, &bytes);
    let cache_dir = args.features.clone().unwrap_or(key.dir);
    let cache = FeatureCache::new(&cache_dir);
    let show_progress = std::io::stderr().is_terminal();
    let cached = cache.layers().map(|layers| !layers.is_empty()).unwrap_or(false);
    let mut encoder = if args.features.is_none() && !cached {
        match encoder_for(&args, task) {
            Ok(encoder) => Some(encoder),
            Err(e) => return report_error(&e),
        }
    } else {
        None
    };
    let mut extraction_progress = |done: usize, total: usize| {
        if show_progress {
            eprint!("\rextracting features {done}/{total}   ");
            let _ = std::io::stderr().flush();
            if done == total {
                eprintln!();
            }
        }
    };
    let features = match cached_or_extract(
        &cache,
        encoder.as_mut().map(|e| e.as_mut() as &mut dyn LayerFeatures),
        &dataset,
        &name,
        &key.dataset_id,
        &mut extraction_progress,
    ) {
        Ok(features) => features,
        Err(e) => return report_error(&format!("{}: {e}", args.data.display())),
    };
    if let Some(dir) = &args.npy {
        if let Err(e) = quarry_probe::npy::write_npy(dir, task, &dataset, &name, &features) {
            return report_error(&e.to_string());
        }
    }
    let train = TrainConfig {
        epochs: args.epochs,
        patience: args.patience,
        batch_size: args.batch_size,
        hidden: args.mlp,
        standardize: !args.no_standardize,
        seed: args.seed,
        adam: quarry_probe::probe::Adam { learning_rate: args.learning_rate, ..Default::default() },
        ..TrainConfig::default()
    };
    let options = ExperimentOptions { train, layers, control: args.control };
    let per_layer = options.train.l2_grid.len() * options.train.epochs;
    let mut progress = |position: usize, total: usize, epochs: usize| {
        if show_progress {
            let done = (epochs * 30 / per_layer.max(1)).min(30);
            eprint!(
                "\rlayer {}/{} [{}{}] epoch {epochs}   ",
                position + 1,
                total,
                "#".repeat(done),
                " ".repeat(30 - done)
            );
            let _ = std::io::stderr().flush();
        }
    };
    let experiment = match run_experiment(task, &name, &dataset, &features, &options, &mut progress) {
        Ok(experiment) => experiment,
        Err(e) => return report_error(&format!("{}: {e}", args.data.display())),
    };
    if show_progress {
        eprintln!();
    }
    if let Err(e) = write_reports(&args.out, &experiment) {
        return report_error(&e.to_string());
    }
    with_stdout(|out| match args.format {
        Format::Json => write_json(out, &experiment),
        Format::Pretty => write!(out, "{}", pretty_table(&experiment)),
    })
}
