//! Call and reference targets that resolve inside a file: `Class.name`,
//! `self.name`, `super(Class, self).name`, `super().name` (also through a
//! local variable holding `super(...)`), and plain names of module-level
//! functions and classes.

use crate::syntax::{Field, Kind, SyntaxNode};
use tree_sitter::Node;

use crate::ast::{dotted_head, is_super_call, method_class};
use crate::class_syntax::MemberKind;
use crate::classes::{ClassId, ClassRef, Classes, Lookup};
use crate::file_syntax::FileSyntax;
use crate::project::{Binding, ExternalClass, InitRef, MethodSummary, Project, ProjectFile, Resolved};
use crate::scopes::{BindingKind, Scopes};
use crate::signatures::Signature;

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

/// What call and reference resolution reads of one file: its syntax, its
/// scopes and classes, and the project when the file is a module of one.
/// [`crate::FileContext::calls`] gives the file's; every call's target is
/// also cached there ([`crate::FileContext::call_target`]).
#[derive(Clone, Copy)]
pub struct CallResolver<'a, 'f> {
    /// The file's syntax layer.
    pub syntax: &'a FileSyntax<'f>,
    /// The file's scopes and bindings.
    pub scopes: &'a Scopes,
    /// The file's classes.
    pub classes: &'a Classes<'f>,
    /// The file as a module of the project, if it is one.
    pub project: Option<&'a ProjectFile<'f>>,
}

impl<'a, 'f> CallResolver<'a, 'f> {
    /// The project class a dotted name read at module level stands for.
    fn imported_class(&self, dotted: &str) -> Option<ExternalClass> {
        self.project?.imported_class(dotted)
    }

    /// Classifies the attribute reference `object.name` inside `function`, a
    /// method of `defining`.
    pub fn classify_attribute(&self, defining: ClassId, function: Node<'f>, attribute: Node<'f>) -> Reference {
        let (file, classes) = (self.syntax.file(), self.classes);
        let Some(object) = attribute.field(Field::Object) else { return Reference::Opaque };
        if let Some(after) = self.super_class(defining, function, object) {
            return Reference::Super(after);
        }
        if object.py_kind() == Kind::Attribute {
            // `module.Class.name`, with `module` imported at module level.
            let head = dotted_head(object).map(|h| file.node_text(h));
            let local = head.is_some_and(|h| {
                self.syntax.parameter_names(function).iter().any(|(n, _)| n == h) || self.assigns_locally(function, h)
            });
            if local {
                return Reference::Opaque;
            }
            let text: String = file.node_text(object).split_whitespace().collect();
            return self.imported_class(&text).map_or(Reference::Opaque, Reference::External);
        }
        if object.py_kind() != Kind::Identifier {
            return Reference::Opaque;
        }
        let name = file.node_text(object);
        let parameters = self.syntax.parameter_names(function);
        if parameters.first().is_some_and(|(n, _)| n == name) {
            return Reference::Receiver;
        }
        if parameters.iter().any(|(n, _)| n == name) || self.assigns_locally(function, name) {
            return Reference::Opaque;
        }
        if let Some(class) = classes.named_before(name, attribute) {
            return Reference::Class(class);
        }
        self.imported_class(name).map_or(Reference::Opaque, Reference::External)
    }

    /// Whether the function's own scope assigns `name` (`B = type(...)`), which
    /// hides any class of that name.
    fn assigns_locally(&self, function: Node<'f>, name: &str) -> bool {
        self.syntax.assigns_locally(function, name)
    }

