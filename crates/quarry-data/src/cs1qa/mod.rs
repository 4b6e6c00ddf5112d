//! CS1QA (Lee et al., 2022): the annotated rows (question, code, type, gold line spans,
//! answer), the answer-retrieval question files, retrieval results and BM25 retrieval, and the
//! understanding-type augmentation of the paper's Appendix C.

pub mod augment;
pub mod bm25;
pub mod retrieval;
pub mod rows;

pub use bm25::Bm25Retriever;
pub use retrieval::{read_questions, read_retrieved, write_retrieved, Hit, RetrievalQuestion, Retrieved};
pub use rows::{alternative_spans, read_rows, write_rows, Cs1qaRow, Number, QuestionType, Questioner};
