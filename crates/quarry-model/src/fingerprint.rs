//! A model's identity for caches of what it computed (the probes' features): which files it
//! loads and their versions, without reading the weights through.

use std::path::Path;

use quarry_stdx::rng::stable_hash;

use crate::loading::ModelSource;

/// A hash of the regular files directly in `dir` (symlinks followed, as the hub cache's
/// are): each one's name, size and modification time. A retrained, replaced or edited
/// checkpoint changes it; an untouched one keeps it. An unreadable directory hashes as
/// empty (loading it fails with its own error).
pub fn files_fingerprint(dir: &Path) -> u64 {
    let mut files: Vec<String> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|entry| {
            let stamp = quarry_stdx::read::file_stamp(&entry.path())?;
            Some(format!("{}\t{stamp}", entry.file_name().to_string_lossy()))
        })
        .collect();
    files.sort();
    stable_hash(&files.join("\n"))
}

impl ModelSource {
    /// The identity of the model this source loads with `seed` (which initialises a scratch
    /// model): its directory's [`files_fingerprint`], the hub snapshot's when it is cached
    /// (else the id), or the scratch shape and seed.
    pub fn fingerprint(&self, seed: u64) -> u64 {
        match self {
            ModelSource::Dir(dir) => files_fingerprint(dir),
            ModelSource::Hub(id) => match crate::loading::cached_hub_snapshot(id) {
                Some(dir) => files_fingerprint(&dir),
                None => stable_hash(&format!("hub:{id}")),
            },
            ModelSource::Scratch(spec) => {
                stable_hash(&format!("scratch:{}x{}x{}:{seed}", spec.layers, spec.hidden, spec.heads))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_replaced_file_or_another_seed_is_another_model() {
        let dir = std::env::temp_dir().join(format!("quarry-fingerprint-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("config.json"), "{}").unwrap();
        std::fs::write(dir.join("model.safetensors"), "weights").unwrap();
        let source = ModelSource::Dir(dir.clone());
        let first = source.fingerprint(0);
        assert_eq!(source.fingerprint(1), first, "a directory's model does not depend on the seed");
        std::fs::write(dir.join("model.safetensors"), "other weights").unwrap();
        assert_ne!(source.fingerprint(0), first);
        let scratch = ModelSource::parse("scratch:1x32").unwrap();
        assert_ne!(scratch.fingerprint(0), scratch.fingerprint(1));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
