//! The summary of one module that other modules need: what each
//! module-level name is bound to, the classes with their bases and members
//! (with the facts about methods that class queries ask across files),
//! `__all__` and `from m import *`. Summaries hold no syntax tree, so the
//! project keeps them for every module at little cost.

use std::collections::{HashMap, HashSet};

use serde::{Deserialize, Serialize};

use quarry_syntax::ParsedFile;
use tree_sitter::Node;

use crate::ast::{decorators, decorators_under, named_children};
use crate::class_syntax::{class_header, class_members, Member, MemberKind};
use crate::import_statements::{all_names, import_bindings, AllNames};
use crate::methods::{calls_super, does_nothing, is_generic_eq, is_identity_eq, only_raises, receiver_attributes};
use crate::signatures::Signature;
use crate::syntax::{Field, Kind, SyntaxNode};

/// An import as written: what a module-level name was imported as.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ImportRef {
    /// The dotted module (with the leading dots of a relative import).
    pub module: String,
    /// The imported name for `from module import name`; `None` for `import module`.
    pub name: Option<String>,
}

impl ImportRef {
    /// How many leading dots the module has (0: absolute).
    pub fn level(&self) -> usize {
        self.module.chars().take_while(|c| *c == '.').count()
    }
}

/// What a module-level name is bound to.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum Binding {
    /// Only by a `class` statement: the class's index in [`ModuleSummary::classes`].
    Class(usize),
    /// Only by `def` statements.
    Function,
    /// By exactly one import.
    Import(ImportRef),
    /// By anything else, or by several statements of different kinds.
    Other,
}

/// A base class as written, resolvable without the tree.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum BaseSummary {
    /// A class of the same module (index in [`ModuleSummary::classes`]).
    Local(usize),
    /// A builtin class.
    Builtin(#[serde(deserialize_with = "builtin_class_name")] BuiltinName),
    /// A dotted name whose head is bound at module level by an import.
    Imported(Vec<String>),
    /// Anything else.
    Unknown(String),
}

/// How a method refers to an `__init__` (see [`crate::calls::Reference`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum InitRef {
    /// `self.__init__`.
    Receiver,
    /// `super(C, self).__init__`, with `C` a class of the same module.
    Super(usize),
    /// `C.__init__` for a class `C` of the same module.
    Class(usize),
    /// `m.C.__init__` or `C.__init__` for a dotted name whose head is bound
    /// at module level by an import: resolved across modules on use.
    Imported(Vec<String>),
    /// Anything else.
    Opaque,
}

/// The name of a builtin class, from [`crate::builtins`]'s table (an alias,
/// so that serde's derive does not take the `'static` for data borrowed
/// from the input: the name is looked up instead, [`builtin_class_name`]).
type BuiltinName = &'static str;

/// Reads a builtin class's name as the name in [`crate::builtins`]'s table.
fn builtin_class_name<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<&'static str, D::Error> {
    let name = String::deserialize(deserializer)?;
    crate::builtins::builtin_class(&name)
        .map(|class| class.name)
        .ok_or_else(|| serde::de::Error::custom(format!("`{name}` is not a builtin class")))
}

/// The facts about one method that class queries use across files.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct MethodSummary {
    /// Its parameters.
    pub signature: Signature,
    /// Its decorators, as text.
    pub decorators: Vec<String>,
    /// Whether it calls `super().<its name>(...)`.
    pub calls_super: bool,
    /// Whether its body is only `pass`, `...` or a docstring.
    pub does_nothing: bool,
    /// Whether it has a statement other than `pass`.
    pub does_something: bool,
    /// Whether it only raises.
    pub only_raises: bool,
    /// The `__init__` references it makes (only kept for `__init__` methods).
    pub init_refs: Vec<InitRef>,
    /// For an `__eq__` that compares attributes one by one (neither an
    /// identity `self is other` nor a generic `__dict__`/`getattr`
    /// comparison): the attributes it reads on its receiver. `None` for
    /// every other method.
    pub eq_reads: Option<Vec<String>>,
}

