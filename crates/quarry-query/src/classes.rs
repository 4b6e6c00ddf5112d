//! The classes of one file: their bases (classes of the file, builtins by
//! name, classes of other modules of the project, or unknown classes such
//! as ones imported from outside the project), their C3 method
//! resolution order, the attributes each declares (methods, class-level
//! assignments, nested classes) and the attributes its methods store on
//! `self`. Built once per file without recursion; cyclic or inconsistent
//! hierarchies fall back to a depth-first order.

use crate::syntax::{Field, Kind, SyntaxNode};
use std::collections::HashMap;

use tree_sitter::Node;

use crate::ast::{decorators_under, named_children};
use crate::builtins;
use crate::class_syntax::{class_header, class_members, Member, MemberKind};
use crate::file_syntax::FileSyntax;
use crate::project::{
    BaseSummary, ClassSummary, ExternalClass, MemberSummary, ModuleId, Project, ProjectFile, Resolved,
};
use crate::scopes::{BindingKind, Scopes};
use quarry_syntax::ParsedFile;

quarry_stdx::typed_index! {
    /// Index of a class in [`Classes`].
    pub struct ClassId;
}

/// A class as a base or an MRO entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ClassRef {
    /// A class defined in this file.
    Local(ClassId),
    /// A builtin class, by name.
    Builtin(&'static str),
    /// A class of another module of the project (see [`crate::project`]).
    External(ExternalClass),
    /// A class quarry cannot see (imported from outside the project,
    /// computed, or cyclic), by its text.
    Unknown(String),
}

/// A store to an attribute of `self` inside a method (`self.x = ...`).
#[derive(Debug, Clone)]
pub struct SelfStore<'f> {
    /// The attribute name.
    pub name: String,
    /// The `attribute` node (`self.x`).
    pub attribute: Node<'f>,
    /// The method holding the store.
    pub method: Node<'f>,
}

/// One class definition.
#[derive(Debug, Clone)]
pub struct ClassInfo<'f> {
    /// The `class_definition` node.
    pub node: Node<'f>,
    /// The class name.
    pub name: String,
    /// The bases, in order.
    pub bases: Vec<ClassRef>,
    /// The `metaclass=` keyword's text, if given.
    pub metaclass: Option<String>,
    /// The decorators, as text.
    pub decorators: Vec<String>,
    /// The attributes declared in the body, in source order.
    pub members: Vec<Member<'f>>,
    /// The stores to `self` attributes in the class's own methods.
    pub self_stores: Vec<SelfStore<'f>>,
    /// Each declared name: the index in `members` of its last declaration
    /// and how many times the body declares it, so that a lookup costs no
    /// scan of the members (classes of thousands of methods).
    names: HashMap<String, (usize, usize)>,
}

/// Class decorators that return the class they are given, with no methods
/// added that the class queries reason about.
const TRANSPARENT_CLASS_DECORATORS: &[&str] = &["total_ordering", "functools.total_ordering"];

impl<'f> ClassInfo<'f> {
    /// Whether a decorator may replace the class or generate its methods
    /// (`@attr.s`, `@dataclass`, a project's own decorator): CodeQL does not
    /// model such classes, so the equality, hashing and ordering queries
    /// leave them alone.
    pub fn has_opaque_decorator(&self) -> bool {
        self.decorators.iter().any(|d| {
            let name: String = d.split('(').next().unwrap_or_default().split_whitespace().collect();
            !TRANSPARENT_CLASS_DECORATORS.contains(&name.as_str())
        })
    }

    /// A class statement's facts, with the index of its member names.
    fn new(
        node: Node<'f>,
        name: String,
        bases: Vec<ClassRef>,
        metaclass: Option<String>,
        decorators: Vec<String>,
        members: Vec<Member<'f>>,
        self_stores: Vec<SelfStore<'f>>,
    ) -> ClassInfo<'f> {
        let mut names: HashMap<String, (usize, usize)> = HashMap::with_capacity(members.len());
        for (index, member) in members.iter().enumerate() {
            let entry = names.entry(member.name.clone()).or_insert((index, 0));
            *entry = (index, entry.1 + 1);
        }
        ClassInfo { node, name, bases, metaclass, decorators, members, self_stores, names }
    }

    /// The last declaration of `name` in the class body.
    pub fn declared(&self, name: &str) -> Option<&Member<'f>> {
        self.names.get(name).map(|&(last, _)| &self.members[last])
    }

    /// How many times the class body declares `name`.
    pub fn declarations(&self, name: &str) -> usize {
        self.names.get(name).map_or(0, |&(_, count)| count)
    }

    /// Whether the class body declares `name`.
    pub fn declares(&self, name: &str) -> bool {
        self.declared(name).is_some()
    }

    /// The method named `name` declared in the body, if it is a method.
    pub fn method(&self, name: &str) -> Option<Node<'f>> {
        self.declared(name).filter(|m| m.kind == MemberKind::Method).map(|m| m.node)
    }
}

