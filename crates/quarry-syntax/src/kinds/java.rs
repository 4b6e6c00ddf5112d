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
    use crate::{Language as SourceLanguage, ParsedFile, SourceFile};

    #[test]
    fn every_generated_kind_and_field_is_in_the_grammar() {
        let language: tree_sitter::Language = tree_sitter_java::LANGUAGE.into();
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
    fn kinds_and_fields_agree_with_tree_sitter_names() {
        let source = "class A { int f(int a) { if (a > 0 && a < 9) { return a++; } else return -1; } }\n\
                      interface B { @interface C {} }\nclass D { void g() { x = ; } }\n";
        let file = ParsedFile::parse(SourceFile::from_text("T.java", source), SourceLanguage::Java).unwrap();
        let mut seen = 0;
        for node in crate::walk::Preorder::new(file.root()) {
            let kind = node.java_kind();
            if kind == Kind::Error {
                assert!(node.is_error());
                continue;
            }
            seen += 1;
            assert_eq!(kind.grammar_name(), (node.kind(), node.is_named()), "{node:?}");
            for field in Field::ALL {
                let by_name = node.child_by_field_name(field.grammar_name()).map(|n| n.id());
                assert_eq!(node.java_field(field).map(|n| n.id()), by_name);
            }
        }
        assert!(seen > 40, "{seen}");
    }
}
