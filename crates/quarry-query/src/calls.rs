//! Call and reference targets that resolve inside a file: `Class.name`,
//! `self.name`, `super(Class, self).name`, `super().name` (also through a
//! local variable holding `super(...)`), and plain names of module-level
//! functions and classes.

use crate::syntax::{Field, Kind, SyntaxNode};
use tree_sitter::Node;

use crate::ast::method_class;
use crate::classes::{ClassId, ClassRef, Classes, Lookup};
use crate::context::FileContext;
use crate::parameters::parameter_names;
use crate::project::ExternalClass;
use quarry_syntax::ParsedFile;

/// What a reference resolves to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Target<'f> {
    /// A method or function of the file, with the class declaring it if any.
    Function(Option<ClassId>, Node<'f>),
    /// A class of the file.
    Class(ClassId),
    /// A method of a class of another module of the project: the class and
    /// the member's index in its summary.
    External(ExternalClass, usize),
    /// A builtin attribute or function.
    Builtin,
    /// Nothing quarry can see.
    Unknown,
}

/// How an attribute reference `object.name` inside a method reaches a class,
/// independent of the runtime class of the instance.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reference {
    /// `self.name`: looked up on the runtime class.
    Receiver,
    /// `super(C, self).name`: looked up on the runtime class after `C`.
    Super(ClassId),
    /// `C.name` for a class `C` of the file.
    Class(ClassId),
    /// `super(C, self).name` for a class `C` of another module.
    SuperExternal(ExternalClass),
    /// `C.name` for a class `C` of another module of the project.
    External(ExternalClass),
    /// Anything else.
    Opaque,
}

/// Classifies the attribute reference `object.name` inside `function`, a
/// method of `defining`.
pub fn classify_attribute<'f>(
    cx: &FileContext<'f>,
    defining: ClassId,
    function: Node<'f>,
    attribute: Node<'f>,
) -> Reference {
    let (file, classes) = (cx.file(), cx.classes());
    let Some(object) = attribute.field(Field::Object) else { return Reference::Opaque };
    if let Some(after) = super_class(cx, defining, function, object) {
        return Reference::Super(after);
    }
    if object.py_kind() == Kind::Attribute {
        // `module.Class.name`, with `module` imported at module level.
        let head = dotted_head(object).map(|h| file.node_text(h));
        let local = head.is_some_and(|h| {
            parameter_names(file, function).iter().any(|(n, _)| n == h) || assigns_locally(cx, function, h)
        });
        if local {
            return Reference::Opaque;
        }
        let text: String = file.node_text(object).split_whitespace().collect();
        return cx.imported_class(&text).map_or(Reference::Opaque, Reference::External);
    }
    if object.py_kind() != Kind::Identifier {
        return Reference::Opaque;
    }
    let name = file.node_text(object);
    let parameters = parameter_names(file, function);
    if parameters.first().is_some_and(|(n, _)| n == name) {
        return Reference::Receiver;
    }
    if parameters.iter().any(|(n, _)| n == name) || assigns_locally(cx, function, name) {
        return Reference::Opaque;
    }
    if let Some(class) = classes.named_before(name, attribute) {
        return Reference::Class(class);
    }
    cx.imported_class(name).map_or(Reference::Opaque, Reference::External)
}

/// The identifier a dotted name (`a.b.c`) starts with; `None` for any
/// other expression.
pub fn dotted_head(node: Node<'_>) -> Option<Node<'_>> {
    let mut current = node;
    loop {
        match current.py_kind() {
            Kind::Identifier => return Some(current),
            Kind::Attribute => current = current.field(Field::Object)?,
            _ => return None,
        }
    }
}

/// Whether the function's own scope assigns `name` (`B = type(...)`), which
/// hides any class of that name.
fn assigns_locally<'f>(cx: &FileContext<'f>, function: Node<'f>, name: &str) -> bool {
    let file = cx.file();
    cx.own_nodes(function).iter().any(|n| {
        matches!(n.py_kind(), Kind::Assignment | Kind::ForStatement | Kind::WithItem)
            && n.field(Field::Left).is_some_and(|l| l.py_kind() == Kind::Identifier && file.node_text(l) == name)
    })
}

