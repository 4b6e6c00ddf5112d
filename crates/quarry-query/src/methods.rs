//! Facts about single function bodies that class-level queries combine:
//! whether a function does nothing, calls `super().name(...)`, only raises,
//! compares its parameters by identity or generically, and which attributes
//! of a parameter it reads. Walks use explicit stacks and stay inside the
//! function's own scope.

use crate::syntax::{Field, Kind, SyntaxNode};
use tree_sitter::Node;

use crate::ast::{comparison_pairs, named_children, statements, CmpOp};
use crate::file_syntax::FileSyntax;
use crate::parameters::parameter_names;
use quarry_syntax::ParsedFile;

/// The nodes of a function body, not entering nested functions, classes or lambdas.
pub fn own_nodes<'t>(function: Node<'t>) -> Vec<Node<'t>> {
    let mut nodes = Vec::new();
    let Some(body) = function.field(Field::Body) else { return nodes };
    let mut stack = vec![body];
    while let Some(node) = stack.pop() {
        if matches!(
            node.py_kind(),
            Kind::FunctionDefinition | Kind::ClassDefinition | Kind::Lambda | Kind::DecoratedDefinition
        ) {
            continue;
        }
        nodes.push(node);
        stack.extend(named_children(node).into_iter().rev());
    }
    nodes
}

/// Whether the body holds only `pass`, `...` and a docstring.
pub fn does_nothing(function: Node<'_>) -> bool {
    let Some(body) = function.field(Field::Body) else { return false };
    statements(body).into_iter().enumerate().all(|(i, s)| match s.py_kind() {
        Kind::PassStatement => true,
        Kind::ExpressionStatement => s.named_child(0).is_some_and(|e| {
            (i == 0 && e.py_kind() == Kind::String) || (e.py_kind() == Kind::Ellipsis && s.named_child_count() == 1)
        }),
        _ => false,
    })
}

/// Whether the function calls `super(...).<its own name>(...)`.
pub fn calls_super(file: &ParsedFile, function: Node<'_>) -> bool {
    let Some(name) = function.field(Field::Name).map(|n| file.node_text(n)) else { return false };
    // A body whose text never says `super` holds no such call: no walk.
    if !function.field(Field::Body).is_some_and(|body| file.node_text(body).contains("super")) {
        return false;
    }
    own_nodes(function).into_iter().any(|node| {
        if node.py_kind() != Kind::Call {
            return false;
        }
        let Some(callee) = node.field(Field::Function).filter(|f| f.py_kind() == Kind::Attribute) else {
            return false;
        };
        let attribute = callee.field(Field::Attribute).map(|a| file.node_text(a));
        let object = callee.field(Field::Object).filter(|o| o.py_kind() == Kind::Call);
        let is_super = object
            .and_then(|o| o.field(Field::Function))
            .is_some_and(|f| f.py_kind() == Kind::Identifier && file.node_text(f) == "super");
        is_super && attribute == Some(name)
    })
}

/// Whether the function has a statement other than `pass`.
pub fn does_something(function: Node<'_>) -> bool {
    function.field(Field::Body).is_some_and(|b| statements(b).iter().any(|s| s.py_kind() != Kind::PassStatement))
}

/// Whether every path through the body ends in `raise` (its last statement
/// is a `raise`), so the function never returns normally.
pub fn only_raises(function: Node<'_>) -> bool {
    let Some(body) = function.field(Field::Body) else { return false };
    statements(body).last().is_some_and(|s| s.py_kind() == Kind::RaiseStatement)
}

/// The names of the first two parameters (`self`, `other`), if present.
fn first_two(file: &ParsedFile, function: Node<'_>) -> Option<(String, String)> {
    let mut names = parameter_names(file, function).into_iter().map(|(n, _)| n);
    Some((names.next()?, names.next()?))
}

/// Whether the method compares its first two parameters with `is`
/// (`return self is other`): an identity equality.
pub fn is_identity_eq(file: &ParsedFile, function: Node<'_>) -> bool {
    let Some((this, other)) = first_two(file, function) else { return false };
    own_nodes(function).into_iter().any(|node| {
        if node.py_kind() != Kind::ComparisonOperator {
            return false;
        }
        let operator = comparison_pairs(node).first().map(|(_, op, _)| *op);
        let operands: Vec<&str> = named_children(node).into_iter().map(|c| file.node_text(c)).collect();
        operator == Some(CmpOp::Is) && operands.contains(&this.as_str()) && operands.contains(&other.as_str())
    })
}

