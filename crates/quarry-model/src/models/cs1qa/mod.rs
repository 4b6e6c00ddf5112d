//! CS1QA's three tasks (Lee et al., 2022, Section 6): question-type classification and
//! code-line selection over question + code segments, and answer retrieval by a dual
//! encoder trained on BM25 positives with in-batch negatives (BM25 retrieval itself is
//! quarry-data's `cs1qa::Bm25Retriever`).

mod dual_encoder;
mod line_model;
mod reports;
mod retrieval;
mod segments;
mod type_model;

pub use dual_encoder::{DualEncoder, PairExample, Pooling};
pub use line_model::{middle_baseline, score_selections, LineEvaluation, LineExample, LineModel};
pub use reports::{hits_text, line_report_json, line_report_text};
pub use retrieval::{answer_bleu, bm25_pairs, dense_search, recall_at, AnswerBleu};
pub use segments::{segment, PairLayout, Segment};
pub use type_model::{TypeEvaluation, TypeExample, TypeModel};