/// Resolves a classified reference to `name` for an instance of `runtime`.
pub fn resolve_reference<'f>(classes: &Classes<'f>, runtime: ClassId, reference: Reference, name: &str) -> Target<'f> {
    let lookup = match reference {
        Reference::Receiver => classes.lookup(runtime, name),
        Reference::Super(after) => classes.lookup_after(runtime, after, name),
        Reference::Class(class) => classes.lookup(class, name),
        Reference::SuperExternal(after) => classes.lookup_after_ref(runtime, &ClassRef::External(after), name),
        Reference::External(class) => classes.lookup_ref(&ClassRef::External(class), name),
        Reference::Opaque => Lookup::Unknown,
    };
    target_of(classes, lookup)
}

/// Resolves the attribute reference `object.name` inside `function`,
/// a method of `defining`, for an instance whose class is `runtime`.
pub fn resolve_attribute<'f>(
    cx: &FileContext<'f>,
    runtime: ClassId,
    defining: ClassId,
    function: Node<'f>,
    attribute: Node<'f>,
) -> Target<'f> {
    let Some(name) = attribute.field(Field::Attribute) else { return Target::Unknown };
    let reference = classify_attribute(cx, defining, function, attribute);
    resolve_reference(cx.classes(), runtime, reference, cx.file().node_text(name))
}

fn target_of<'f>(classes: &Classes<'f>, lookup: Lookup<'_, 'f>) -> Target<'f> {
    match lookup {
        Lookup::Local(class, member) if member.kind == crate::classes::MemberKind::Method => {
            Target::Function(Some(class), member.node)
        }
        Lookup::External(class, member) if member.kind == crate::classes::MemberKind::Method => {
            let index = classes.external(class).and_then(|c| c.members.iter().rposition(|m| m.name == member.name));
            index.map_or(Target::Unknown, |i| Target::External(class, i))
        }
        Lookup::Builtin(_) => Target::Builtin,
        _ => Target::Unknown,
    }
}

/// If `object` is `super(...)` (or a local variable assigned it), the class
/// after which lookup starts.
fn super_class<'f>(cx: &FileContext<'f>, defining: ClassId, function: Node<'f>, object: Node<'f>) -> Option<ClassId> {
    let (file, classes) = (cx.file(), cx.classes());
    let call = if object.py_kind() == Kind::Identifier {
        let variable = file.node_text(object);
        cx.super_assignments(function).iter().find_map(|&n| {
            let left = n.field(Field::Left)?;
            (file.node_text(left) == variable).then_some(n.field(Field::Right)?)
        })?
    } else {
        object
    };
    if !is_super_call(file, call) {
        return None;
    }
    let first = call.field(Field::Arguments).and_then(|a| a.named_child(0));
    match first {
        None => Some(defining),
        Some(arg) => {
            let text = file.node_text(arg);
            let name = text.rsplit('.').next().unwrap_or(text).trim();
            classes.named_before(name, call).or(Some(defining)).filter(|_| !name.is_empty())
        }
    }
}

/// Whether `node` is a call of `super`.
pub(crate) fn is_super_call(file: &ParsedFile, node: Node<'_>) -> bool {
    node.py_kind() == Kind::Call
        && node.field(Field::Function).is_some_and(|f| f.py_kind() == Kind::Identifier && file.node_text(f) == "super")
}

/// Every target that `function` (a method of `defining`) references by an
/// attribute named `name`, for an instance of `runtime`, with the attribute
/// nodes that do not resolve.
pub fn attribute_targets<'f>(
    cx: &FileContext<'f>,
    runtime: ClassId,
    defining: ClassId,
    function: Node<'f>,
    name: &str,
) -> (Vec<Target<'f>>, Vec<Node<'f>>) {
    let mut resolved = Vec::new();
    let mut unresolved = Vec::new();
    for (node, reference) in attribute_references(cx, defining, function, name) {
        match resolve_reference(cx.classes(), runtime, reference, name) {
            Target::Unknown => unresolved.push(node),
            target => resolved.push(target),
        }
    }
    (resolved, unresolved)
}

