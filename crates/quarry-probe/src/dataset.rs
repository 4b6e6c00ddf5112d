//! INSPECT's dataset format: one sample a line, `split<TAB>label<TAB>text`,
//! where split is `tr`, `va` or `te` and text is space-separated tokens.
//!
//! Released files hold a few malformed lines: a string literal with a raw
//! newline splits one sample over several lines, and some bytes are not
//! UTF-8. The reader keeps going: a line that does not start with a split tag
//! is the continuation of the sample above it (joined back with a newline);
//! one with no sample above it is skipped. Every such line is counted.

use std::io::Write;
use std::path::Path;

use serde::Serialize;

use crate::error::{ProbeError, Result};

/// Which part of a dataset a sample belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub enum Split {
    /// Training (`tr`).
    Train,
    /// Validation (`va`).
    Validation,
    /// Test (`te`).
    Test,
}

impl Split {
    /// The tag used in dataset files.
    pub fn code(self) -> &'static str {
        match self {
            Split::Train => "tr",
            Split::Validation => "va",
            Split::Test => "te",
        }
    }

    /// Parses a tag of a dataset file.
    pub fn from_code(code: &str) -> Option<Split> {
        match code {
            "tr" => Some(Split::Train),
            "va" => Some(Split::Validation),
            "te" => Some(Split::Test),
            _ => None,
        }
    }

    /// All splits in file order.
    pub const ALL: [Split; 3] = [Split::Train, Split::Validation, Split::Test];
}

/// One labelled sample.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Sample {
    /// Its split.
    pub split: Split,
    /// Its label, as written in the file.
    pub label: String,
    /// The code: space-separated tokens.
    pub text: String,
    /// 1-based line number where the sample starts (0 for samples not read from a file).
    pub line: usize,
}

impl Sample {
    /// The sample's code: the file text with INSPECT's doubled backslashes
    /// (two backslashes in the file for one in the code) undone, so that a
    /// released `'\\''` lexes again as the character literal `'\''`.
    pub fn code(&self) -> String {
        unescape_backslashes(&self.text)
    }
}

/// Undoes the doubling of backslashes in INSPECT's files. Other escapes
/// (`\xe9`, `\u0142` standing for non-ASCII characters) are kept as they
/// are: they only occur inside literals, where they change no label.
pub fn unescape_backslashes(text: &str) -> String {
    text.replace("\\\\", "\\")
}

/// Doubles backslashes as INSPECT's files do.
pub fn escape_backslashes(code: &str) -> String {
    code.replace('\\', "\\\\")
}

/// A line the reader could not take as it was.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct MalformedLine {
    /// 1-based line number.
    pub line: usize,
    /// What was done with it.
    pub action: MalformedAction,
}

/// What the reader did with a malformed line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum MalformedAction {
    /// Appended to the sample above it (a string literal held a newline).
    Continued,
    /// Dropped: no sample above it, or a split tag with no label.
    Skipped,
}

/// A dataset and what the reader had to repair to read it.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Dataset {
    /// The samples in file order.
    pub samples: Vec<Sample>,
    /// Lines that were not `split<TAB>label<TAB>text`.
    pub malformed: Vec<MalformedLine>,
    /// Lines holding bytes that are not UTF-8 (decoded with U+FFFD).
    pub invalid_utf8_lines: usize,
    /// Empty lines, ignored.
    pub blank_lines: usize,
}

impl Dataset {
    /// Parses the bytes of a dataset file. Never fails: problems are counted.
    pub fn parse(bytes: &[u8]) -> Dataset {
        let mut dataset = Dataset::default();
        let mut lines: Vec<&[u8]> = bytes.split(|&b| b == b'\n').collect();
        if lines.last().is_some_and(|last| last.is_empty()) {
            lines.pop(); // the file's final newline
        }
        for (index, raw) in lines.into_iter().enumerate() {
            let number = index + 1;
            let raw = raw.strip_suffix(b"\r").unwrap_or(raw);
            let line = match std::str::from_utf8(raw) {
                Ok(text) => std::borrow::Cow::Borrowed(text),
                Err(_) => {
                    dataset.invalid_utf8_lines += 1;
                    String::from_utf8_lossy(raw)
                }
            };
            if line.trim().is_empty() {
                dataset.blank_lines += 1;
                continue;
            }
            let mut fields = line.splitn(3, '\t');
            let split = fields.next().and_then(Split::from_code);
            let label = fields.next();
            let text = fields.next();
            match (split, label, text) {
                (Some(split), Some(label), Some(text)) if !label.is_empty() => {
                    let text = text.to_string();
                    dataset.samples.push(Sample { split, label: label.to_string(), text, line: number })
                }
                (Some(_), _, _) => {
                    dataset.malformed.push(MalformedLine { line: number, action: MalformedAction::Skipped })
                }
                (None, _, _) => match dataset.samples.last_mut() {
                    Some(previous) => {
                        previous.text.push('\n');
                        previous.text.push_str(&line);
                        dataset.malformed.push(MalformedLine { line: number, action: MalformedAction::Continued });
                    }
                    None => dataset.malformed.push(MalformedLine { line: number, action: MalformedAction::Skipped }),
                },
            }
        }
        dataset
    }

    /// Reads a dataset file: a regular file of at most 4 GiB (a named pipe
    /// or a device is refused, not read). `hub::read_any` also reads the Hub layout.
    pub fn read(path: &Path) -> Result<Dataset> {
        Ok(Dataset::parse(&Dataset::read_bytes(path)?))
    }

    /// The bytes of a dataset file, read as [`Dataset::read`] reads them.
    pub fn read_bytes(path: &Path) -> Result<Vec<u8>> {
        quarry_syntax::read::read_regular_file(path, 4 << 30).map_err(|e| match e {
            quarry_syntax::SyntaxError::Io(e) => ProbeError::Io(e),
            other => ProbeError::Corpus(other.to_string()),
        })
    }

    /// Samples of one split, in file order.
    pub fn split(&self, split: Split) -> impl Iterator<Item = &Sample> {
        self.samples.iter().filter(move |s| s.split == split)
    }

    /// The distinct labels, sorted (numerically where all are numbers).
    pub fn labels(&self) -> Vec<String> {
        sorted_labels(self.samples.iter().map(|s| s.label.as_str()))
    }
}

/// Distinct labels sorted numerically when every label is an integer, else as text.
pub fn sorted_labels<'a>(labels: impl Iterator<Item = &'a str>) -> Vec<String> {
    let mut labels: Vec<String> = labels.map(str::to_string).collect();
    labels.sort();
    labels.dedup();
    if labels.iter().all(|l| l.parse::<i64>().is_ok()) {
        labels.sort_by_key(|l| l.parse::<i64>().unwrap_or(0));
    }
    labels
}

/// Writes samples in INSPECT's format. Tabs and line breaks inside a text
/// become spaces, so every sample is exactly one line.
pub fn write_samples(out: &mut dyn Write, samples: &[Sample]) -> std::io::Result<()> {
    for sample in samples {
        let text: String = sample.text.chars().map(|c| if matches!(c, '\t' | '\n' | '\r') { ' ' } else { c }).collect();
        writeln!(out, "{}\t{}\t{}", sample.split.code(), sample.label, text)?;
    }
    Ok(())
}

/// Writes samples to `path` atomically: a temporary file in the same folder, then a rename.
pub fn write_dataset_file(path: &Path, samples: &[Sample]) -> Result<()> {
    let mut bytes = Vec::new();
    write_samples(&mut bytes, samples).map_err(|e| ProbeError::io(path, e))?;
    Ok(quarry_stdx::write_atomically(path, &bytes)?)
}
