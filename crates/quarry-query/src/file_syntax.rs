//! The syntax layer of one file: the parsed tree and source, the named
//! nodes by kind, the parent index, and the per-function facts that need
//! no analysis (a function's own nodes, its `super(...)` assignments).
//! Every analysis reads the file through [`FileSyntax`]; it imports no
//! analysis, so any analysis may take it as an input.

use std::cell::OnceCell;

use quarry_syntax::walk::{NodeIdMap, ParentIndex};
use quarry_syntax::{ParsedFile, Span};
use tree_sitter::Node;

use crate::ast::is_super_call;
use crate::syntax::{Field, Kind, SyntaxNode};

/// One parsed file with its syntax indexes, each built on first use.
pub struct FileSyntax<'f> {
    file: &'f ParsedFile,
    /// Named nodes by kind and the parent index, built by one walk.
    index: OnceCell<(Vec<Vec<Node<'f>>>, ParentIndex<'f>)>,
    own_nodes: OnceCell<NodeIdMap<Vec<Node<'f>>>>,
    super_assignments: OnceCell<NodeIdMap<Vec<Node<'f>>>>,
}

impl<'f> FileSyntax<'f> {
    /// The syntax layer of a parsed file; nothing is indexed until asked.
    pub fn new(file: &'f ParsedFile) -> FileSyntax<'f> {
        FileSyntax { file, index: OnceCell::new(), own_nodes: OnceCell::new(), super_assignments: OnceCell::new() }
    }

    /// The parsed file.
    pub fn file(&self) -> &'f ParsedFile {
        self.file
    }

    /// The parent of a node, from an index built by one walk on first use
    /// (tree-sitter's own `Node::parent` searches from the root every time).
    pub fn parent(&self, node: Node<'f>) -> Option<Node<'f>> {
        self.parents().parent(node)
    }

    /// The file's parent index, built on first use by the walk that also
    /// indexes the nodes by kind.
    pub fn parents(&self) -> &ParentIndex<'f> {
        &self.index().1
    }

    /// One walk of the tree: the named nodes by kind, in source order, and
    /// the parent of every node.
    fn index(&self) -> &(Vec<Vec<Node<'f>>>, ParentIndex<'f>) {
        self.index.get_or_init(|| {
            let mut by_kind: Vec<Vec<Node<'f>>> = vec![Vec::new(); Kind::ALL.len()];
            let parents = ParentIndex::build_visiting(self.file.root(), |node| {
                if node.is_named() {
                    by_kind[node.py_kind() as usize].push(node);
                }
            });
            (by_kind, parents)
        })
    }

    /// Every node of the given kind, in source order. All kinds are indexed
    /// by a single walk (the one that builds the parent index) the first
    /// time any is asked for.
    pub fn nodes(&self, kind: Kind) -> &[Node<'f>] {
        &self.index().0[kind as usize]
    }

