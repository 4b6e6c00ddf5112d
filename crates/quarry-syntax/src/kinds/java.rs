//! Typed kinds and fields of tree-sitter-java nodes: [`Kind`] and [`Field`]
//! (generated from the grammar) and [`JavaNode`], their access on a node.

use std::sync::OnceLock;

use tree_sitter::Node;

pub use super::java_generated::{Field, Kind};
use super::{GrammarKind, Tables};

impl GrammarKind for Kind {
    const ALL: &'static [Kind] = &Kind::ALL;
    const ERROR: Kind = Kind::Error;
    const UNKNOWN: Kind = Kind::Unknown;

    fn grammar_name(self) -> (&'static str, bool) {
        Kind::grammar_name(self)
    }
}

fn tables() -> &'static Tables<Kind> {
    static TABLES: OnceLock<Tables<Kind>> = OnceLock::new();
    TABLES.get_or_init(|| Tables::new(&tree_sitter_java::LANGUAGE.into(), Field::ALL.iter().map(|f| f.grammar_name())))
}

/// Typed kind and field access on a node of a Java tree.
pub trait JavaNode<'t>: Copy {
    /// The node's kind.
    fn java_kind(self) -> Kind;
    /// The child in `field`, if any.
    fn java_field(self, field: Field) -> Option<Node<'t>>;
}

impl<'t> JavaNode<'t> for Node<'t> {
    fn java_kind(self) -> Kind {
        tables().kind(self.kind_id())
    }

    fn java_field(self, field: Field) -> Option<Node<'t>> {
        tables().child(self, field as usize)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_and_fields_are_the_grammars_and_agree_with_tree_sitter_names() {
        let fields: Vec<&'static str> = Field::ALL.iter().map(|f| f.grammar_name()).collect();
        let source = "class A { int f(int a) { if (a > 0 && a < 9) { return a++; } else return -1; } }\n\
                      interface B { @interface C {} }\nclass D { void g() { x = ; } }\n";
        super::super::check_grammar(
            crate::Language::Java,
            source,
            |node| node.java_kind(),
            &fields,
            |node, index| node.java_field(Field::ALL[index]),
        );
        for kind in Kind::ALL {
            assert!(
                matches!(kind, Kind::Unknown | Kind::Error) || tables().kinds.contains(&kind),
                "{kind:?} has no id"
            );
        }
    }
}
