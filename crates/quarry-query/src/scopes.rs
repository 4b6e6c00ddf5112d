//! Scopes and name bindings of a Python file: module, class, function,
//! lambda and comprehension scopes; where each name is bound and used;
//! `global` and `nonlocal` declarations. Built by one iterative walk.

use std::collections::HashMap;

use crate::syntax::{Field, Kind, SyntaxNode};
use quarry_syntax::{ParsedFile, Span};
use tree_sitter::Node;

use crate::file_syntax::FileSyntax;
use crate::node_tree::NodeTree;

quarry_stdx::typed_index! {
    /// Index of a scope in [`Scopes`].
    pub struct ScopeId;
}

impl ScopeId {
    /// The module's scope: the first of every file.
    pub const MODULE: ScopeId = ScopeId::new(0);
}

/// What introduces a scope.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ScopeKind {
    /// The module.
    Module,
    /// A class body.
    Class,
    /// A function or method body.
    Function,
    /// A lambda.
    Lambda,
    /// A list, set or dict comprehension or a generator expression.
    Comprehension,
}

/// How a name gets bound.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BindingKind {
    /// `x = ...`, `x, y = ...`, `x: int = ...`.
    Assign,
    /// `x += ...` (also a use).
    AugAssign,
    /// The target of a `for` loop or comprehension clause.
    LoopTarget,
    /// `with ... as x`.
    WithTarget,
    /// `except E as x`.
    ExceptTarget,
    /// `import x`, `from m import x`, `import m as x`.
    Import,
    /// A function parameter.
    Parameter,
    /// `def x` or `class x`.
    Definition,
    /// `(x := ...)`.
    Walrus,
    /// `del x` (unbinds; recorded as an event on the name).
    Delete,
}

/// One occurrence of a name: bound or used.
#[derive(Debug, Clone)]
pub struct NameEvent {
    /// The name.
    pub name: String,
    /// The identifier's span.
    pub span: Span,
    /// Byte offset, for ordering.
    pub start_byte: usize,
    /// How it is bound, for bindings.
    pub kind: Option<BindingKind>,
    /// Tree-sitter id of the identifier node.
    pub node_id: usize,
    /// Tree-sitter id of the statement or clause that binds (assignment,
    /// for statement, import, ...), for bindings.
    pub binder_id: Option<usize>,
}

/// One scope with its bindings, uses and declarations.
#[derive(Debug, Clone)]
pub struct Scope {
    /// What introduces it.
    pub kind: ScopeKind,
    /// The enclosing scope.
    pub parent: Option<ScopeId>,
    /// Tree-sitter id of the defining node (module, function, class, ...).
    pub node_id: usize,
    /// Span of the defining node.
    pub span: Span,
    /// Names bound in this scope, in source order.
    pub bindings: Vec<NameEvent>,
    /// Names read in this scope, in source order (resolution not applied).
    pub uses: Vec<NameEvent>,
    /// Names declared `global` here.
    pub globals: Vec<String>,
    /// Names declared `nonlocal` here.
    pub nonlocals: Vec<String>,
    /// Directly nested scopes.
    pub children: Vec<ScopeId>,
    /// Indices into `bindings` by name, in source order (filled once the scope is complete),
    /// so that looking a name up costs one hash lookup, not a scan of every binding.
    by_name: HashMap<String, Vec<usize>>,
}

impl Scope {
    /// Whether `name` is local to this scope: bound here and not declared
    /// `global` or `nonlocal`.
    pub fn is_local(&self, name: &str) -> bool {
        !self.globals.iter().any(|g| g == name) && !self.nonlocals.iter().any(|g| g == name) && self.binds(name)
    }

    /// Whether `name` is bound in this scope (whatever its declarations).
    pub fn binds(&self, name: &str) -> bool {
        self.by_name.contains_key(name)
    }

