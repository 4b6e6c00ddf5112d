//! Resolving a `--model` argument and loading encoder, tokenizer and parameters.

use std::path::{Path, PathBuf};

use candle_core::Device;

use crate::config::{EncoderConfig, ScratchSpec};
use crate::error::{ModelError, Result};
use crate::nn::bert::{seeded, Encoder};
use crate::nn::params::ParamStore;
use crate::tokenizer::Tokenizer;
use crate::weights::{find_weights, read_tensors};

/// Where a model comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ModelSource {
    /// A local Hugging Face style directory.
    Dir(PathBuf),
    /// A Hugging Face hub id such as `microsoft/codebert-base`.
    Hub(String),
    /// A randomly initialized encoder of the given shape.
    Scratch(ScratchSpec),
}

/// The checkpoint a training output directory (`quarry train ... --out DIR`) stands for:
/// `DIR/best` (lowest validation loss), else `DIR/last`; `None` when `dir` is itself a model
/// directory (it has a `config.json`) or holds neither checkpoint.
pub(crate) fn training_output_checkpoint(dir: &Path) -> Option<PathBuf> {
    if dir.join("config.json").is_file() {
        return None;
    }
    // A replacement of `last/` interrupted between its renames is finished first.
    let _ = crate::checkpoint::recover_dir(&dir.join("last"));
    ["best", "last"].iter().map(|name| dir.join(name)).find(|c| c.join("config.json").is_file())
}

impl ModelSource {
    /// Interprets a `--model` argument: `scratch:LxH[xA]`, an existing directory (a training
    /// output directory stands for its best checkpoint, else its last), or a hub id.
    pub fn parse(spec: &str) -> Result<Self> {
        Self::parse_noting(spec).map(|(source, _)| source)
    }

    /// [`ModelSource::parse`], and a sentence saying which checkpoint was picked when `spec`
    /// is a training output directory, for the user to see on stderr.
    pub fn parse_noting(spec: &str) -> Result<(Self, Option<String>)> {
        if let Some(body) = spec.strip_prefix("scratch:") {
            return Ok((ModelSource::Scratch(ScratchSpec::parse(body)?), None));
        }
        let path = Path::new(spec);
        if path.is_dir() {
            if let Some(checkpoint) = training_output_checkpoint(path) {
                let which = if checkpoint.ends_with("best") {
                    "its best checkpoint (lowest validation loss)"
                } else {
                    "its last checkpoint (it has no best one)"
                };
                let note = format!("{spec} is a training output directory; using {which}, {}", checkpoint.display());
                return Ok((ModelSource::Dir(checkpoint), Some(note)));
            }
            return Ok((ModelSource::Dir(path.to_path_buf()), None));
        }
        let parts: Vec<&str> = spec.split('/').collect();
        let is_hub_id = (1..=2).contains(&parts.len())
            && parts.iter().all(|p| {
                !p.is_empty()
                    && p.chars().all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c))
                    && !p.starts_with('.')
            });
        if is_hub_id {
            Ok((ModelSource::Hub(spec.to_string()), None))
        } else {
            Err(ModelError::ModelSpec {
                spec: spec.to_string(),
                message: "not a directory, a hub id (ORG/NAME) or scratch:LAYERSxHIDDEN[xHEADS]".into(),
            })
        }
    }
}

/// Finds a hub model in the local Hugging Face cache (`$HF_HUB_CACHE`, `$HF_HOME/hub` or
/// `~/.cache/huggingface/hub`), downloading it there with hf-hub when it is missing (unless
/// `HF_HUB_OFFLINE` is set). Without network access the error says how to proceed.
pub(crate) fn resolve_hub(id: &str) -> Result<PathBuf> {
    let hub = hub_cache();
    let not_found = |why: String| ModelError::ModelSpec { spec: id.to_string(), message: why };
    let hub = hub.ok_or_else(|| not_found("no Hugging Face cache directory (HOME unset)".into()))?;
    if let Some(dir) = cached_snapshot(&hub, id) {
        return Ok(dir);
    }
    let repo = hub.join(format!("models--{}", id.replace('/', "--")));
    if std::env::var_os("HF_HUB_OFFLINE").is_some_and(|v| v != "0") {
        return Err(not_found(format!(
            "not in the local Hugging Face cache ({}) and HF_HUB_OFFLINE is set",
            repo.display()
        )));
    }
    download_from_hub(&hub, id).map_err(|e| {
        not_found(format!(
            "not in the local Hugging Face cache ({}) and the download failed: {e}; without network \
             access, fetch it elsewhere (e.g. `huggingface-cli download {id}`) and pass its directory",
            repo.display()
        ))
    })
}