/// Where an attribute lookup along the MRO ends.
#[derive(Debug, Clone)]
pub enum Lookup<'c, 'f> {
    /// Declared by a class of the file.
    Local(ClassId, &'c Member<'f>),
    /// Declared by a builtin class.
    Builtin(&'static str),
    /// Declared by a class of another module of the project.
    External(ExternalClass, &'c MemberSummary),
    /// An unknown class comes first in the MRO: the answer is not known.
    Unknown,
    /// No class in the MRO declares it.
    Missing,
}

/// All classes of a file with their MROs.
#[derive(Debug, Clone)]
pub struct Classes<'f> {
    classes: Vec<ClassInfo<'f>>,
    mros: Vec<Vec<ClassRef>>,
    by_name: HashMap<String, Vec<ClassId>>,
    /// The class of each `class_definition` node.
    by_node: quarry_syntax::walk::NodeIdMap<ClassId>,
    project: Option<Project>,
    /// MROs of classes of other modules, computed once per file.
    external_mros: std::cell::RefCell<HashMap<ExternalClass, Vec<ClassRef>>>,
}

impl<'f> Classes<'f> {
    /// Analyses the classes of a parsed file. With a project, bases
    /// imported from other modules of the project resolve to their classes
    /// through the file's module-level imports.
    pub fn build(
        syntax: &FileSyntax<'f>,
        class_nodes: &[Node<'f>],
        scopes: &Scopes,
        project: Option<&ProjectFile<'_>>,
    ) -> Classes<'f> {
        let file = syntax.file();
        let module_bindings = &scopes.get(crate::scopes::ScopeId::MODULE).bindings;
        let mut classes: Vec<ClassInfo<'f>> = Vec::with_capacity(class_nodes.len());
        for &node in class_nodes {
            let header = class_header(file, node);
            let (name, metaclass) = (header.name, header.metaclass);
            let mut bases = Vec::new();
            for base in header.bases {
                match base.py_kind() {
                    Kind::ListSplat | Kind::DictionarySplat => {
                        bases.push(ClassRef::Unknown(file.node_text(base).into()))
                    }
                    _ => {
                        let mut resolved = resolve_base(file, base, node, &classes, module_bindings);
                        if let (ClassRef::Unknown(text), Some(project)) = (&resolved, project) {
                            if let Some(class) = project.view().class_named(project.module_names(), text) {
                                resolved = ClassRef::External(class);
                            }
                        }
                        bases.push(resolved)
                    }
                }
            }
            let members = class_members(file, node);
            let self_stores = self_stores(syntax, &members);
            let decorators = syntax.decorators(node).into_iter().map(str::to_string).collect();
            classes.push(ClassInfo::new(node, name, bases, metaclass, decorators, members, self_stores));
        }
        let project = project.map(|p| p.view().project.clone());
        let mut external_mros = HashMap::new();
        let mros = compute_mros(&classes, project.as_ref(), &mut external_mros);
        let mut by_name: HashMap<String, Vec<ClassId>> = HashMap::new();
        for (id, class) in ClassId::enumerate(&classes) {
            by_name.entry(class.name.clone()).or_default().push(id);
        }
        let mut by_node = quarry_syntax::walk::NodeIdMap::default();
        for (id, class) in ClassId::enumerate(&classes) {
            by_node.entry(class.node.id()).or_insert(id);
        }
        Classes { classes, mros, by_name, by_node, project, external_mros: std::cell::RefCell::new(external_mros) }
    }

    /// The id of every class, in source order.
    pub fn ids(&self) -> impl Iterator<Item = ClassId> {
        (0..self.classes.len()).map(ClassId::new)
    }

