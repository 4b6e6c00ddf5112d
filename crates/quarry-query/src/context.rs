//! Everything the queries need about one file, computed once and shared.

use crate::syntax::{Field, Kind, SyntaxNode};
use std::cell::OnceCell;

use quarry_syntax::{code_blocks, Blocks, ParsedFile, Span};
use tree_sitter::Node;

use crate::calls::CallTarget;
use crate::classes::Classes;
use crate::flow::ScopeFlow;
use crate::imports::Imports;
use crate::project::{Binding, ExternalClass, ProjectView};
use crate::reachability::Reachability;
use crate::scopes::Scopes;

/// One parsed Python file with its blocks and lazily computed analyses.
/// Parsing and block extraction happen once per file; every query shares them.
pub struct FileContext<'f> {
    file: &'f ParsedFile,
    blocks: Blocks,
    scopes: OnceCell<Scopes>,
    classes: OnceCell<Classes<'f>>,
    imports: OnceCell<Imports<'f>>,
    /// Named nodes by kind and the parent index, built by one walk.
    index: OnceCell<(Vec<Vec<Node<'f>>>, quarry_syntax::walk::ParentIndex<'f>)>,
    reachability: OnceCell<Reachability>,
    flows: OnceCell<Vec<ScopeFlow<'f>>>,
    own_nodes: OnceCell<quarry_syntax::walk::NodeIdMap<Vec<Node<'f>>>>,
    call_targets: OnceCell<quarry_syntax::walk::NodeIdMap<Option<CallTarget<'f>>>>,
    super_assignments: OnceCell<quarry_syntax::walk::NodeIdMap<Vec<Node<'f>>>>,
    project: Option<ProjectView>,
    module_names: OnceCell<std::collections::HashMap<String, Binding>>,
    imported_classes: std::cell::RefCell<std::collections::HashMap<String, Option<ExternalClass>>>,
}

impl<'f> FileContext<'f> {
    /// Prepares the context of a parsed file.
    pub fn new(file: &'f ParsedFile) -> FileContext<'f> {
        FileContext::within(file, None)
    }

    /// Prepares the context of a parsed file that is a module of a project:
    /// names it imports from other modules of the project resolve there.
    pub fn within(file: &'f ParsedFile, project: Option<ProjectView>) -> FileContext<'f> {
        FileContext {
            project,
            module_names: OnceCell::new(),
            imported_classes: Default::default(),
            file,
            blocks: code_blocks(file),
            scopes: OnceCell::new(),
            classes: OnceCell::new(),
            imports: OnceCell::new(),
            index: OnceCell::new(),
            reachability: OnceCell::new(),
            flows: OnceCell::new(),
            own_nodes: OnceCell::new(),
            call_targets: OnceCell::new(),
            super_assignments: OnceCell::new(),
        }
    }

    /// The parsed file.
    pub fn file(&self) -> &'f ParsedFile {
        self.file
    }

    /// The file's code blocks.
    pub fn blocks(&self) -> &Blocks {
        &self.blocks
    }

    /// The scopes and bindings of the file (computed on first use).
    pub fn scopes(&self) -> &Scopes {
        self.scopes.get_or_init(|| Scopes::build(self.file))
    }

    /// Which statements can complete normally (computed on first use).
    pub fn reachability(&self) -> &Reachability {
        self.reachability.get_or_init(|| Reachability::build(self))
    }

    /// Definition–use flow of every module, class and function scope
    /// (computed on first use).
    pub fn flows(&self) -> &[ScopeFlow<'f>] {
        self.flows.get_or_init(|| crate::flow::analyse_file(self))
    }

    /// What a call resolves to ([`crate::calls::resolve_call`]): every call
    /// of the file is resolved once, on first use, and shared by the queries.
    pub fn call_target(&self, call: Node<'f>) -> Option<CallTarget<'f>> {
        let targets = self.call_targets.get_or_init(|| {
            self.nodes(Kind::Call).iter().map(|&c| (c.id(), crate::calls::resolve_call_uncached(self, c))).collect()
        });
        match targets.get(&call.id()) {
            Some(target) => *target,
            None => crate::calls::resolve_call_uncached(self, call),
        }
    }

    /// The classes of the file with their bases and MROs, across modules
    /// when the file is part of a project (computed on first use).
    pub fn classes(&self) -> &Classes<'f> {
        self.classes.get_or_init(|| {
            let project = self.project.as_ref().map(|view| (view, self.module_names()));
            Classes::build(self.file, self.nodes(Kind::ClassDefinition), self.scopes(), project)
        })
    }

    /// The project the file is analysed in, with the file's module.
    pub fn project(&self) -> Option<&ProjectView> {
        self.project.as_ref()
    }

    /// The class of another module of the project that a dotted name read
    /// at module level stands for (its head bound by one import), resolved
    /// once per name and file.
    pub fn imported_class(&self, dotted: &str) -> Option<ExternalClass> {
        let view = self.project.as_ref()?;
        if let Some(known) = self.imported_classes.borrow().get(dotted) {
            return *known;
        }
        let class = view.class_named(self.module_names(), dotted);
        self.imported_classes.borrow_mut().insert(dotted.to_string(), class);
        class
    }

    /// What each module-level name is bound to (computed on first use).
    pub fn module_names(&self) -> &std::collections::HashMap<String, Binding> {
        self.module_names.get_or_init(|| crate::project::summary::module_bindings(self.file))
    }

    /// The module-level imports and the uses of names (computed on first use).
    pub fn imports(&self) -> &Imports<'f> {
        self.imports.get_or_init(|| Imports::build(self.file, self.scopes(), |kind| self.nodes(kind)))
    }