/// The local Hugging Face cache: `$HF_HUB_CACHE`, `$HF_HOME/hub` or
/// `~/.cache/huggingface/hub`.
fn hub_cache() -> Option<PathBuf> {
    std::env::var_os("HF_HUB_CACHE")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HF_HOME").map(|h| PathBuf::from(h).join("hub")))
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache/huggingface/hub")))
}

/// The snapshot of the hub model `id` in the local cache, if it is there.
pub(crate) fn cached_hub_snapshot(id: &str) -> Option<PathBuf> {
    cached_snapshot(&hub_cache()?, id)
}

/// The cached snapshot of `id` under `hub` that holds a `config.json`, if any.
fn cached_snapshot(hub: &Path, id: &str) -> Option<PathBuf> {
    let repo = hub.join(format!("models--{}", id.replace('/', "--")));
    let snapshots = repo.join("snapshots");
    let dir = match std::fs::read_to_string(repo.join("refs/main")) {
        Ok(revision) => snapshots.join(revision.trim()),
        Err(_) => std::fs::read_dir(&snapshots).ok()?.next()?.ok()?.path(),
    };
    dir.join("config.json").is_file().then_some(dir)
}

/// Downloads the files an encoder needs (configuration, one tokenizer layout, one weights
/// file or a sharded checkpoint's index and shards) into the cache and returns the snapshot directory.
fn download_from_hub(hub: &Path, id: &str) -> std::result::Result<PathBuf, String> {
    let api = hf_hub::api::sync::ApiBuilder::new()
        .with_cache_dir(hub.to_path_buf())
        .with_progress(false)
        .build()
        .map_err(|e| e.to_string())?;
    let repo = api.model(id.to_string());
    let config = repo.get("config.json").map_err(|e| e.to_string())?;
    let has = |file: &str| repo.get(file).is_ok();
    let tokenizer = has("tokenizer.json")
        || has("vocab.txt")
        || (has("vocab.json") && has("merges.txt"))
        || has("spiece.model")
        || has("sentencepiece.bpe.model");
    // Optional: casing and special-token settings.
    let _ = has("tokenizer_config.json");
    let sharded = |index: &str| {
        let files = repo.get(index).ok().and_then(|path| crate::sharded::shard_files(&path).ok());
        files.is_some_and(|files| files.iter().all(|file| has(file)))
    };
    let weights = has("model.safetensors")
        || has("pytorch_model.bin")
        || crate::sharded::SHARD_INDEXES.iter().any(|index| sharded(index));
    if !tokenizer || !weights {
        return Err(format!(
            "the repository lacks {}",
            if weights { "a tokenizer" } else { "model.safetensors, pytorch_model.bin or a sharded checkpoint" }
        ));
    }
    config.parent().map(Path::to_path_buf).ok_or_else(|| "the download has no directory".into())
}

/// An encoder with its tokenizer, configuration and parameter store.
///
/// Task heads are built from `store` too, so that a checkpoint's head weights are found
/// and all parameters train together.
pub struct LoadedModel {
    /// The encoder configuration.
    pub config: EncoderConfig,
    /// The tokenizer.
    pub tokenizer: Tokenizer,
    /// The encoder.
    pub encoder: Encoder,
    /// All parameters; build heads from it.
    pub store: ParamStore,
    /// The directory the model came from, if any.
    pub dir: Option<PathBuf>,
}

impl LoadedModel {
    /// Makes every linear layer of the model, heads built from its store later included,
    /// compute in `precision` (`nn::autocast`). f64 is chosen when the model is built
    /// ([`load_model_in`]); asking an f32 model for it, or an f64 model for another
    /// precision, is an error.
    pub fn set_precision(&self, precision: crate::Precision) -> Result<()> {
        let built_f64 = self.store.dtype() == candle_core::DType::F64;
        if built_f64 != (precision == crate::Precision::F64) {
            return Err(ModelError::Config(format!(
                "this model was loaded in {}; f64 is chosen when a model is loaded (`--dtype f64`)",
                if built_f64 { "f64" } else { "f32" },
            )));
        }
        self.store.autocast().set(precision);
        Ok(())
    }

