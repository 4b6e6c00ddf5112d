//! Typed access to tree-sitter-python nodes: quarry-syntax's generated kinds
//! and fields ([`quarry_syntax::kinds::python`]), re-exported where the
//! analyses have always found them, so no query compares a kind or a field by
//! its name.

pub use quarry_syntax::kinds::python::{kind_of_id, Field, Kind, SyntaxNode, TRANSPARENT};
