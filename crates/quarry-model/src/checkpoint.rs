//! Hugging Face style checkpoint directories: `config.json`, `model.safetensors`,
//! `tokenizer.json` and `head_config.json`, loadable again with `--model DIR`.

use std::collections::HashMap;
use std::path::Path;

use candle_core::{Device, Tensor};

pub use quarry_stdx::atomic::{recover_dir, write_dir_atomically};

use crate::config::{EncoderConfig, Family};
use crate::error::{ModelError, Result};
use crate::nn::heads::HeadConfig;
use crate::nn::params::{sorted_vars, ParamStore};
use crate::tokenizer::Tokenizer;

/// File name of the head description inside a checkpoint.
pub const HEAD_CONFIG: &str = "head_config.json";

/// Writes `value` to `path` as pretty JSON.
pub(crate) fn write_json(path: &Path, value: &impl serde::Serialize) -> Result<()> {
    let text = serde_json::to_string_pretty(value)
        .map_err(|e| ModelError::Json { path: path.to_path_buf(), message: e.to_string() })?;
    std::fs::write(path, text).map_err(|e| ModelError::io(path, e))
}

/// Writes a checkpoint of every parameter in `store` to `dir` (created if needed).
///
/// Encoder tensors get the `bert.`/`roberta.` prefix and the head keeps `classifier.`, the
/// layout of Hugging Face's `*ForTokenClassification` models; T5 and BART encoder tensors keep
/// their own names (`shared.`, `encoder.`), those of a Hugging Face encoder-only model.
pub fn save_checkpoint(
    dir: &Path,
    config: &EncoderConfig,
    tokenizer: &Tokenizer,
    store: &ParamStore,
    head: Option<&HeadConfig>,
) -> Result<()> {
    std::fs::create_dir_all(dir).map_err(|e| ModelError::io(dir, e))?;
    let prefix = match config.family()? {
        Family::Bert => "bert.",
        Family::Roberta => "roberta.",
        Family::T5 | Family::Bart => "",
    };
    let mut tensors: HashMap<String, Tensor> = HashMap::new();
    for (name, var) in sorted_vars(store.vars()) {
        let key = if name.starts_with("classifier") { name } else { format!("{prefix}{name}") };
        tensors.insert(key, var.as_tensor().to_device(&Device::Cpu)?);
    }
    let weights = dir.join("model.safetensors");
    candle_core::safetensors::save(&tensors, &weights)
        .map_err(|e| ModelError::Weights { path: weights.clone(), message: e.to_string() })?;
    let mut config = config.clone();
    if let Some(HeadConfig::Span { labels, .. }) = head {
        let arch = match config.family()? {
            Family::Bert => Some("BertForTokenClassification"),
            Family::Roberta => Some("RobertaForTokenClassification"),
            // transformers has no token classifier of this layout for them.
            Family::T5 | Family::Bart => None,
        };
        match arch {
            Some(arch) => config.extra.insert("architectures".into(), serde_json::json!([arch])),
            None => config.extra.remove("architectures"),
        };
        let id2label: serde_json::Map<String, serde_json::Value> =
            labels.iter().enumerate().map(|(i, l)| (i.to_string(), serde_json::json!(l))).collect();
        let label2id: serde_json::Map<String, serde_json::Value> =
            labels.iter().enumerate().map(|(i, l)| (l.clone(), serde_json::json!(i))).collect();
        config.extra.insert("id2label".into(), id2label.into());
        config.extra.insert("label2id".into(), label2id.into());
    }
    write_json(&dir.join("config.json"), &config)?;
    tokenizer.save(&dir.join("tokenizer.json"))?;
    if let Some(h) = head {
        write_json(&dir.join(HEAD_CONFIG), h)?;
    }
    Ok(())
}

/// Reads `head_config.json` from a checkpoint directory, if it has one.
pub fn read_head_config(dir: &Path) -> Result<Option<HeadConfig>> {
    let path = dir.join(HEAD_CONFIG);
    if !path.is_file() {
        return Ok(None);
    }
    let text = quarry_stdx::read::read_text(&path, quarry_stdx::read::MAX_TEXT_FILE_BYTES)
        .map_err(|e| ModelError::io(&path, e.source))?;
    serde_json::from_str(&text).map(Some).map_err(|e| ModelError::Json { path, message: e.to_string() })
}

/// Checks that the model loaded from `dir` is a checkpoint trained for `task` (a
/// `head_config.json` of that task), before its head is used to evaluate or predict: a plain
/// encoder or another task's checkpoint would otherwise answer with a randomly initialised
/// head. `trainer` names the command that makes one.
pub fn expect_trained_head(dir: Option<&Path>, task: &str, trainer: &str) -> Result<()> {
    let Some(dir) = dir else {
        return Err(ModelError::Data(format!(
            "a model without a checkpoint directory has no trained {task} head; train one with `{trainer}`"
        )));
    };
    match read_head_config(dir)? {
        Some(head) if head.task() == task => Ok(()),
        Some(head) => Err(ModelError::Data(format!(
            "{}: a checkpoint of a {} head, not of a {task} head; train one with `{trainer}`",
            dir.join(HEAD_CONFIG).display(),
            head.task()
        ))),
        None => Err(ModelError::Data(format!(
            "{}: no {HEAD_CONFIG}, so no trained {task} head (a plain encoder); train one with `{trainer}`",
            dir.display()
        ))),
    }
}
