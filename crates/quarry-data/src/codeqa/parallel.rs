//! Readers and writers for CodeQA's parallel files: `PREFIX.code`, `PREFIX.code.original`,
//! `PREFIX.question` and `PREFIX.answer` (e.g. `python/dev.code`), where line `i` of every
//! file belongs to example `i`.
//!
//! [`read_lines_with`] is the one line reader of CodeQA's files and [`read_fields`] the one
//! split reader (the model's [`read_split`] and [`super::files`]' statistics reader both use it). A line is always ended by `\n`,
//! `\r\n` or a lone `\r` (Python's universal newlines, which `run.py` reads with); the last
//! line needs no terminator; text that is not UTF-8 is an error naming the file and the
//! (1-based) line. Whether lines are stripped of surrounding whitespace and whether an empty
//! (or all-whitespace) line is allowed are [`LineRules`]: the model's inputs are read as
//! `run.py` reads them ([`LineRules::MODEL_INPUT`]: stripped, none empty). Files whose line
//! counts differ are errors naming the file and line.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use crate::error::DataError;
use quarry_stdx::AtomicFile;

/// One of the parallel files of a split.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Field {
    /// `.code`: the function split into sub-tokens (what the authors' models read).
    Code,
    /// `.code.original`: the function before sub-token splitting.
    CodeOriginal,
    /// `.question`.
    Question,
    /// `.answer`.
    Answer,
}

impl Field {
    /// The file name suffix, dot included.
    pub fn suffix(self) -> &'static str {
        match self {
            Field::Code => ".code",
            Field::CodeOriginal => ".code.original",
            Field::Question => ".question",
            Field::Answer => ".answer",
        }
    }
}

/// The file names of a split: `PREFIX` + suffix.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SplitFiles {
    prefix: PathBuf,
}

impl SplitFiles {
    /// The split at `prefix`, e.g. `data/codeqa/python/dev`.
    pub fn new(prefix: &Path) -> Self {
        SplitFiles { prefix: prefix.to_path_buf() }
    }

    /// The path of one field's file.
    pub fn path(&self, field: Field) -> PathBuf {
        let mut name = OsString::from(self.prefix.as_os_str());
        name.push(field.suffix());
        PathBuf::from(name)
    }
}

/// One CodeQA example.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CodeQaExample {
    /// The sub-tokenized function (`.code`).
    pub code: String,
    /// The function before sub-token splitting (`.code.original`), when read.
    pub code_original: Option<String>,
    /// The question.
    pub question: String,
    /// The gold answer, when read.
    pub answer: Option<String>,
}

/// How the lines of a parallel file are taken.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LineRules {
    /// Strip surrounding whitespace from every line (`run.py`'s `line.strip()`).
    pub trim: bool,
    /// Keep empty and all-whitespace lines; otherwise such a line is an error naming the
    /// file and line.
    pub allow_empty: bool,
}

impl LineRules {
    /// As `run.py` reads a model's inputs and references: stripped, none empty.
    pub const MODEL_INPUT: LineRules = LineRules { trim: true, allow_empty: false };
    /// Lines exactly as written, none empty: questions and answers counted for statistics.
    pub const AS_WRITTEN: LineRules = LineRules { trim: false, allow_empty: false };
    /// Lines exactly as written, empty ones kept: code counted for statistics.
    pub const AS_WRITTEN_OR_EMPTY: LineRules = LineRules { trim: false, allow_empty: true };
}

/// Reads the stripped lines of `path` ([`LineRules::MODEL_INPUT`]); an empty line is an
/// error naming the file and line.
pub fn read_lines(path: &Path) -> Result<Vec<String>, DataError> {
    read_lines_with(path, LineRules::MODEL_INPUT)
}

/// Reads the lines of `path` with `rules`.
pub fn read_lines_with(path: &Path, rules: LineRules) -> Result<Vec<String>, DataError> {
    let mut bytes = Vec::new();
    quarry_syntax::read::open_regular_file(path)
        .and_then(|mut file| std::io::Read::read_to_end(&mut file, &mut bytes))
        .map_err(|e| DataError::io(path, e))?;
    let text = match String::from_utf8(bytes) {
        Ok(t) => t,
        Err(e) => {
            let bytes = e.as_bytes();
            let at = e.utf8_error().valid_up_to();
            let line = 1 + split_lines(&String::from_utf8_lossy(&bytes[..at])).len().saturating_sub(1);
            return Err(DataError::BadRecord { path: path.to_path_buf(), line, message: "text is not UTF-8".into() });
        }
    };
    let mut out = Vec::new();
    for (i, line) in split_lines(&text).into_iter().enumerate() {
        if !rules.allow_empty && line.trim().is_empty() {
            return Err(DataError::BadRecord {
                path: path.to_path_buf(),
                line: i + 1,
                message: "empty line (every line must hold one example)".into(),
            });
        }
        out.push(if rules.trim { line.trim() } else { line }.to_string());
    }
    Ok(out)
}