    /// Writes a checkpoint of the encoder with the task head `head` to `dir`
    /// ([`crate::checkpoint::save_checkpoint`]).
    pub fn save(&self, dir: &Path, head: &crate::nn::heads::HeadConfig) -> Result<()> {
        crate::checkpoint::save_checkpoint(dir, &self.config, &self.tokenizer, &self.store, Some(head))
    }
}

/// Loads the model named by `source` onto `device`.
///
/// `tokenizer` overrides the model directory's tokenizer and is required for scratch models.
/// `seed` drives random initialization and dropout.
pub fn load_model(source: &ModelSource, tokenizer: Option<&Path>, device: &Device, seed: u64) -> Result<LoadedModel> {
    load_model_in(source, tokenizer, device, seed, crate::Precision::F32)
}

/// [`load_model`] computing in `precision`: f32; bf16 autocast (parameters in f32, see
/// [`LoadedModel::set_precision`]); or f64, every parameter converted as it is read, so
/// heads built from the store later are f64 too.
pub fn load_model_in(
    source: &ModelSource,
    tokenizer: Option<&Path>,
    device: &Device,
    seed: u64,
    precision: crate::Precision,
) -> Result<LoadedModel> {
    let rng = seeded(seed);
    match source {
        ModelSource::Scratch(spec) => {
            let path = tokenizer.ok_or_else(|| ModelError::ModelSpec {
                spec: format!("scratch:{}x{}x{}", spec.layers, spec.hidden, spec.heads),
                message: "a scratch model needs a tokenizer (--tokenizer FILE_OR_DIR)".into(),
            })?;
            let tokenizer = Tokenizer::from_path(path)?;
            let config = spec.config(tokenizer.vocab_size(), tokenizer.pad_id());
            let mut store = ParamStore::random(rng, device).in_precision(precision);
            let encoder = Encoder::new(&config, &mut store)?;
            Ok(LoadedModel { config, tokenizer, encoder, store, dir: None })
        }
        ModelSource::Hub(id) => {
            let dir = resolve_hub(id)?;
            load_model_in(&ModelSource::Dir(dir), tokenizer, device, seed, precision)
        }
        ModelSource::Dir(dir) => {
            let config_path = dir.join("config.json");
            if !config_path.is_file() {
                return Err(ModelError::MissingFile {
                    dir: dir.clone(),
                    what: "model configuration",
                    looked_for: "config.json".into(),
                });
            }
            let config = EncoderConfig::from_file(&config_path)?;
            let tokenizer = Tokenizer::from_path(tokenizer.unwrap_or(dir))?;
            check_vocabulary(&config, &tokenizer, &config_path)?;
            let weights = find_weights(dir)?;
            let tensors = read_tensors(&weights)?;
            check_layer_count(&config, &weights, tensors.keys())?;
            let mut store = ParamStore::pretrained(weights, tensors, rng, device).in_precision(precision);
            let encoder = Encoder::new(&config, &mut store)?;
            Ok(LoadedModel { config, tokenizer, encoder, store, dir: Some(dir.clone()) })
        }
    }
}

/// Refuses a tokenizer whose own vocabulary has ids past the configuration's `vocab_size`
/// (another model's tokenizer): the model has no embedding for them, and the first text that
/// needs one would fail. Added tokens past it are left to fail on use, as in transformers.
fn check_vocabulary(config: &EncoderConfig, tokenizer: &Tokenizer, config_path: &Path) -> Result<()> {
    let needed = tokenizer.base_vocab_end();
    if needed > config.vocab_size {
        return Err(ModelError::Config(format!(
            "{} gives ids up to {} but {}'s vocab_size is {}: the tokenizer is not this model's",
            tokenizer.source().display(),
            needed - 1,
            config_path.display(),
            config.vocab_size
        )));
    }
    Ok(())
}

/// The number of encoder layers the weight `names` hold (`encoder.layer.N.`, `encoder.layers.N.`
/// or `encoder.block.N.`, as BERT, BART and T5 name them, under any prefix).
fn encoder_layers_in<'a>(names: impl Iterator<Item = &'a String>) -> usize {
    names
        .filter_map(|name| {
            let (_, rest) = name.split_once("encoder.")?;
            let rest = ["layer.", "layers.", "block."].iter().find_map(|kind| rest.strip_prefix(kind))?;
            rest.split('.').next()?.parse::<usize>().ok()
        })
        .map(|index| index + 1)
        .max()
        .unwrap_or(0)
}

