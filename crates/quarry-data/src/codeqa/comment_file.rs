//! The input of `quarry codeqa qa|texts`: JSON Lines with one comment per line, in a
//! `"comment"` (or `"docstring"`) string field.

use std::io::BufRead;
use std::path::Path;

use crate::error::DataError;

/// Reads the comments of `path`, one result per line in file order: the comment, or an
/// error naming the file and line (not JSON, no string field). Only a file that cannot be
/// opened or read is an error of the whole.
pub fn read_comments(path: &Path) -> Result<Vec<Result<String, DataError>>, DataError> {
    let file = quarry_syntax::read::open_regular_file(path).map_err(|e| DataError::io(path, e))?;
    let mut out = Vec::new();
    for (n, line) in std::io::BufReader::new(file).lines().enumerate() {
        let bad = |message: String| DataError::BadRecord { path: path.to_path_buf(), line: n + 1, message };
        let line = line.map_err(|e| bad(e.to_string()))?;
        let comment = match serde_json::from_str::<serde_json::Value>(&line) {
            Ok(v) => match v.get("comment").or_else(|| v.get("docstring")).and_then(|c| c.as_str()) {
                Some(c) => Ok(c.to_string()),
                None => Err(bad("no string field \"comment\"".into())),
            },
            Err(e) => Err(bad(format!("not JSON: {e}"))),
        };
        out.push(comment);
    }
    Ok(out)
}