/// Whether the method compares all attributes generically:
/// `self.__dict__ == other.__dict__` or `getattr(self, a) == getattr(other, a)`.
pub fn is_generic_eq(file: &ParsedFile, function: Node<'_>) -> bool {
    let Some((this, other)) = first_two(file, function) else { return false };
    own_nodes(function).into_iter().any(|node| {
        if node.py_kind() != Kind::ComparisonOperator {
            return false;
        }
        let operator = comparison_pairs(node).first().map(|(_, op, _)| *op);
        if !matches!(operator, Some(CmpOp::Eq | CmpOp::NotEq)) {
            return false;
        }
        let operands: Vec<String> =
            named_children(node).into_iter().map(|c| file.node_text(c).split_whitespace().collect()).collect();
        let dict = |p: &str| operands.iter().any(|o| *o == format!("{p}.__dict__"));
        let getattr = |p: &str| operands.iter().any(|o| o.starts_with(&format!("getattr({p},")));
        (dict(&this) && dict(&other)) || (getattr(&this) && getattr(&other))
    })
}

/// Whether a statement of the function's body raises `NotImplementedError`
/// (an abstract body, whose signature does not judge calls).
pub fn raises_not_implemented(file: &ParsedFile, function: Node<'_>) -> bool {
    function.field(Field::Body).is_some_and(|b| {
        crate::ast::statements(b)
            .iter()
            .any(|s| s.py_kind() == Kind::RaiseStatement && file.node_text(*s).contains("NotImplementedError"))
    })
}

/// Whether the function reads `<first parameter>.<name>` in its own scope.
pub fn reads_receiver_attribute(file: &ParsedFile, function: Node<'_>, name: &str) -> bool {
    receiver_attributes(file, function).contains(&name)
}

/// The names `n` of every `<first parameter>.n` the function reads in its
/// own scope, in source order (repeats kept).
pub fn receiver_attributes<'f>(file: &'f ParsedFile, function: Node<'_>) -> Vec<&'f str> {
    let Some((receiver, _)) = parameter_names(file, function).into_iter().next() else { return Vec::new() };
    own_nodes(function)
        .into_iter()
        .filter(|node| {
            node.py_kind() == Kind::Attribute
                && node
                    .field(Field::Object)
                    .is_some_and(|o| o.py_kind() == Kind::Identifier && file.node_text(o) == receiver)
        })
        .filter_map(|node| node.field(Field::Attribute).map(|a| file.node_text(a)))
        .collect()
}

/// What a class body binds and uses while it runs, read once per class for
/// the questions CodeQL asks about its methods.
pub struct ClassBody<'f> {
    /// Each name the body's own statements bind (`def`, `name = ...`), with
    /// the start byte of the last statement binding it (one entry per name,
    /// so asking about every method of a class is linear in its size).
    last_binding: std::collections::HashMap<&'f str, usize>,
    /// The names the body calls or applies as decorators outside its methods.
    used: std::collections::HashSet<&'f str>,
}

