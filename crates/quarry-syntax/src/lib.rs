//! quarry-syntax: source files, tree-sitter parsing (Python and Java),
//! positions and spans, lexical tokens and CodeQueries code blocks.
//!
//! It knows nothing of queries or models. Every walk over a syntax tree is
//! iterative, so deeply nested code cannot overflow the stack.

pub mod blocks;
pub mod budget;
pub mod corpus;
pub mod encoding;
pub mod error;
pub mod exclude;
mod gitignore_negation;
pub mod java_lexer;
pub mod kinds;
pub mod language;
pub mod lexer;
pub mod parse;
pub mod position;
pub mod python_lexer;
pub mod read;
pub mod source;
pub mod text_edit;
pub mod token;
pub mod tree_dump;
pub mod walk;

pub use blocks::{code_blocks, BlockKind, Blocks, CodeBlock, LineRun};
pub use budget::{time_budget_from_secs, Deadline, DEFAULT_MAX_DEPTH, DEFAULT_TIME_BUDGET};
pub use error::SyntaxError;
pub use language::Language;
pub use lexer::tokenize;
pub use parse::{ErrorKind, ErrorRegion, ParsedFile};
pub use position::{LineIndex, Position, Span, SpanRecord};
pub use source::{LoadOptions, SourceFile, DEFAULT_MAX_FILE_BYTES};
pub use token::{Token, TokenKind, TokenRecord};