    /// Every class, in source order.
    pub fn all(&self) -> &[ClassInfo<'f>] {
        &self.classes
    }

    /// One class.
    pub fn get(&self, id: ClassId) -> &ClassInfo<'f> {
        &self.classes[id.index()]
    }

    /// A class of another module of the project, as summarised there.
    pub fn external(&self, class: ExternalClass) -> Option<&ClassSummary> {
        self.project.as_ref()?.class(class)
    }

    /// The project the file is analysed in, if any.
    pub fn project(&self) -> Option<&Project> {
        self.project.as_ref()
    }

    /// The classes of other modules in the MRO of `id`.
    pub fn external_supers(&self, id: ClassId) -> Vec<ExternalClass> {
        self.mros[id.index()]
            .iter()
            .filter_map(|c| match c {
                ClassRef::External(e) => Some(*e),
                _ => None,
            })
            .collect()
    }

    /// The class defined by a `class_definition` node.
    pub fn of_node(&self, node: Node<'_>) -> Option<ClassId> {
        self.by_node.get(&node.id()).copied()
    }

    /// The class's method resolution order, starting with itself.
    pub fn mro(&self, id: ClassId) -> &[ClassRef] {
        &self.mros[id.index()]
    }

    /// Whether every class in the MRO is known: of this file, builtin or of
    /// another module of the project (CodeQL's `not failedInference()`).
    pub fn is_fully_known(&self, id: ClassId) -> bool {
        !self.mros[id.index()].iter().any(|c| matches!(c, ClassRef::Unknown(_)))
    }

    /// The local classes of the MRO after the class itself.
    pub fn local_supers(&self, id: ClassId) -> Vec<ClassId> {
        self.mros[id.index()]
            .iter()
            .skip(1)
            .filter_map(|c| match c {
                ClassRef::Local(j) => Some(*j),
                _ => None,
            })
            .collect()
    }

    /// Whether `sub` is `sup` or derives from it.
    pub fn is_subclass(&self, sub: ClassId, sup: ClassId) -> bool {
        self.mros[sub.index()].contains(&ClassRef::Local(sup))
    }

    /// The classes linking `from` and `to` along an MRO, both included:
    /// the MRO of the subclass up to the superclass; empty if unrelated.
    pub fn linkage(&self, from: ClassId, to: ClassId) -> Vec<ClassId> {
        let slice = |sub: ClassId, sup: ClassId| -> Vec<ClassId> {
            let mro = &self.mros[sub.index()];
            let end = mro.iter().position(|c| *c == ClassRef::Local(sup)).unwrap_or(0);
            mro[..=end]
                .iter()
                .filter_map(|c| match c {
                    ClassRef::Local(j) => Some(*j),
                    _ => None,
                })
                .collect()
        };
        if self.is_subclass(from, to) {
            slice(from, to)
        } else if self.is_subclass(to, from) {
            slice(to, from)
        } else {
            Vec::new()
        }
    }

    /// Whether the class derives from the builtin `name` (e.g. `type`).
    pub fn derives_from_builtin(&self, id: ClassId, name: &str) -> bool {
        self.mros[id.index()].iter().any(|c| matches!(c, ClassRef::Builtin(b) if *b == name))
    }

    /// Looks `name` up along the MRO of `id`, starting with `id` itself.
    pub fn lookup(&self, id: ClassId, name: &str) -> Lookup<'_, 'f> {
        self.lookup_along(&self.mros[id.index()], name)
    }

    /// Looks `name` up as it would be found on an instance of `base`.
    pub fn lookup_ref(&self, base: &ClassRef, name: &str) -> Lookup<'_, 'f> {
        match base {
            ClassRef::Local(id) => self.lookup(*id, name),
            ClassRef::Builtin(b) => builtins::lookup(b, name).map_or(Lookup::Missing, Lookup::Builtin),
            ClassRef::External(e) => {
                if let Some(mro) = self.external_mros.borrow().get(e) {
                    return self.lookup_along(mro, name);
                }
                self.lookup_along(&self.mro_of(base), name)
            }
            ClassRef::Unknown(_) => Lookup::Unknown,
        }
    }