/// Splits on `\n`, `\r\n` and lone `\r`; a final terminator does not start another line.
fn split_lines(text: &str) -> Vec<&str> {
    let mut lines = Vec::new();
    let bytes = text.as_bytes();
    let mut start = 0;
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'\n' => {
                lines.push(&text[start..i]);
                start = i + 1;
            }
            b'\r' => {
                lines.push(&text[start..i]);
                if bytes.get(i + 1) == Some(&b'\n') {
                    i += 1;
                }
                start = i + 1;
            }
            _ => {}
        }
        i += 1;
    }
    if start < bytes.len() {
        lines.push(&text[start..]);
    }
    lines
}

/// One parallel file for [`read_fields`] to read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FieldRead {
    /// Which file.
    pub field: Field,
    /// How its lines are taken.
    pub rules: LineRules,
    /// Whether it must exist; an optional file that does not exist reads as `None`.
    pub required: bool,
}

/// Reads parallel files of the split at `prefix`, the one split reader of CodeQA's files:
/// each of `reads` in order, `None` for an optional file that does not exist. Every file
/// read must have as many lines as the first; otherwise the error names the shorter file's
/// first missing line (or the longer file's first extra line).
pub fn read_fields(prefix: &Path, reads: &[FieldRead]) -> Result<Vec<Option<Vec<String>>>, DataError> {
    let files = SplitFiles::new(prefix);
    let mut first: Option<(PathBuf, usize)> = None;
    let mut out = Vec::with_capacity(reads.len());
    for read in reads {
        let path = files.path(read.field);
        if !read.required && !path.exists() {
            out.push(None);
            continue;
        }
        let lines = read_lines_with(&path, read.rules)?;
        match &first {
            None => first = Some((path, lines.len())),
            Some((first_path, n)) if lines.len() != *n => {
                let (line, what) = if lines.len() < *n { (lines.len() + 1, "missing") } else { (n + 1, "extra line") };
                let message = format!("{what}: the file has {} lines, {} has {n}", lines.len(), first_path.display());
                return Err(DataError::BadRecord { path, line, message });
            }
            Some(_) => {}
        }
        out.push(Some(lines));
    }
    Ok(out)
}

/// Reads the examples of the split at `prefix` as the models read them
/// ([`LineRules::MODEL_INPUT`]): `.code` and `.question` always, `.answer` when
/// `with_answers`, `.code.original` when `with_original`.
///
/// Every file read must have as many lines as `.code`; otherwise the error names the
/// shorter file's first missing line (or the longer file's first extra line).
pub fn read_split(prefix: &Path, with_answers: bool, with_original: bool) -> Result<Vec<CodeQaExample>, DataError> {
    let read = |field: Field| FieldRead { field, rules: LineRules::MODEL_INPUT, required: true };
    let mut reads = vec![read(Field::Code), read(Field::Question)];
    if with_answers {
        reads.push(read(Field::Answer));
    }
    if with_original {
        reads.push(read(Field::CodeOriginal));
    }
    let mut fields = read_fields(prefix, &reads)?.into_iter().map(Option::unwrap_or_default);
    let (code, question) = (fields.next().unwrap_or_default(), fields.next().unwrap_or_default());
    let mut answer = if with_answers { fields.next().map(Vec::into_iter) } else { None };
    let mut original = if with_original { fields.next().map(Vec::into_iter) } else { None };
    Ok(code
        .into_iter()
        .zip(question)
        .map(|(code, question)| CodeQaExample {
            code,
            question,
            answer: answer.as_mut().and_then(Iterator::next),
            code_original: original.as_mut().and_then(Iterator::next),
        })
        .collect())
}

fn check_line(path: &Path, line: usize, text: &str) -> Result<(), DataError> {
    if text.trim().is_empty() || text.contains(['\n', '\r']) {
        return Err(DataError::BadRecord {
            path: path.to_path_buf(),
            line,
            message: "a field must be one non-empty line".into(),
        });
    }
    Ok(())
}

/// Writes `examples` as parallel files at `prefix` (each file atomically): `.code` and
/// `.question` always, `.answer` and `.code.original` when every example has them. Lines
/// are newline-separated with no newline after the last, like the released files.
pub fn write_split(prefix: &Path, examples: &[CodeQaExample]) -> Result<(), DataError> {
    let files = SplitFiles::new(prefix);
    let mut fields: Vec<(Field, Vec<&str>)> = vec![
        (Field::Code, examples.iter().map(|e| e.code.as_str()).collect()),
        (Field::Question, examples.iter().map(|e| e.question.as_str()).collect()),
    ];
    if let Some(a) = examples.iter().map(|e| e.answer.as_deref()).collect::<Option<Vec<_>>>() {
        fields.push((Field::Answer, a));
    }
    if let Some(o) = examples.iter().map(|e| e.code_original.as_deref()).collect::<Option<Vec<_>>>() {
        fields.push((Field::CodeOriginal, o));
    }
    for (field, lines) in fields {
        let path = files.path(field);
        for (i, l) in lines.iter().enumerate() {
            check_line(&path, i + 1, l)?;
        }
        let mut out = AtomicFile::create(&path)?;
        out.write_all(lines.join("\n").as_bytes())?;
        out.commit()?;
    }
    Ok(())
}