    /// The indices of the bindings of `name`, in source order.
    pub fn bindings_of(&self, name: &str) -> &[usize] {
        self.by_name.get(name).map_or(&[], Vec::as_slice)
    }

    /// The bindings of `name`, in source order (through the name index).
    pub fn bindings_named<'s>(&'s self, name: &str) -> impl Iterator<Item = &'s NameEvent> + 's {
        self.bindings_of(name).iter().map(|&i| &self.bindings[i])
    }

    fn index_bindings(&mut self) {
        self.by_name.clear();
        for (i, b) in self.bindings.iter().enumerate() {
            self.by_name.entry(b.name.clone()).or_default().push(i);
        }
    }
}

/// A binding: the scope that holds it and its index in that scope's
/// [`Scope::bindings`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct BindingId {
    /// The scope.
    pub scope: ScopeId,
    /// Index in the scope's bindings.
    pub index: usize,
}

/// What a read of a name refers to, by Python's scoping rules.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Resolution {
    /// A binding of the file: in the reading scope, the nearest binding
    /// before the read (the first one when none precedes it, as in a loop);
    /// in an enclosing function or the module, the last binding.
    Binding(BindingId),
    /// A builtin (`len`, `unicode`), not bound in the file.
    Builtin,
    /// Bound nowhere the read can see (a star import may provide it).
    Unresolved,
}

/// All scopes of a file; scope 0 is the module. Every read of a name is
/// resolved to the binding it refers to.
#[derive(Debug, Clone)]
pub struct Scopes {
    scopes: Vec<Scope>,
    /// Resolution of every use, by the tree-sitter id of its identifier.
    resolutions: quarry_syntax::walk::NodeIdMap<Resolution>,
    /// Each scope by the tree-sitter id of the node defining it.
    by_node: quarry_syntax::walk::NodeIdMap<ScopeId>,
}

impl Scopes {
    /// Analyses a parsed Python file.
    pub fn build(syntax: &FileSyntax<'_>) -> Scopes {
        Builder { file: syntax.file(), tree: syntax.parents(), scopes: Vec::new() }.run()
    }

    /// Every scope, the module first.
    pub fn all(&self) -> &[Scope] {
        &self.scopes
    }

    /// One scope.
    pub fn get(&self, id: ScopeId) -> &Scope {
        &self.scopes[id.index()]
    }

    /// The scope defined by the node with tree-sitter id `node_id`.
    pub fn of_node(&self, node_id: usize) -> Option<ScopeId> {
        self.by_node.get(&node_id).copied()
    }

    /// A binding.
    pub fn binding(&self, id: BindingId) -> &NameEvent {
        &self.scopes[id.scope.index()].bindings[id.index]
    }

    /// What the read of a name at identifier node `node_id` refers to
    /// (`None` when the node is not a read).
    pub fn resolution(&self, node_id: usize) -> Option<Resolution> {
        self.resolutions.get(&node_id).copied()
    }

    /// The binding a read refers to, if it is one of the file's.
    pub fn resolve(&self, node_id: usize) -> Option<&NameEvent> {
        match self.resolution(node_id)? {
            Resolution::Binding(id) => Some(self.binding(id)),
            _ => None,
        }
    }

    /// Resolves `name` read at byte `at` in `scope`.
    pub fn lookup(&self, scope: ScopeId, name: &str, at: usize) -> Resolution {
        let here = &self.scopes[scope.index()];
        let declared_global = here.globals.iter().any(|g| g == name);
        if !declared_global && here.is_local(name) {
            let mut chosen = None;
            for &index in here.bindings_of(name) {
                let b = &here.bindings[index];
                if b.kind == Some(BindingKind::Delete) {
                    continue;
                }
                if b.start_byte < at || chosen.is_none() {
                    chosen = Some(index);
                }
            }
            if let Some(index) = chosen {
                return Resolution::Binding(BindingId { scope, index });
            }
        }
        let mut current = if declared_global { Some(ScopeId::MODULE) } else { here.parent };
        while let Some(id) = current {
            let s = &self.scopes[id.index()];
            // Class bodies are not visible from the functions nested in them.
            let visible = s.kind != ScopeKind::Class && (id == ScopeId::MODULE || !declared_global);
            if visible && (s.is_local(name) || (id == ScopeId::MODULE && s.binds(name))) {
                if let Some(&index) =
                    s.bindings_of(name).iter().rev().find(|&&i| s.bindings[i].kind != Some(BindingKind::Delete))
                {
                    return Resolution::Binding(BindingId { scope: id, index });
                }
            }
            current = s.parent;
        }
        if crate::builtins::is_builtin_name(name) {
            Resolution::Builtin
        } else {
            Resolution::Unresolved
        }
    }

