//! `--shard I/N`: a deterministic partition of a corpus's files by a stable hash of their
//! corpus-relative path, so that which shard builds a file depends on nothing but its path
//! and N (not on the order of the input, the machine or the other files); and the input
//! files of a sharded build ([`input_files`], `--files-from`), which every builder shares.

use std::io::BufRead;
use std::path::{Component, Path, PathBuf};

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
///
/// Paths are normalised lexically first ([`normalize`]: `json//a.py` and `./json/a.py`
/// are `json/a.py`; links are not resolved), so that two spellings of one file are built
/// once, under one identity. A file whose corpus-relative path is not valid UTF-8 cannot
/// be named in the dataset: it is left out and reported among the errors
/// (`"corpus/a\xFF.py": file name is not UTF-8, skipped`, the name escaped so that two
/// such names stay two reports), and the other files are built.
pub fn input_files(
    corpus: &[PathBuf],
    language: Language,
    files_from: Option<&Path>,
) -> Result<(Vec<PathBuf>, Vec<String>), DataError> {
    let (files, mut errors) = match files_from {
        None => source_files(corpus, language),
        Some(list) => (read_file_list(list, corpus.first().map_or(Path::new(""), PathBuf::as_path))?, Vec::new()),
    };
    let roots = normalized_roots(corpus);
    let mut keyed: Vec<(String, PathBuf)> = Vec::with_capacity(files.len());
    for file in files {
        let file = normalize(&file);
        match relative_of(&roots, &file).to_str() {
            Some(relative) => keyed.push((relative.to_string(), file)),
            // Escaped (`"a\xFF.py"`), not lossy: two such names stay two reports.
            None => errors.push(format!("{file:?}: file name is not UTF-8, skipped")),
        }
    }
    keyed.sort();
    keyed.dedup();
    Ok((keyed.into_iter().map(|(_, file)| file).collect(), errors))
}

/// `path` without `.` components and empty ones (`a//b`, a trailing `/`): a lexical
/// normalisation, which neither touches the file system nor resolves `..` (whose meaning
/// depends on links). An empty result (`.`) stays `.`-free: the empty path.
pub fn normalize(path: &Path) -> PathBuf {
    path.components().filter(|c| *c != Component::CurDir).collect()
}

fn normalized_roots(corpus: &[PathBuf]) -> Vec<PathBuf> {
    corpus.iter().map(|root| normalize(root)).collect()
}

/// The normalised `path` relative to the first (normalised) root that holds it; a path
/// equal to a root (a file given alone): its file name; a path under no root: itself.
fn relative_of(roots: &[PathBuf], path: &Path) -> PathBuf {
    let path = normalize(path);
    let relative = roots.iter().find_map(|root| path.strip_prefix(root).ok()).unwrap_or(&path);
    if relative.as_os_str().is_empty() {
        path.file_name().map_or_else(PathBuf::new, PathBuf::from)
    } else {
        relative.to_path_buf()
    }
}

/// `path` relative to the first corpus path that holds it (a file given alone: its file
/// name), after lexical normalisation ([`normalize`]), `/`-separated: the key of a file's
/// shard and split. Every file [`input_files`] returns has a UTF-8 key (it leaves the
/// others out); for another path the key is lossy.
pub fn relative_path(corpus: &[PathBuf], path: &Path) -> String {
    relative_of(&normalized_roots(corpus), path).to_string_lossy().into_owned()
}

/// The entries of a `--files-from` list with their 1-based line numbers: one name a line,
/// blank lines and `#` comments skipped. A line that is not UTF-8 is an error naming it.
pub fn listed_names(list: &Path) -> Result<Vec<(usize, String)>, DataError> {
    listed_lines(list)?
        .into_iter()
        .map(|(line, entry)| match entry {
            Ok(entry) => Ok((line, entry)),
            Err(_) => Err(DataError::BadRecord {
                path: list.to_path_buf(),
                line,
                message: "the name is not UTF-8".to_string(),
            }),
        })
        .collect()
}

/// One entry of a list: its text, or the bytes of a line that is not UTF-8.
type ListedEntry = Result<String, Vec<u8>>;

/// The entries of `list` as [`listed_names`] finds them, a line that is not UTF-8 as its
/// bytes (trimmed of ASCII white space).
fn listed_lines(list: &Path) -> Result<Vec<(usize, ListedEntry)>, DataError> {
    let reader = open_lines(list)?;
    let mut names = Vec::new();
    for (number, line) in reader.split(b'\n').enumerate() {
        let line = line.map_err(|e| DataError::io(list, e))?;
        let entry = match std::str::from_utf8(&line) {
            Ok(text) => Ok(text.trim().to_string()),
            Err(_) => Err(line.trim_ascii().to_vec()),
        };
        let skipped = entry.as_ref().is_ok_and(|text| text.is_empty() || text.starts_with('#'));
        if !skipped {
            names.push((number + 1, entry));
        }
    }
    Ok(names)
}

/// A listed name that is not UTF-8 as a path: its bytes where paths are bytes (Unix), so
/// that [`input_files`] reports it as it does such a file found by a walk; elsewhere
/// `None`.
#[cfg(unix)]
fn path_of_bytes(bytes: Vec<u8>) -> Option<PathBuf> {
    use std::os::unix::ffi::OsStringExt;
    Some(PathBuf::from(std::ffi::OsString::from_vec(bytes)))
}

