//! CodeQA's released file layout: parallel files `{split}.code`,
//! `{split}.code.original`, `{split}.question`, `{split}.answer`, one
//! example per line (the same line number in each file is one example).
//!
//! [`read_split_as_written`] reads a split of any CodeQA-format directory; files that
//! are absent (the released train split has no code, Java has none) are
//! `None`. Lines are read by [`super::parallel::read_fields`] as written
//! (not stripped: statistics count what the files hold), empty code lines
//! kept, an empty question or answer line an error; every line count must
//! agree; errors name the file and line. [`SplitWriter`] writes a split
//! atomically (temporary files renamed on `finish`).

use std::path::{Path, PathBuf};

use super::parallel::{read_fields, Field, FieldRead, LineRules};

use crate::error::DataError;
use quarry_stdx::AtomicFile;

/// The file suffixes of one split, in the order examples list them.
pub const SUFFIXES: [&str; 4] = ["code", "code.original", "question", "answer"];

/// One example of a split.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Example {
    /// Sub-tokenized code (`.code`), when the split has code.
    pub code: Option<String>,
    /// Preprocessed code (`.code.original`), when the split has it.
    pub code_original: Option<String>,
    /// The question.
    pub question: String,
    /// The answer.
    pub answer: String,
}

/// A split read from disk: its examples and which files it had.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Split {
    /// The examples, in file order.
    pub examples: Vec<Example>,
    /// True when `.code` was present.
    pub has_code: bool,
    /// True when `.code.original` was present.
    pub has_code_original: bool,
}

/// The path of `split.suffix` in `dir`.
pub fn split_path(dir: &Path, split: &str, suffix: &str) -> PathBuf {
    dir.join(format!("{split}.{suffix}"))
}

/// The splits present in `dir` (those with a `.question` file), in the
/// order train, dev, test, then others alphabetically.
pub fn splits_in(dir: &Path) -> Result<Vec<String>, DataError> {
    let mut names = Vec::new();
    for entry in std::fs::read_dir(dir).map_err(|e| DataError::io(dir, e))? {
        let entry = entry.map_err(|e| DataError::io(dir, e))?;
        let name = entry.file_name().to_string_lossy().into_owned();
        if let Some(split) = name.strip_suffix(".question") {
            names.push(split.to_string());
        }
    }
    let rank = |s: &str| match s {
        "train" => 0,
        "dev" | "valid" => 1,
        "test" => 2,
        _ => 3,
    };
    names.sort_by(|a, b| rank(a).cmp(&rank(b)).then(a.cmp(b)));
    Ok(names)
}

/// Reads `split` from `dir`. The `.question` and `.answer` files are
/// required; the code files are optional.
pub fn read_split_as_written(dir: &Path, split: &str) -> Result<Split, DataError> {
    let read = |field: Field, rules: LineRules, required: bool| FieldRead { field, rules, required };
    let reads = [
        read(Field::Question, LineRules::AS_WRITTEN, true),
        read(Field::Answer, LineRules::AS_WRITTEN, true),
        read(Field::Code, LineRules::AS_WRITTEN_OR_EMPTY, false),
        read(Field::CodeOriginal, LineRules::AS_WRITTEN_OR_EMPTY, false),
    ];
    let mut fields = read_fields(&dir.join(split), &reads)?.into_iter();
    let (questions, answers) =
        (fields.next().flatten().unwrap_or_default(), fields.next().flatten().unwrap_or_default());
    let (code, original) = (fields.next().flatten(), fields.next().flatten());
    let (has_code, has_code_original) = (code.is_some(), original.is_some());
    let mut code_lines = code.map(Vec::into_iter);
    let mut original_lines = original.map(Vec::into_iter);
    let examples = questions
        .into_iter()
        .zip(answers)
        .map(|(question, answer)| Example {
            code: code_lines.as_mut().and_then(Iterator::next),
            code_original: original_lines.as_mut().and_then(Iterator::next),
            question,
            answer,
        })
        .collect();
    Ok(Split { examples, has_code, has_code_original })
}

