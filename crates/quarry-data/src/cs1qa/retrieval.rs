//! The answer-retrieval question files (`corpus.jsonl`, `q_train.jsonl`, `q_dev.jsonl`,
//! `q_test.jsonl`: `{"id", "text", "doc_id"}` per line) and retrieval results
//! (`{"id", "hits": [{"id", "score"}]}` per question).

use std::collections::HashSet;
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::error::DataError;
use crate::jsonl::{read_lenient, Lenient};
use quarry_stdx::AtomicFile;

/// One question of a retrieval file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RetrievalQuestion {
    /// The question's id (unique across the four files).
    pub id: u64,
    /// The question text.
    pub text: String,
    /// The gold corpus id, null in the published files.
    #[serde(default)]
    pub doc_id: Option<serde_json::Value>,
}

/// Reads a retrieval file; malformed lines and repeated ids are reported with file and
/// line, the rest load.
pub fn read_questions(path: &Path) -> Result<Lenient<RetrievalQuestion>, DataError> {
    let mut seen = HashSet::new();
    read_lenient(
        path,
        |q: &RetrievalQuestion| {
            if seen.insert(q.id) {
                Ok(())
            } else {
                Err(format!("id {} appears more than once", q.id))
            }
        },
    )
}

/// One retrieved document.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Hit {
    /// The corpus question's id.
    pub id: u64,
    /// The retriever's score (BM25 score, or dot product of embeddings).
    pub score: f64,
}

/// The hits of one question, best first.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Retrieved {
    /// The question's id.
    pub id: u64,
    /// Best first.
    pub hits: Vec<Hit>,
}

/// Writes retrieval results as JSON Lines, atomically.
pub fn write_retrieved(path: &Path, results: &[Retrieved]) -> Result<(), DataError> {
    let mut file = AtomicFile::create(path)?;
    for r in results {
        file.write_json_line(r)?;
    }
    Ok(file.commit()?)
}

/// Reads retrieval results; malformed lines are reported, the rest load.
pub fn read_retrieved(path: &Path) -> Result<Lenient<Retrieved>, DataError> {
    read_lenient(path, |_| Ok(()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn questions_and_hits_round_trip() {
        let dir = std::env::temp_dir().join(format!("quarry-cs1qa-retrieval-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("q.jsonl");
        std::fs::write(
            &path,
            "{\"id\": 4, \"text\": \"Why?\", \"doc_id\": null}\n{\"id\": 4, \"text\": \"again\"}\n{\"text\": \"no id\"}\n{\"id\": 7, \"text\": \"How?\"}\n",
        )
        .unwrap();
        let got = read_questions(&path).unwrap();
        assert_eq!(got.records.iter().map(|(l, q)| (*l, q.id)).collect::<Vec<_>>(), [(1, 4), (4, 7)]);
        assert_eq!(got.errors.len(), 2);
        assert!(got.errors[0].to_string().ends_with("q.jsonl:2: id 4 appears more than once"));
        let results = vec![Retrieved { id: 4, hits: vec![Hit { id: 9, score: 1.5 }, Hit { id: 2, score: 0.25 }] }];
        let out = dir.join("hits.jsonl");
        write_retrieved(&out, &results).unwrap();
        let text = std::fs::read_to_string(&out).unwrap();
        assert_eq!(text, "{\"id\":4,\"hits\":[{\"id\":9,\"score\":1.5},{\"id\":2,\"score\":0.25}]}\n");
        assert_eq!(read_retrieved(&out).unwrap().into_records(), results);
    }
}