#[cfg(not(unix))]
fn path_of_bytes(_: Vec<u8>) -> Option<PathBuf> {
    None
}

/// The files named in `list` ([`listed_names`]; on Unix a name that is not UTF-8 too, for
/// [`input_files`] to report); a line naming no regular file is an error naming the list
/// and the line.
fn read_file_list(list: &Path, corpus: &Path) -> Result<Vec<PathBuf>, DataError> {
    let mut files = Vec::new();
    for (line, entry) in listed_lines(list)? {
        let entry = match entry {
            Ok(text) => PathBuf::from(text),
            Err(bytes) => path_of_bytes(bytes).ok_or_else(|| DataError::BadRecord {
                path: list.to_path_buf(),
                line,
                message: "the name is not UTF-8".to_string(),
            })?,
        };
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

    fn write(path: &Path, text: &str) {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    #[test]
    fn normalisation_is_lexical_and_keys_do_not_depend_on_the_spelling() {
        assert_eq!(normalize(Path::new("./json//encoder.py")), PathBuf::from("json/encoder.py"));
        assert_eq!(normalize(Path::new("c/./json/./a.py/")), PathBuf::from("c/json/a.py"));
        // `..` is kept: resolving it lexically would be wrong behind a link.
        assert_eq!(normalize(Path::new("c/d/../a.py")), PathBuf::from("c/d/../a.py"));
        let corpus = [PathBuf::from("./c/")];
        for spelling in ["c/json/a.py", "c//json/a.py", "./c/json/./a.py", "c/json//a.py"] {
            assert_eq!(relative_path(&corpus, Path::new(spelling)), "json/a.py", "{spelling}");
        }
        assert_eq!(relative_path(&[PathBuf::from(".")], Path::new("./x/a.py")), "x/a.py");
        assert_eq!(relative_path(&[PathBuf::from("c/a.py")], Path::new("c//a.py")), "a.py");
    }

    #[test]
    fn two_spellings_of_a_listed_file_are_one_input() {
        let dir = tempfile::tempdir().unwrap();
        let corpus = dir.path().join("corpus");
        write(&corpus.join("json/encoder.py"), "x = 1\n");
        write(&corpus.join("json/decoder.py"), "y = 2\n");
        let list = dir.path().join("files.txt");
        write(&list, "json//encoder.py\njson/encoder.py\n./json/decoder.py\njson/./decoder.py\n# note\n\n");
        let roots = [corpus.clone()];
        let (files, errors) = input_files(&roots, Language::Python, Some(&list)).unwrap();
        assert!(errors.is_empty(), "{errors:?}");
        assert_eq!(files, vec![corpus.join("json/decoder.py"), corpus.join("json/encoder.py")]);
        let keys: Vec<String> = files.iter().map(|f| relative_path(&roots, f)).collect();
        assert_eq!(keys, ["json/decoder.py", "json/encoder.py"]);
        // The corpus itself spelt otherwise gives the same keys.
        let spelt = [PathBuf::from(format!("{}/./", corpus.display()))];
        let (again, _) = input_files(&spelt, Language::Python, Some(&list)).unwrap();
        assert_eq!(again.iter().map(|f| relative_path(&spelt, f)).collect::<Vec<_>>(), keys);
    }

    #[cfg(unix)]
    #[test]
    fn files_whose_names_are_not_utf8_are_reported_and_left_out() {
        use std::ffi::OsStr;
        use std::os::unix::ffi::OsStrExt;

        let dir = tempfile::tempdir().unwrap();
        let corpus = dir.path().join("corpus");
        write(&corpus.join("ok.py"), "x = 1\n");
        for name in [b"a\xff.py".as_slice(), b"a\xfe.py"] {
            write(&corpus.join(OsStr::from_bytes(name)), "y = 2\n");
        }
        let roots = [corpus.clone()];
        let (files, mut errors) = input_files(&roots, Language::Python, None).unwrap();
        assert_eq!(files, vec![corpus.join("ok.py")]);
        errors.sort();
        assert_eq!(errors.len(), 2, "{errors:?}");
        assert!(errors[0].ends_with(r#"a\xFE.py": file name is not UTF-8, skipped"#), "{errors:?}");
        assert!(errors[1].ends_with(r#"a\xFF.py": file name is not UTF-8, skipped"#), "{errors:?}");
        assert_eq!(relative_path(&roots, &corpus.join("ok.py")), "ok.py");

        // Listed, the names are skipped the same way, and the list's other files kept.
        let list = dir.path().join("files.txt");
        std::fs::write(&list, b"ok.py\na\xff.py\n  a\xfe.py \n").unwrap();
        let (files, errors) = input_files(&roots, Language::Python, Some(&list)).unwrap();
        assert_eq!(files, vec![corpus.join("ok.py")]);
        assert_eq!(errors.len(), 2, "{errors:?}");
        assert!(errors.iter().all(|e| e.ends_with("file name is not UTF-8, skipped")), "{errors:?}");
        // `listed_names`, which hands out text, names the line instead.
        match listed_names(&list) {
            Err(DataError::BadRecord { line, .. }) => assert_eq!(line, 2),
            other => panic!("{other:?}"),
        }
    }
}