/// One attribute declared in a class body.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct MemberSummary {
    /// The attribute name.
    pub name: String,
    /// How it is declared.
    pub kind: MemberKind,
    /// The method's facts, for methods.
    pub method: Option<MethodSummary>,
}

/// One class of a module.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ClassSummary {
    /// The class name.
    pub name: String,
    /// Its 0-based line.
    pub line: usize,
    /// Its bases, in order.
    pub bases: Vec<BaseSummary>,
    /// The `metaclass=` keyword's text, if given.
    pub metaclass: Option<String>,
    /// The decorators, as text.
    pub decorators: Vec<String>,
    /// The attributes declared in the body, in source order.
    pub members: Vec<MemberSummary>,
}

impl ClassSummary {
    /// The last declaration of `name` in the class body.
    pub fn declared(&self, name: &str) -> Option<&MemberSummary> {
        self.members.iter().rev().find(|m| m.name == name)
    }

    /// Whether the class body declares `name`.
    pub fn declares(&self, name: &str) -> bool {
        self.declared(name).is_some()
    }
}

/// What other modules need of one module.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct ModuleSummary {
    /// Module-level names and what binds them.
    pub names: HashMap<String, Binding>,
    /// The module-level classes (also those under `if`, `try`, ...), in
    /// source order; [`Binding::Class`] and `ExternalClass` index them.
    pub classes: Vec<ClassSummary>,
    /// The module's `__all__`.
    pub all: Option<AllNames>,
    /// The modules of `from m import *` statements, in order.
    pub star_imports: Vec<ImportRef>,
    /// The signatures of the module-level functions a call can be judged
    /// against: a name bound by one undecorated `def` alone, not `__new__`,
    /// whose body does not raise `NotImplementedError`.
    pub functions: HashMap<String, Signature>,
}

impl ModuleSummary {
    /// A text equal for equal summaries and different otherwise: the
    /// `Debug` rendering with the maps' entries sorted by name. Used to tell
    /// whether an edit changed what other modules see of a module, and to
    /// key cached results by the summaries of the modules a file imports.
    pub fn stable_text(&self) -> String {
        let mut names: Vec<_> = self.names.iter().collect();
        names.sort_by(|a, b| a.0.cmp(b.0));
        let mut functions: Vec<_> = self.functions.iter().collect();
        functions.sort_by(|a, b| a.0.cmp(b.0));
        format!("{names:?}\n{:?}\n{:?}\n{:?}\n{functions:?}", self.classes, self.all, self.star_imports)
    }

    /// Summarises a file from its module level alone (no analysis of
    /// function bodies but the methods' own): imported bases stay dotted
    /// names, resolved later across modules.
    pub fn read(file: &ParsedFile) -> ModuleSummary {
        let top = TopLevel::read(file);
        let names = top.bindings();
        let mut classes = Vec::with_capacity(top.classes.len());
        for (id, &node) in top.classes.iter().enumerate() {
            let header = class_header(file, node);
            let (name, metaclass) = (header.name, header.metaclass);
            let bases: Vec<BaseSummary> =
                header.bases.into_iter().map(|base| base_summary(file, &names, id, base)).collect();
            let members = class_members(file, node)
                .into_iter()
                .map(|m| MemberSummary {
                    method: (m.kind == MemberKind::Method).then(|| method_summary(file, &names, id, &m)),
                    name: m.name,
                    kind: m.kind,
                })
                .collect();
            classes.push(ClassSummary {
                name,
                line: node.start_position().row,
                bases,
                metaclass,
                decorators: decorators(file, node).into_iter().map(str::to_string).collect(),
                members,
            });
        }
        let all = all_names(file, &top.assignments, &top.augmented, &top.calls);
        let bound = top.binding_counts();
        let functions = top
            .functions
            .iter()
            .filter_map(|&node| {
                let name = file.node_text(node.field(Field::Name)?);
                let single = bound.get(name) == Some(&1);
                let judged = !top.decorated.contains(&node.id()) && judged_function(file, node);
                (single && matches!(names.get(name), Some(Binding::Function)) && judged)
                    .then(|| (name.to_string(), Signature::of(file, node)))
            })
            .collect();
        ModuleSummary { names, classes, all: Some(all), star_imports: top.star_imports, functions }
    }

