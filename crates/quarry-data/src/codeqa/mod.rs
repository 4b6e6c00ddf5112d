//! CodeQA (seeds/001): question–answer pairs generated from code comments,
//! the dataset builder, the released parallel-file format and its
//! statistics.
//!
//! The generator follows Section 4 and Appendix A of the paper on quarry's
//! dependency parses (spaCy's English labels): [`preprocess`] cleans a
//! comment, [`roles`] derives each verb's predicate–argument structure from
//! its dependents (the dependency → role mapping is documented there),
//! [`verb_group`] finds auxiliaries, negation and do-support, [`wh`] and
//! [`yesno`] hold the question templates, [`filters`] the paper's answer
//! filters and [`generate`] puts them together.
//!
//! [`files`] reads and writes the released parallel files for the builder and
//! the statistics; [`parallel`] reads a split as answer generation consumes it
//! (`run.py`'s stripping, code optional).

pub mod code_text;
pub mod comment_file;
pub mod dataset;
pub mod extract;
pub mod files;
pub mod filters;
pub mod generate;
pub mod pair;
pub mod parallel;
pub mod pipeline_parser;
pub mod preprocess;
pub mod roles;
pub mod score;
pub mod shards;
pub mod stats;
pub mod stored;
pub mod tokens;
pub mod variants;
pub mod verb_group;
pub mod wh;
pub mod words;
pub mod yesno;

pub use comment_file::read_comments;
pub use generate::{
    generate, generate_cancellable, lacks_subject, pairs_from_doc, reads_as_code_subject, texts_to_parse,
    wants_code_subject, CommentParser, Outcome, DEFAULT_MAX_PAIRS,
};
pub use pair::{Kind, Pair};
pub use parallel::{
    read_lines, read_lines_with, read_split, write_answers, write_split, CodeQaExample, Field, LineRules, SplitFiles,
};
pub use pipeline_parser::load_parser;
pub use stored::StoredParses;
