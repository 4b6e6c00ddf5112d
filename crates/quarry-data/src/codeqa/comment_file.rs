//! The input of `quarry codeqa qa|texts`: JSON Lines with one comment per line, in a
//! `"comment"` (or `"docstring"`) string field.

use std::io::BufRead;
use std::path::Path;

use crate::error::DataError;
use crate::jsonl::{not_a_record_file, MAX_LEADING_BAD_LINES};

/// Reads the comments of `path`, one result per line in file order: the comment, or an
/// error naming the file and line (not JSON, no string field). A file that cannot be
/// opened or read, and one whose first [`MAX_LEADING_BAD_LINES`] lines hold no comment
/// record, is an error of the whole.
pub fn read_comments(path: &Path) -> Result<Vec<Result<String, DataError>>, DataError> {
    let file = quarry_syntax::read::open_regular_file(path).map_err(|e| DataError::io(path, e))?;
    let mut out = Vec::new();
    let mut any_record = false;
    for (n, line) in std::io::BufReader::new(file).lines().enumerate() {
        let bad = |message: String| DataError::BadRecord { path: path.to_path_buf(), line: n + 1, message };
        if n == MAX_LEADING_BAD_LINES && !any_record {
            return Err(not_a_record_file(
                path,
                "a comment record (a JSON object with a \"comment\" or \"docstring\" string)",
            ));
        }
        let line = line.map_err(|e| bad(e.to_string()))?;
        let comment = match crate::jsonl::parse_line::<serde_json::Value>(&line) {
            Ok(v) => match v.get("comment").or_else(|| v.get("docstring")).and_then(|c| c.as_str()) {
                Some(c) => Ok(c.to_string()),
                None => Err(bad("no string field \"comment\"".into())),
            },
            Err(e) => Err(bad(format!("not JSON: {e}"))),
        };
        any_record |= comment.is_ok();
        out.push(comment);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn malformed_lines_are_reported_one_by_one() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("comments.jsonl");
        std::fs::write(&path, "{\"comment\": \"Returns x.\"}\nnot json\n{\"other\": 1}\n{\"docstring\": \"Adds.\"}\n")
            .unwrap();
        let comments = read_comments(&path).unwrap();
        assert_eq!(comments.len(), 4);
        assert_eq!(comments[0].as_deref().unwrap(), "Returns x.");
        assert!(
            comments[1].as_ref().unwrap_err().to_string().ends_with(":2: not JSON: expected ident at line 1 column 2"),
            "{:?}",
            comments[1]
        );
        assert!(comments[2].as_ref().unwrap_err().to_string().contains("no string field"));
        assert_eq!(comments[3].as_deref().unwrap(), "Adds.");
    }

    #[test]
    fn a_file_without_any_leading_record_is_refused_as_a_whole() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("code.py");
        let code = "def f(a):\n    return a\n".repeat(MAX_LEADING_BAD_LINES);
        std::fs::write(&path, &code).unwrap();
        let error = read_comments(&path).unwrap_err().to_string();
        assert!(error.contains("code.py") && error.contains("not a file of that kind"), "{error}");
        // One record among the first lines makes it a comment file with bad lines.
        std::fs::write(&path, format!("{{\"comment\": \"Returns a.\"}}\n{code}")).unwrap();
        assert_eq!(read_comments(&path).unwrap().len(), 2 * MAX_LEADING_BAD_LINES + 1);
    }
}
