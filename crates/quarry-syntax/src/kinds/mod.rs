//! Typed node kinds and fields of the two grammars, generated from their
//! `node-types.json` (`scripts/gen_kinds.py`) and mapped to tree-sitter's
//! numeric ids once per process, so no code compares a kind or a field by its
//! name: [`python`] ([`python::SyntaxNode`]: `py_kind`, `field`) and [`java`]
//! ([`java::JavaNode`]: `java_kind`, `java_field`).

pub mod java;
mod java_generated;
pub mod python;
mod python_generated;

use std::collections::HashMap;

use tree_sitter::Language;

/// What the id tables need of a generated `Kind` enum.
trait GrammarKind: Copy + 'static {
    /// Every kind.
    const ALL: &'static [Self];
    /// The parser's `ERROR` node.
    const ERROR: Self;
    /// A symbol node-types.json does not list.
    const UNKNOWN: Self;
    /// The kind's tree-sitter name and whether it is named.
    fn grammar_name(self) -> (&'static str, bool);
}

/// One grammar's kind of every kind id and field id of every generated field.
struct Tables<K> {
    /// The kind of every kind id of the language.
    kinds: Vec<K>,
    /// The field id of every generated field, by `field as usize` (0: not in the grammar).
    fields: Vec<u16>,
}

impl<K: GrammarKind> Tables<K> {
    fn new(language: &Language, field_names: impl Iterator<Item = &'static str>) -> Tables<K> {
        let by_name: HashMap<(&str, bool), K> = K::ALL.iter().map(|&k| (k.grammar_name(), k)).collect();
        let kinds = (0..language.node_kind_count())
            .map(|id| {
                let id = id as u16;
                language
                    .node_kind_for_id(id)
                    .and_then(|name| by_name.get(&(name, language.node_kind_is_named(id))).copied())
                    .unwrap_or(K::UNKNOWN)
            })
            .collect();
        let fields = field_names.map(|name| language.field_id_for_name(name).map_or(0, |id| id.get())).collect();
        Tables { kinds, fields }
    }

    /// The kind of a kind id (`ERROR` for the error symbol, `u16::MAX`).
    fn kind(&self, id: u16) -> K {
        if id == u16::MAX {
            return K::ERROR;
        }
        self.kinds.get(usize::from(id)).copied().unwrap_or(K::UNKNOWN)
    }

    /// The child of `node` in the field with generated index `field`.
    fn child<'t>(&self, node: tree_sitter::Node<'t>, field: usize) -> Option<tree_sitter::Node<'t>> {
        match self.fields[field] {
            0 => None,
            id => node.child_by_field_id(id),
        }
    }
}

/// Checks shared by both grammars' tests: every generated kind and field is in the
/// grammar, and the typed access agrees with tree-sitter's names on every node of `source`.
#[cfg(test)]
fn check_grammar<K: GrammarKind + PartialEq + std::fmt::Debug>(
    language: crate::Language,
    source: &str,
    kind_of: fn(tree_sitter::Node<'_>) -> K,
    fields: &[&'static str],
    field_of: fn(tree_sitter::Node<'_>, usize) -> Option<tree_sitter::Node<'_>>,
) {
    let grammar = language.grammar();
    for &kind in K::ALL {
        if kind == K::ERROR || kind == K::UNKNOWN {
            continue;
        }
        let (name, named) = kind.grammar_name();
        assert_ne!(grammar.id_for_node_kind(name, named), 0, "{kind:?} ({name}) is not in the grammar");
    }
    for name in fields {
        assert!(grammar.field_id_for_name(name).is_some(), "{name}");
    }
    let file = crate::ParsedFile::parse(crate::SourceFile::from_text("t", source), language).unwrap();
    let mut seen = 0;
    for node in crate::walk::Preorder::new(file.root()) {
        let kind = kind_of(node);
        if kind == K::ERROR {
            assert!(node.is_error());
            continue;
        }
        seen += 1;
        assert_eq!(kind.grammar_name(), (node.kind(), node.is_named()), "{node:?}");
        for (index, name) in fields.iter().enumerate() {
            let by_name = node.child_by_field_name(name).map(|n| n.id());
            assert_eq!(field_of(node, index).map(|n| n.id()), by_name, "{name}");
        }
    }
    assert!(seen > 20, "{seen} nodes");
}
