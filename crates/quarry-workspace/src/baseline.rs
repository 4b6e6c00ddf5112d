//! Baselines: the findings a project accepts today, so that only new ones
//! fail a build (`quarry query --baseline FILE`, written with
//! `--write-baseline`).
//!
//! A finding is matched by its query, its file (relative to the baseline
//! file's folder, `/`-separated, so the baseline works from any working
//! directory and on any OS) and a [`fingerprint`] of its answer text, not
//! its line: code moving up or down keeps its baseline entry. Each entry
//! stands for a count of identical findings; a match uses one of them.
//!
//! The file is JSON, sorted, one entry per line group, written through the
//! one output writer (`quarry_stdx::atomic`).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use quarry_query::report::FindingRecord;

/// Version of the baseline file format.
pub const FORMAT_VERSION: u32 = 1;

/// A stable fingerprint of a finding: SHA-256 of its query id and its
/// answer spans' text with runs of whitespace collapsed, as 16 hex digits.
pub fn fingerprint(finding: &FindingRecord) -> String {
    let mut hasher = Sha256::new();
    hasher.update(finding.query_id.as_bytes());
    for span in &finding.answer_spans {
        hasher.update(b"\n");
        for (i, word) in span.span.split_whitespace().enumerate() {
            if i > 0 {
                hasher.update(b" ");
            }
            hasher.update(word.as_bytes());
        }
    }
    let digest = hasher.finalize();
    digest[..8].iter().map(|b| format!("{b:02x}")).collect()
}

/// One baseline entry as stored.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Entry {
    /// The file, relative to the baseline's folder.
    pub file: String,
    /// The query's id.
    pub query_id: String,
    /// The finding's [`fingerprint`].
    pub fingerprint: String,
    /// How many identical findings it stands for.
    pub count: usize,
    /// The finding's message when it was recorded, for people reading the file.
    pub message: String,
}

#[derive(Serialize, Deserialize)]
struct Document {
    version: u32,
    findings: Vec<Entry>,
}

/// Key of a finding in a baseline: file, query id, fingerprint.
type Key = (String, String, String);

/// A loaded baseline being matched against a run's findings.
#[derive(Debug, Clone)]
pub struct Baseline {
    folder: PathBuf,
    remaining: BTreeMap<Key, usize>,
}

impl Baseline {
    /// An empty baseline for a file at `path` (for `--write-baseline` when
    /// no file exists yet).
    pub fn empty(path: &Path) -> Baseline {
        Baseline { folder: folder_of(path), remaining: BTreeMap::new() }
    }

    /// Reads a baseline file.
    pub fn load(path: &Path) -> Result<Baseline, String> {
        let text = quarry_stdx::read::read_text(path, quarry_stdx::read::MAX_TEXT_FILE_BYTES)
            .map_err(|e| format!("{}: cannot read baseline: {}", path.display(), e.source))?;
        let document: Document =
            serde_json::from_str(&text).map_err(|e| format!("{}: not a quarry baseline: {e}", path.display()))?;
        if document.version != FORMAT_VERSION {
            return Err(format!(
                "{}: baseline format version {} is not supported (expected {FORMAT_VERSION})",
                path.display(),
                document.version
            ));
        }
        let mut remaining = BTreeMap::new();
        for entry in document.findings {
            *remaining.entry((entry.file, entry.query_id, entry.fingerprint)).or_insert(0) += entry.count;
        }
        Ok(Baseline { folder: folder_of(path), remaining })
    }

    /// Whether the baseline accepts `finding` (with `fingerprint`), using up
    /// one of its entries if so.
    pub fn accept(&mut self, finding: &FindingRecord, fingerprint: &str) -> bool {
        let key = (relative_file(&self.folder, &finding.file), finding.query_id.to_string(), fingerprint.to_string());
        match self.remaining.get_mut(&key) {
            Some(count) if *count > 0 => {
                *count -= 1;
                true
            }
            _ => false,
        }
    }

    /// How many baseline entries matched no finding (fixed since).
    pub fn unmatched(&self) -> usize {
        self.remaining.values().sum()
    }
}

/// Collects findings and writes them as a baseline.
#[derive(Debug, Clone)]
pub struct BaselineWriter {
    path: PathBuf,
    folder: PathBuf,
    entries: BTreeMap<Key, (usize, String)>,
}

impl BaselineWriter {
    /// A writer for the baseline file at `path`.
    pub fn new(path: &Path) -> BaselineWriter {
        BaselineWriter { path: path.to_path_buf(), folder: folder_of(path), entries: BTreeMap::new() }
    }

    /// Records a finding.
    pub fn add(&mut self, finding: &FindingRecord, fingerprint: &str) {
        let key = (relative_file(&self.folder, &finding.file), finding.query_id.to_string(), fingerprint.to_string());
        self.entries.entry(key).or_insert_with(|| (0, finding.message.clone())).0 += 1;
    }

    /// How many findings were recorded.
    pub fn len(&self) -> usize {
        self.entries.values().map(|(count, _)| count).sum()
    }

