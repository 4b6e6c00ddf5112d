//! Relevant code shared by class-based queries: when a supporting fact lies
//! in another class than the answer, the classes linking the two along the
//! MRO keep the context continuous, as in the CodeQueries preparation code:
//! their class-level blocks and their `__init__` methods are relevant.

use quarry_syntax::Span;

use crate::classes::ClassId;
use crate::context::FileContext;

/// Spans whose blocks link class `from` to class `to`: each linking class's
/// header (its class-level block) and its `__init__` method.
pub fn linkage_context(cx: &FileContext<'_>, from: ClassId, to: ClassId) -> Vec<Span> {
    let classes = cx.classes();
    let mut spans = Vec::new();
    for id in classes.linkage(from, to) {
        let class = classes.get(id);
        spans.push(cx.location(class.node));
        if let Some(init) = class.method("__init__") {
            spans.push(cx.span(init));
        }
    }
    spans
}

/// [`linkage_context`] between the class holding the answer node and the
/// class holding each fact node (methods or classes).
pub fn linkage_of_nodes(
    cx: &FileContext<'_>,
    answer: tree_sitter::Node<'_>,
    facts: &[tree_sitter::Node<'_>],
) -> Vec<Span> {
    let classes = cx.classes();
    // The class holding a method, through the file's parent index (a parent
    // searched from the root costs a scan of the class body per method).
    let class_of = |node: tree_sitter::Node<'_>| {
        classes.of_node(node).or_else(|| cx.syntax().method_class(node).and_then(|c| classes.of_node(c)))
    };
    let Some(from) = class_of(answer) else { return Vec::new() };
    facts.iter().filter_map(|f| class_of(*f)).flat_map(|to| linkage_context(cx, from, to)).collect()
}
