//! `--shard I/N`: a deterministic partition of a corpus's files by a stable hash of their
//! corpus-relative path, so that which shard builds a file depends on nothing but its path
//! and N (not on the order of the input, the machine or the other files); and the input
//! files of a sharded build ([`input_files`], `--files-from`), which every builder shares.

use std::io::BufRead;
use std::path::{Path, PathBuf};

use quarry_stdx::rng::stable_hash;
use quarry_syntax::corpus::source_files;
use quarry_syntax::Language;
use serde::{Deserialize, Serialize};

use crate::error::DataError;
use crate::jsonl::open_lines;

/// Shard `index` of `count` (0-based).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Shard {
    /// This shard, `0..count`.
    pub index: usize,
    /// How many shards the corpus is cut into.
    pub count: usize,
}

impl Default for Shard {
    /// The whole corpus: shard 0 of 1.
    fn default() -> Shard {
        Shard { index: 0, count: 1 }
    }
}

impl Shard {
    /// Whether the file at `relative` (its path relative to the corpus) belongs to this shard.
    pub fn owns(self, relative: &str) -> bool {
        Shard::of(relative, self.count) == self.index
    }

    /// The shard of `count` that builds the file at `relative`.
    pub fn of(relative: &str, count: usize) -> usize {
        (stable_hash(relative) % count.max(1) as u64) as usize
    }

    /// `{index:05}-of-{count:05}`, as in the Hugging Face Hub's file names.
    pub fn suffix(self) -> String {
        format!("{:05}-of-{:05}", self.index, self.count)
    }
}

impl std::fmt::Display for Shard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

impl std::str::FromStr for Shard {
    type Err = String;

    /// Parses `I/N` with `0 <= I < N`.
    fn from_str(text: &str) -> Result<Shard, String> {
        let bad = || format!("shard `{text}`: expected I/N with 0 <= I < N (0-based), e.g. 0/4");
        let (index, count) = text.split_once('/').ok_or_else(bad)?;
        let index: usize = index.trim().parse().map_err(|_| bad())?;
        let count: usize = count.trim().parse().map_err(|_| bad())?;
        if count == 0 || index >= count || count > 99_999 {
            return Err(bad());
        }
        Ok(Shard { index, count })
    }
}

/// The manifest files one builder's shards left in `out/manifests`: names starting with
/// `prefix` and ending in `.json`, sorted; none when the folder does not exist.
pub fn manifest_files(out: &Path, prefix: &str) -> Result<Vec<PathBuf>, DataError> {
    let dir = out.join("manifests");
    let entries = match std::fs::read_dir(&dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(DataError::io(&dir, e)),
    };
    let mut paths = Vec::new();
    for entry in entries {
        let entry = entry.map_err(|e| DataError::io(&dir, e))?;
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.starts_with(prefix) && name.ends_with(".json") {
            paths.push(entry.path());
        }
    }
    paths.sort();
    Ok(paths)
}

/// Whether `out` holds manifests of the builder whose manifest names start with `prefix`
/// (what `quarry dataset finalize` dispatches on).
pub fn has_manifests(out: &Path, prefix: &str) -> bool {
    manifest_files(out, prefix).is_ok_and(|paths| !paths.is_empty())
}

/// One manifest found when shards are finalized: its file, its shard, and why it cannot
/// be finalized with the first manifest's (other options, version or corpus), if so.
pub struct Found {
    /// The manifest file.
    pub path: PathBuf,
    /// The shard it records.
    pub shard: Shard,
    /// How it disagrees with the first manifest.
    pub disagreement: Option<String>,
}

