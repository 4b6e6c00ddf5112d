//! What a class statement says, read from the syntax alone: its header
//! (name, base expressions, `metaclass=`) and the attributes its body
//! declares. Shared by the per-file class analysis ([`crate::classes`]) and
//! the project's module summaries ([`crate::project::summary`]).

use crate::ast::named_children;
use crate::syntax::{Field, Kind, SyntaxNode};
use quarry_syntax::ParsedFile;
use tree_sitter::Node;

/// What kind of attribute a class body declares.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum MemberKind {
    /// `def name(...)`.
    Method,
    /// `name = value` at class level.
    Assignment,
    /// `class name: ...` inside the class body.
    NestedClass,
}

/// One attribute declared in a class body.
#[derive(Debug, Clone)]
pub struct Member<'f> {
    /// The attribute name.
    pub name: String,
    /// How it is declared.
    pub kind: MemberKind,
    /// The `function_definition` or `class_definition` node, or for an
    /// assignment the assigned value (the target when there is none).
    pub node: Node<'f>,
    /// The `decorated_definition` holding a decorated method or nested
    /// class (its decorators without a walk up from the root).
    pub decorated: Option<Node<'f>>,
}

/// A class statement's header as written: its name, its base expressions
/// (keyword arguments and comments left out; `*`/`**` splats kept) and the
/// text of its `metaclass=` keyword.
pub struct ClassHeader<'f> {
    /// The class name.
    pub name: String,
    /// The base expressions, in order.
    pub bases: Vec<Node<'f>>,
    /// The `metaclass=` keyword's text, if given.
    pub metaclass: Option<String>,
}

/// Reads a class statement's [`ClassHeader`].
pub fn class_header<'f>(file: &ParsedFile, node: Node<'f>) -> ClassHeader<'f> {
    let name = node.field(Field::Name).map(|n| file.node_text(n).to_string()).unwrap_or_default();
    let mut bases = Vec::new();
    let mut metaclass = None;
    if let Some(list) = node.field(Field::Superclasses) {
        for base in named_children(list) {
            match base.py_kind() {
                Kind::KeywordArgument => {
                    if base.field(Field::Name).map(|k| file.node_text(k)) == Some("metaclass") {
                        metaclass = base.field(Field::Value).map(|v| file.node_text(v).to_string());
                    }
                }
                Kind::Comment => {}
                _ => bases.push(base),
            }
        }
    }
    ClassHeader { name, bases, metaclass }
}

/// The attributes declared directly in a class body.
pub fn class_members<'f>(file: &ParsedFile, class: Node<'f>) -> Vec<Member<'f>> {
    let mut members = Vec::new();
    let Some(body) = class.field(Field::Body) else { return members };
    let mut stack: Vec<Node<'f>> = named_children(body).into_iter().rev().collect();
    while let Some(node) = stack.pop() {
        let decorated = (node.py_kind() == Kind::DecoratedDefinition).then_some(node);
        let node = decorated.and_then(|d| d.field(Field::Definition)).unwrap_or(node);
        match node.py_kind() {
            Kind::FunctionDefinition | Kind::ClassDefinition => {
                let kind =
                    if node.py_kind() == Kind::ClassDefinition { MemberKind::NestedClass } else { MemberKind::Method };
                if let Some(name) = node.field(Field::Name) {
                    members.push(Member { name: file.node_text(name).to_string(), kind, node, decorated });
                }
            }
            Kind::ExpressionStatement => {
                for child in named_children(node) {
                    if child.py_kind() == Kind::Assignment {
                        assignment_members(file, child, &mut members);
                    }
                }
            }
            kind if crate::syntax::TRANSPARENT.contains(&kind) => {
                let children: Vec<Node<'f>> = named_children(node)
                    .into_iter()
                    .filter(|c| kind == Kind::Block || crate::syntax::TRANSPARENT.contains(&c.py_kind()))
                    .collect();
                stack.extend(children.into_iter().rev());
            }
            _ => {}
        }
    }
    members.sort_by_key(|m| m.node.start_byte());
    members
}

/// The names an assignment (possibly chained, `a = b = 1`) binds at class level.
fn assignment_members<'f>(file: &ParsedFile, assignment: Node<'f>, members: &mut Vec<Member<'f>>) {
    let mut current = Some(assignment);
    let mut targets = Vec::new();
    let mut value = None;
    while let Some(a) = current {
        if let Some(left) = a.field(Field::Left) {
            targets.push(left);
        }
        match a.field(Field::Right) {
            Some(right) if right.py_kind() == Kind::Assignment => current = Some(right),
            right => {
                value = right;
                current = None;
            }
        }
    }
    for target in targets {
        let names: Vec<Node<'f>> = if target.py_kind() == Kind::Identifier {
            vec![target]
        } else if matches!(target.py_kind(), Kind::PatternList | Kind::TuplePattern | Kind::ListPattern) {
            named_children(target).into_iter().filter(|n| n.py_kind() == Kind::Identifier).collect()
        } else {
            Vec::new()
        };
        for name in names {
            let node = if target.py_kind() == Kind::Identifier { value.unwrap_or(name) } else { name };
            members.push(Member {
                name: file.node_text(name).to_string(),
                kind: MemberKind::Assignment,
                node,
                decorated: None,
            });
        }
    }
}
