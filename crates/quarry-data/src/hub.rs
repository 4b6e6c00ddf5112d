//! Output formats and the Hugging Face Hub layout of a dataset directory:
//! `data/{config}/{split}-{I:05}-of-{N:05}.parquet` and a `README.md` dataset card whose
//! YAML `configs:` tells `datasets.load_dataset(DIR)` every config and split (the first
//! config is the default). JSON Lines built in one shard keep quarry's flat layout,
//! `{config}_{split}.jsonl`, which the readers of earlier builds expect.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::shard::Shard;

/// The file format of a dataset's records.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Format {
    /// JSON Lines (`.jsonl`, or `.jsonl.gz` compressed).
    #[default]
    Jsonl,
    /// Apache Parquet, zstd-compressed.
    Parquet,
}

impl std::str::FromStr for Format {
    type Err = String;

    /// Parses `jsonl` or `parquet`.
    fn from_str(text: &str) -> Result<Format, String> {
        match text {
            "jsonl" => Ok(Format::Jsonl),
            "parquet" => Ok(Format::Parquet),
            _ => Err(format!("format `{text}`: expected `jsonl` or `parquet`")),
        }
    }
}

/// Where the records of one config, split and shard go.
#[derive(Debug, Clone, Copy)]
pub struct Layout {
    /// The records' format.
    pub format: Format,
    /// JSON Lines gzip-compressed.
    pub gzip: bool,
    /// How many shards the dataset has.
    pub shards: usize,
}

impl Layout {
    /// Whether files follow the Hub layout (Parquet, or JSON Lines in several shards).
    pub fn is_hub(self) -> bool {
        self.format == Format::Parquet || self.shards > 1
    }

    fn extension(self) -> &'static str {
        match (self.format, self.gzip) {
            (Format::Parquet, _) => "parquet",
            (Format::Jsonl, true) => "jsonl.gz",
            (Format::Jsonl, false) => "jsonl",
        }
    }

    /// The file, under `out`, of `config`'s `split` built by `shard`.
    pub fn data_file(self, out: &Path, config: &str, split: &str, shard: Shard) -> PathBuf {
        if self.is_hub() {
            out.join("data").join(config).join(format!("{split}-{}.{}", shard.suffix(), self.extension()))
        } else {
            out.join(format!("{config}_{split}.{}", self.extension()))
        }
    }

    /// Removes the data files of `config`'s `split` under `out` that an earlier build in
    /// another number of shards wrote (`{split}-*-of-*` of another count): the dataset card's
    /// pattern would read them beside this build's, doubling rows. Hub layout only.
    pub fn remove_stale_files(self, out: &Path, config: &str, split: &str) -> Result<(), crate::error::DataError> {
        if !self.is_hub() {
            return Ok(());
        }
        let dir = out.join("data").join(config);
        let Ok(entries) = std::fs::read_dir(&dir) else { return Ok(()) };
        let (prefix, ours) = (format!("{split}-"), format!("-of-{:05}.{}", self.shards, self.extension()));
        let extension = format!(".{}", self.extension());
        for entry in entries.flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            let earlier = name.starts_with(&prefix) && name.ends_with(&extension) && name.contains("-of-");
            if earlier && !name.ends_with(&ours) {
                let path = entry.path();
                std::fs::remove_file(&path).map_err(|e| crate::error::DataError::io(&path, e))?;
            }
        }
        Ok(())
    }

    /// The files of `config`'s `split` as a pattern relative to the dataset directory.
    fn pattern(self, config: &str, split: &str) -> String {
        if self.is_hub() {
            format!("data/{config}/{split}-*.{}", self.extension())
        } else {
            format!("{config}_{split}.{}", self.extension())
        }
    }

    /// A dataset card: YAML front matter listing each config's splits that hold rows
    /// (`has_rows(config, split)`; `datasets` refuses a split without data, so an empty
    /// one is left out, and a config with none), the first config the default; then `body`
    /// (Markdown).
    pub fn dataset_card(
        self,
        configs: &[&str],
        splits: &[&str],
        has_rows: &dyn Fn(&str, &str) -> bool,
        body: &str,
    ) -> String {
        let mut card = String::from("---\nconfigs:\n");
        let mut first = true;
        for config in configs {
            let present: Vec<&&str> = splits.iter().filter(|split| has_rows(config, split)).collect();
            if present.is_empty() {
                continue;
            }
            card.push_str(&format!("- config_name: {config}\n"));
            if std::mem::take(&mut first) {
                card.push_str("  default: true\n");
            }
            card.push_str("  data_files:\n");
            for split in present {
                card.push_str(&format!("  - split: {split}\n    path: \"{}\"\n", self.pattern(config, split)));
            }
        }
        card.push_str("---\n\n");
        card.push_str(body);
        card
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_follow_the_hub_and_the_flat_layout() {
        let out = Path::new("out");
        let shard = Shard { index: 2, count: 7 };
        let parquet = Layout { format: Format::Parquet, gzip: false, shards: 7 };
        assert_eq!(
            parquet.data_file(out, "ideal", "train", shard),
            Path::new("out/data/ideal/train-00002-of-00007.parquet")
        );
        let flat = Layout { format: Format::Jsonl, gzip: true, shards: 1 };
        assert_eq!(flat.data_file(out, "twostep", "test", Shard::default()), Path::new("out/twostep_test.jsonl.gz"));
        let card = parquet.dataset_card(
            &["empty", "ideal", "twostep"],
            &["train", "valid", "test"],
            &|c, s| c != "empty" && s != "valid",
            "# x\n",
        );
        assert!(card.starts_with("---\nconfigs:\n- config_name: ideal\n  default: true\n  data_files:\n"), "{card}");
        assert!(card.contains("  - split: test\n    path: \"data/twostep/test-*.parquet\"\n"), "{card}");
        assert!(card.ends_with("---\n\n# x\n"));
        assert!(!card.contains("empty") && !card.contains("valid"), "{card}");
    }
}