/// Refuses a checkpoint whose weights hold more encoder layers than its configuration's
/// `num_hidden_layers`: the rest would be left out without a word.
fn check_layer_count<'a>(
    config: &EncoderConfig,
    weights: &Path,
    names: impl Iterator<Item = &'a String>,
) -> Result<()> {
    let held = encoder_layers_in(names);
    if held > config.num_hidden_layers {
        return Err(ModelError::Config(format!(
            "{} holds {held} encoder layers but config.json's num_hidden_layers is {}; quarry loads \
             every layer of a checkpoint (set num_hidden_layers to {held})",
            weights.display(),
            config.num_hidden_layers
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_the_encoder_layers_of_every_family_s_names() {
        let names = |list: &[&str]| list.iter().map(|s| s.to_string()).collect::<Vec<String>>();
        let bert = names(&["bert.encoder.layer.5.output.dense.weight", "bert.embeddings.word_embeddings.weight"]);
        assert_eq!(encoder_layers_in(bert.iter()), 6);
        let bart = names(&["model.encoder.layers.11.fc1.weight", "model.decoder.layers.13.fc1.weight"]);
        assert_eq!(encoder_layers_in(bart.iter()), 12);
        assert_eq!(encoder_layers_in(names(&["encoder.block.2.layer.0.SelfAttention.q.weight"]).iter()), 3);
        assert_eq!(encoder_layers_in(names(&["classifier.weight"]).iter()), 0);
    }

    #[test]
    fn parses_model_arguments() {
        assert!(matches!(ModelSource::parse("scratch:2x64").unwrap(), ModelSource::Scratch(_)));
        assert_eq!(
            ModelSource::parse("microsoft/codebert-base").unwrap(),
            ModelSource::Hub("microsoft/codebert-base".into())
        );
        assert!(matches!(ModelSource::parse(".").unwrap(), ModelSource::Dir(_)));
        assert!(ModelSource::parse("no such/dir/here").is_err());
        assert!(ModelSource::parse("scratch:2").is_err());
    }

    #[test]
    fn a_training_output_directory_stands_for_its_best_else_last_checkpoint() {
        let out = std::env::temp_dir().join(format!("quarry-model-trainout-{}", std::process::id()));
        for name in ["last", "best"] {
            std::fs::create_dir_all(out.join(name)).unwrap();
            std::fs::write(out.join(name).join("config.json"), "{}").unwrap();
        }
        let spec = out.to_string_lossy().into_owned();
        let (source, note) = ModelSource::parse_noting(&spec).unwrap();
        assert_eq!(source, ModelSource::Dir(out.join("best")));
        assert!(note.unwrap().contains("best checkpoint"));
        std::fs::remove_dir_all(out.join("best")).unwrap();
        let (source, note) = ModelSource::parse_noting(&spec).unwrap();
        assert_eq!(source, ModelSource::Dir(out.join("last")));
        assert!(note.unwrap().contains("last checkpoint"));
        // A checkpoint directory itself is taken as it is.
        let last = out.join("last").to_string_lossy().into_owned();
        assert_eq!(ModelSource::parse_noting(&last).unwrap(), (ModelSource::Dir(out.join("last")), None));
        std::fs::remove_dir_all(&out).unwrap();
    }

    #[test]
    fn absent_hub_model_is_a_clear_error() {
        // Offline, the download fails on the network; online, on the missing repository.
        let err = resolve_hub("quarry-test/definitely-not-cached").unwrap_err().to_string();
        assert!(err.contains("not in the local Hugging Face cache") && err.contains("pass its directory"), "{err}");
    }

    #[test]
    fn directory_without_config_is_a_clear_error() {
        let dir = std::env::temp_dir().join(format!("quarry-model-noconfig-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let err = load_model(&ModelSource::Dir(dir.clone()), None, &Device::Cpu, 0).err().unwrap().to_string();
        assert!(err.contains("config.json"), "{err}");
        let err = load_model(&ModelSource::Scratch(ScratchSpec::parse("1x32").unwrap()), None, &Device::Cpu, 0)
            .err()
            .unwrap()
            .to_string();
        assert!(err.contains("tokenizer"), "{err}");
    }
}
