//! Stored parses: [`Doc`]s read from a JSON Lines file (one `Doc` per line,
//! as `quarry nlp parse --format json` or `scripts/codeqa/spacy_docs.py`
//! write them), looked up by their text. They let the generator run on
//! another parser's output (spaCy's, to cross-check quarry-nlp) and make
//! tests independent of model files.

use std::collections::HashMap;
use std::io::BufRead;
use std::path::Path;

use quarry_nlp::Doc;

use super::generate::CommentParser;
use crate::error::DataError;

/// Parses looked up by text.
#[derive(Debug, Default, Clone)]
pub struct StoredParses {
    docs: HashMap<String, Doc>,
}

impl StoredParses {
    /// Reads a JSON Lines file of docs; a bad line is an error naming the
    /// file and line.
    pub fn read(path: &Path) -> Result<StoredParses, DataError> {
        let file = quarry_syntax::read::open_regular_file(path).map_err(|e| DataError::io(path, e))?;
        let mut docs = HashMap::new();
        for (n, line) in std::io::BufReader::new(file).lines().enumerate() {
            let line = line.map_err(|e| DataError::io(path, e))?;
            if line.trim().is_empty() {
                continue;
            }
            let doc: Doc = serde_json::from_str(&line).map_err(|e| DataError::BadRecord {
                path: path.to_path_buf(),
                line: n + 1,
                message: format!("not a parsed doc: {e}"),
            })?;
            if let Some(bad) = doc.tokens.iter().position(|t| t.head >= doc.tokens.len()) {
                return Err(DataError::BadRecord {
                    path: path.to_path_buf(),
                    line: n + 1,
                    message: format!("token {bad} has a head outside the doc"),
                });
            }
            docs.insert(doc.text.clone(), doc);
        }
        Ok(StoredParses { docs })
    }

    /// Stores docs given in memory.
    pub fn from_docs(docs: impl IntoIterator<Item = Doc>) -> StoredParses {
        StoredParses { docs: docs.into_iter().map(|d| (d.text.clone(), d)).collect() }
    }

    /// Number of stored docs.
    pub fn len(&self) -> usize {
        self.docs.len()
    }

    /// True when nothing is stored.
    pub fn is_empty(&self) -> bool {
        self.docs.is_empty()
    }
}

impl CommentParser for StoredParses {
    fn parse_many(&mut self, texts: &[&str]) -> Vec<Result<Doc, String>> {
        texts.iter().map(|t| self.docs.get(*t).cloned().ok_or_else(|| format!("no stored parse for {t:?}"))).collect()
    }
}