/// The attribute nodes named `name` in `function`'s own scope, each with
/// how it reaches a class; the classification does not depend on the
/// runtime class, so callers may compute it once per function.
pub fn attribute_references<'f>(
    cx: &FileContext<'f>,
    defining: ClassId,
    function: Node<'f>,
    name: &str,
) -> Vec<(Node<'f>, Reference)> {
    let file = cx.file();
    cx.own_nodes(function)
        .iter()
        .copied()
        .filter(|n| {
            n.py_kind() == Kind::Attribute && n.field(Field::Attribute).map(|a| file.node_text(a)) == Some(name)
        })
        .map(|n| (n, classify_attribute(cx, defining, function, n)))
        .collect()
}

/// A call resolved to a function or method of the file.
#[derive(Debug, Clone, Copy)]
pub struct CallTarget<'f> {
    /// The `function_definition` called.
    pub function: Node<'f>,
    /// The class declaring it, for methods.
    pub class: Option<ClassId>,
    /// Whether the receiver is passed implicitly (bound method call).
    pub bound: bool,
}

/// Resolves the callee of a `call` to a function of the file: a plain name
/// bound only by a module-level `def` and not shadowed where the call is,
/// `self.m(...)` in a method, `Class.m(...)` and `super(...).m(...)`.
/// Every call of the file is resolved once, on first use, and shared by
/// the queries that ask ([`FileContext::call_target`]).
pub fn resolve_call<'f>(cx: &FileContext<'f>, call: Node<'f>) -> Option<CallTarget<'f>> {
    cx.call_target(call)
}

/// [`resolve_call`] without the file's cache.
pub(crate) fn resolve_call_uncached<'f>(cx: &FileContext<'f>, call: Node<'f>) -> Option<CallTarget<'f>> {
    let file = cx.file();
    let callee = call.field(Field::Function)?;
    match callee.py_kind() {
        Kind::Identifier => {
            let name = file.node_text(callee);
            let definition = module_definition(cx, name, call)?;
            (definition.py_kind() == Kind::FunctionDefinition).then_some(CallTarget {
                function: definition,
                class: None,
                bound: false,
            })
        }
        Kind::Attribute => {
            let classes = cx.classes();
            let function = cx.enclosing_function(call)?;
            let defining = classes.of_node(cx.method_class(function)?)?;
            let object = callee.field(Field::Object)?;
            let through_class = object.py_kind() == Kind::Identifier
                && parameter_names(file, function).first().map(|(n, _)| n.as_str()) != Some(file.node_text(object))
                && super_class(cx, defining, function, object).is_none();
            match resolve_attribute(cx, defining, defining, function, callee) {
                Target::Function(class, node) => {
                    let decorators = cx.decorators(node);
                    let is_static = decorators.contains(&"staticmethod");
                    let is_class = decorators.contains(&"classmethod");
                    let bound = !is_static && (is_class || !through_class);
                    Some(CallTarget { function: node, class, bound })
                }
                _ => None,
            }
        }
        _ => None,
    }
}

/// Resolves a call `Name(...)` to a class of the file bound only by its
/// `class` statement at module level and not shadowed where the call is.
pub fn resolve_class_call<'f>(cx: &FileContext<'f>, call: Node<'f>) -> Option<ClassId> {
    let callee = call.field(Field::Function).filter(|f| f.py_kind() == Kind::Identifier)?;
    let definition = module_definition(cx, cx.file().node_text(callee), call)?;
    cx.classes().of_node(definition)
}

/// Resolves a call `Name(...)` to the class it instantiates: a class of the
/// file (as [`resolve_class_call`] finds it) or, for a name bound at module
/// level by one import and not shadowed where the call is, a class of
/// another module of the project.
pub fn resolve_instantiation<'f>(cx: &FileContext<'f>, call: Node<'f>) -> Option<ClassRef> {
    if let Some(class) = resolve_class_call(cx, call) {
        return Some(ClassRef::Local(class));
    }
    cx.project()?;
    let callee = call.field(Field::Function).filter(|f| f.py_kind() == Kind::Identifier)?;
    let name = cx.file().node_text(callee);
    if !matches!(cx.module_names().get(name), Some(crate::project::Binding::Import(_))) || shadowed(cx, name, call) {
        return None;
    }
    cx.imported_class(name).map(ClassRef::External)
}

