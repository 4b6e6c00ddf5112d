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
///
/// Scores are computed from an inverted index: a document that lacks a query term gains
/// `idf * 0 / norm = ±0.0` from it in rank-bm25, which leaves its running sum unchanged, so
/// visiting only the documents holding each term gives bit-identical scores. The dense
/// per-document loop is kept for the parameters where that term is not zero (`k1 = 0`, or
/// an average document length of zero, where rank-bm25 divides zero by zero).
#[derive(Debug, Clone)]
pub struct Bm25 {
    params: Bm25Params,
    /// term -> (document, frequency) in document order.
    postings: HashMap<String, Vec<(u32, f64)>>,
    /// `k1 * (1 - b + b * doc_len / avgdl)` per document, in rank-bm25's operation order.
    norm: Vec<f64>,
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
        if corpus.len() > u32::MAX as usize {
            return Err(EvalError::InvalidParameter(format!("{} documents are more than BM25 indexes", corpus.len())));
        }
        let mut postings: HashMap<String, Vec<(u32, f64)>> = HashMap::new();
        let mut doc_len = Vec::with_capacity(corpus.len());
        // document frequencies in first-seen order, as Python's dict keeps them
        let mut order: Vec<String> = Vec::new();
        let mut num_doc: u64 = 0;
        for (d, doc) in corpus.iter().enumerate() {
            doc_len.push(doc.len() as f64);
            num_doc += doc.len() as u64;
            let mut freqs: HashMap<&str, u64> = HashMap::new();
            let mut seen_order: Vec<&str> = Vec::new();
            for w in doc {
                let w = w.as_ref();
                let e = freqs.entry(w).or_insert(0);
                if *e == 0 {
                    seen_order.push(w);
                }
                *e += 1;
            }
            for w in seen_order {
                let f = freqs[w] as f64;
                match postings.get_mut(w) {
                    Some(list) => list.push((d as u32, f)),
                    None => {
                        postings.insert(w.to_string(), vec![(d as u32, f)]);
                        order.push(w.to_string());
                    }
                }
            }
        }
        let n = corpus.len() as f64;
        let avgdl = num_doc as f64 / n;
        let mut idf = HashMap::with_capacity(order.len());
        let mut idf_sum = 0.0;
        let mut negative = Vec::new();
        for w in &order {
            let freq = postings[w].len() as f64;
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
        let Bm25Params { k1, b, .. } = params;
        let norm = doc_len.iter().map(|&dl| k1 * (1.0 - b + b * dl / avgdl)).collect();
        Ok(Bm25 { params, postings, norm, doc_len, avgdl, idf })
    }

    /// Number of documents.
    pub fn len(&self) -> usize {
        self.doc_len.len()
    }

    /// Always false: an index holds at least one document.
    pub fn is_empty(&self) -> bool {
        self.doc_len.is_empty()
    }

    /// The average document length in tokens.
    pub fn avgdl(&self) -> f64 {
        self.avgdl
    }

    /// The idf of a term (0 when unseen).
    pub fn idf(&self, term: &str) -> f64 {
        self.idf.get(term).copied().unwrap_or(0.0)
    }

    /// Whether a document without a term may gain something other than zero from it.
    fn absent_terms_count(&self) -> bool {
        // k1 = 0 makes a norm 0; an average length of 0 makes every norm NaN
        self.norm.iter().any(|v| !v.is_finite() || *v == 0.0)
    }

    /// Scores of every document for a tokenized query (`get_scores`). An
    /// empty query scores every document 0, and so does an empty document
    /// (rank-bm25 gives NaN where every document is empty).
    pub fn scores<S: AsRef<str>>(&self, query: &[S]) -> Vec<f64> {
        let k1 = self.params.k1;
        let mut score = vec![0.0; self.len()];
        let dense = self.absent_terms_count();
        for q in query {
            let q = q.as_ref();
            let idf = self.idf(q);
            let list = self.postings.get(q).map(Vec::as_slice).unwrap_or(&[]);
            if dense {
                let mut next = list.iter().peekable();
                for (i, s) in score.iter_mut().enumerate() {
                    // A document without tokens holds no query term and
                    // scores 0, where rank-bm25 divides 0 by 0 (every
                    // document empty: average length 0; or k1 = 0) and
                    // yields NaN, a score no ranking or JSON can use.
                    if self.doc_len[i] == 0.0 {
                        continue;
                    }
                    let f = match next.peek() {
                        Some(&&(d, f)) if d as usize == i => {
                            next.next();
                            f
                        }
                        _ => 0.0,
                    };
                    *s += idf * (f * (k1 + 1.0) / (f + self.norm[i]));
                }
            } else {
                for &(d, f) in list {
                    let d = d as usize;
                    score[d] += idf * (f * (k1 + 1.0) / (f + self.norm[d]));
                }
            }
        }
        score
    }