impl<'f> ClassBody<'f> {
    /// Reads the body of `class`.
    pub fn of(syntax: &FileSyntax<'f>, class: Node<'_>) -> ClassBody<'f> {
        let file = syntax.file();
        let mut facts =
            ClassBody { last_binding: std::collections::HashMap::new(), used: std::collections::HashSet::new() };
        let Some(body) = class.field(Field::Body) else { return facts };
        for statement in statements(body) {
            let definition = match statement.py_kind() {
                Kind::DecoratedDefinition => statement.field(Field::Definition),
                _ => Some(statement),
            };
            if let Some(definition) = definition.filter(|d| d.py_kind() == Kind::FunctionDefinition) {
                if let Some(name) = definition.field(Field::Name) {
                    facts.bind(file.node_text(name), definition.start_byte());
                }
                continue;
            }
            let left = statement
                .named_child(0)
                .filter(|a| a.py_kind() == Kind::Assignment)
                .and_then(|a| a.field(Field::Left))
                .filter(|l| l.py_kind() == Kind::Identifier);
            if let Some(left) = left {
                facts.bind(file.node_text(left), statement.start_byte());
            }
        }
        let identifier =
            |node: Option<Node<'_>>| node.filter(|n| n.py_kind() == Kind::Identifier).map(|n| file.node_text(n));
        // The body's named nodes but those of its functions, classes and
        // lambdas, from the file's node arrays (the order does not matter).
        let mut walk = syntax.parents().walk(body);
        while let Some((_, node)) = walk.next() {
            if !node.is_named() {
                continue;
            }
            match node.py_kind() {
                Kind::FunctionDefinition | Kind::ClassDefinition | Kind::Lambda => walk.skip_children(),
                Kind::Call => facts.used.extend(identifier(node.field(Field::Function))),
                Kind::Decorator => {
                    let expression = node.named_child(0);
                    let callee =
                        expression.filter(|e| e.py_kind() == Kind::Call).and_then(|e| e.field(Field::Function));
                    facts.used.extend(identifier(expression).into_iter().chain(identifier(callee)));
                }
                _ => {}
            }
        }
        facts
    }

    /// Whether the class attribute named after the method `function` is the
    /// function itself once the body has run, as CodeQL's
    /// `declaredAttribute(name) = fv` asks: not when the `def` is decorated
    /// (the attribute is then what the decorator returns) nor when a later
    /// statement of the body binds the name again (`f = staticmethod(f)`,
    /// `__del__ = __del__()`, a second `def f`). A method nested in an `if`
    /// of the body is judged by the body's own later statements.
    pub fn is_class_attribute(&self, syntax: &FileSyntax<'_>, function: Node<'_>) -> bool {
        if syntax.parents().parent_of_id(function.id()).is_some_and(|p| p.py_kind() == Kind::DecoratedDefinition) {
            return false;
        }
        let Some(name) = function.field(Field::Name).map(|n| syntax.text(n)) else { return false };
        self.last_binding.get(name).is_none_or(|&at| at <= function.start_byte())
    }

    /// Records a statement of the body binding `name` at byte `at`.
    fn bind(&mut self, name: &'f str, at: usize) {
        let last = self.last_binding.entry(name).or_insert(at);
        *last = (*last).max(at);
    }

    /// Whether the body itself, outside its methods, calls `name` or applies
    /// it as a decorator, as CodeQL's `used_in_defining_scope`: the function
    /// is then a helper run while the class is built, not a method.
    pub fn uses(&self, name: &str) -> bool {
        self.used.contains(name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use quarry_syntax::{Language, SourceFile};

    fn functions(text: &str) -> (ParsedFile, Vec<usize>) {
        let file = ParsedFile::parse(SourceFile::from_text("t.py", text), Language::Python).unwrap();
        let ids = quarry_syntax::walk::Preorder::new(file.root())
            .filter(|n| n.py_kind() == Kind::FunctionDefinition)
            .map(|n| n.start_byte())
            .collect();
        (file, ids)
    }

    fn function_at(file: &ParsedFile, start: usize) -> Node<'_> {
        quarry_syntax::walk::Preorder::new(file.root())
            .find(|n| n.py_kind() == Kind::FunctionDefinition && n.start_byte() == start)
            .unwrap()
    }

    #[test]
    fn body_shapes() {
        let text = "def a(self):\n    \"doc\"\n    pass\ndef b(self):\n    return 1\ndef c(self):\n    super(C, self).c()\ndef d(self):\n    raise NotImplementedError\n";
        let (file, starts) = functions(text);
        let f: Vec<Node<'_>> = starts.iter().map(|s| function_at(&file, *s)).collect();
        assert!(does_nothing(f[0]) && !does_nothing(f[1]));
        assert!(calls_super(&file, f[2]) && !calls_super(&file, f[1]));
        assert!(only_raises(f[3]) && !only_raises(f[1]));
    }

    #[test]
    fn equality_shapes() {
        let text = "def __eq__(self, other):\n    return self is other\ndef __eq__(self, o):\n    return self.__dict__ == o.__dict__\ndef __eq__(self, o):\n    return self.x == o.x\n";
        let (file, starts) = functions(text);
        let f: Vec<Node<'_>> = starts.iter().map(|s| function_at(&file, *s)).collect();
        assert!(is_identity_eq(&file, f[0]) && !is_identity_eq(&file, f[2]));
        assert!(is_generic_eq(&file, f[1]) && !is_generic_eq(&file, f[2]));
        assert!(reads_receiver_attribute(&file, f[2], "x") && !reads_receiver_attribute(&file, f[2], "y"));
    }

    #[test]
    fn class_body_attributes_and_uses() {
        let text = "class C(object):\n    def helper(f):\n        return f\n    @helper\n    def m(self):\n        pass\n    def s(x):\n        return x\n    s = staticmethod(s)\n    def plain(this):\n        pass\n";
        let (file, starts) = functions(text);
        let f: Vec<Node<'_>> = starts.iter().map(|s| function_at(&file, *s)).collect();
        let class = file.root().named_child(0).unwrap();
        let body = ClassBody::of(&FileSyntax::new(&file), class);
        assert!(body.uses("helper") && !body.uses("plain") && !body.uses("staticmethod_not_called"));
        let syntax = FileSyntax::new(&file);
        assert!(body.is_class_attribute(&syntax, f[0]) && !body.is_class_attribute(&syntax, f[1]));
        assert!(!body.is_class_attribute(&syntax, f[2]) && body.is_class_attribute(&syntax, f[3]));
    }
}
