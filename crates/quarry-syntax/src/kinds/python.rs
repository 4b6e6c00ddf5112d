//! Typed kinds and fields of tree-sitter-python nodes: [`Kind`] and [`Field`]
//! (generated from the grammar) and [`SyntaxNode`], their access on a node.

use std::sync::OnceLock;

use tree_sitter::Node;

pub use super::python_generated::{Field, Kind};
use super::{GrammarKind, Tables};

impl GrammarKind for Kind {
    const ALL: &'static [Kind] = &Kind::ALL;
    const ERROR: Kind = Kind::Error;
    const UNKNOWN: Kind = Kind::Unknown;

    fn grammar_name(self) -> (&'static str, bool) {
        Kind::grammar_name(self)
    }
}

/// Statement kinds whose bodies count as the statement's own level: code
/// blocks and a class's declarations look through them (a method under `if`
/// in a class body is still a method).
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

fn tables() -> &'static Tables<Kind> {
    static TABLES: OnceLock<Tables<Kind>> = OnceLock::new();
    TABLES
        .get_or_init(|| Tables::new(&tree_sitter_python::LANGUAGE.into(), Field::ALL.iter().map(|f| f.grammar_name())))
}

/// The kind of a tree-sitter-python kind id (`ERROR` for the error symbol).
pub fn kind_of_id(id: u16) -> Kind {
    tables().kind(id)
}

/// Typed kind and field access on a node of a Python tree.
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
        tables().child(self, field as usize)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_and_fields_are_the_grammars_and_agree_with_tree_sitter_names() {
        let fields: Vec<&'static str> = Field::ALL.iter().map(|f| f.grammar_name()).collect();
        let source = "def f(a, *b: int):\n    return a is not b\nx = [1, (2)]\nif x: (\n";
        super::super::check_grammar(
            crate::Language::Python,
            source,
            |node| node.py_kind(),
            &fields,
            |node, index| node.field(Field::ALL[index]),
        );
        for kind in Kind::ALL {
            assert!(
                matches!(kind, Kind::Unknown | Kind::Error) || tables().kinds.contains(&kind),
                "{kind:?} has no id"
            );
        }
    }
}
