//! The syntax layer of one file: the parsed tree and source, the named
//! nodes by kind, the parent index, and the per-function facts that need
//! no analysis (a function's own nodes, its `super(...)` assignments).
//! Every analysis reads the file through [`FileSyntax`]; it imports no
//! analysis, so any analysis may take it as an input.

use std::cell::OnceCell;
use std::collections::HashSet;

use quarry_syntax::walk::NodeIdMap;
use quarry_syntax::{ParsedFile, Span, SyntaxError};
use tree_sitter::Node;

use crate::ast::is_super_call;
use crate::node_tree::NodeTree;
use crate::syntax::{Field, Kind, SyntaxNode};

/// What the one walk of a file's tree finds.
struct Index<'f> {
    by_kind: Vec<Vec<Node<'f>>>,
    tree: NodeTree<'f>,
    /// The depth of the deepest node (the root is at 0) and its line.
    depth: (usize, usize),
}

/// One parsed file with its syntax indexes, each built on first use.
pub struct FileSyntax<'f> {
    file: &'f ParsedFile,
    /// Named nodes by kind, the parent index and the tree's depth, built by
    /// one walk.
    index: OnceCell<Index<'f>>,
    own_nodes: OnceCell<NodeIdMap<Vec<Node<'f>>>>,
    super_assignments: OnceCell<NodeIdMap<Vec<Node<'f>>>>,
    assigned_names: OnceCell<NodeIdMap<HashSet<&'f str>>>,
    definitions: OnceCell<NodeIdMap<Node<'f>>>,
    parameter_names: OnceCell<NodeIdMap<Vec<(String, Node<'f>)>>>,
}

impl<'f> FileSyntax<'f> {
    /// The syntax layer of a parsed file; nothing is indexed until asked.
    pub fn new(file: &'f ParsedFile) -> FileSyntax<'f> {
        FileSyntax {
            file,
            index: OnceCell::new(),
            own_nodes: OnceCell::new(),
            super_assignments: OnceCell::new(),
            assigned_names: OnceCell::new(),
            definitions: OnceCell::new(),
            parameter_names: OnceCell::new(),
        }
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

    /// The file's parent index (every node in flat arrays), built on first
    /// use by the walk that also indexes the nodes by kind.
    pub fn parents(&self) -> &NodeTree<'f> {
        &self.index().tree
    }

    /// Refuses a tree deeper than `limit` ([`SyntaxError::TooDeep`], naming
    /// the file and the line of the deepest node), as
    /// [`ParsedFile::check_depth`] does, measured by the iterative walk that
    /// builds the indexes (which every analysis needs anyway), so the
    /// check costs no walk of its own. Recursive analyses may run once it
    /// has passed.
    pub fn check_depth(&self, limit: usize) -> Result<(), SyntaxError> {
        let (depth, line) = self.depth();
        if depth > limit {
            return Err(SyntaxError::TooDeep { path: self.file.source().path().to_path_buf(), depth, limit, line });
        }
        Ok(())
    }

    /// The depth of the deepest node (the root is at 0) and its line.
    pub fn depth(&self) -> (usize, usize) {
        self.index().depth
    }

    /// One walk of the tree: the named nodes by kind, in source order, the
    /// parent of every node and the deepest node.
    fn index(&self) -> &Index<'f> {
        self.index.get_or_init(|| {
            let mut by_kind: Vec<Vec<Node<'f>>> = vec![Vec::new(); Kind::ALL.len()];
            let tree = NodeTree::build_visiting(self.file.root(), |node, kind| by_kind[kind as usize].push(node));
            let deepest = tree.deepest();
            Index { by_kind, tree, depth: (deepest.0, deepest.1.start_position().row) }
        })
    }