    /// The innermost function definition containing `node` (not `node`
    /// itself), stopping at a class body or lambda, as
    /// [`crate::ast::enclosing_function`] does, through the parent index.
    pub fn enclosing_function(&self, node: Node<'f>) -> Option<Node<'f>> {
        let mut current = self.parent(node);
        while let Some(n) = current {
            match n.py_kind() {
                Kind::FunctionDefinition => return Some(n),
                Kind::ClassDefinition | Kind::Lambda => return None,
                _ => current = self.parent(n),
            }
        }
        None
    }

    /// The class whose body directly holds the function definition
    /// `function` (through a decorator if any), as [`crate::ast::method_class`]
    /// finds it, through the parent index.
    pub fn method_class(&self, function: Node<'f>) -> Option<Node<'f>> {
        let mut parent = self.parent(function)?;
        if parent.py_kind() == Kind::DecoratedDefinition {
            parent = self.parent(parent)?;
        }
        let mut current = Some(parent);
        while let Some(n) = current {
            match n.py_kind() {
                Kind::ClassDefinition => return Some(n),
                Kind::FunctionDefinition | Kind::Lambda | Kind::Module => return None,
                _ => current = self.parent(n),
            }
        }
        None
    }

    /// The decorators of a function or class definition, as their
    /// expression text ([`crate::ast::decorators`]), through the parent index.
    pub fn decorators(&self, definition: Node<'f>) -> Vec<&'f str> {
        crate::ast::decorators_under(self.file, self.parent(definition))
    }

    /// The named nodes of a function's own scope, in source order: its body
    /// without nested functions, classes and lambdas, as
    /// [`crate::methods::own_nodes`] gives them. Every function's list comes
    /// from one walk of the file on first use.
    pub fn own_nodes(&self, function: Node<'f>) -> &[Node<'f>] {
        let index = self.own_nodes.get_or_init(|| {
            // Each function gets a slot when its body is reached; the walk
            // carries the slot, so no node needs a hash lookup.
            let mut lists: Vec<(usize, Vec<Node<'f>>)> = Vec::new();
            let mut stack: Vec<(Node<'f>, Option<usize>)> = vec![(self.file.root(), None)];
            let mut children: Vec<Node<'f>> = Vec::new();
            let mut cursor = self.file.root().walk();
            while let Some((node, owner)) = stack.pop() {
                let kind = node.py_kind();
                let boundary = matches!(
                    kind,
                    Kind::FunctionDefinition | Kind::ClassDefinition | Kind::Lambda | Kind::DecoratedDefinition
                );
                if let (Some(owner), false) = (owner, boundary) {
                    lists[owner].1.push(node);
                }
                children.clear();
                children.extend(node.named_children(&mut cursor));
                if boundary {
                    let body = (kind == Kind::FunctionDefinition).then(|| node.field(Field::Body)).flatten();
                    for &child in children.iter().rev() {
                        let owns = body.is_some_and(|b| b.id() == child.id());
                        let slot = owns.then(|| {
                            lists.push((node.id(), Vec::new()));
                            lists.len() - 1
                        });
                        stack.push((child, slot));
                    }
                } else {
                    stack.extend(children.iter().rev().map(|&child| (child, owner)));
                }
            }
            let mut index: NodeIdMap<Vec<Node<'f>>> = Default::default();
            for (owner, nodes) in lists {
                if !nodes.is_empty() {
                    index.insert(owner, nodes);
                }
            }
            index
        });
        index.get(&function.id()).map_or(&[], Vec::as_slice)
    }

    /// The assignments of a function's own scope whose value is a call of
    /// `super` (`s = super(C, self)`), in source order; one pass over every
    /// function's own nodes on first use.
    pub fn super_assignments(&self, function: Node<'f>) -> &[Node<'f>] {
        let index = self.super_assignments.get_or_init(|| {
            self.own_nodes(function);
            let own = self.own_nodes.get().map(|own| own.iter()).into_iter().flatten();
            own.map(|(&owner, nodes)| {
                let assignments = nodes
                    .iter()
                    .copied()
                    .filter(|n| n.py_kind() == Kind::Assignment)
                    .filter(|n| n.field(Field::Left).is_some())
                    .filter(|n| n.field(Field::Right).is_some_and(|r| is_super_call(self.file, r)))
                    .collect();
                (owner, assignments)
            })
            .collect()
        });
        index.get(&function.id()).map_or(&[], Vec::as_slice)
    }

    /// The source text of a node.
    pub fn text(&self, node: Node<'_>) -> &'f str {
        self.file.node_text(node)
    }

    /// The CodeQL-style location of a node (see [`crate::ast::location`]).
    pub fn location(&self, node: Node<'_>) -> Span {
        crate::ast::location(self.file, node)
    }

    /// The whole span of a node.
    pub fn span(&self, node: Node<'_>) -> Span {
        self.file.span_of(node)
    }
}