    /// Whether `from this import *` binds `name`: listed in `__all__`, or
    /// public when there is none.
    pub fn exports(&self, name: &str) -> Option<bool> {
        match &self.all {
            Some(AllNames::Listed(listed)) => Some(listed.iter().any(|n| n == name)),
            Some(AllNames::Opaque) => None,
            _ => Some(!name.starts_with('_')),
        }
    }
}

/// A base as written: a module-level class defined before (`Local`), a
/// builtin class not rebound, a dotted name whose head is imported, or
/// unknown.
fn base_summary(file: &ParsedFile, names: &HashMap<String, Binding>, id: usize, base: Node<'_>) -> BaseSummary {
    let text: String = file.node_text(base).split_whitespace().collect();
    let Some(parts) = dotted_parts(file, base) else { return BaseSummary::Unknown(text) };
    match (names.get(&parts[0]), parts.len()) {
        (Some(Binding::Class(j)), 1) if *j < id => BaseSummary::Local(*j),
        (Some(Binding::Import(_)), _) => BaseSummary::Imported(parts),
        (None, 1) => match crate::builtins::builtin_class(&parts[0]) {
            Some(class) => BaseSummary::Builtin(class.name),
            None => BaseSummary::Unknown(text),
        },
        _ => BaseSummary::Unknown(text),
    }
}

/// The parts of a dotted name (`a`, `a.b.C`); `None` for other expressions.
fn dotted_parts(file: &ParsedFile, node: Node<'_>) -> Option<Vec<String>> {
    let head = crate::ast::dotted_head(node)?;
    let text: String = file.node_text(node).split_whitespace().collect();
    let parts: Vec<String> = text.split('.').map(str::to_string).collect();
    (file.node_text(head) == parts[0] && parts.iter().all(|p| !p.is_empty())).then_some(parts)
}

fn method_summary(
    file: &ParsedFile,
    names: &HashMap<String, Binding>,
    class: usize,
    member: &Member<'_>,
) -> MethodSummary {
    let (node, name) = (member.node, member.name.as_str());
    let init_refs = if name == "__init__" { init_references(file, names, class, node) } else { Vec::new() };
    MethodSummary {
        signature: Signature::of(file, node),
        decorators: decorators_under(file, member.decorated).into_iter().map(str::to_string).collect(),
        calls_super: calls_super(file, node),
        does_nothing: does_nothing(node),
        does_something: crate::methods::does_something(node),
        only_raises: only_raises(node),
        init_refs,
        eq_reads: (name == "__eq__" && !is_identity_eq(file, node) && !is_generic_eq(file, node))
            .then(|| receiver_attributes(file, node).into_iter().map(str::to_string).collect()),
    }
}

/// The `__init__` references of a method of class `class`, classified as
/// [`crate::calls::CallResolver::classify_attribute`] does within a file.
fn init_references(
    file: &ParsedFile,
    names: &HashMap<String, Binding>,
    class: usize,
    method: Node<'_>,
) -> Vec<InitRef> {
    // A body whose text never says `__init__` holds no such reference.
    if !method.field(Field::Body).is_some_and(|body| file.node_text(body).contains("__init__")) {
        return Vec::new();
    }
    let parameters = crate::parameters::parameter_names(file, method);
    let is_parameter = |n: &str| parameters.iter().any(|(p, _)| p == n);
    let mut refs = Vec::new();
    for node in crate::methods::own_nodes(method) {
        if node.py_kind() != Kind::Attribute
            || node.field(Field::Attribute).map(|a| file.node_text(a)) != Some("__init__")
        {
            continue;
        }
        let Some(object) = node.field(Field::Object) else { continue };
        let reference = if object.py_kind() == Kind::Call {
            let callee = object.field(Field::Function).map(|f| file.node_text(f));
            let first = object.field(Field::Arguments).and_then(|a| a.named_child(0));
            match (callee, first) {
                (Some("super"), None) => InitRef::Super(class),
                (Some("super"), Some(arg)) => match names.get(file.node_text(arg)) {
                    Some(Binding::Class(j)) => InitRef::Super(*j),
                    _ => InitRef::Opaque,
                },
                _ => InitRef::Opaque,
            }
        } else {
            match dotted_parts(file, object) {
                Some(parts) if parameters.first().is_some_and(|(p, _)| *p == parts[0]) && parts.len() == 1 => {
                    InitRef::Receiver
                }
                Some(parts) if !is_parameter(&parts[0]) => match (names.get(&parts[0]), parts.len()) {
                    (Some(Binding::Class(j)), 1) => InitRef::Class(*j),
                    (Some(Binding::Import(_)), _) => InitRef::Imported(parts),
                    _ => InitRef::Opaque,
                },
                _ => InitRef::Opaque,
            }
        };
        refs.push(reference);
    }
    refs
}