    fn resolve_all(&mut self) {
        let mut resolutions = quarry_syntax::walk::NodeIdMap::default();
        for (id, scope) in ScopeId::enumerate(&self.scopes) {
            for u in &scope.uses {
                resolutions.insert(u.node_id, self.lookup(id, &u.name, u.start_byte));
            }
        }
        self.resolutions = resolutions;
    }

    /// Whether `name` is read in `scope` or in any scope nested in it that
    /// does not bind it itself (free variables of closures).
    pub fn is_used_in_or_below(&self, scope: ScopeId, name: &str) -> bool {
        let mut stack = vec![scope];
        while let Some(id) = stack.pop() {
            let s = &self.scopes[id.index()];
            if s.uses.iter().any(|u| u.name == name) {
                return true;
            }
            for &child in &s.children {
                let c = &self.scopes[child.index()];
                if !c.is_local(name) || c.nonlocals.iter().any(|n| n == name) {
                    stack.push(child);
                }
            }
        }
        false
    }
}

struct Builder<'a, 'f> {
    file: &'f ParsedFile,
    /// The file's nodes in flat arrays: children and parents are read there.
    tree: &'a NodeTree<'f>,
    scopes: Vec<Scope>,
}

/// Containers a store target may be nested in (`a, (b, *c) = ...`).
const PATTERN_CONTAINERS: &[Kind] = &[
    Kind::PatternList,
    Kind::TuplePattern,
    Kind::ListPattern,
    Kind::ListSplatPattern,
    Kind::Tuple,
    Kind::List,
    Kind::ExpressionList,
    Kind::ParenthesizedExpression,
    Kind::ListSplat,
];

impl<'a, 'f> Builder<'a, 'f> {
    fn new_scope(&mut self, kind: ScopeKind, parent: Option<ScopeId>, node: Node<'_>) -> ScopeId {
        let id = ScopeId::new(self.scopes.len());
        self.scopes.push(Scope {
            kind,
            parent,
            node_id: node.id(),
            span: self.file.span_of(node),
            bindings: Vec::new(),
            uses: Vec::new(),
            globals: Vec::new(),
            nonlocals: Vec::new(),
            children: Vec::new(),
            by_name: HashMap::new(),
        });
        if let Some(p) = parent {
            self.scopes[p.index()].children.push(id);
        }
        id
    }