    /// Every node of the given kind, in source order. All kinds are indexed
    /// by a single walk (the one that builds the parent index) the first
    /// time any is asked for.
    pub fn nodes(&self, kind: Kind) -> &[Node<'f>] {
        &self.index().by_kind[kind as usize]
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

    /// The innermost function, lambda, class or module containing `node`
    /// (not `node` itself), as [`crate::ast::enclosing_scope`] finds it,
    /// through the parent index.
    pub fn enclosing_scope(&self, node: Node<'_>) -> Option<Node<'f>> {
        let mut current = self.parents().parent_of_id(node.id());
        while let Some(n) = current {
            if matches!(n.py_kind(), Kind::FunctionDefinition | Kind::Lambda | Kind::ClassDefinition | Kind::Module) {
                return Some(n);
            }
            current = self.parent(n);
        }
        None
    }

    /// The class whose body directly holds the function definition
    /// `function` (through a decorator if any), as [`crate::ast::method_class`]
    /// finds it, through the parent index.
    pub fn method_class(&self, function: Node<'_>) -> Option<Node<'f>> {
        let mut parent = self.parents().parent_of_id(function.id())?;
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
    pub fn decorators(&self, definition: Node<'_>) -> Vec<&'f str> {
        crate::ast::decorators_under(self.file, self.parents().parent_of_id(definition.id()))
    }

    /// The named nodes of a function's own scope, in source order: its body
    /// without nested functions, classes and lambdas, as
    /// [`crate::methods::own_nodes`] gives them. Every function's list comes
    /// from one walk of the file on first use.
    pub fn own_nodes(&self, function: Node<'f>) -> &[Node<'f>] {
        self.own_nodes_index().get(&function.id()).map_or(&[], Vec::as_slice)
    }

    /// Every function's own nodes, by the function's node id (one walk).
    fn own_nodes_index(&self) -> &NodeIdMap<Vec<Node<'f>>> {
        self.own_nodes.get_or_init(|| {
            // The walk of the named nodes from the root, over the flat
            // arrays in pre-order: each function gets a slot when its body
            // is reached, and every node takes its owner from its parent.
            let tree = self.parents();
            let boundary = |kind: Kind| {
                matches!(
                    kind,
                    Kind::FunctionDefinition | Kind::ClassDefinition | Kind::Lambda | Kind::DecoratedDefinition
                )
            };
            const NOT_REACHED: u32 = u32::MAX;
            const NO_OWNER: u32 = u32::MAX - 1;
            // The owner slot of every node the walk reaches.
            let mut owners: Vec<u32> = vec![NOT_REACHED; tree.len()];
            let mut lists: Vec<(usize, Vec<Node<'f>>)> = Vec::new();
            // The body of the function definition at each position, found
            // when the definition is reached (before its children).
            let mut bodies: NodeIdMap<Option<usize>> = NodeIdMap::default();
            if !tree.is_empty() {
                owners[0] = NO_OWNER;
            }
            for position in 1..tree.len() {
                let Some(parent) = tree.parent_position(position) else { continue };
                if owners[parent] == NOT_REACHED || !tree.is_named(position) {
                    continue;
                }
                let node = tree.node(position);
                let parent_kind = tree.kind(parent);
                let owner = if boundary(parent_kind) {
                    let owns = parent_kind == Kind::FunctionDefinition
                        && bodies.get(&parent).copied().flatten() == Some(node.id());
                    if owns {
                        lists.push((tree.node(parent).id(), Vec::new()));
                        (lists.len() - 1) as u32
                    } else {
                        NO_OWNER
                    }
                } else {
                    owners[parent]
                };
                owners[position] = owner;
                let kind = tree.kind(position);
                if kind == Kind::FunctionDefinition {
                    bodies.insert(position, node.field(Field::Body).map(|b| b.id()));
                }
                if owner != NO_OWNER && !boundary(kind) {
                    lists[owner as usize].1.push(node);
                }
            }
            let mut index: NodeIdMap<Vec<Node<'f>>> = Default::default();
            for (owner, nodes) in lists {
                if !nodes.is_empty() {
                    index.insert(owner, nodes);
                }
            }
            index
        })
    }

    /// A fact read from each function's own nodes, for every function by
    /// one pass on first use, kept in `cell`.
    fn per_function<'s, T>(
        &'s self,
        cell: &'s OnceCell<NodeIdMap<T>>,
        read: impl Fn(&[Node<'f>]) -> T,
    ) -> &'s NodeIdMap<T> {
        cell.get_or_init(|| self.own_nodes_index().iter().map(|(&owner, nodes)| (owner, read(nodes))).collect())
    }

    /// The assignments of a function's own scope whose value is a call of
    /// `super` (`s = super(C, self)`), in source order; one pass over every
    /// function's own nodes on first use.
    pub fn super_assignments(&self, function: Node<'f>) -> &[Node<'f>] {
        let index = self.per_function(&self.super_assignments, |nodes| {
            nodes
                .iter()
                .copied()
                .filter(|n| n.py_kind() == Kind::Assignment)
                .filter(|n| n.field(Field::Left).is_some())
                .filter(|n| n.field(Field::Right).is_some_and(|r| is_super_call(self.file, r)))
                .collect()
        });
        index.get(&function.id()).map_or(&[], Vec::as_slice)
    }

    /// The function or class definition with tree-sitter id `id`, looked
    /// up in a map of every definition built on first use.
    pub fn definition(&self, id: usize) -> Option<Node<'f>> {
        let index = self.definitions.get_or_init(|| {
            let definitions = self.nodes(Kind::FunctionDefinition).iter().chain(self.nodes(Kind::ClassDefinition));
            definitions.map(|d| (d.id(), *d)).collect()
        });
        index.get(&id).copied()
    }

    /// The names a function's (or lambda's) parameters bind
    /// ([`crate::parameters::parameter_names`]), read for every function of
    /// the file on first use.
    pub fn parameter_names(&self, function: Node<'f>) -> &[(String, Node<'f>)] {
        let index = self.parameter_names.get_or_init(|| {
            // Only these two kinds have parameters; any other node has none.
            let functions = self.nodes(Kind::FunctionDefinition).iter().chain(self.nodes(Kind::Lambda));
            functions.map(|&f| (f.id(), crate::parameters::parameter_names(self.file, f))).collect()
        });
        match index.get(&function.id()) {
            Some(names) => names,
            None => &[],
        }
    }

    /// Whether the function's own scope binds `name` as the plain-name
    /// target (`left`) of an assignment, a `for` loop or a `with` item; the
    /// names of every function are gathered by one pass over their own
    /// nodes on first use.
    pub fn assigns_locally(&self, function: Node<'f>, name: &str) -> bool {
        let index = self.per_function(&self.assigned_names, |nodes| {
            nodes
                .iter()
                .filter(|n| matches!(n.py_kind(), Kind::Assignment | Kind::ForStatement | Kind::WithItem))
                .filter_map(|n| n.field(Field::Left).filter(|l| l.py_kind() == Kind::Identifier))
                .map(|l| self.file.node_text(l))
                .collect()
        });
        index.get(&function.id()).is_some_and(|names| names.contains(name))
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