/// One way a module-level statement binds a name.
enum Event {
    Class(usize),
    Function,
    Import(ImportRef),
    Other,
}

/// What the module level of a file holds: the statements that bind names,
/// the module-level classes, `import *`, and what `__all__` is built from.
struct TopLevel<'t> {
    events: Vec<(String, Event)>,
    classes: Vec<Node<'t>>,
    star_imports: Vec<ImportRef>,
    assignments: Vec<Node<'t>>,
    augmented: Vec<Node<'t>>,
    calls: Vec<Node<'t>>,
    /// The module-level `def`s, and the ids of those that are decorated.
    functions: Vec<Node<'t>>,
    decorated: HashSet<usize>,
}

impl<'t> TopLevel<'t> {
    /// Walks the module's statements, entering compound statements but no
    /// function or class body.
    fn read(file: &'t ParsedFile) -> TopLevel<'t> {
        let mut top = TopLevel {
            events: Vec::new(),
            classes: Vec::new(),
            star_imports: Vec::new(),
            assignments: Vec::new(),
            augmented: Vec::new(),
            calls: Vec::new(),
            functions: Vec::new(),
            decorated: HashSet::new(),
        };
        let mut stack: Vec<Node<'t>> = named_children(file.root()).into_iter().rev().collect();
        while let Some(node) = stack.pop() {
            let name_of = |n: Node<'_>| n.field(Field::Name).map(|i| file.node_text(i).to_string());
            match node.py_kind() {
                Kind::ImportStatement | Kind::ImportFromStatement => top.import(file, node),
                Kind::ClassDefinition => {
                    if let Some(name) = name_of(node) {
                        top.events.push((name, Event::Class(top.classes.len())));
                    }
                    top.classes.push(node);
                }
                Kind::FunctionDefinition => {
                    if let Some(name) = name_of(node) {
                        top.events.push((name, Event::Function));
                    }
                    top.functions.push(node);
                }
                Kind::DecoratedDefinition => {
                    top.decorated.extend(node.field(Field::Definition).map(|d| d.id()));
                    stack.extend(node.field(Field::Definition));
                }
                Kind::ExpressionStatement => {
                    for child in named_children(node) {
                        match child.py_kind() {
                            Kind::Assignment => {
                                top.assignments.push(child);
                                let mut current = Some(child);
                                while let Some(a) = current {
                                    top.bind_targets(file, a.field(Field::Left));
                                    current = a.field(Field::Right).filter(|r| r.py_kind() == Kind::Assignment);
                                }
                            }
                            Kind::AugmentedAssignment => {
                                top.augmented.push(child);
                                top.bind_targets(file, child.field(Field::Left));
                            }
                            Kind::Call => top.calls.push(child),
                            _ => {}
                        }
                    }
                }
                Kind::ForStatement => {
                    top.bind_targets(file, node.field(Field::Left));
                    stack.extend(named_children(node).into_iter().rev());
                }
                Kind::DeleteStatement => {
                    for child in named_children(node) {
                        top.bind_targets(file, Some(child));
                    }
                }
                Kind::WithItem => top.bind_targets(file, node.field(Field::Value).and_then(|v| v.field(Field::Alias))),
                Kind::ExceptClause => {
                    for child in named_children(node) {
                        if child.py_kind() == Kind::AsPattern {
                            top.bind_targets(file, child.field(Field::Alias));
                        }
                    }
                    stack.extend(named_children(node).into_iter().rev());
                }
                kind if crate::syntax::TRANSPARENT.contains(&kind) || kind == Kind::WithClause => {
                    stack.extend(named_children(node).into_iter().rev());
                }
                _ => {}
            }
        }
        top
    }

    fn import(&mut self, file: &ParsedFile, statement: Node<'_>) {
        let module =
            statement.field(Field::ModuleName).map(|m| file.node_text(m).split_whitespace().collect::<String>());
        if statement.py_kind() == Kind::ImportFromStatement {
            let Some(module) = module else { return };
            if module == "__future__" {
                return;
            }
            if named_children(statement).iter().any(|c| c.py_kind() == Kind::WildcardImport) {
                self.star_imports.push(ImportRef { module, name: None });
                return;
            }
            for binding in import_bindings(file, statement) {
                let name = binding.qualified.rsplit('.').next().unwrap_or_default().to_string();
                let import = ImportRef { module: module.clone(), name: Some(name) };
                self.events.push((binding.name, Event::Import(import)));
            }
        } else {
            for binding in import_bindings(file, statement) {
                let import = ImportRef { module: binding.qualified, name: None };
                self.events.push((binding.name, Event::Import(import)));
            }
        }
    }

    /// Every identifier an assignment, `for`, `with`, `except` or `del`
    /// target binds, as [`Event::Other`].
    fn bind_targets(&mut self, file: &ParsedFile, target: Option<Node<'_>>) {
        let mut stack: Vec<Node<'_>> = target.into_iter().collect();
        while let Some(node) = stack.pop() {
            match node.py_kind() {
                Kind::Identifier => self.events.push((file.node_text(node).to_string(), Event::Other)),
                Kind::PatternList
                | Kind::TuplePattern
                | Kind::ListPattern
                | Kind::Tuple
                | Kind::List
                | Kind::ParenthesizedExpression
                | Kind::ListSplatPattern
                | Kind::ListSplat
                | Kind::ExpressionList => stack.extend(named_children(node)),
                _ => {}
            }
        }
    }

    /// How many statements bind each name.
    fn binding_counts(&self) -> HashMap<&str, usize> {
        let mut counts: HashMap<&str, usize> = HashMap::with_capacity(self.events.len());
        for (name, _) in &self.events {
            *counts.entry(name.as_str()).or_default() += 1;
        }
        counts
    }

    /// What each name is bound to: only by `class` statements, the last
    /// class; only by `def`s, a function; by exactly one import, that
    /// import; anything else (assignments, `del`, several imports) is
    /// [`Binding::Other`].
    fn bindings(&self) -> HashMap<String, Binding> {
        let mut events: HashMap<&str, Vec<&Event>> = HashMap::new();
        for (name, event) in &self.events {
            events.entry(name.as_str()).or_default().push(event);
        }
        events
            .into_iter()
            .map(|(name, bound)| {
                let binding = if bound.iter().all(|e| matches!(e, Event::Class(_) | Event::Function)) {
                    match bound.last() {
                        Some(Event::Class(i)) if bound.iter().all(|e| matches!(e, Event::Class(_))) => {
                            Binding::Class(*i)
                        }
                        _ if bound.iter().all(|e| matches!(e, Event::Function)) => Binding::Function,
                        _ => Binding::Other,
                    }
                } else if let [Event::Import(import)] = bound.as_slice() {
                    Binding::Import(import.clone())
                } else {
                    Binding::Other
                };
                (name.to_string(), binding)
            })
            .collect()
    }
}

/// Whether calls to a module-level function can be judged by its
/// signature (when not decorated): not `__new__`, and not an abstract body
/// raising `NotImplementedError`.
fn judged_function(file: &ParsedFile, function: Node<'_>) -> bool {
    let name = function.field(Field::Name).map(|n| file.node_text(n));
    name != Some("__new__") && !crate::methods::raises_not_implemented(file, function)
}

/// What each module-level name of a file is bound to (see
/// [`ModuleSummary::names`]).
pub fn module_bindings(file: &ParsedFile) -> HashMap<String, Binding> {
    TopLevel::read(file).bindings()
}