    /// The parent of a node, from an index built by one walk on first use
    /// (tree-sitter's own `Node::parent` searches from the root every time).
    pub fn parent(&self, node: Node<'f>) -> Option<Node<'f>> {
        self.parents().parent(node)
    }

    /// The file's parent index, built on first use by the walk that also
    /// indexes the nodes by kind.
    pub fn parents(&self) -> &quarry_syntax::walk::ParentIndex<'f> {
        &self.index().1
    }

    /// One walk of the tree: the named nodes by kind, in source order, and
    /// the parent of every node.
    fn index(&self) -> &(Vec<Vec<Node<'f>>>, quarry_syntax::walk::ParentIndex<'f>) {
        self.index.get_or_init(|| {
            let mut by_kind: Vec<Vec<Node<'f>>> = vec![Vec::new(); Kind::ALL.len()];
            let parents = quarry_syntax::walk::ParentIndex::build_visiting(self.file.root(), |node| {
                if node.is_named() {
                    by_kind[node.py_kind() as usize].push(node);
                }
            });
            (by_kind, parents)
        })
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
            let mut index: quarry_syntax::walk::NodeIdMap<Vec<Node<'f>>> = Default::default();
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
                    .filter(|n| n.field(Field::Right).is_some_and(|r| crate::calls::is_super_call(self.file, r)))
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

    /// Every node of the given kind, in source order. All kinds are indexed
    /// by a single walk (the one that builds the parent index) the first
    /// time any is asked for.
    pub fn nodes(&self, kind: Kind) -> &[Node<'f>] {
        &self.index().0[kind as usize]
    }

    /// The indices of the blocks holding the given spans, sorted and unique.
    pub fn blocks_of(&self, spans: &[Span]) -> Vec<usize> {
        let mut indices: Vec<usize> =
            spans.iter().filter_map(|s| self.blocks.block_of_span(s)).map(|b| b.index).collect();
        indices.sort_unstable();
        indices.dedup();
        indices
    }

    /// The indices of the blocks with at least one line inside one of the
    /// given spans, sorted and unique: a class's span gives its class-level
    /// block and all its methods.
    pub fn blocks_within(&self, spans: &[Span]) -> Vec<usize> {
        let mut indices: Vec<usize> = Vec::new();
        for span in spans {
            for line in span.start.line..=span.end.line {
                if let Some(block) = self.blocks.block_of_line(line) {
                    indices.push(block.index);
                }
            }
        }
        indices.sort_unstable();
        indices.dedup();
        indices
    }
}
