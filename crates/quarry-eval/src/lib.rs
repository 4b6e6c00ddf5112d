//! Evaluation metrics and retrieval scoring for quarry, written to give the
//! same numbers as the reference implementations that papers report:
//!
//! | module | matches | scale |
//! | --- | --- | --- |
//! | [`bleu`] | sacrebleu `corpus_bleu` / `sentence_bleu` (13a, exp smoothing) | 0–100 |
//! | [`sentence_bleu`] | nltk `sentence_bleu` / `corpus_bleu`, weights, method0–7 | 0–1 |
//! | [`codeqa_bleu`] | CodeQA's averaged smoothed BLEU-4 (`google_bleu.py`) | 0–1 |
//! | [`codeqa_rouge`] | CodeQA's coco-caption ROUGE-L (beta 1.2, `numpy.mean`) | 0–1 |
//! | [`codeqa_meteor`] | CodeQA's METEOR 1.5 (drives the authors' jar) | 0–1 |
//! | [`codeqa_answer`] | CodeQA's EM, precision, recall, F1 (case/space normalization) | 0–100 |
//! | [`rouge`] | rouge-score ROUGE-L (with or without its Porter stemmer) | 0–1 |
//! | [`meteor`] | nltk `meteor_score` (exact, stem, WordNet synonyms) | 0–1 |
//! | [`squad`] | SQuAD v1.1 exact match and token F1 | 0–100 corpus |
//! | [`lines`] | HotpotQA supporting-fact set EM/F1 (CS1QA line sets) | 0–1 |
//! | [`spans`] | CodeQueries span-set exact match | 0–1 |
//! | [`classification`] | accuracy, per-class P/R/F1, macro-F1, confusion | 0–1 |
//! | [`bm25`] | rank-bm25 `BM25Okapi` | raw |
//! | [`cs1qa`] | CS1QA's line F1/EM, majority vote, answer BLEU-1 | 0–1 |
//!
//! [`metric`] names them all: `metric::score(Metric::from_name("rouge-l"), ...)` is what
//! `quarry metrics rouge-l` computes. A caller on another thread can stop a long one
//! ([`cancel`]).

#![warn(missing_docs)]

pub mod bleu;
pub mod bm25;
pub mod cancel;
pub mod classification;
pub mod codeqa_answer;
pub mod codeqa_bleu;
pub mod codeqa_meteor;
pub mod codeqa_rouge;
pub mod codeqa_scores;
pub mod cs1qa;
mod error;
pub mod lines;
pub mod meteor;
pub mod metric;
pub mod ngrams;
pub mod porter;
pub mod pynum;
pub mod pytext;
pub mod rouge;
pub mod sentence_bleu;
pub mod spans;
pub mod squad;
pub mod tok13a;
pub mod wordnet;

pub use error::EvalError;
