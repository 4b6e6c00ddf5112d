//! Typed access to tree-sitter-python nodes. Node kinds and field names are
//! the enums of [`crate::syntax_kinds`] (generated from the grammar), mapped to
//! tree-sitter's numeric ids once per process, so no query compares a kind or
//! a field by its name.

use std::collections::HashMap;
use std::sync::OnceLock;

use tree_sitter::{Language, Node};

pub use crate::syntax_kinds::{Field, Kind};

/// Statement kinds whose bodies count as the statement's own level when a
/// class's declarations are collected: the typed form of
/// [`quarry_syntax::blocks::TRANSPARENT`], which code blocks use (a test
/// keeps the two equal).
pub const TRANSPARENT: &[Kind] = &[
    Kind::Block,
    Kind::IfStatement,
    Kind::ElifClause,
    Kind::ElseClause,
    Kind::TryStatement,
    Kind::ExceptClause,
    Kind::FinallyClause,
    Kind::WithStatement,
    Kind::ForStatement,
    Kind::WhileStatement,
    Kind::MatchStatement,
    Kind::CaseClause,
    Kind::Error,
];

/// The numeric ids of the grammar's kinds and fields, resolved once.
struct Tables {
    /// `Kind` of every kind id of the language.
    kinds: Vec<Kind>,
    /// Field id of every `Field`, by `Field as usize`.
    fields: Vec<u16>,
}

fn tables() -> &'static Tables {
    static TABLES: OnceLock<Tables> = OnceLock::new();
    TABLES.get_or_init(|| {
        let language: Language = tree_sitter_python::LANGUAGE.into();
        let by_name: HashMap<(&str, bool), Kind> = Kind::ALL.iter().map(|&k| (k.grammar_name(), k)).collect();
        let kinds = (0..language.node_kind_count())
            .map(|id| {
                let id = id as u16;
                match language.node_kind_for_id(id) {
                    Some(name) => {
                        by_name.get(&(name, language.node_kind_is_named(id))).copied().unwrap_or(Kind::Unknown)
                    }
                    None => Kind::Unknown,
                }
            })
            .collect();
        let fields =
            Field::ALL.iter().map(|f| language.field_id_for_name(f.grammar_name()).map_or(0, |id| id.get())).collect();
        Tables { kinds, fields }
    })
}

/// The kind of a tree-sitter kind id (`ERROR` for the error symbol).
pub fn kind_of_id(id: u16) -> Kind {
    if id == u16::MAX {
        return Kind::Error;
    }
    tables().kinds.get(usize::from(id)).copied().unwrap_or(Kind::Unknown)
}

/// Typed kind and field access on a tree-sitter node of a Python tree.
pub trait SyntaxNode<'t>: Copy {
    /// The node's kind.
    fn py_kind(self) -> Kind;
    /// The child in `field`, if any.
    fn field(self, field: Field) -> Option<Node<'t>>;
}

impl<'t> SyntaxNode<'t> for Node<'t> {
    fn py_kind(self) -> Kind {
        // `ERROR` nodes have the symbol `u16::MAX`, which `kind_of_id` maps to
        // `Kind::Error` (tree-sitter's `is_error` reads the same symbol).
        kind_of_id(self.kind_id())
    }

    fn field(self, field: Field) -> Option<Node<'t>> {
        match tables().fields[field as usize] {
            0 => None,
            id => self.child_by_field_id(id),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use quarry_syntax::{Language as SourceLanguage, ParsedFile, SourceFile};

    #[test]
    fn every_generated_kind_and_field_is_in_the_grammar() {
        let language: Language = tree_sitter_python::LANGUAGE.into();
        for kind in Kind::ALL {
            if matches!(kind, Kind::Error | Kind::Unknown) {
                continue;
            }
            let (name, named) = kind.grammar_name();
            assert_ne!(language.id_for_node_kind(name, named), 0, "{kind:?} ({name}) is not in the grammar");
            assert!(tables().kinds.contains(&kind), "{kind:?} has no id");
        }
        for field in Field::ALL {
            assert!(language.field_id_for_name(field.grammar_name()).is_some(), "{field:?}");
        }
    }

    #[test]
    fn transparent_kinds_match_the_block_splitter() {
        let language: Language = tree_sitter_python::LANGUAGE.into();
        let from_blocks: Vec<Kind> = quarry_syntax::blocks::TRANSPARENT
            .iter()
            .filter(|name| **name == "ERROR" || language.id_for_node_kind(name, true) != 0)
            .map(|name| Kind::ALL.into_iter().find(|k| k.grammar_name() == (*name, true)).unwrap())
            .collect();
        assert_eq!(from_blocks, TRANSPARENT);
    }

    #[test]
    fn kinds_and_fields_agree_with_tree_sitter_names() {
        let source = "def f(a, *b: int):\n    return a is not b\nx = [1, (2)]\nif x: (\n";
        let file = ParsedFile::parse(SourceFile::from_text("t.py", source), SourceLanguage::Python).unwrap();
        for node in quarry_syntax::walk::Preorder::new(file.root()) {
            let kind = node.py_kind();
            if kind == Kind::Error {
                assert!(node.is_error());
                continue;
            }
            assert_eq!(kind.grammar_name(), (node.kind(), node.is_named()), "{node:?}");
            for field in Field::ALL {
                let by_name = node.child_by_field_name(field.grammar_name()).map(|n| n.id());
                assert_eq!(node.field(field).map(|n| n.id()), by_name);
            }
        }
    }
}
