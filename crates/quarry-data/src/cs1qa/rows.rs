//! The annotated CS1QA rows as the authors' loaders read them: one JSON object per line
//! with `labNo`, `taskNo`, `questioner`, `question`, `code`, `questionType`, `startLine`,
//! `endLine` (0-based inclusive lines of `code`, both null when no line applies) and
//! `answer`. Rows that share lab, task, questioner, question and code are alternative gold
//! spans of one question.

use std::collections::HashMap;
use std::fmt;
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::error::DataError;
use crate::jsonl::{read_lenient, Lenient};
use quarry_stdx::AtomicFile;

/// The nine question types, in the order of the authors' label list (which is also the
/// tie order of their majority vote).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum QuestionType {
    /// Student: what does this code, function or variable mean ("understanding").
    CodeUnderstanding,
    /// Student: the code runs but does something else than intended.
    Logical,
    /// Student: an error message or a crash.
    Error,
    /// Student: how to use a function or a piece of syntax.
    Usage,
    /// Student: how to approach the problem.
    Algorithm,
    /// Student: what the task asks for.
    Task,
    /// TA: why the student implemented something this way.
    Reasoning,
    /// TA: explain your code.
    CodeExplain,
    /// TA: what does this variable mean.
    Variable,
}

impl QuestionType {
    /// Every type, in label order.
    pub const ALL: [QuestionType; 9] = [
        QuestionType::CodeUnderstanding,
        QuestionType::Logical,
        QuestionType::Error,
        QuestionType::Usage,
        QuestionType::Algorithm,
        QuestionType::Task,
        QuestionType::Reasoning,
        QuestionType::CodeExplain,
        QuestionType::Variable,
    ];

    /// The label as written in the data.
    pub fn name(self) -> &'static str {
        match self {
            QuestionType::CodeUnderstanding => "code_understanding",
            QuestionType::Logical => "logical",
            QuestionType::Error => "error",
            QuestionType::Usage => "usage",
            QuestionType::Algorithm => "algorithm",
            QuestionType::Task => "task",
            QuestionType::Reasoning => "reasoning",
            QuestionType::CodeExplain => "code_explain",
            QuestionType::Variable => "variable",
        }
    }

    /// The position in [`QuestionType::ALL`].
    pub fn index(self) -> usize {
        QuestionType::ALL.iter().position(|t| *t == self).unwrap_or(0)
    }

    /// Who asks questions of this type (the first six are students' types).
    pub fn questioner(self) -> Questioner {
        if self.index() < 6 {
            Questioner::Student
        } else {
            Questioner::Ta
        }
    }

    /// The type with this label.
    pub fn parse(name: &str) -> Option<QuestionType> {
        QuestionType::ALL.into_iter().find(|t| t.name() == name)
    }
}

impl fmt::Display for QuestionType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Who asked the question.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Questioner {
    /// A student.
    #[serde(rename = "student")]
    Student,
    /// A teaching assistant.
    #[serde(rename = "TA")]
    Ta,
}

impl Questioner {
    /// The value as written in the data.
    pub fn name(self) -> &'static str {
        match self {
            Questioner::Student => "student",
            Questioner::Ta => "TA",
        }
    }
}

/// A lab or task number: an integer in the published files, kept as written.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Number {
    /// An integer.
    Int(i64),
    /// Any other text.
    Text(String),
}

impl fmt::Display for Number {
    /// As Python's `str()` prints it, which is how the authors build model inputs.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Number::Int(n) => write!(f, "{n}"),
            Number::Text(s) => f.write_str(s),
        }
    }
}

/// One annotated row.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Cs1qaRow {
    /// Lab number.
    pub lab_no: Number,
    /// Task number within the lab.
    pub task_no: Number,
    /// Who asked.
    pub questioner: Questioner,
    /// The question (English translation in the published files).
    pub question: String,
    /// The whole program at the time of the question, `\n`-separated.
    pub code: String,
    /// The annotated type.
    pub question_type: QuestionType,
    /// First relevant line (0-based), `None` when no line applies (N/A).
    pub start_line: Option<u64>,
    /// Last relevant line (0-based, inclusive), `None` with `start_line`.
    pub end_line: Option<u64>,
    /// The answer given in the chat.
    #[serde(default)]
    pub answer: String,
}

impl Cs1qaRow {
    /// The gold span as an inclusive line range, `None` for N/A.
    pub fn span(&self) -> Option<(u64, u64)> {
        self.start_line.zip(self.end_line)
    }

