//! A checkpoint saved in shards, as transformers' `save_pretrained` writes a model larger than
//! its `max_shard_size`, loads to the same model as the single file; a broken index or shard
//! is an error naming the file.

mod common;
#[path = "common/saved.rs"]
mod saved;

use std::collections::HashMap;
use std::path::Path;

use candle_core::{Device, Tensor};
use quarry_model::{load_model, ModelSource, SpanModel};

/// Splits `dir`'s `model.safetensors` into two shards and an index, as transformers names them.
fn shard(dir: &Path) {
    let single = dir.join("model.safetensors");
    let tensors = candle_core::safetensors::load(&single, &Device::Cpu).unwrap();
    let mut names: Vec<&String> = tensors.keys().collect();
    names.sort();
    let mut weight_map = serde_json::Map::new();
    for (i, part) in names.chunks(names.len().div_ceil(2)).enumerate() {
        let file = format!("model-0000{}-of-00002.safetensors", i + 1);
        let held: HashMap<String, Tensor> = part.iter().map(|n| ((*n).clone(), tensors[*n].clone())).collect();
        candle_core::safetensors::save(&held, dir.join(&file)).unwrap();
        for name in part {
            weight_map.insert((*name).clone(), file.clone().into());
        }
    }
    let index = serde_json::json!({"metadata": {"total_size": 0}, "weight_map": weight_map});
    std::fs::write(dir.join("model.safetensors.index.json"), index.to_string()).unwrap();
    std::fs::remove_file(single).unwrap();
}

fn load_error(dir: &Path) -> String {
    match load_model(&ModelSource::Dir(dir.to_path_buf()), None, &Device::Cpu, 0) {
        Ok(_) => panic!("{} loaded", dir.display()),
        Err(e) => e.to_string(),
    }
}

#[test]
fn a_sharded_checkpoint_loads_as_the_single_file_does() {
    std::env::set_var("RAYON_NUM_THREADS", "1");
    let saved::SavedSpanModel { vocab, dir, batch, logits: before, .. } = saved::saved_span_model("sharded", "2x32x2");
    shard(&dir);
    let sharded = SpanModel::new(load_model(&ModelSource::Dir(dir.clone()), None, &Device::Cpu, 9).unwrap()).unwrap();
    let after = sharded.logits(&batch.ids, &batch.mask, false).unwrap();
    assert_eq!(saved::max_difference(&before, &after), 0.0);

    // A shard that lacks a tensor the index places in it.
    let index_path = dir.join("model.safetensors.index.json");
    let index_text = std::fs::read_to_string(&index_path).unwrap();
    let mut index: serde_json::Value = serde_json::from_str(&index_text).unwrap();
    index["weight_map"]["not.a.tensor"] = "model-00001-of-00002.safetensors".into();
    std::fs::write(&index_path, index.to_string()).unwrap();
    let error = load_error(&dir);
    assert!(error.contains("model-00001-of-00002.safetensors") && error.contains("not.a.tensor"), "{error}");

    // A shard named by a path outside the checkpoint's folder.
    index["weight_map"]["not.a.tensor"] = "../elsewhere.safetensors".into();
    std::fs::write(&index_path, index.to_string()).unwrap();
    let error = load_error(&dir);
    assert!(error.contains("index.json") && error.contains("not a file name"), "{error}");

    // A missing shard.
    std::fs::write(&index_path, &index_text).unwrap();
    std::fs::remove_file(dir.join("model-00002-of-00002.safetensors")).unwrap();
    let error = load_error(&dir);
    assert!(error.contains("model-00002-of-00002.safetensors") && error.contains("missing"), "{error}");

    // An index that is not one.
    std::fs::write(&index_path, "[1, 2]").unwrap();
    let error = load_error(&dir);
    assert!(error.contains("model.safetensors.index.json") && error.contains("not a sharded"), "{error}");
    std::fs::remove_dir_all(&vocab).unwrap();
}