/// Whether a function, lambda or class enclosing `site` binds `name`.
fn shadowed<'f>(cx: &FileContext<'f>, name: &str, site: Node<'f>) -> bool {
    let scopes = cx.scopes();
    let mut current = cx.parent(site);
    while let Some(n) = current {
        if matches!(n.py_kind(), Kind::FunctionDefinition | Kind::Lambda | Kind::ClassDefinition) {
            if let Some(scope) = scopes.of_node(n.id()) {
                if scopes.get(scope).is_local(name) {
                    return true;
                }
            }
        }
        current = cx.parent(n);
    }
    false
}

/// The module-level `def` or `class` that `name` refers to at `site`: the
/// module binds it only by definitions (the last one before `site` counts,
/// else the last one) and no enclosing function or lambda binds it.
fn module_definition<'f>(cx: &FileContext<'f>, name: &str, site: Node<'f>) -> Option<Node<'f>> {
    let scopes = cx.scopes();
    let module = scopes.get(0);
    let bindings: Vec<_> = module.bindings.iter().filter(|b| b.name == name).collect();
    if bindings.is_empty() || bindings.iter().any(|b| b.kind != Some(crate::scopes::BindingKind::Definition)) {
        return None;
    }
    if shadowed(cx, name, site) {
        return None;
    }
    let before = bindings.iter().rev().find(|b| b.start_byte < site.start_byte()).or(bindings.last())?;
    let definitions = cx.nodes(Kind::FunctionDefinition).iter().chain(cx.nodes(Kind::ClassDefinition));
    definitions.copied().find(|d| d.id() == before.binder_id.unwrap_or(usize::MAX))
}

/// The class declaring `function` as a method, if any.
pub fn defining_class(classes: &Classes<'_>, function: Node<'_>) -> Option<ClassId> {
    method_class(function).and_then(|c| classes.of_node(c))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::FileContext;
    use quarry_syntax::{Language, SourceFile};

    #[test]
    fn super_explicit_and_self_references() {
        let text = "class A(object):\n    def __init__(self): pass\nclass B(A):\n    def __init__(self):\n        super(B, self).__init__()\n        A.__init__(self)\n        s = super()\n        s.__init__()\n        self.__init__\n        other.__init__()\n";
        let file = ParsedFile::parse(SourceFile::from_text("t.py", text), Language::Python).unwrap();
        let cx = FileContext::new(&file);
        let classes = cx.classes();
        let init_b = classes.get(1).method("__init__").unwrap();
        let (resolved, unresolved) = attribute_targets(&cx, 1, 1, init_b, "__init__");
        let a_init = classes.get(0).method("__init__").unwrap();
        assert_eq!(resolved.iter().filter(|t| **t == Target::Function(Some(0), a_init)).count(), 3);
        assert!(resolved.contains(&Target::Function(Some(1), init_b)));
        assert_eq!(unresolved.len(), 1);
        assert_eq!(defining_class(classes, init_b), Some(1));
    }

    #[test]
    fn calls_to_functions_methods_and_classes() {
        let text = "def f(a): pass\nclass K(object):\n    def m(self): f(1)\n    @staticmethod\n    def s(): pass\n    def n(self):\n        self.m()\n        K.m(self)\n        self.s()\nK()\ndef g(f):\n    f(1)\n";
        let file = ParsedFile::parse(SourceFile::from_text("t.py", text), Language::Python).unwrap();
        let cx = FileContext::new(&file);
        let calls = cx.nodes(Kind::Call);
        let targets: Vec<Option<(String, bool)>> = calls
            .iter()
            .map(|c| {
                resolve_call(&cx, *c)
                    .map(|t| (file.node_text(t.function.field(Field::Name).unwrap()).to_string(), t.bound))
            })
            .collect();
        let some = |n: &str, b: bool| Some((n.to_string(), b));
        assert_eq!(targets, [some("f", false), some("m", true), some("m", false), some("s", false), None, None]);
        assert_eq!(resolve_class_call(&cx, calls[4]), Some(0));
        assert_eq!(resolve_class_call(&cx, calls[0]), None);
    }
}