    fn run(mut self) -> Scopes {
        let root = self.file.root();
        let module = self.new_scope(ScopeKind::Module, None, root);
        let mut stack: Vec<(Node<'f>, ScopeId)> = vec![(root, module)];
        // Reused for every node: the children to visit next.
        let mut push: Vec<(Node<'f>, ScopeId)> = Vec::new();
        let tree = self.tree;
        while let Some((node, scope)) = stack.pop() {
            push.clear();
            match node.py_kind() {
                Kind::FunctionDefinition | Kind::Lambda => {
                    let kind = if node.py_kind() == Kind::Lambda { ScopeKind::Lambda } else { ScopeKind::Function };
                    let inner = self.new_scope(kind, Some(scope), node);
                    if let Some(name) = node.field(Field::Name) {
                        self.bind(scope, name, BindingKind::Definition, node);
                    }
                    if let Some(parameters) = node.field(Field::Parameters) {
                        for p in tree.named_children(parameters) {
                            self.parameter(p, scope, inner, &mut push);
                        }
                    }
                    for field in [Field::ReturnType] {
                        if let Some(n) = node.field(field) {
                            push.push((n, scope));
                        }
                    }
                    if let Some(body) = node.field(Field::Body) {
                        push.push((body, inner));
                    }
                }
                Kind::ClassDefinition => {
                    let inner = self.new_scope(ScopeKind::Class, Some(scope), node);
                    if let Some(name) = node.field(Field::Name) {
                        self.bind(scope, name, BindingKind::Definition, node);
                    }
                    if let Some(bases) = node.field(Field::Superclasses) {
                        push.push((bases, scope));
                    }
                    if let Some(body) = node.field(Field::Body) {
                        push.push((body, inner));
                    }
                }
                Kind::ListComprehension
                | Kind::SetComprehension
                | Kind::DictionaryComprehension
                | Kind::GeneratorExpression => {
                    let inner = self.new_scope(ScopeKind::Comprehension, Some(scope), node);
                    let mut first_clause = true;
                    for child in tree.named_children(node) {
                        if child.py_kind() == Kind::ForInClause {
                            if let Some(left) = child.field(Field::Left) {
                                self.targets(left, inner, BindingKind::LoopTarget, child, &mut push);
                            }
                            if let Some(right) = child.field(Field::Right) {
                                push.push((right, if first_clause { scope } else { inner }));
                            }
                            first_clause = false;
                        } else {
                            push.push((child, inner));
                        }
                    }
                }
                Kind::GlobalStatement | Kind::NonlocalStatement => {
                    for id in tree.named_children(node).filter(|c| c.py_kind() == Kind::Identifier) {
                        let name = self.file.node_text(id).to_string();
                        if node.py_kind() == Kind::GlobalStatement {
                            self.scopes[scope.index()].globals.push(name);
                        } else {
                            self.scopes[scope.index()].nonlocals.push(name);
                        }
                    }
                }
                Kind::Assignment => {
                    if let Some(left) = node.field(Field::Left) {
                        let kind = BindingKind::Assign;
                        // Annotation-only statements (`x: int`) bind nothing.
                        if node.field(Field::Right).is_some() {
                            self.targets(left, scope, kind, node, &mut push);
                        } else if left.py_kind() != Kind::Identifier {
                            push.push((left, scope));
                        }
                    }
                    for field in [Field::Type, Field::Right] {
                        if let Some(n) = node.field(field) {
                            push.push((n, scope));
                        }
                    }
                }
                Kind::AugmentedAssignment => {
                    if let Some(left) = node.field(Field::Left) {
                        if left.py_kind() == Kind::Identifier {
                            self.use_name(scope, left);
                            self.bind(scope, left, BindingKind::AugAssign, node);
                        } else {
                            push.push((left, scope));
                        }
                    }
                    if let Some(right) = node.field(Field::Right) {
                        push.push((right, scope));
                    }
                }
                Kind::ForStatement => {
                    if let Some(left) = node.field(Field::Left) {
                        self.targets(left, scope, BindingKind::LoopTarget, node, &mut push);
                    }
                    for child in tree.named_children(node) {
                        if Some(child.id()) != node.field(Field::Left).map(|l| l.id()) {
                            push.push((child, scope));
                        }
                    }
                }
                Kind::NamedExpression => {
                    if let Some(name) = node.field(Field::Name) {
                        self.bind(scope, name, BindingKind::Walrus, node);
                    }
                    if let Some(value) = node.field(Field::Value) {
                        push.push((value, scope));
                    }
                }
                Kind::AsPattern => {
                    let binder = tree.parent(node).map(|p| p.py_kind());
                    let kind = if binder == Some(Kind::ExceptClause) {
                        BindingKind::ExceptTarget
                    } else {
                        BindingKind::WithTarget
                    };
                    for child in tree.named_children(node) {
                        if child.py_kind() == Kind::AsPatternTarget {
                            self.targets(child, scope, kind, node, &mut push);
                        } else {
                            push.push((child, scope));
                        }
                    }
                }
                Kind::ExceptClause if self.python2_except_target(node).is_some() => {
                    let target = self.python2_except_target(node).expect("checked");
                    for child in tree.named_children(node) {
                        if child.id() == target.id() {
                            self.bind(scope, child, BindingKind::ExceptTarget, node);
                        } else {
                            push.push((child, scope));
                        }
                    }
                }
                Kind::ImportStatement | Kind::ImportFromStatement | Kind::FutureImportStatement => {
                    self.import(node, scope)
                }
                Kind::DeleteStatement => {
                    for target in tree.named_children(node) {
                        let targets = if target.py_kind() == Kind::ExpressionList {
                            tree.named_children(target).collect()
                        } else {
                            vec![target]
                        };
                        for t in targets {
                            if t.py_kind() == Kind::Identifier {
                                self.bind(scope, t, BindingKind::Delete, node);
                            } else {
                                push.push((t, scope));
                            }
                        }
                    }
                }
                Kind::Identifier => self.use_name(scope, node),
                Kind::Attribute => {
                    if let Some(object) = node.field(Field::Object) {
                        push.push((object, scope));
                    }
                }
                Kind::KeywordArgument => {
                    if let Some(value) = node.field(Field::Value) {
                        push.push((value, scope));
                    }
                }
                _ => push.extend(tree.named_children(node).map(|c| (c, scope))),
            }
            stack.extend(push.drain(..).rev());
        }
        self.scopes.iter_mut().for_each(Scope::index_bindings);
        let mut by_node = quarry_syntax::walk::NodeIdMap::default();
        for (id, scope) in ScopeId::enumerate(&self.scopes) {
            by_node.entry(scope.node_id).or_insert(id);
        }
        let mut scopes = Scopes { scopes: self.scopes, resolutions: Default::default(), by_node };
        scopes.resolve_all();
        scopes
    }

    /// `except E, e:` in Python 2 binds `e`; tree-sitter gives it as the
    /// second expression after `except`, separated by a comma.
    fn python2_except_target<'t>(&self, node: Node<'t>) -> Option<Node<'t>> {
        let children = crate::ast::children(node);
        let comma = children.iter().position(|c| c.py_kind() == Kind::Comma)?;
        children.get(comma + 1).copied().filter(|n| n.py_kind() == Kind::Identifier)
    }