    /// Looks `name` up along the MRO of `id` after the entry `after` (a
    /// class of this file or of another module), as `super(after,
    /// self).name` does on an instance of `id`.
    pub fn lookup_after_ref(&self, id: ClassId, after: &ClassRef, name: &str) -> Lookup<'_, 'f> {
        let mro = &self.mros[id.index()];
        match mro.iter().position(|c| c == after) {
            Some(at) => self.lookup_along(&mro[at + 1..], name),
            None => Lookup::Unknown,
        }
    }

    /// Looks `name` up along the MRO of `id` after the entry `after`, as
    /// `super(after, self).name` does on an instance of `id`.
    pub fn lookup_after(&self, id: ClassId, after: ClassId, name: &str) -> Lookup<'_, 'f> {
        let mro = &self.mros[id.index()];
        match mro.iter().position(|c| *c == ClassRef::Local(after)) {
            Some(at) => self.lookup_along(&mro[at + 1..], name),
            None => Lookup::Unknown,
        }
    }

    /// The class of that name visible at `site`: the nearest class defined
    /// before it whose defining scope (module, function or class) encloses
    /// the site.
    pub fn named_before(&self, name: &str, site: Node<'_>) -> Option<ClassId> {
        let candidates = self.by_name.get(name)?;
        candidates.iter().rev().copied().find(|&i| {
            let node = self.classes[i.index()].node;
            node.start_byte() < site.start_byte() && scope_encloses(node, site)
        })
    }

    /// The MRO of any class entry: a class of this file, of another module
    /// of the project, a builtin class; an unknown class is its own MRO.
    pub fn mro_of(&self, class: &ClassRef) -> Vec<ClassRef> {
        match (class, &self.project) {
            (ClassRef::Local(id), _) => self.mros[id.index()].clone(),
            (ClassRef::External(e), Some(project)) => external_mro(project, *e, &mut self.external_mros.borrow_mut()),
            (ClassRef::Builtin(b), _) => builtins::builtin_mro(b).into_iter().map(ClassRef::Builtin).collect(),
            _ => vec![ClassRef::Unknown(String::new())],
        }
    }

    /// Looks `name` up along an MRO (or a tail of one).
    pub fn lookup_along(&self, mro: &[ClassRef], name: &str) -> Lookup<'_, 'f> {
        for entry in mro {
            match entry {
                ClassRef::Local(j) => {
                    if let Some(member) = self.classes[j.index()].declared(name) {
                        return Lookup::Local(*j, member);
                    }
                }
                ClassRef::Builtin(b) => {
                    if builtins::declares(b, name) {
                        return Lookup::Builtin(b);
                    }
                }
                ClassRef::External(e) => match self.external(*e) {
                    Some(class) => {
                        if let Some(member) = class.declared(name) {
                            return Lookup::External(*e, member);
                        }
                    }
                    None => return Lookup::Unknown,
                },
                ClassRef::Unknown(_) => return Lookup::Unknown,
            }
        }
        Lookup::Missing
    }
}

/// Whether the function or class holding the definition `node` (if any)
/// also holds `site`.
fn scope_encloses(node: Node<'_>, site: Node<'_>) -> bool {
    let mut current = node.parent();
    while let Some(n) = current {
        if matches!(n.py_kind(), Kind::FunctionDefinition | Kind::ClassDefinition | Kind::Lambda) {
            return n.start_byte() <= site.start_byte() && site.end_byte() <= n.end_byte();
        }
        current = n.parent();
    }
    true
}

/// Resolves a base expression: the nearest earlier class of that name in
/// the file, else a builtin not rebound at module level, else unknown.
fn resolve_base<'f>(
    file: &ParsedFile,
    base: Node<'_>,
    class: Node<'_>,
    earlier: &[ClassInfo<'f>],
    module_bindings: &[crate::scopes::NameEvent],
) -> ClassRef {
    let text = file.node_text(base).trim();
    if base.py_kind() != Kind::Identifier {
        return ClassRef::Unknown(text.to_string());
    }
    let local = earlier
        .iter()
        .enumerate()
        .rev()
        .find(|(_, c)| c.name == text && c.node.end_byte() <= class.start_byte() && c.node.id() != class.id());
    let rebound = module_bindings.iter().any(|b| b.name == text && b.kind != Some(BindingKind::Definition));
    match local {
        Some((id, _)) if !rebound => ClassRef::Local(ClassId::new(id)),
        Some(_) => ClassRef::Unknown(text.to_string()),
        None => match builtins::builtin_class(text) {
            Some(b) if !rebound && !module_bindings.iter().any(|d| d.name == text) => ClassRef::Builtin(b.name),
            _ => ClassRef::Unknown(text.to_string()),
        },
    }
}