    /// Whether no finding was recorded.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Writes the file through the one output writer (`quarry_stdx::atomic`).
    pub fn write(&self) -> Result<(), String> {
        let findings = self
            .entries
            .iter()
            .map(|((file, query_id, fingerprint), (count, message))| Entry {
                file: file.clone(),
                query_id: query_id.clone(),
                fingerprint: fingerprint.clone(),
                count: *count,
                message: message.clone(),
            })
            .collect();
        let document = Document { version: FORMAT_VERSION, findings };
        let mut text = serde_json::to_vec_pretty(&document)
            .map_err(|e| format!("{}: cannot write baseline: {e}", self.path.display()))?;
        text.push(b'\n');
        quarry_stdx::write_atomically(&self.path, &text).map_err(|e| format!("cannot write baseline: {e}"))
    }
}

/// The folder a baseline's file paths are relative to.
fn folder_of(path: &Path) -> PathBuf {
    let absolute = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    absolute.parent().map(resolved).unwrap_or_default()
}

/// `path` with links, `.` and `..` resolved when it exists; made absolute
/// otherwise (a `--stdin-filename` need not exist).
fn resolved(path: &Path) -> PathBuf {
    std::fs::canonicalize(path).unwrap_or_else(|_| std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf()))
}

/// `file` relative to `folder`, `/`-separated, through `..` when it lies outside (a
/// baseline kept in `ci/` for code in `src/`), so that the baseline matches wherever the
/// tree is checked out; absolute only when the two share no root (another drive).
fn relative_file(folder: &Path, file: &str) -> String {
    use std::path::Component;
    let absolute = resolved(Path::new(file));
    let (from, to): (Vec<Component<'_>>, Vec<Component<'_>>) =
        (folder.components().collect(), absolute.components().collect());
    let common = from.iter().zip(&to).take_while(|(a, b)| a == b).count();
    let shares_root = common > 0 && matches!(to.first(), Some(Component::RootDir)) || common > 1;
    let parts: Vec<String> = if shares_root {
        let up = from[common..].iter().filter(|c| matches!(c, Component::Normal(_))).map(|_| "..".to_string());
        up.chain(to[common..].iter().map(|c| c.as_os_str().to_string_lossy().into_owned())).collect()
    } else {
        to.iter()
            .filter(|c| !matches!(c, Component::CurDir | Component::RootDir))
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect()
    };
    parts.join("/")
}

#[cfg(test)]
mod tests {
    use super::*;
    use quarry_syntax::SpanRecord;

    fn finding(file: &str, text: &str, line: usize) -> FindingRecord {
        FindingRecord {
            file: file.to_string(),
            query: "Testing equality to None",
            query_id: "equals-none",
            example_type: 1,
            answer_spans: vec![SpanRecord {
                span: text.to_string(),
                start_line: line,
                start_column: 0,
                end_line: line,
                end_column: text.len(),
            }],
            supporting_fact_spans: Vec::new(),
            relevant_blocks: Vec::new(),
            message: "m".into(),
        }
    }

    #[test]
    fn round_trip_matches_by_text_not_line() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("baseline.json");
        let file = dir.path().join("a.py").display().to_string();
        let mut writer = BaselineWriter::new(&path);
        let first = finding(&file, "x == None", 3);
        writer.add(&first, &fingerprint(&first));
        writer.add(&first, &fingerprint(&first));
        writer.write().unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(text.contains("\"file\": \"a.py\""), "{text}");
        let mut baseline = Baseline::load(&path).unwrap();
        let moved = finding(&file, "x  ==  None", 10);
        assert_eq!(fingerprint(&moved), fingerprint(&first));
        assert!(baseline.accept(&moved, &fingerprint(&moved)));
        assert!(baseline.accept(&moved, &fingerprint(&moved)));
        assert!(!baseline.accept(&moved, &fingerprint(&moved)), "only as many as recorded");
        let other = finding(&file, "y == None", 3);
        assert!(!baseline.accept(&other, &fingerprint(&other)));
        assert_eq!(baseline.unmatched(), 0);
        std::fs::write(&path, "{\"version\": 9, \"findings\": []}").unwrap();
        assert!(Baseline::load(&path).unwrap_err().contains("version 9"));
    }

    #[test]
    fn a_baseline_beside_the_code_matches_wherever_the_tree_is_checked_out() {
        let root = tempfile::tempdir().unwrap();
        let write_in = |tree: &Path| {
            std::fs::create_dir_all(tree.join("ci")).unwrap();
            std::fs::create_dir_all(tree.join("src")).unwrap();
            tree.join("ci/baseline.json")
        };
        let (first, second) = (root.path().join("one"), root.path().join("two"));
        let path = write_in(&first);
        let found = finding(&first.join("src/a.py").display().to_string(), "x == None", 3);
        let mut writer = BaselineWriter::new(&path);
        writer.add(&found, &fingerprint(&found));
        writer.write().unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(text.contains("\"file\": \"../src/a.py\""), "{text}");
        // The same tree elsewhere, as a CI runner checks it out.
        let moved_path = write_in(&second);
        std::fs::copy(&path, &moved_path).unwrap();
        let mut baseline = Baseline::load(&moved_path).unwrap();
        let again = finding(&second.join("src/a.py").display().to_string(), "x == None", 5);
        assert!(baseline.accept(&again, &fingerprint(&again)));
    }
}
