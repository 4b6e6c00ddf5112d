//! Scopes and name bindings of a Python file: module, class, function,
//! lambda and comprehension scopes; where each name is bound and used;
//! `global` and `nonlocal` declarations. Built by one iterative walk.

use quarry_syntax::{ParsedFile, Span};
use tree_sitter::Node;

use crate::ast::named_children;

/// Index of a scope in [`Scopes`].
pub type ScopeId = usize;

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
}

impl Scope {
    /// Whether `name` is local to this scope: bound here and not declared
    /// `global` or `nonlocal`.
    pub fn is_local(&self, name: &str) -> bool {
        !self.globals.iter().any(|g| g == name)
            && !self.nonlocals.iter().any(|g| g == name)
            && self.bindings.iter().any(|b| b.name == name)
    }
}

/// All scopes of a file; scope 0 is the module.
#[derive(Debug, Clone)]
pub struct Scopes {
    scopes: Vec<Scope>,
}

impl Scopes {
    /// Analyses a parsed Python file.
    pub fn build(file: &ParsedFile) -> Scopes {
        Builder::new(file).run()
    }

    /// Every scope, the module first.
    pub fn all(&self) -> &[Scope] {
        &self.scopes
    }

    /// One scope.
    pub fn get(&self, id: ScopeId) -> &Scope {
        &self.scopes[id]
    }

    /// The scope defined by the node with tree-sitter id `node_id`.
    pub fn of_node(&self, node_id: usize) -> Option<ScopeId> {
        self.scopes.iter().position(|s| s.node_id == node_id)
    }

    /// Whether `name` is read in `scope` or in any scope nested in it that
    /// does not bind it itself (free variables of closures).
    pub fn is_used_in_or_below(&self, scope: ScopeId, name: &str) -> bool {
        let mut stack = vec![scope];
        while let Some(id) = stack.pop() {
            let s = &self.scopes[id];
            if s.uses.iter().any(|u| u.name == name) {
                return true;
            }
            for &child in &s.children {
                let c = &self.scopes[child];
                if !c.is_local(name) || c.nonlocals.iter().any(|n| n == name) {
                    stack.push(child);
                }
            }
        }
        false
    }
}

struct Builder<'f> {
    file: &'f ParsedFile,
    scopes: Vec<Scope>,
}

/// Containers a store target may be nested in (`a, (b, *c) = ...`).
const PATTERN_CONTAINERS: &[&str] = &[
    "pattern_list",
    "tuple_pattern",
    "list_pattern",
    "list_splat_pattern",
    "tuple",
    "list",
    "expression_list",
    "parenthesized_expression",
    "list_splat",
];

impl<'f> Builder<'f> {
    fn new(file: &'f ParsedFile) -> Self {
        Builder { file, scopes: Vec::new() }
    }