    /// Resolves the attribute reference `object.name` inside `function`,
    /// a method of `defining`, for an instance whose class is `runtime`.
    pub fn resolve_attribute(
        &self,
        runtime: ClassId,
        defining: ClassId,
        function: Node<'f>,
        attribute: Node<'f>,
    ) -> Target<'f> {
        let Some(name) = attribute.field(Field::Attribute) else { return Target::Unknown };
        let reference = self.classify_attribute(defining, function, attribute);
        resolve_reference(self.classes, runtime, reference, self.syntax.file().node_text(name))
    }

    /// If `object` is `super(...)` (or a local variable assigned it), the class
    /// after which lookup starts.
    fn super_class(&self, defining: ClassId, function: Node<'f>, object: Node<'f>) -> Option<ClassId> {
        let (file, classes) = (self.syntax.file(), self.classes);
        let call = if object.py_kind() == Kind::Identifier {
            let variable = file.node_text(object);
            self.syntax.super_assignments(function).iter().find_map(|&n| {
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

    /// Every target that `function` (a method of `defining`) references by an
    /// attribute named `name`, for an instance of `runtime`, with the attribute
    /// nodes that do not resolve.
    pub fn attribute_targets(
        &self,
        runtime: ClassId,
        defining: ClassId,
        function: Node<'f>,
        name: &str,
    ) -> (Vec<Target<'f>>, Vec<Node<'f>>) {
        let mut resolved = Vec::new();
        let mut unresolved = Vec::new();
        for (node, reference) in self.attribute_references(defining, function, name) {
            match resolve_reference(self.classes, runtime, reference, name) {
                Target::Unknown => unresolved.push(node),
                target => resolved.push(target),
            }
        }
        (resolved, unresolved)
    }

    /// The attribute nodes named `name` in `function`'s own scope, each with
    /// how it reaches a class; the classification does not depend on the
    /// runtime class, so callers may compute it once per function.
    pub fn attribute_references(
        &self,
        defining: ClassId,
        function: Node<'f>,
        name: &str,
    ) -> Vec<(Node<'f>, Reference)> {
        let file = self.syntax.file();
        // A function whose text never holds `name` has no such attribute.
        if !file.node_text(function).contains(name) {
            return Vec::new();
        }
        self.syntax
            .own_nodes(function)
            .iter()
            .copied()
            .filter(|n| {
                n.py_kind() == Kind::Attribute && n.field(Field::Attribute).map(|a| file.node_text(a)) == Some(name)
            })
            .map(|n| (n, self.classify_attribute(defining, function, n)))
            .collect()
    }

    /// Resolves the callee of a `call` to a function of the file: a plain name
    /// bound only by a module-level `def` and not shadowed where the call is,
    /// `self.m(...)` in a method, `Class.m(...)` and `super(...).m(...)`.
    /// [`crate::FileContext::call_target`] resolves every call of the file
    /// once and shares the answers between the queries.
    pub fn resolve_call(&self, call: Node<'f>) -> Option<CallTarget<'f>> {
        let file = self.syntax.file();
        let callee = call.field(Field::Function)?;
        match callee.py_kind() {
            Kind::Identifier => {
                let name = file.node_text(callee);
                let definition = self.module_definition(name, call)?;
                (definition.py_kind() == Kind::FunctionDefinition).then_some(CallTarget {
                    function: definition,
                    class: None,
                    bound: false,
                })
            }
            Kind::Attribute => {
                let classes = self.classes;
                let function = self.syntax.enclosing_function(call)?;
                let defining = classes.of_node(self.syntax.method_class(function)?)?;
                let object = callee.field(Field::Object)?;
                let through_class = object.py_kind() == Kind::Identifier
                    && self.syntax.parameter_names(function).first().map(|(n, _)| n.as_str())
                        != Some(file.node_text(object))
                    && self.super_class(defining, function, object).is_none();
                match self.resolve_attribute(defining, defining, function, callee) {
                    Target::Function(class, node) => {
                        let decorators = self.syntax.decorators(node);
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

    /// The signature of the function of another module of the project that
    /// a call `name(...)` calls: `name` bound at module level by one import
    /// alone and not shadowed where the call is (see
    /// [`Project::imported_function`]).
    pub fn resolve_imported_call(&self, call: Node<'f>) -> Option<&'a Signature> {
        let callee = call.field(Field::Function).filter(|f| f.py_kind() == Kind::Identifier)?;
        let name = self.syntax.file().node_text(callee);
        let module = self.scopes.get(crate::scopes::ScopeId::MODULE);
        let &[index] = module.bindings_of(name) else { return None };
        let binding = &module.bindings[index];
        if binding.kind != Some(BindingKind::Import) || self.shadowed(name, call) {
            return None;
        }
        let project = self.project?;
        let Some(Binding::Import(import)) = project.module_names().get(name) else { return None };
        project.view().project.imported_function(project.view().module, import)
    }

    /// Resolves a call `Name(...)` to a class of the file bound only by its
    /// `class` statement at module level and not shadowed where the call is.
    pub fn resolve_class_call(&self, call: Node<'f>) -> Option<ClassId> {
        let callee = call.field(Field::Function).filter(|f| f.py_kind() == Kind::Identifier)?;
        let definition = self.module_definition(self.syntax.file().node_text(callee), call)?;
        self.classes.of_node(definition)
    }

    /// Resolves a call `Name(...)` to the class it instantiates: a class of the
    /// file (as [`CallResolver::resolve_class_call`] finds it) or, for a name
    /// bound at module level by one import and not shadowed where the call
    /// is, a class of another module of the project.
    pub fn resolve_instantiation(&self, call: Node<'f>) -> Option<ClassRef> {
        if let Some(class) = self.resolve_class_call(call) {
            return Some(ClassRef::Local(class));
        }
        let project = self.project?;
        let callee = call.field(Field::Function).filter(|f| f.py_kind() == Kind::Identifier)?;
        let name = self.syntax.file().node_text(callee);
        if !matches!(project.module_names().get(name), Some(crate::project::Binding::Import(_)))
            || self.shadowed(name, call)
        {
            return None;
        }
        project.imported_class(name).map(ClassRef::External)
    }

    /// Whether a function, lambda or class enclosing `site` binds `name`.
    fn shadowed(&self, name: &str, site: Node<'f>) -> bool {
        let scopes = self.scopes;
        let mut current = self.syntax.parent(site);
        while let Some(n) = current {
            if matches!(n.py_kind(), Kind::FunctionDefinition | Kind::Lambda | Kind::ClassDefinition) {
                if let Some(scope) = scopes.of_node(n.id()) {
                    if scopes.get(scope).is_local(name) {
                        return true;
                    }
                }
            }
            current = self.syntax.parent(n);
        }
        false
    }

    /// The module-level `def` or `class` that `name` refers to at `site`: the
    /// module binds it only by definitions (the last one before `site` counts,
    /// else the last one) and no enclosing function or lambda binds it.
    fn module_definition(&self, name: &str, site: Node<'f>) -> Option<Node<'f>> {
        let module = self.scopes.get(crate::scopes::ScopeId::MODULE);
        let bindings: Vec<_> = module.bindings_of(name).iter().map(|&i| &module.bindings[i]).collect();
        if bindings.is_empty() || bindings.iter().any(|b| b.kind != Some(BindingKind::Definition)) {
            return None;
        }
        if self.shadowed(name, site) {
            return None;
        }
        let before = bindings.iter().rev().find(|b| b.start_byte < site.start_byte()).or(bindings.last())?;
        self.syntax.definition(before.binder_id?)
    }
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

fn target_of<'f>(classes: &Classes<'f>, lookup: Lookup<'_, 'f>) -> Target<'f> {
    match lookup {
        Lookup::Local(class, member) if member.kind == MemberKind::Method => Target::Function(Some(class), member.node),
        Lookup::External(class, member) if member.kind == MemberKind::Method => {
            let index = classes.external(class).and_then(|c| c.members.iter().rposition(|m| m.name == member.name));
            index.map_or(Target::Unknown, |i| Target::External(class, i))
        }
        Lookup::Builtin(_) => Target::Builtin,
        _ => Target::Unknown,
    }
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

/// The `__init__` references of a method of a class of another module of
/// the project, as references from the perspective of the analysed file.
pub fn external_init_references(project: &Project, class: ExternalClass, method: &MethodSummary) -> Vec<Reference> {
    method
        .init_refs
        .iter()
        .map(|r| match r {
            InitRef::Receiver => Reference::Receiver,
            InitRef::Super(j) => Reference::SuperExternal(ExternalClass { module: class.module, class: *j }),
            InitRef::Class(j) => Reference::External(ExternalClass { module: class.module, class: *j }),
            InitRef::Imported(parts) => match project.resolve_dotted(class.module, parts) {
                Resolved::Class(target) => Reference::External(target),
                _ => Reference::Opaque,
            },
            InitRef::Opaque => Reference::Opaque,
        })
        .collect()
}

/// The class declaring `function` as a method, if any.
pub fn defining_class(classes: &Classes<'_>, function: Node<'_>) -> Option<ClassId> {
    method_class(function).and_then(|c| classes.of_node(c))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::FileContext;
    use quarry_syntax::{Language, ParsedFile, SourceFile};

    #[test]
    fn super_explicit_and_self_references() {
        let text = "class A(object):\n    def __init__(self): pass\nclass B(A):\n    def __init__(self):\n        super(B, self).__init__()\n        A.__init__(self)\n        s = super()\n        s.__init__()\n        self.__init__\n        other.__init__()\n";
        let file = ParsedFile::parse(SourceFile::from_text("t.py", text), Language::Python).unwrap();
        let cx = FileContext::new(&file);
        let classes = cx.classes();
        let init_b = classes.get(ClassId::new(1)).method("__init__").unwrap();
        let (resolved, unresolved) = cx.calls().attribute_targets(ClassId::new(1), ClassId::new(1), init_b, "__init__");
        let a_init = classes.get(ClassId::new(0)).method("__init__").unwrap();
        assert_eq!(resolved.iter().filter(|t| **t == Target::Function(Some(ClassId::new(0)), a_init)).count(), 3);
        assert!(resolved.contains(&Target::Function(Some(ClassId::new(1)), init_b)));
        assert_eq!(unresolved.len(), 1);
        assert_eq!(defining_class(classes, init_b), Some(ClassId::new(1)));
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
                cx.call_target(*c)
                    .map(|t| (file.node_text(t.function.field(Field::Name).unwrap()).to_string(), t.bound))
            })
            .collect();
        let some = |n: &str, b: bool| Some((n.to_string(), b));
        assert_eq!(targets, [some("f", false), some("m", true), some("m", false), some("s", false), None, None]);
        assert_eq!(cx.calls().resolve_class_call(calls[4]), Some(ClassId::new(0)));
        assert_eq!(cx.calls().resolve_class_call(calls[0]), None);
    }
}
