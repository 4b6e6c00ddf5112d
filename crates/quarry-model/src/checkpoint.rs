//! Hugging Face style checkpoint directories: `config.json`, `model.safetensors`,
//! `tokenizer.json` and `head_config.json`, loadable again with `--model DIR`.

use std::collections::HashMap;
use std::path::Path;

use candle_core::{Device, Tensor};

use crate::config::{EncoderConfig, Family};
use crate::error::{ModelError, Result};
use crate::heads::HeadConfig;
use crate::params::{sorted_vars, ParamStore};
use crate::tokenizer::Tokenizer;

/// File name of the head description inside a checkpoint.
pub const HEAD_CONFIG: &str = "head_config.json";

fn write_json(path: &Path, value: &impl serde::Serialize) -> Result<()> {
    let text = serde_json::to_string_pretty(value)
        .map_err(|e| ModelError::Json { path: path.to_path_buf(), message: e.to_string() })?;
    std::fs::write(path, text).map_err(|e| ModelError::io(path, e))
}

/// Writes a checkpoint of every parameter in `store` to `dir` (created if needed).
///
/// Encoder tensors get the `bert.`/`roberta.` prefix and the head keeps `classifier.`, the
/// layout of Hugging Face's `*ForTokenClassification` models.
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
            Family::Bert => "BertForTokenClassification",
            Family::Roberta => "RobertaForTokenClassification",
        };
        config.extra.insert("architectures".into(), serde_json::json!([arch]));
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
    let text = std::fs::read_to_string(&path).map_err(|e| ModelError::io(&path, e))?;
    serde_json::from_str(&text).map(Some).map_err(|e| ModelError::Json { path, message: e.to_string() })
}

/// The temporary name a directory is written under before it replaces `dir`.
fn sibling(dir: &Path, tag: &str) -> Result<std::path::PathBuf> {
    let name = dir
        .file_name()
        .ok_or_else(|| ModelError::Data(format!("{}: a checkpoint directory needs a name", dir.display())))?;
    Ok(dir.with_file_name(format!(".{}.{tag}", name.to_string_lossy())))
}

/// Writes the directory `dir` all at once: `write` fills a fresh temporary sibling, which
/// then takes `dir`'s place by renaming. A process killed at any moment leaves either the
/// complete old directory or the complete new one (see [`recover_dir`] for the instant
/// between the two renames); a failed `write` leaves the old one untouched.
pub fn write_dir_atomically(dir: &Path, write: impl FnOnce(&Path) -> Result<()>) -> Result<()> {
    let temp = sibling(dir, "new")?;
    let old = sibling(dir, "old")?;
    recover_dir(dir)?;
    if temp.exists() {
        std::fs::remove_dir_all(&temp).map_err(|e| ModelError::io(&temp, e))?;
    }
    std::fs::create_dir_all(&temp).map_err(|e| ModelError::io(&temp, e))?;
    if let Err(e) = write(&temp) {
        let _ = std::fs::remove_dir_all(&temp);
        return Err(e);
    }
    sync_dir_files(&temp)?;
    if dir.exists() {
        std::fs::rename(dir, &old).map_err(|e| ModelError::io(dir, e))?;
    }
    std::fs::rename(&temp, dir).map_err(|e| ModelError::io(dir, e))?;
    if old.exists() {
        std::fs::remove_dir_all(&old).map_err(|e| ModelError::io(&old, e))?;
    }
    Ok(())
}

/// Flushes every file of `dir` to disk, so that the rename publishes complete files even
/// if the machine goes down.
fn sync_dir_files(dir: &Path) -> Result<()> {
    for entry in std::fs::read_dir(dir).map_err(|e| ModelError::io(dir, e))? {
        let path = entry.map_err(|e| ModelError::io(dir, e))?.path();
        if path.is_file() {
            std::fs::File::open(&path).and_then(|f| f.sync_all()).map_err(|e| ModelError::io(&path, e))?;
        }
    }
    Ok(())
}

/// Finishes a replacement by [`write_dir_atomically`] that was interrupted between its two
/// renames: when `dir` is missing but its previous version is still under the temporary
/// name, that version is moved back. Leftover unfinished new versions are left for the next
/// write to clear.
pub fn recover_dir(dir: &Path) -> Result<()> {
    let old = sibling(dir, "old")?;
    if old.is_dir() {
        if dir.exists() {
            std::fs::remove_dir_all(&old).map_err(|e| ModelError::io(&old, e))?;
        } else {
            std::fs::rename(&old, dir).map_err(|e| ModelError::io(dir, e))?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn directories_are_replaced_whole_or_not_at_all() {
        let root = std::env::temp_dir().join(format!("quarry-atomic-dir-{}", std::process::id()));
        let dir = root.join("last");
        let put =
            |text: &'static str| move |d: &Path| std::fs::write(d.join("a"), text).map_err(|e| ModelError::io(d, e));
        write_dir_atomically(&dir, put("one")).unwrap();
        assert_eq!(std::fs::read_to_string(dir.join("a")).unwrap(), "one");
        write_dir_atomically(&dir, put("two")).unwrap();
        assert_eq!(std::fs::read_to_string(dir.join("a")).unwrap(), "two");
        // A write that fails half-way leaves the previous directory as it was.
        let failing = |d: &Path| {
            std::fs::write(d.join("a"), "half").unwrap();
            Err(ModelError::Data("disk full".into()))
        };
        assert!(write_dir_atomically(&dir, failing).is_err());
        assert_eq!(std::fs::read_to_string(dir.join("a")).unwrap(), "two");
        // Killed between the two renames: the old version comes back.
        std::fs::rename(&dir, root.join(".last.old")).unwrap();
        recover_dir(&dir).unwrap();
        assert_eq!(std::fs::read_to_string(dir.join("a")).unwrap(), "two");
        let names: Vec<_> = std::fs::read_dir(&root).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert_eq!(names, vec![std::ffi::OsString::from("last")]);
        std::fs::remove_dir_all(&root).unwrap();
    }
}