/// Writes one split's four files atomically.
pub struct SplitWriter {
    files: Vec<AtomicFile>,
    written: usize,
}

impl SplitWriter {
    /// Starts `dir/{split}.{code,code.original,question,answer}`.
    pub fn create(dir: &Path, split: &str) -> Result<SplitWriter, DataError> {
        let files =
            SUFFIXES.iter().map(|s| AtomicFile::create(&split_path(dir, split, s))).collect::<Result<_, _>>()?;
        Ok(SplitWriter { files, written: 0 })
    }

    /// Writes one example; line breaks inside a field become spaces so that
    /// the files stay parallel.
    pub fn write(&mut self, code: &str, code_original: &str, question: &str, answer: &str) -> Result<(), DataError> {
        let fields = [code, code_original, question, answer];
        for (file, field) in self.files.iter_mut().zip(fields) {
            if self.written > 0 {
                file.write_all(b"\n")?;
            }
            let one_line: String = field.split(['\n', '\r']).collect::<Vec<_>>().join(" ");
            file.write_all(one_line.as_bytes())?;
        }
        self.written += 1;
        Ok(())
    }

    /// Number of examples written.
    pub fn len(&self) -> usize {
        self.written
    }

    /// True when nothing was written.
    pub fn is_empty(&self) -> bool {
        self.written == 0
    }

    /// Renames the files into place.
    pub fn finish(self) -> Result<(), DataError> {
        for f in self.files {
            f.commit()?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(dir: &Path, name: &str, text: &str) {
        std::fs::write(dir.join(name), text).unwrap();
    }

    fn temp(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("quarry-codeqa-files-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    #[test]
    fn round_trip_without_final_newline() {
        let d = temp("round");
        let mut w = SplitWriter::create(&d, "dev").unwrap();
        w.write("def f", "def f", "What does the code get ?", "the value").unwrap();
        w.write("def g", "def g", "Does the code run ?", "Yes").unwrap();
        w.finish().unwrap();
        let text = std::fs::read_to_string(d.join("dev.answer")).unwrap();
        assert_eq!(text, "the value\nYes");
        let s = read_split_as_written(&d, "dev").unwrap();
        assert_eq!(s.examples.len(), 2);
        assert_eq!(s.examples[1].code.as_deref(), Some("def g"));
        assert_eq!(splits_in(&d).unwrap(), vec!["dev"]);
    }

    #[test]
    fn code_files_are_optional() {
        let d = temp("optional");
        write(&d, "train.question", "What does the code get ?");
        write(&d, "train.answer", "a value");
        let s = read_split_as_written(&d, "train").unwrap();
        assert!(!s.has_code && !s.has_code_original);
        assert_eq!(s.examples[0].code, None);
    }

    #[test]
    fn mismatched_counts_name_the_file() {
        let d = temp("mismatch");
        write(&d, "dev.question", "Q1 ?\nQ2 ?");
        write(&d, "dev.answer", "a");
        let e = read_split_as_written(&d, "dev").unwrap_err().to_string();
        assert!(e.contains("dev.answer:2") && e.contains("missing"), "{e}");
        write(&d, "dev.answer", "a\nb");
        write(&d, "dev.code", "x");
        let e = read_split_as_written(&d, "dev").unwrap_err().to_string();
        assert!(e.contains("dev.code:"), "{e}");
    }

    #[test]
    fn empty_lines_and_missing_files_are_errors() {
        let d = temp("empty");
        write(&d, "dev.question", "Q1 ?\n\nQ3 ?");
        write(&d, "dev.answer", "a\nb\nc");
        let e = read_split_as_written(&d, "dev").unwrap_err().to_string();
        assert!(e.contains("dev.question:2") && e.contains("empty line"), "{e}");
        let e = read_split_as_written(&d, "test").unwrap_err().to_string();
        assert!(e.contains("test.question"), "{e}");
    }
}