    fn new_scope(&mut self, kind: ScopeKind, parent: Option<ScopeId>, node: Node<'_>) -> ScopeId {
        let id = self.scopes.len();
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
        });
        if let Some(p) = parent {
            self.scopes[p].children.push(id);
        }
        id
    }

    fn run(mut self) -> Scopes {
        let root = self.file.root();
        let module = self.new_scope(ScopeKind::Module, None, root);
        let mut stack: Vec<(Node<'_>, ScopeId)> = vec![(root, module)];
        while let Some((node, scope)) = stack.pop() {
            let mut push: Vec<(Node<'_>, ScopeId)> = Vec::new();
            match node.kind() {
                "function_definition" | "lambda" => {
                    let kind = if node.kind() == "lambda" { ScopeKind::Lambda } else { ScopeKind::Function };
                    let inner = self.new_scope(kind, Some(scope), node);
                    if let Some(name) = node.child_by_field_name("name") {
                        self.bind(scope, name, BindingKind::Definition, node);
                    }
                    if let Some(parameters) = node.child_by_field_name("parameters") {
                        for p in named_children(parameters) {
                            self.parameter(p, scope, inner, &mut push);
                        }
                    }
                    for field in ["return_type"] {
                        if let Some(n) = node.child_by_field_name(field) {
                            push.push((n, scope));
                        }
                    }
                    if let Some(body) = node.child_by_field_name("body") {
                        push.push((body, inner));
                    }
                }
                "class_definition" => {
                    let inner = self.new_scope(ScopeKind::Class, Some(scope), node);
                    if let Some(name) = node.child_by_field_name("name") {
                        self.bind(scope, name, BindingKind::Definition, node);
                    }
                    if let Some(bases) = node.child_by_field_name("superclasses") {
                        push.push((bases, scope));
                    }
                    if let Some(body) = node.child_by_field_name("body") {
                        push.push((body, inner));
                    }
                }
                "list_comprehension" | "set_comprehension" | "dictionary_comprehension" | "generator_expression" => {
                    let inner = self.new_scope(ScopeKind::Comprehension, Some(scope), node);
                    let mut first_clause = true;
                    for child in named_children(node) {
                        if child.kind() == "for_in_clause" {
                            if let Some(left) = child.child_by_field_name("left") {
                                self.targets(left, inner, BindingKind::LoopTarget, child, &mut push);
                            }
                            if let Some(right) = child.child_by_field_name("right") {
                                push.push((right, if first_clause { scope } else { inner }));
                            }
                            first_clause = false;
                        } else {
                            push.push((child, inner));
                        }
                    }
                }
                "global_statement" | "nonlocal_statement" => {
                    for id in named_children(node).into_iter().filter(|c| c.kind() == "identifier") {
                        let name = self.file.node_text(id).to_string();
                        if node.kind() == "global_statement" {
                            self.scopes[scope].globals.push(name);
                        } else {
                            self.scopes[scope].nonlocals.push(name);
                        }
                    }
                }
                "assignment" => {
                    if let Some(left) = node.child_by_field_name("left") {
                        let kind = BindingKind::Assign;
                        // Annotation-only statements (`x: int`) bind nothing.
                        if node.child_by_field_name("right").is_some() {
                            self.targets(left, scope, kind, node, &mut push);
                        } else if left.kind() != "identifier" {
                            push.push((left, scope));
                        }
                    }
                    for field in ["type", "right"] {
                        if let Some(n) = node.child_by_field_name(field) {
                            push.push((n, scope));
                        }
                    }
                }
                "augmented_assignment" => {
                    if let Some(left) = node.child_by_field_name("left") {
                        if left.kind() == "identifier" {
                            self.use_name(scope, left);
                            self.bind(scope, left, BindingKind::AugAssign, node);
                        } else {
                            push.push((left, scope));
                        }
                    }
                    if let Some(right) = node.child_by_field_name("right") {
                        push.push((right, scope));
                    }
                }
                "for_statement" => {
                    if let Some(left) = node.child_by_field_name("left") {
                        self.targets(left, scope, BindingKind::LoopTarget, node, &mut push);
                    }
                    for child in named_children(node) {
                        if Some(child.id()) != node.child_by_field_name("left").map(|l| l.id()) {
                            push.push((child, scope));
                        }
                    }
                }
                "named_expression" => {
                    if let Some(name) = node.child_by_field_name("name") {
                        self.bind(scope, name, BindingKind::Walrus, node);
                    }
                    if let Some(value) = node.child_by_field_name("value") {
                        push.push((value, scope));
                    }
                }
                "as_pattern" => {
                    let binder = node.parent().map(|p| p.kind());
                    let kind = if binder == Some("except_clause") {
                        BindingKind::ExceptTarget
                    } else {
                        BindingKind::WithTarget
                    };
                    for child in named_children(node) {
                        if child.kind() == "as_pattern_target" {
                            self.targets(child, scope, kind, node, &mut push);
                        } else {
                            push.push((child, scope));
                        }
                    }
                }
                "except_clause" if self.python2_except_target(node).is_some() => {
                    let target = self.python2_except_target(node).expect("checked");
                    for child in named_children(node) {
                        if child.id() == target.id() {
                            self.bind(scope, child, BindingKind::ExceptTarget, node);
                        } else {
                            push.push((child, scope));
                        }
                    }
                }
                "import_statement" | "import_from_statement" | "future_import_statement" => self.import(node, scope),
                "delete_statement" => {
                    for target in named_children(node) {
                        let targets =
                            if target.kind() == "expression_list" { named_children(target) } else { vec![target] };
                        for t in targets {
                            if t.kind() == "identifier" {
                                self.bind(scope, t, BindingKind::Delete, node);
                            } else {
                                push.push((t, scope));
                            }
                        }
                    }
                }
                "identifier" => self.use_name(scope, node),
                "attribute" => {
                    if let Some(object) = node.child_by_field_name("object") {
                        push.push((object, scope));
                    }
                }
                "keyword_argument" => {
                    if let Some(value) = node.child_by_field_name("value") {
                        push.push((value, scope));
                    }
                }
                "decorated_definition" => push.extend(named_children(node).into_iter().map(|c| (c, scope))),
                _ => push.extend(named_children(node).into_iter().map(|c| (c, scope))),
            }
            stack.extend(push.into_iter().rev());
        }
        Scopes { scopes: self.scopes }
    }

    /// `except E, e:` in Python 2 binds `e`; tree-sitter gives it as the
    /// second expression after `except`, separated by a comma.
    fn python2_except_target<'t>(&self, node: Node<'t>) -> Option<Node<'t>> {
        let children = crate::ast::children(node);
        let comma = children.iter().position(|c| c.kind() == ",")?;
        children.get(comma + 1).copied().filter(|n| n.kind() == "identifier")
    }

    fn parameter<'t>(&mut self, p: Node<'t>, outer: ScopeId, inner: ScopeId, push: &mut Vec<(Node<'t>, ScopeId)>) {
        if let Some(id) = crate::ast::parameter_identifier(p) {
            self.bind(inner, id, BindingKind::Parameter, p);
        } else if p.kind() == "tuple_pattern" {
            self.targets(p, inner, BindingKind::Parameter, p, push);
        }
        for field in ["value", "type"] {
            if let Some(n) = p.child_by_field_name(field) {
                push.push((n, outer));
            }
        }
        if p.kind() == "typed_parameter" {
            if let Some(t) = p.child_by_field_name("type") {
                push.push((t, outer));
            }
        }
    }

    /// Binds every identifier in a store target; other parts (subscripts,
    /// attributes) are walked as uses.
    fn targets<'t>(
        &mut self,
        target: Node<'t>,
        scope: ScopeId,
        kind: BindingKind,
        binder: Node<'t>,
        push: &mut Vec<(Node<'t>, ScopeId)>,
    ) {
        let mut stack = vec![target];
        while let Some(node) = stack.pop() {
            if node.kind() == "identifier" {
                self.bind(scope, node, kind, binder);
            } else if PATTERN_CONTAINERS.contains(&node.kind()) || node.kind() == "as_pattern_target" {
                stack.extend(named_children(node).into_iter().rev());
            } else {
                push.push((node, scope));
            }
        }
    }

    fn import(&mut self, node: Node<'_>, scope: ScopeId) {
        let is_from = node.kind() != "import_statement";
        let module = node.child_by_field_name("module_name").map(|m| m.id());
        for child in named_children(node) {
            if Some(child.id()) == module {
                continue;
            }
            match child.kind() {
                "aliased_import" => {
                    if let Some(alias) = child.child_by_field_name("alias") {
                        self.bind(scope, alias, BindingKind::Import, node);
                    }
                }
                "dotted_name" => {
                    // `import a.b` binds `a`; `from m import b` binds `b`.
                    let parts = named_children(child);
                    let bound = if is_from { parts.last() } else { parts.first() };
                    if let Some(id) = bound {
                        self.bind(scope, *id, BindingKind::Import, node);
                    }
                }
                _ => {}
            }
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
        self.scopes[scope].bindings.push(event);
    }

    fn use_name(&mut self, scope: ScopeId, node: Node<'_>) {
        let event = self.event(node, None, None);
        self.scopes[scope].uses.push(event);
    }
}
