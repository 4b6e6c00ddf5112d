//! Okapi BM25 exactly as rank-bm25's `BM25Okapi` scores a tokenized corpus:
//! idf `ln(N - df + 0.5) - ln(df + 0.5)`, negative idf replaced by
//! `epsilon * mean idf`, and the same floating-point operation order.

use std::collections::HashMap;

use crate::EvalError;

/// BM25 parameters (rank-bm25's defaults via [`Default`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Bm25Params {
    /// Term frequency saturation.
    pub k1: f64,
    /// Length normalization.
    pub b: f64,
    /// Floor factor for negative idf values.
    pub epsilon: f64,
}

impl Default for Bm25Params {
    fn default() -> Self {
        Bm25Params { k1: 1.5, b: 0.75, epsilon: 0.25 }
    }
}

/// An index over a tokenized corpus.
#[derive(Debug, Clone)]
pub struct Bm25 {
    params: Bm25Params,
    doc_freqs: Vec<HashMap<String, u64>>,
    doc_len: Vec<f64>,
    avgdl: f64,
    idf: HashMap<String, f64>,
}

impl Bm25 {
    /// Builds the index (rank-bm25's `BM25Okapi(corpus, k1=, b=, epsilon=)`).
    pub fn new<S: AsRef<str>>(corpus: &[Vec<S>], params: Bm25Params) -> Result<Bm25, EvalError> {
        if corpus.is_empty() {
            return Err(EvalError::EmptyInput);
        }
        let mut doc_freqs = Vec::with_capacity(corpus.len());
        let mut doc_len = Vec::with_capacity(corpus.len());
        // document frequencies in first-seen order, as Python's dict keeps them
        let mut order: Vec<String> = Vec::new();
        let mut nd: HashMap<String, u64> = HashMap::new();
        let mut num_doc: u64 = 0;
        for doc in corpus {
            doc_len.push(doc.len() as f64);
            num_doc += doc.len() as u64;
            let mut freqs: HashMap<String, u64> = HashMap::new();
            let mut seen_order: Vec<&str> = Vec::new();
            for w in doc {
                let w = w.as_ref();
                let e = freqs.entry(w.to_string()).or_insert(0);
                if *e == 0 {
                    seen_order.push(w);
                }
                *e += 1;
            }
            for w in seen_order {
                match nd.get_mut(w) {
                    Some(c) => *c += 1,
                    None => {
                        nd.insert(w.to_string(), 1);
                        order.push(w.to_string());
                    }
                }
            }
            doc_freqs.push(freqs);
        }
        let n = corpus.len() as f64;
        let avgdl = num_doc as f64 / n;
        let mut idf = HashMap::with_capacity(order.len());
        let mut idf_sum = 0.0;
        let mut negative = Vec::new();
        for w in &order {
            let freq = nd[w] as f64;
            let v = (n - freq + 0.5).ln() - (freq + 0.5).ln();
            idf_sum += v;
            if v < 0.0 {
                negative.push(w.clone());
            }
            idf.insert(w.clone(), v);
        }
        let average_idf = if order.is_empty() { 0.0 } else { idf_sum / order.len() as f64 };
        let eps = params.epsilon * average_idf;
        for w in negative {
            idf.insert(w, eps);
        }
        Ok(Bm25 { params, doc_freqs, doc_len, avgdl, idf })
    }

    /// Number of documents.
    pub fn len(&self) -> usize {
        self.doc_len.len()
    }

    /// Always false: an index holds at least one document.
    pub fn is_empty(&self) -> bool {
        self.doc_len.is_empty()
    }

    /// The idf of a term (0 when unseen).
    pub fn idf(&self, term: &str) -> f64 {
        self.idf.get(term).copied().unwrap_or(0.0)
    }

    /// Scores of every document for a tokenized query (`get_scores`).
    pub fn scores<S: AsRef<str>>(&self, query: &[S]) -> Vec<f64> {
        let Bm25Params { k1, b, .. } = self.params;
        let mut score = vec![0.0; self.len()];
        for q in query {
            let q = q.as_ref();
            let idf = self.idf(q);
            for (i, s) in score.iter_mut().enumerate() {
                let f = self.doc_freqs[i].get(q).copied().unwrap_or(0) as f64;
                *s += idf * (f * (k1 + 1.0) / (f + k1 * (1.0 - b + b * self.doc_len[i] / self.avgdl)));
            }
        }
        score
    }

    /// Indices of the `n` best documents, best first. Equal scores put the
    /// later document first, as reversing a stable ascending sort does
    /// (numpy's default `argsort` in rank-bm25's `get_top_n` does not promise
    /// any order among ties).
    pub fn top_n<S: AsRef<str>>(&self, query: &[S], n: usize) -> Vec<usize> {
        let scores = self.scores(query);
        let mut idx: Vec<usize> = (0..scores.len()).collect();
        idx.sort_by(|&a, &b| scores[b].total_cmp(&scores[a]).then(b.cmp(&a)));
        idx.truncate(n);
        idx
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rank_bm25_readme_example() {
        let corpus: Vec<Vec<&str>> =
            ["Hello there good man!", "It is quite windy in London", "How is the weather today?"]
                .iter()
                .map(|d| d.split(' ').collect())
                .collect();
        let bm = Bm25::new(&corpus, Bm25Params::default()).unwrap();
        let s = bm.scores(&["windy", "London"]);
        assert_eq!(s[0], 0.0);
        assert!(s[1] == 0.937_294_722_506_405_1, "{s:?}");
        assert_eq!(bm.top_n(&["windy", "London"], 1), [1]);
    }
}
