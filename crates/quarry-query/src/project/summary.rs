//! The summary of one module that other modules need: what each
//! module-level name is bound to, the classes with their bases and members
//! (with the facts about methods that class queries ask across files),
//! `__all__` and `from m import *`. Summaries hold no syntax tree, so the
//! project keeps them for every module at little cost.

use std::collections::HashMap;

use crate::ast::{decorators, named_children};
use crate::calls::{attribute_references, Reference};
use crate::classes::{ClassRef, MemberKind};
use crate::context::FileContext;
use crate::imports::{import_bindings, AllNames};
use crate::methods::{calls_super, does_nothing, only_raises};
use crate::scopes::BindingKind;
use crate::signatures::Signature;
use crate::syntax::{Field, Kind, SyntaxNode};

/// An import as written: what a module-level name was imported as.
#[derive(Debug, Clone, PartialEq, Eq)]
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
#[derive(Debug, Clone, PartialEq, Eq)]
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
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BaseSummary {
    /// A class of the same module (index in [`ModuleSummary::classes`]).
    Local(usize),
    /// A builtin class.
    Builtin(&'static str),
    /// A dotted name whose head is bound at module level by an import.
    Imported(Vec<String>),
    /// Anything else.
    Unknown(String),
}

/// How a method refers to an `__init__` (see [`crate::calls::Reference`]).
#[derive(Debug, Clone, PartialEq, Eq)]
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

/// The facts about one method that class queries use across files.
#[derive(Debug, Clone)]
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
}

/// One attribute declared in a class body.
#[derive(Debug, Clone)]
pub struct MemberSummary {
    /// The attribute name.
    pub name: String,
    /// How it is declared.
    pub kind: MemberKind,
    /// The method's facts, for methods.
    pub method: Option<MethodSummary>,
}

/// One class of a module.
#[derive(Debug, Clone)]
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
#[derive(Debug, Clone, Default)]
pub struct ModuleSummary {
    /// Module-level names and what binds them.
    pub names: HashMap<String, Binding>,
    /// Every class of the module, in source order (indices match
    /// [`crate::classes::Classes`] of the same file).
    pub classes: Vec<ClassSummary>,
    /// The module's `__all__`.
    pub all: Option<AllNames>,
    /// The modules of `from m import *` statements, in order.
    pub star_imports: Vec<ImportRef>,
}

impl ModuleSummary {
    /// Summarises a file. Only what its own tree says is read: imported
    /// bases stay dotted names, resolved later across modules.
    pub fn build(cx: &FileContext<'_>) -> ModuleSummary {
        let file = cx.file();
        let names = module_bindings(cx);
        let classes = cx.classes();
        let mut summaries = Vec::with_capacity(classes.all().len());
        for (id, class) in classes.all().iter().enumerate() {
            let bases = class
                .bases
                .iter()
                .map(|base| match base {
                    ClassRef::Local(j) => BaseSummary::Local(*j),
                    ClassRef::Builtin(b) => BaseSummary::Builtin(b),
                    ClassRef::Unknown(text) => imported_base(&names, text),
                    // Summaries are read from files analysed without the project.
                    ClassRef::External(_) => BaseSummary::Unknown(String::new()),
                })
                .collect();
            let members = class
                .members
                .iter()
                .map(|m| MemberSummary {
                    name: m.name.clone(),
                    kind: m.kind,
                    method: (m.kind == MemberKind::Method).then(|| method_summary(cx, &names, id, m.node, &m.name)),
                })
                .collect();
            summaries.push(ClassSummary {
                name: class.name.clone(),
                line: class.node.start_position().row,
                bases,
                metaclass: class.metaclass.clone(),
                decorators: class.decorators.clone(),
                members,
            });
        }
        let mut star_imports = Vec::new();
        for &statement in cx.nodes(Kind::ImportFromStatement) {
            let wildcard = named_children(statement).iter().any(|c| c.py_kind() == Kind::WildcardImport);
            if wildcard && cx.scopes().get(0).node_id == enclosing_scope_id(cx, statement) {
                if let Some(module) = statement.field(Field::ModuleName) {
                    let module = file.node_text(module).split_whitespace().collect();
                    star_imports.push(ImportRef { module, name: None });
                }
            }
        }
        ModuleSummary { names, classes: summaries, all: Some(cx.imports().all.clone()), star_imports }
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

/// A base written as a dotted name whose head is an imported module-level
/// name; anything else stays unknown.
fn imported_base(names: &HashMap<String, Binding>, text: &str) -> BaseSummary {
    let parts: Vec<String> = text.split('.').map(|p| p.trim().to_string()).collect();
    let dotted = parts.iter().all(|p| !p.is_empty() && p.chars().all(|c| c.is_alphanumeric() || c == '_'));
    match names.get(&parts[0]) {
        Some(Binding::Import(_)) if dotted => BaseSummary::Imported(parts),
        _ => BaseSummary::Unknown(text.to_string()),
    }
}

/// The innermost function, class or module scope node holding `node`.
fn enclosing_scope_id<'f>(cx: &FileContext<'f>, node: tree_sitter::Node<'f>) -> usize {
    let mut current = cx.parent(node);
    while let Some(n) = current {
        if matches!(n.py_kind(), Kind::FunctionDefinition | Kind::ClassDefinition | Kind::Lambda) {
            return n.id();
        }
        current = cx.parent(n);
    }
    cx.file().root().id()
}

fn method_summary<'f>(
    cx: &FileContext<'f>,
    names: &HashMap<String, Binding>,
    class: usize,
    node: tree_sitter::Node<'f>,
    name: &str,
) -> MethodSummary {
    let file = cx.file();
    let init_refs = if name == "__init__" {
        attribute_references(cx, class, node, "__init__")
            .into_iter()
            .map(|(attribute, r)| match r {
                Reference::Receiver => InitRef::Receiver,
                Reference::Super(c) => InitRef::Super(c),
                Reference::Class(c) => InitRef::Class(c),
                _ => {
                    // An imported class (`Base.__init__`, `mod.Base.__init__`).
                    let object = attribute.field(Field::Object);
                    let head = object.and_then(crate::calls::dotted_head).map(|h| file.node_text(h));
                    let local = head
                        .is_some_and(|h| crate::parameters::parameter_names(file, node).iter().any(|(n, _)| n == h));
                    match (object, head.and_then(|h| names.get(h))) {
                        (Some(object), Some(Binding::Import(_))) if !local => {
                            let text: String = file.node_text(object).split_whitespace().collect();
                            InitRef::Imported(text.split('.').map(str::to_string).collect())
                        }
                        _ => InitRef::Opaque,
                    }
                }
            })
            .collect()
    } else {
        Vec::new()
    };
    MethodSummary {
        signature: Signature::of(file, node),
        decorators: decorators(file, node).into_iter().map(str::to_string).collect(),
        calls_super: calls_super(file, node),
        does_nothing: does_nothing(node),
        does_something: crate::methods::does_something(node),
        only_raises: only_raises(node),
        init_refs,
    }
}