    fn parameter(&mut self, p: Node<'f>, outer: ScopeId, inner: ScopeId, push: &mut Vec<(Node<'f>, ScopeId)>) {
        if let Some(id) = crate::parameters::parameter_identifier(p) {
            self.bind(inner, id, BindingKind::Parameter, p);
        } else if p.py_kind() == Kind::TuplePattern {
            self.targets(p, inner, BindingKind::Parameter, p, push);
        }
        for field in [Field::Value, Field::Type] {
            if let Some(n) = p.field(field) {
                push.push((n, outer));
            }
        }
        if p.py_kind() == Kind::TypedParameter {
            if let Some(t) = p.field(Field::Type) {
                push.push((t, outer));
            }
        }
    }

    /// Binds every identifier in a store target; other parts (subscripts,
    /// attributes) are walked as uses.
    fn targets(
        &mut self,
        target: Node<'f>,
        scope: ScopeId,
        kind: BindingKind,
        binder: Node<'f>,
        push: &mut Vec<(Node<'f>, ScopeId)>,
    ) {
        let mut stack = vec![target];
        while let Some(node) = stack.pop() {
            if node.py_kind() == Kind::Identifier {
                self.bind(scope, node, kind, binder);
            } else if PATTERN_CONTAINERS.contains(&node.py_kind()) || node.py_kind() == Kind::AsPatternTarget {
                let first = stack.len();
                stack.extend(self.tree.named_children(node));
                stack[first..].reverse();
            } else {
                push.push((node, scope));
            }
        }
    }

    fn import(&mut self, node: Node<'_>, scope: ScopeId) {
        for binding in crate::import_statements::import_bindings(self.file, node) {
            self.bind(scope, binding.identifier, BindingKind::Import, node);
        }
    }

    fn event(&self, node: Node<'_>, kind: Option<BindingKind>, binder: Option<Node<'_>>) -> NameEvent {
        NameEvent {
            name: self.file.node_text(node).to_string(),
            span: self.file.span_of(node),
            start_byte: node.start_byte(),
            kind,
            node_id: node.id(),
            binder_id: binder.map(|b| b.id()),
        }
    }

    fn bind(&mut self, scope: ScopeId, node: Node<'_>, kind: BindingKind, binder: Node<'_>) {
        let event = self.event(node, Some(kind), Some(binder));
        self.scopes[scope.index()].bindings.push(event);
    }

    fn use_name(&mut self, scope: ScopeId, node: Node<'_>) {
        let event = self.event(node, None, None);
        self.scopes[scope.index()].uses.push(event);
    }
}