/// Stores to attributes of the first parameter in each method's own scope
/// (not in nested functions, lambdas or classes).
fn self_stores<'f>(syntax: &FileSyntax<'f>, members: &[Member<'f>]) -> Vec<SelfStore<'f>> {
    let file = syntax.file();
    let mut stores = Vec::new();
    for member in members.iter().filter(|m| m.kind == MemberKind::Method) {
        let method = member.node;
        if decorators_under(file, member.decorated).iter().any(|d| *d == "staticmethod" || *d == "classmethod") {
            continue;
        }
        let Some((receiver, _)) = syntax.parameter_names(method).first() else { continue };
        // The method's own scope, in pre-order: its body without nested
        // functions, lambdas and classes.
        for &node in syntax.own_nodes(method) {
            match node.py_kind() {
                Kind::Assignment | Kind::AugmentedAssignment | Kind::ForStatement | Kind::ForInClause => {
                    if let Some(left) = node.field(Field::Left) {
                        let mut targets = vec![left];
                        while let Some(t) = targets.pop() {
                            match t.py_kind() {
                                Kind::Attribute => {
                                    let object = t.field(Field::Object);
                                    let attr = t.field(Field::Attribute);
                                    if let (Some(o), Some(a)) = (object, attr) {
                                        if o.py_kind() == Kind::Identifier && file.node_text(o) == receiver {
                                            stores.push(SelfStore {
                                                name: file.node_text(a).to_string(),
                                                attribute: t,
                                                method,
                                            });
                                        }
                                    }
                                }
                                Kind::PatternList
                                | Kind::TuplePattern
                                | Kind::ListPattern
                                | Kind::Tuple
                                | Kind::List
                                | Kind::ParenthesizedExpression
                                | Kind::ListSplatPattern => {
                                    targets.extend(named_children(t));
                                }
                                _ => {}
                            }
                        }
                    }
                }
                _ => {}
            }
        }
    }
    stores.sort_by_key(|s| s.attribute.start_byte());
    stores
}

/// Computes every class's MRO with C3 linearization, bases first, using an
/// explicit stack. A base still being computed (a cycle) counts as unknown;
/// the MROs of classes of other modules come from the project.
fn compute_mros(
    classes: &[ClassInfo<'_>],
    project: Option<&Project>,
    external: &mut HashMap<ExternalClass, Vec<ClassRef>>,
) -> Vec<Vec<ClassRef>> {
    const NEW: u8 = 0;
    const ACTIVE: u8 = 1;
    const DONE: u8 = 2;
    let n = classes.len();
    let mut state = vec![NEW; n];
    let mut mros: Vec<Vec<ClassRef>> = vec![Vec::new(); n];
    for start in 0..n {
        if state[start] == DONE {
            continue;
        }
        state[start] = ACTIVE;
        let mut stack = vec![start];
        while let Some(&top) = stack.last() {
            let pending = classes[top].bases.iter().find_map(|b| match b {
                ClassRef::Local(j) if state[j.index()] == NEW => Some(*j),
                _ => None,
            });
            if let Some(j) = pending {
                state[j.index()] = ACTIVE;
                stack.push(j.index());
                continue;
            }
            let written = &classes[top].bases;
            let implicit = [ClassRef::Builtin("object")];
            let bases: Vec<ClassRef> = if written.is_empty() { &implicit[..] } else { &written[..] }
                .iter()
                .map(|b| match b {
                    ClassRef::Local(j) if state[j.index()] != DONE => {
                        ClassRef::Unknown(classes[j.index()].name.clone())
                    }
                    other => other.clone(),
                })
                .collect();
            let sequences: Vec<Vec<ClassRef>> = bases
                .iter()
                .map(|b| match b {
                    ClassRef::Local(j) => mros[j.index()].clone(),
                    ClassRef::Builtin(name) => builtins::builtin_mro(name).into_iter().map(ClassRef::Builtin).collect(),
                    ClassRef::External(e) => match project {
                        Some(project) => external_mro(project, *e, external),
                        None => vec![ClassRef::Unknown(String::new())],
                    },
                    ClassRef::Unknown(_) => vec![b.clone()],
                })
                .collect();
            mros[top] = linearize(ClassRef::Local(ClassId::new(top)), sequences, bases);
            state[top] = DONE;
            stack.pop();
        }
    }
    mros
}

/// Deepest class hierarchy followed across modules.
const MAX_CLASS_DEPTH: usize = 64;

/// A base of a class of another module of the project, as an MRO entry.
fn summary_base_ref(project: &Project, module: ModuleId, base: &BaseSummary) -> ClassRef {
    match base {
        BaseSummary::Local(j) => ClassRef::External(ExternalClass { module, class: *j }),
        BaseSummary::Builtin(b) => ClassRef::Builtin(b),
        BaseSummary::Imported(parts) => match project.resolve_dotted(module, parts) {
            Resolved::Class(class) => ClassRef::External(class),
            _ => ClassRef::Unknown(parts.join(".")),
        },
        BaseSummary::Unknown(text) => ClassRef::Unknown(text.clone()),
    }
}

/// The MRO of a class of another module of the project, starting with
/// itself; `cache` keeps the MROs computed so far (one per analysed file).
pub fn external_mro(
    project: &Project,
    class: ExternalClass,
    cache: &mut HashMap<ExternalClass, Vec<ClassRef>>,
) -> Vec<ClassRef> {
    external_mro_within(project, class, cache, &mut Vec::new())
}

fn external_mro_within(
    project: &Project,
    class: ExternalClass,
    cache: &mut HashMap<ExternalClass, Vec<ClassRef>>,
    active: &mut Vec<ExternalClass>,
) -> Vec<ClassRef> {
    if let Some(mro) = cache.get(&class) {
        return mro.clone();
    }
    let Some(summary) = project.class(class) else { return vec![ClassRef::Unknown(String::new())] };
    if active.contains(&class) || active.len() >= MAX_CLASS_DEPTH {
        return vec![ClassRef::Unknown(summary.name.clone())];
    }
    active.push(class);
    let implicit = [BaseSummary::Builtin("object")];
    let written = if summary.bases.is_empty() { &implicit[..] } else { &summary.bases[..] };
    let bases: Vec<ClassRef> = written
        .iter()
        .map(|b| match summary_base_ref(project, class.module, b) {
            ClassRef::External(e) if active.contains(&e) => {
                ClassRef::Unknown(project.class(e).map(|c| c.name.clone()).unwrap_or_default())
            }
            other => other,
        })
        .collect();
    let sequences = bases
        .iter()
        .map(|b| match b {
            ClassRef::External(e) => external_mro_within(project, *e, cache, active),
            ClassRef::Builtin(name) => builtins::builtin_mro(name).into_iter().map(ClassRef::Builtin).collect(),
            other => vec![other.clone()],
        })
        .collect();
    active.pop();
    let mro = linearize(ClassRef::External(class), sequences, bases);
    cache.insert(class, mro.clone());
    mro
}

/// Longest MRO kept; deeper hierarchies end in an unknown entry, which
/// keeps time and memory bounded on generated or hostile input.
const MAX_MRO: usize = 256;

/// Largest C3 merge attempted (lists times entries); wider ones use the
/// fallback order.
const MAX_MERGE: usize = 200_000;

/// C3 linearization of a class with the given base MROs; falls back to a
/// depth-first, left-to-right order with `object` last when C3 fails.
fn linearize(head: ClassRef, sequences: Vec<Vec<ClassRef>>, bases: Vec<ClassRef>) -> Vec<ClassRef> {
    let size = (sequences.len() + 1) * sequences.iter().map(Vec::len).sum::<usize>();
    let mut mro = if sequences.len() == 1 && !sequences[0].contains(&head) {
        // Single inheritance: the class, then its base's MRO.
        std::iter::once(head).chain(sequences.into_iter().flatten()).collect()
    } else if size > MAX_MERGE {
        fallback(head, sequences)
    } else {
        c3(head, sequences, bases)
    };
    if mro.len() > MAX_MRO {
        mro.truncate(MAX_MRO - 1);
        mro.push(ClassRef::Unknown("...".to_string()));
    }
    mro
}

fn c3(head: ClassRef, sequences: Vec<Vec<ClassRef>>, bases: Vec<ClassRef>) -> Vec<ClassRef> {
    let mut result = vec![head.clone()];
    let mut lists: Vec<Vec<ClassRef>> = sequences.clone();
    lists.push(bases);
    lists.retain(|l| !l.is_empty());
    while !lists.is_empty() {
        let candidate =
            lists.iter().map(|l| &l[0]).find(|c| !lists.iter().any(|l| l[1..].contains(c)) && **c != head).cloned();
        let Some(next) = candidate else {
            return fallback(head, sequences);
        };
        for list in &mut lists {
            if list.first() == Some(&next) {
                list.remove(0);
            }
        }
        lists.retain(|l| !l.is_empty());
        result.push(next);
    }
    result
}

fn fallback(head: ClassRef, sequences: Vec<Vec<ClassRef>>) -> Vec<ClassRef> {
    let mut result = vec![head];
    for entry in sequences.into_iter().flatten() {
        if !result.contains(&entry) && entry != ClassRef::Builtin("object") {
            result.push(entry);
        }
    }
    result.push(ClassRef::Builtin("object"));
    result
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::FileContext;
    use quarry_syntax::{Language, SourceFile};

    fn parse(text: &str) -> ParsedFile {
        ParsedFile::parse(SourceFile::from_text("t.py", text), Language::Python).unwrap()
    }

    fn names(classes: &Classes<'_>, id: ClassId) -> Vec<String> {
        classes
            .mro(id)
            .iter()
            .map(|c| match c {
                ClassRef::Local(j) => classes.get(*j).name.clone(),
                ClassRef::Builtin(b) => b.to_string(),
                ClassRef::External(e) => format!("{}:{}", e.module.index(), e.class),
                ClassRef::Unknown(u) => format!("?{u}"),
            })
            .collect()
    }

    #[test]
    fn c3_diamond_and_builtins() {
        let file = parse(
            "class A(object): pass\nclass B(A): pass\nclass C(A): pass\nclass D(B, C): pass\nclass E(dict): pass\n",
        );
        let cx = FileContext::new(&file);
        let classes = cx.classes();
        assert_eq!(names(classes, ClassId::new(3)), ["D", "B", "C", "A", "object"]);
        assert_eq!(names(classes, ClassId::new(4)), ["E", "dict", "object"]);
        assert!(
            classes.is_subclass(ClassId::new(3), ClassId::new(0))
                && !classes.is_subclass(ClassId::new(0), ClassId::new(3))
        );
    }

    #[test]
    fn imported_and_cyclic_bases_are_unknown() {
        let file = parse("from m import Base\nclass A(Base): pass\nclass X(Y): pass\nclass Y(X): pass\n");
        let cx = FileContext::new(&file);
        let classes = cx.classes();
        assert_eq!(names(classes, ClassId::new(0)), ["A", "?Base"]);
        assert!(!classes.is_fully_known(ClassId::new(0)));
        assert_eq!(names(classes, ClassId::new(1)), ["X", "?Y"]);
    }

    #[test]
    fn inconsistent_hierarchy_falls_back() {
        let file = parse("class A: pass\nclass B(A): pass\nclass C(A, B): pass\n");
        let cx = FileContext::new(&file);
        assert_eq!(names(cx.classes(), ClassId::new(2)), ["C", "A", "B", "object"]);
    }

    #[test]
    fn members_stores_and_lookup() {
        let text = "class A:\n    x = y = 1\n    if p:\n        def f(self): self.a = 1\n    def g(me):\n        me.b, me.c = 1, 2\n        def inner(): me.d = 3\n\nclass B(A):\n    pass\n";
        let file = parse(text);
        let cx = FileContext::new(&file);
        let classes = cx.classes();
        let a = classes.get(ClassId::new(0));
        let declared: Vec<&str> = a.members.iter().map(|m| m.name.as_str()).collect();
        assert_eq!(declared, ["x", "y", "f", "g"]);
        let stored: Vec<&str> = a.self_stores.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(stored, ["a", "b", "c"]);
        assert!(matches!(classes.lookup(ClassId::new(1), "f"), Lookup::Local(id, _) if id == ClassId::new(0)));
        assert!(matches!(classes.lookup(ClassId::new(1), "__eq__"), Lookup::Builtin("object")));
        assert!(matches!(classes.lookup(ClassId::new(1), "nothing"), Lookup::Missing));
    }
}