/// Every problem of a set of shard manifests (the first one's N is the set's): a shard of
/// another N or out of range, a missing shard (with the manifest `manifest_path` names),
/// a duplicated one, one built otherwise; the one check of every builder's finalize.
pub fn set_problems(found: &[Found], manifest_path: &dyn Fn(Shard) -> PathBuf) -> Vec<String> {
    let Some(first) = found.first() else { return vec!["no shard manifest".to_string()] };
    let count = first.shard.count;
    let mut problems = Vec::new();
    let mut by_index: Vec<Vec<&Found>> = vec![Vec::new(); count];
    for manifest in found {
        if manifest.shard.count != count {
            problems.push(format!(
                "{} is shard {} of a build in {} shards, {} in {count}",
                manifest.path.display(),
                manifest.shard,
                manifest.shard.count,
                first.path.display()
            ));
        } else if manifest.shard.index >= count {
            problems.push(format!("{} names shard {}, which does not exist", manifest.path.display(), manifest.shard));
        } else {
            by_index[manifest.shard.index].push(manifest);
        }
    }
    for (index, holders) in by_index.iter().enumerate() {
        let shard = Shard { index, count };
        match holders.as_slice() {
            [] => problems.push(format!(
                "shard {shard} is missing: no {} (build it with `--shard {shard}`)",
                manifest_path(shard).display()
            )),
            [one] => {
                if let Some(reason) = &one.disagreement {
                    problems.push(format!("shard {shard} ({}) was built with {reason}", one.path.display()));
                }
            }
            several => problems.push(format!(
                "shard {shard} is duplicated: {}",
                several.iter().map(|m| m.path.display().to_string()).collect::<Vec<_>>().join(" and ")
            )),
        }
    }
    problems
}

/// The corpus's source files of `language`, sorted by relative path, and the errors of the
/// walk: the files listed in `files_from` (relative to the first corpus path, or absolute),
/// else every such file under the corpus paths.
pub fn input_files(
    corpus: &[PathBuf],
    language: Language,
    files_from: Option<&Path>,
) -> Result<(Vec<PathBuf>, Vec<String>), DataError> {
    let (mut files, errors) = match files_from {
        None => source_files(corpus, language),
        Some(list) => (read_file_list(list, corpus.first().map_or(Path::new(""), PathBuf::as_path))?, Vec::new()),
    };
    files.sort_by_cached_key(|p| relative_path(corpus, p));
    files.dedup();
    Ok((files, errors))
}

/// `path` relative to the first corpus path that holds it (a file given alone: the path
/// as given), `/`-separated on every platform: the key of a file's shard and split.
pub fn relative_path(corpus: &[PathBuf], path: &Path) -> String {
    let relative = corpus.iter().find_map(|root| path.strip_prefix(root).ok()).unwrap_or(path);
    let text = relative.display().to_string();
    if text.is_empty() {
        path.file_name().map_or(text, |name| name.to_string_lossy().into_owned())
    } else {
        text
    }
}

/// The entries of a `--files-from` list with their 1-based line numbers: one name a line,
/// blank lines and `#` comments skipped.
pub fn listed_names(list: &Path) -> Result<Vec<(usize, String)>, DataError> {
    let reader = open_lines(list)?;
    let mut names = Vec::new();
    for (number, line) in reader.lines().enumerate() {
        let line = line.map_err(|e| DataError::io(list, e))?;
        let entry = line.trim();
        if !entry.is_empty() && !entry.starts_with('#') {
            names.push((number + 1, entry.to_string()));
        }
    }
    Ok(names)
}

/// The files named in `list` ([`listed_names`]); a line naming no regular file is an
/// error naming the list and the line.
fn read_file_list(list: &Path, corpus: &Path) -> Result<Vec<PathBuf>, DataError> {
    let mut files = Vec::new();
    for (line, entry) in listed_names(list)? {
        let path = corpus.join(&entry);
        if !path.is_file() {
            return Err(DataError::BadRecord {
                path: list.to_path_buf(),
                line,
                message: format!("{}: not a file", path.display()),
            });
        }
        files.push(path);
    }
    Ok(files)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_file_has_exactly_one_shard_and_parsing_is_strict() {
        let shards: Vec<Shard> = (0..7).map(|index| Shard { index, count: 7 }).collect();
        let mut sizes = [0usize; 7];
        for i in 0..7_000 {
            let path = format!("pkg/m{i}.py");
            let owners: Vec<&Shard> = shards.iter().filter(|s| s.owns(&path)).collect();
            assert_eq!(owners.len(), 1);
            sizes[owners[0].index] += 1;
        }
        assert!(sizes.iter().all(|&n| (850..1_150).contains(&n)), "{sizes:?}");
        assert_eq!("2/7".parse::<Shard>(), Ok(Shard { index: 2, count: 7 }));
        assert_eq!(Shard { index: 2, count: 7 }.suffix(), "00002-of-00007");
        for bad in ["7/7", "1/0", "x/2", "3", "-1/2"] {
            assert!(bad.parse::<Shard>().is_err(), "{bad}");
        }
    }
}