/// The innermost scope (module, class, function, lambda, comprehension)
/// that holds `node`, not one `node` itself defines: the nearest ancestor
/// defining a scope, read through the parent index `tree` (one step per
/// ancestor, where comparing `node` with every scope's span cost a scan of
/// all scopes per call); the module if none does.
pub fn innermost_scope(tree: &NodeTree<'_>, scopes: &Scopes, node: Node<'_>) -> ScopeId {
    let mut current = tree.parent_of_id(node.id());
    while let Some(n) = current {
        if let Some(id) = scopes.of_node(n.id()) {
            return id;
        }
        current = tree.parent_of_id(n.id());
    }
    ScopeId::MODULE
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::syntax::{Kind, SyntaxNode};
    use quarry_syntax::{Language, SourceFile};

    /// For every read of `name`, the line of the binding it resolves to
    /// (`None` for builtins and unresolved names).
    fn resolved_lines(source: &str, name: &str) -> Vec<Option<usize>> {
        let file = ParsedFile::parse(SourceFile::from_text("t.py", source), Language::Python).unwrap();
        let scopes = Scopes::build(&FileSyntax::new(&file));
        quarry_syntax::walk::Preorder::new(file.root())
            .filter(|n| n.py_kind() == Kind::Identifier && file.node_text(*n) == name)
            .filter_map(|n| scopes.resolution(n.id()))
            .map(|r| match r {
                Resolution::Binding(id) => Some(scopes.binding(id).span.start.line),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn reads_resolve_by_python_scoping() {
        // A parameter shadows a module-level name of the same text.
        let source = "app = make()\ndef f(app):\n    app.run()\napp.run()\n";
        assert_eq!(resolved_lines(source, "app"), vec![Some(1), Some(0)]);
        // Class bodies are invisible to methods; rebinding picks the nearest earlier binding.
        let source = "x = 1\nclass C:\n    x = 2\n    y = x\n    def m(self):\n        return x\nx = 3\nz = x\n";
        assert_eq!(resolved_lines(source, "x"), vec![Some(2), Some(6), Some(6)]);
        // `global` goes to the module; builtins resolve to no binding.
        let source = "def g():\n    global n\n    n = len\n    return n\nn = 0\n";
        assert_eq!(resolved_lines(source, "n"), vec![Some(4)]);
        assert_eq!(resolved_lines(source, "len"), vec![None]);
        // Closures see the enclosing function's binding.
        let source = "def outer():\n    v = 1\n    def inner():\n        return v\n";
        assert_eq!(resolved_lines(source, "v"), vec![Some(1)]);
    }
}
