//! CS1QA answer retrieval by BM25 over the corpus questions: quarry-eval's rank-bm25
//! `BM25Okapi` over the authors' tokens ([`quarry_eval::cs1qa::bm25_tokens`]). The
//! paper's training pairs for the dense retriever (each question's BM25 top-1 corpus
//! question as the positive) are built from it in quarry-model.

use quarry_eval::bm25::{Bm25, Bm25Params};
use quarry_eval::cs1qa::bm25_tokens;

use super::retrieval::{Hit, RetrievalQuestion, Retrieved};
use crate::error::DataError;

/// A BM25 index over corpus questions.
pub struct Bm25Retriever {
    index: Bm25,
    ids: Vec<u64>,
}

impl Bm25Retriever {
    /// Indexes `corpus` with rank-bm25's default parameters.
    pub fn new(corpus: &[RetrievalQuestion]) -> Result<Self, DataError> {
        let docs: Vec<Vec<String>> = corpus.iter().map(|q| bm25_tokens(&q.text)).collect();
        let index = Bm25::new(&docs, Bm25Params::default()).map_err(|e| DataError::Invalid(format!("BM25: {e}")))?;
        Ok(Bm25Retriever { index, ids: corpus.iter().map(|q| q.id).collect() })
    }

    /// The `k` best corpus questions for `text`, best first (equal scores: later corpus
    /// question first, see [`Bm25::top_n`]).
    pub fn search(&self, text: &str, k: usize) -> Vec<Hit> {
        self.index
            .top_n_scored(&bm25_tokens(text), k)
            .into_iter()
            .map(|(i, score)| Hit { id: self.ids[i], score })
            .collect()
    }

    /// [`Bm25Retriever::search`] for every question.
    pub fn search_all(&self, questions: &[RetrievalQuestion], k: usize) -> Vec<Retrieved> {
        questions.iter().map(|q| Retrieved { id: q.id, hits: self.search(&q.text, k) }).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn q(id: u64, text: &str) -> RetrievalQuestion {
        RetrievalQuestion { id, text: text.into(), doc_id: None }
    }

    #[test]
    fn bm25_retrieves_by_shared_words() {
        assert_eq!(bm25_tokens("What does\u{a0}Hubo DO?\n x"), ["what", "does", "hubo", "do?", "x"]);
        let corpus = [
            q(10, "How do I turn Hubo right?"),
            q(11, "What is a list?"),
            q(12, "Why does my loop never end?"),
            q(13, "ok"),
        ];
        let r = Bm25Retriever::new(&corpus).unwrap();
        let hits = r.search("my loop does not end", 2);
        assert_eq!(hits[0].id, 12);
        assert!(hits[0].score > hits[1].score);
        let all = r.search_all(&[q(1, "what is a list?"), q(2, "turn hubo")], 1);
        assert_eq!(all.iter().map(|x| (x.id, x.hits[0].id)).collect::<Vec<_>>(), [(1, 11), (2, 10)]);
    }
}