    /// The text before the code in model inputs: `labNo taskNo questioner question`, as the
    /// authors join it.
    pub fn input_text(&self) -> String {
        format!("{} {} {} {}", self.lab_no, self.task_no, self.questioner.name(), self.question)
    }

    /// Number of lines of `code` (`code.split('\n')`).
    pub fn code_lines(&self) -> usize {
        self.code.split('\n').count()
    }

    /// What makes a row unusable beyond its JSON types.
    pub fn check(&self) -> Result<(), String> {
        match (self.start_line, self.end_line) {
            (None, None) => Ok(()),
            (Some(s), Some(e)) if s <= e => Ok(()),
            (Some(s), Some(e)) => Err(format!("startLine {s} is after endLine {e}")),
            _ => Err("startLine and endLine must both be null or both be line numbers".into()),
        }
    }

    fn key(&self) -> (&Number, &Number, Questioner, &str, &str) {
        (&self.lab_no, &self.task_no, self.questioner, &self.question, &self.code)
    }
}

/// Reads an annotated file; malformed rows are reported with file and line, the rest load.
pub fn read_rows(path: &Path) -> Result<Lenient<Cs1qaRow>, DataError> {
    read_lenient(path, Cs1qaRow::check)
}

/// Writes rows as JSON Lines, atomically.
pub fn write_rows(path: &Path, rows: &[Cs1qaRow]) -> Result<(), DataError> {
    let mut file = AtomicFile::create(path)?;
    for row in rows {
        file.write_json_line(row)?;
    }
    Ok(file.commit()?)
}

/// For each row, the gold spans of every row sharing its lab, task, questioner, question
/// and code, in file order (the row's own included), as the authors' `file_to_spans_list`
/// collects them.
pub fn alternative_spans(rows: &[Cs1qaRow]) -> Vec<Vec<Option<(u64, u64)>>> {
    let mut groups: HashMap<_, Vec<Option<(u64, u64)>>> = HashMap::new();
    for r in rows {
        groups.entry(r.key()).or_default().push(r.span());
    }
    rows.iter().map(|r| groups[&r.key()].clone()).collect()
}

/// The number of distinct questions (rows sharing the key count once).
pub fn question_count(rows: &[Cs1qaRow]) -> usize {
    rows.iter().map(Cs1qaRow::key).collect::<std::collections::HashSet<_>>().len()
}

#[cfg(test)]
mod tests {
    use super::*;

    const ROW: &str = r#"{"labNo": 1, "taskNo": 2, "questioner": "TA", "question": "What is x?", "code": "x = 1\nprint(x)", "questionType": "variable", "startLine": 0, "endLine": 0, "answer": "A counter"}"#;

    #[test]
    fn rows_read_check_and_write_back() {
        let dir = std::env::temp_dir().join(format!("quarry-cs1qa-rows-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("rows.jsonl");
        let na = ROW.replace(r#""startLine": 0, "endLine": 0"#, r#""startLine": null, "endLine": null"#);
        let bad_type = ROW.replace("variable", "comparison");
        let reversed = ROW.replace(r#""startLine": 0, "endLine": 0"#, r#""startLine": 3, "endLine": 1"#);
        let half = ROW.replace(r#""endLine": 0"#, r#""endLine": null"#);
        std::fs::write(&path, [ROW, &bad_type, &na, &reversed, &half, "{}"].join("\n")).unwrap();
        let got = read_rows(&path).unwrap();
        assert_eq!(got.records.iter().map(|r| r.0).collect::<Vec<_>>(), [1, 3]);
        let messages: Vec<String> = got.errors.iter().map(|e| e.to_string()).collect();
        assert_eq!(messages.len(), 4, "{messages:?}");
        assert!(messages[0].contains("rows.jsonl:2:") && messages[0].contains("comparison"), "{messages:?}");
        assert!(messages[1].ends_with(":4: startLine 3 is after endLine 1"), "{messages:?}");
        let rows = got.into_records();
        assert_eq!(rows[0].span(), Some((0, 0)));
        assert_eq!(rows[1].span(), None);
        assert_eq!(rows[0].input_text(), "1 2 TA What is x?");
        assert_eq!(rows[0].code_lines(), 2);
        assert_eq!(rows[0].question_type.questioner(), Questioner::Ta);
        assert_eq!(alternative_spans(&rows), vec![vec![Some((0, 0)), None]; 2]);
        assert_eq!(question_count(&rows), 1);
        let out = dir.join("out.jsonl");
        write_rows(&out, &rows).unwrap();
        assert_eq!(read_rows(&out).unwrap().into_records(), rows);
    }
}