/// What each module-level name is bound to: a name bound only by `class`
/// statements is the last class, only by `def`s a function, by exactly one
/// import that import; anything else (assignments, `del`, several imports)
/// is [`Binding::Other`].
pub fn module_bindings(cx: &FileContext<'_>) -> HashMap<String, Binding> {
    let module = cx.scopes().get(0);
    let mut events: HashMap<&str, Vec<&crate::scopes::NameEvent>> = HashMap::new();
    for event in &module.bindings {
        events.entry(event.name.as_str()).or_default().push(event);
    }
    let class_nodes = cx.nodes(Kind::ClassDefinition);
    let mut names = HashMap::with_capacity(events.len());
    for (name, bound) in events {
        let binding = if bound.iter().all(|e| e.kind == Some(BindingKind::Definition)) {
            let last = bound.last().and_then(|e| e.binder_id);
            match class_nodes.iter().position(|c| Some(c.id()) == last) {
                Some(i) => Binding::Class(i),
                None if bound.iter().all(|e| class_nodes.iter().all(|c| Some(c.id()) != e.binder_id)) => {
                    Binding::Function
                }
                None => Binding::Other,
            }
        } else if let [event] = bound.as_slice() {
            match event.kind {
                Some(BindingKind::Import) => import_ref(cx, event).map_or(Binding::Other, Binding::Import),
                _ => Binding::Other,
            }
        } else {
            Binding::Other
        };
        names.insert(name.to_string(), binding);
    }
    names
}

/// The import that binds `event`'s name.
fn import_ref(cx: &FileContext<'_>, event: &crate::scopes::NameEvent) -> Option<ImportRef> {
    let file = cx.file();
    let statement = [Kind::ImportStatement, Kind::ImportFromStatement]
        .into_iter()
        .flat_map(|kind| cx.nodes(kind).iter())
        .find(|s| Some(s.id()) == event.binder_id)?;
    let binding = import_bindings(file, *statement).into_iter().find(|b| b.identifier.id() == event.node_id)?;
    if statement.py_kind() == Kind::ImportFromStatement {
        let module: String = file.node_text(statement.field(Field::ModuleName)?).split_whitespace().collect();
        let name = binding.qualified.rsplit('.').next().unwrap_or_default().to_string();
        Some(ImportRef { module, name: Some(name) })
    } else {
        Some(ImportRef { module: binding.qualified, name: None })
    }
}