    /// Indices of the `n` best documents, best first. Equal scores put the
    /// later document first, as reversing a stable ascending sort does
    /// (numpy's default `argsort` in rank-bm25's `get_top_n` does not promise
    /// any order among ties).
    pub fn top_n<S: AsRef<str>>(&self, query: &[S], n: usize) -> Vec<usize> {
        self.top_n_scored(query, n).into_iter().map(|(i, _)| i).collect()
    }

    /// The `n` best documents with their scores, best first, ties as [`Bm25::top_n`].
    pub fn top_n_scored<S: AsRef<str>>(&self, query: &[S], n: usize) -> Vec<(usize, f64)> {
        let scores = self.scores(query);
        let mut idx: Vec<usize> = (0..scores.len()).collect();
        let order = |a: &usize, b: &usize| scores[*b].total_cmp(&scores[*a]).then(b.cmp(a));
        let n = n.min(idx.len());
        if n == 0 {
            return Vec::new();
        }
        if n < idx.len() {
            idx.select_nth_unstable_by(n - 1, order);
            idx.truncate(n);
        }
        idx.sort_by(order);
        idx.into_iter().map(|i| (i, scores[i])).collect()
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

    #[test]
    fn sparse_and_dense_scoring_agree() {
        let corpus: Vec<Vec<&str>> =
            ["a b c a", "b d", "", "c c c e", "a e f g h"].iter().map(|d| d.split_whitespace().collect()).collect();
        let sparse = Bm25::new(&corpus, Bm25Params::default()).unwrap();
        assert!(!sparse.absent_terms_count());
        for q in [vec!["a", "c"], vec!["zz"], vec!["b", "b", "e"], vec![]] {
            let s = sparse.scores(&q);
            // the same sums as visiting every document
            let mut dense = vec![0.0; corpus.len()];
            for t in &q {
                let idf = sparse.idf(t);
                for (i, doc) in corpus.iter().enumerate() {
                    let f = doc.iter().filter(|w| **w == *t).count() as f64;
                    dense[i] += idf * (f * 2.5 / (f + sparse.norm[i]));
                }
            }
            assert_eq!(s, dense, "{q:?}");
            let top = sparse.top_n_scored(&q, 3);
            let mut all: Vec<usize> = (0..corpus.len()).collect();
            all.sort_by(|&a, &b| s[b].total_cmp(&s[a]).then(b.cmp(&a)));
            assert_eq!(top.iter().map(|x| x.0).collect::<Vec<_>>(), all[..3]);
        }
        // k1 = 0 divides 0 by 0 for absent terms in rank-bm25: those documents score NaN.
        let nan = Bm25::new(&corpus, Bm25Params { k1: 0.0, ..Bm25Params::default() }).unwrap();
        let s = nan.scores(&["a"]);
        assert!(s[0].is_finite() && s[4].is_finite());
        assert!(s[1].is_nan() && s[3].is_nan());
        assert_eq!(s[2], 0.0, "an empty document scores 0");
    }

    #[test]
    fn empty_texts_score_zero() {
        // Every document empty: rank-bm25's average length is 0 and its scores NaN.
        let corpus: Vec<Vec<&str>> = vec![vec![], vec![]];
        let bm = Bm25::new(&corpus, Bm25Params::default()).unwrap();
        assert_eq!(bm.scores(&["a"]), [0.0, 0.0]);
        assert_eq!(bm.scores::<&str>(&[]), [0.0, 0.0]);
        assert_eq!(bm.top_n_scored(&["a"], 2), [(1, 0.0), (0, 0.0)]);
        let corpus: Vec<Vec<&str>> = vec![vec!["a"], vec![]];
        let bm = Bm25::new(&corpus, Bm25Params::default()).unwrap();
        assert!(bm.scores(&["a", "b"]).iter().all(|s| s.is_finite()));
        assert_eq!(bm.scores::<&str>(&[]), [0.0, 0.0]);
    }
}