/// Writes answers as `quarry evaluate answer` reads hypotheses: one per line, each ended by a
/// newline, a line break inside an answer written as a space; atomically.
pub fn write_answers(path: &Path, answers: &[String]) -> Result<(), DataError> {
    let mut out = AtomicFile::create(path)?;
    for answer in answers {
        let line: String = answer.chars().map(|c| if c == '\n' || c == '\r' { ' ' } else { c }).collect();
        out.write_all(line.as_bytes())?;
        out.write_all(b"\n")?;
    }
    out.commit()?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temp_prefix(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("quarry-codeqa-{name}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        dir.join("split")
    }

    fn write(prefix: &Path, field: Field, text: &[u8]) {
        std::fs::write(SplitFiles::new(prefix).path(field), text).unwrap();
    }

    #[test]
    fn reads_and_writes_parallel_files() {
        let prefix = temp_prefix("roundtrip");
        write(&prefix, Field::Code, b"def f x return x\r\ndef g  pass\n");
        write(&prefix, Field::Question, b"What does f return ?\rWhat does g do ?");
        write(&prefix, Field::Answer, b" x \nnothing\n");
        let examples = read_split(&prefix, true, false).unwrap();
        assert_eq!(examples.len(), 2);
        assert_eq!(examples[0].answer.as_deref(), Some("x"));
        assert_eq!(examples[1].question, "What does g do ?");
        assert_eq!(examples[1].code_original, None);
        let out = temp_prefix("roundtrip-out");
        write_split(&out, &examples).unwrap();
        assert_eq!(read_split(&out, true, false).unwrap(), examples);
        assert!(!SplitFiles::new(&out).path(Field::CodeOriginal).exists());
    }

    #[test]
    fn mismatched_counts_name_the_file_and_line() {
        let prefix = temp_prefix("mismatch");
        write(&prefix, Field::Code, b"a\nb\nc");
        write(&prefix, Field::Question, b"q1\nq2");
        let err = read_split(&prefix, false, false).unwrap_err().to_string();
        assert!(err.contains("split.question:3") && err.contains("missing"), "{err}");
        write(&prefix, Field::Question, b"q1\nq2\nq3\nq4\n");
        let err = read_split(&prefix, false, false).unwrap_err().to_string();
        assert!(err.contains("split.question:4") && err.contains("extra"), "{err}");
        write(&prefix, Field::Question, b"q1\nq2\nq3");
        let err = read_split(&prefix, true, false).unwrap_err().to_string();
        assert!(err.contains("split.answer"), "{err}");
    }

    #[test]
    fn empty_lines_and_bad_text_name_the_file_and_line() {
        let prefix = temp_prefix("empty");
        write(&prefix, Field::Code, b"a\n  \nc");
        let err = read_split(&prefix, false, false).unwrap_err().to_string();
        assert!(err.contains("split.code:2") && err.contains("empty line"), "{err}");
        write(&prefix, Field::Code, b"a\nb\xff\nc");
        let err = read_split(&prefix, false, false).unwrap_err().to_string();
        assert!(err.contains("split.code:2") && err.contains("UTF-8"), "{err}");
        let bad = CodeQaExample { code: "x".into(), code_original: None, question: "two\nlines".into(), answer: None };
        let err = write_split(&temp_prefix("bad-write"), &[bad]).unwrap_err().to_string();
        assert!(err.contains("split.question:1"), "{err}");
    }

    #[test]
    fn line_rules_choose_trimming_and_empty_lines() {
        let prefix = temp_prefix("rules");
        write(&prefix, Field::Code, b" a \r\n\rb\nc");
        let path = SplitFiles::new(&prefix).path(Field::Code);
        let kept = read_lines_with(&path, LineRules::AS_WRITTEN_OR_EMPTY).unwrap();
        assert_eq!(kept, vec![" a ", "", "b", "c"]);
        let err = read_lines_with(&path, LineRules::AS_WRITTEN).unwrap_err().to_string();
        assert!(err.contains("split.code:2") && err.contains("empty line"), "{err}");
        write(&prefix, Field::Code, b" a \r\nb ");
        assert_eq!(read_lines_with(&path, LineRules::AS_WRITTEN).unwrap(), vec![" a ", "b "]);
        assert_eq!(read_lines(&path).unwrap(), vec!["a", "b"]);
    }

    #[test]
    fn released_python_dev_split_reads_whole() {
        // `shared/` lies beside the repository (or beside the folder of a worktree).
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
        let Some(prefix) = ["../shared", "../../shared"]
            .iter()
            .map(|s| root.join(s).join("data/codeqa/python/dev"))
            .find(|p| SplitFiles::new(p).path(Field::Code).is_file())
        else {
            eprintln!("skipping: CodeQA data not found beside {}", root.display());
            return;
        };
        let examples = read_split(&prefix, true, true).unwrap();
        assert_eq!(examples.len(), 7000);
        assert_eq!(examples[1].answer.as_deref(), Some("No"));
        assert!(examples.iter().all(|e| e.code_original.is_some()));
    }
}
