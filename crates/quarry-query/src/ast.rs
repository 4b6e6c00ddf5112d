//! Helpers over tree-sitter Python nodes: headers as CodeQL reports them,
//! enclosing definitions, names of calls, literal tests.

use crate::syntax::{Field, Kind, SyntaxNode};
use quarry_syntax::{ParsedFile, Span};
use tree_sitter::Node;

/// Compound statements whose CodeQL location is their header up to the colon.
const COMPOUND: &[Kind] = &[
    Kind::FunctionDefinition,
    Kind::ClassDefinition,
    Kind::IfStatement,
    Kind::ElifClause,
    Kind::ElseClause,
    Kind::ForStatement,
    Kind::WhileStatement,
    Kind::TryStatement,
    Kind::ExceptClause,
    Kind::FinallyClause,
    Kind::WithStatement,
    Kind::MatchStatement,
    Kind::CaseClause,
];

/// The span CodeQL reports for a node: for compound statements (`def`,
/// `class`, `if`, `except`, ...) the header from its keyword up to and
/// including the colon before the body; for everything else the whole node.
/// A decorated definition is reported by its `def` or `class` header.
pub fn location(file: &ParsedFile, node: Node<'_>) -> Span {
    let node =
        if node.py_kind() == Kind::DecoratedDefinition { node.field(Field::Definition).unwrap_or(node) } else { node };
    if COMPOUND.contains(&node.py_kind()) {
        if let Some(colon) = children(node).into_iter().find(|c| c.py_kind() == Kind::Colon) {
            return file.span(node.start_byte(), colon.end_byte());
        }
    }
    file.span_of(node)
}

/// The named children of a node, in order.
pub fn named_children<'t>(node: Node<'t>) -> Vec<Node<'t>> {
    let mut cursor = node.walk();
    node.named_children(&mut cursor).collect()
}

/// The children of a node (named or not), in order.
pub fn children<'t>(node: Node<'t>) -> Vec<Node<'t>> {
    let mut cursor = node.walk();
    node.children(&mut cursor).collect()
}

/// The innermost function definition containing `node` (not `node` itself),
/// stopping at a class body: a statement in a class body has no function.
pub fn enclosing_function(node: Node<'_>) -> Option<Node<'_>> {
    let mut current = node.parent();
    while let Some(n) = current {
        match n.py_kind() {
            Kind::FunctionDefinition => return Some(n),
            Kind::ClassDefinition | Kind::Lambda => return None,
            _ => current = n.parent(),
        }
    }
    None
}

/// The class whose body directly holds the function definition `function`
/// (through a decorator if any), if it is a method.
pub fn method_class(function: Node<'_>) -> Option<Node<'_>> {
    let mut parent = function.parent()?;
    if parent.py_kind() == Kind::DecoratedDefinition {
        parent = parent.parent()?;
    }
    // The body block may sit inside `if`/`try` statements of the class body.
    let mut current = Some(parent);
    while let Some(n) = current {
        match n.py_kind() {
            Kind::ClassDefinition => return Some(n),
            Kind::FunctionDefinition | Kind::Lambda | Kind::Module => return None,
            _ => current = n.parent(),
        }
    }
    None
}

/// The decorators of a function or class definition, as their expression text.
pub fn decorators<'f>(file: &'f ParsedFile, definition: Node<'_>) -> Vec<&'f str> {
    decorators_under(file, definition.parent())
}

/// The decorators held by `parent`, the parent of a definition, when it is
/// a `decorated_definition` (for callers that know the parent).
pub fn decorators_under<'f>(file: &'f ParsedFile, parent: Option<Node<'_>>) -> Vec<&'f str> {
    let Some(parent) = parent.filter(|p| p.py_kind() == Kind::DecoratedDefinition) else {
        return Vec::new();
    };
    named_children(parent)
        .into_iter()
        .filter(|c| c.py_kind() == Kind::Decorator)
        .map(|d| file.node_text(d).trim_start_matches('@').trim())
        .collect()
}

/// The text of a node's field, if present.
pub fn field_text<'f>(file: &'f ParsedFile, node: Node<'_>, field: Field) -> Option<&'f str> {
    node.field(field).map(|n| file.node_text(n))
}

/// For a call, the dotted text of its callee (`f`, `os.path.join`, `self.m`).
pub fn callee_text<'f>(file: &'f ParsedFile, call: Node<'_>) -> Option<&'f str> {
    call.field(Field::Function).map(|f| file.node_text(f))
}

/// The positional and keyword arguments of a call (argument list children).
pub fn call_arguments(call: Node<'_>) -> Vec<Node<'_>> {
    call.field(Field::Arguments).map(named_children).unwrap_or_default()
}

/// Whether a node is a literal constant: number, string, `True`, `False`,
/// `None`, or a unary minus/plus of a number.
pub fn is_constant(node: Node<'_>) -> bool {
    match node.py_kind() {
        Kind::Integer
        | Kind::Float
        | Kind::String
        | Kind::ConcatenatedString
        | Kind::True
        | Kind::False
        | Kind::None => true,
        Kind::UnaryOperator => {
            node.field(Field::Argument).is_some_and(|a| matches!(a.py_kind(), Kind::Integer | Kind::Float))
        }
        Kind::ParenthesizedExpression => node.named_child(0).is_some_and(is_constant),
        _ => false,
    }
}

/// Removes redundant parentheses around an expression.
pub fn strip_parentheses(mut node: Node<'_>) -> Node<'_> {
    while node.py_kind() == Kind::ParenthesizedExpression {
        match node.named_child(0) {
            Some(inner) if inner.py_kind() != Kind::Comment => node = inner,
            _ => break,
        }
    }
    node
}

/// The statements of a block (`block` node) or module, skipping comments.
pub fn statements(block: Node<'_>) -> Vec<Node<'_>> {
    let mut cursor = block.walk();
    block.named_children(&mut cursor).filter(|c| c.py_kind() != Kind::Comment).collect()
}

/// Whether `inner` lies within `outer` (or is `outer`), by source range.
pub fn contains(outer: Node<'_>, inner: Node<'_>) -> bool {
    outer.start_byte() <= inner.start_byte() && inner.end_byte() <= outer.end_byte()
}

/// Whether an expression is constant as CodeQL's `Expr.isConstant()` sees
/// it: no name, call, lambda, comprehension, `yield` or `await` anywhere in
/// it. Literals, and operators, tuples, lists, dicts and subscripts built
/// only from literals, are constant.
pub fn is_constant_expression(expression: Node<'_>) -> bool {
    // The attribute names of the attributes met so far (an attribute comes
    // before its name in pre-order), so that no name looks for its parent.
    let mut attribute_names: Vec<usize> = Vec::new();
    for node in quarry_syntax::walk::Preorder::new(expression) {
        if !node.is_named() {
            continue;
        }
        match node.py_kind() {
            Kind::Attribute => attribute_names.extend(node.field(Field::Attribute).map(|a| a.id())),
            Kind::Identifier => {
                // The attribute name of `"a".upper` is not a name read.
                let is_attribute_name = if node.id() == expression.id() {
                    node.parent()
                        .filter(|p| p.py_kind() == Kind::Attribute)
                        .and_then(|p| p.field(Field::Attribute))
                        .is_some_and(|a| a.id() == node.id())
                } else {
                    attribute_names.contains(&node.id())
                };
                if !is_attribute_name {
                    return false;
                }
            }
            Kind::Call
            | Kind::Lambda
            | Kind::ListComprehension
            | Kind::SetComprehension
            | Kind::DictionaryComprehension
            | Kind::GeneratorExpression
            | Kind::Yield
            | Kind::Await
            | Kind::NamedExpression
            | Kind::Error => return false,
            _ => {}
        }
    }
    true
}

/// A comparison operator, read from the tokens of a `comparison_operator`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CmpOp {
    /// `==`
    Eq,
    /// `!=` or Python 2's `<>`
    NotEq,
    /// `<`
    Lt,
    /// `<=`
    LtE,
    /// `>`
    Gt,
    /// `>=`
    GtE,
    /// `in`
    In,
    /// `not in`
    NotIn,
    /// `is`
    Is,
    /// `is not`
    IsNot,
}

impl CmpOp {
    /// The operator's text as Python spells it (`<>` reads as `!=`).
    pub fn as_str(self) -> &'static str {
        match self {
            CmpOp::Eq => "==",
            CmpOp::NotEq => "!=",
            CmpOp::Lt => "<",
            CmpOp::LtE => "<=",
            CmpOp::Gt => ">",
            CmpOp::GtE => ">=",
            CmpOp::In => "in",
            CmpOp::NotIn => "not in",
            CmpOp::Is => "is",
            CmpOp::IsNot => "is not",
        }
    }
}

impl std::fmt::Display for CmpOp {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The operand pairs of a comparison with the operator between them:
/// `a < b <= c` gives `(a, Lt, b)` and `(b, LtE, c)`. `is not` and `not in`
/// are one operator whether the parser gives one token or two. This is the
/// one reader of comparisons every query uses.
pub fn comparison_pairs(comparison: Node<'_>) -> Vec<(Node<'_>, CmpOp, Node<'_>)> {
    let mut pairs = Vec::new();
    let mut left: Option<Node<'_>> = None;
    let mut operator: Option<CmpOp> = None;
    for child in children(comparison) {
        let kind = child.py_kind();
        if kind == Kind::Comment {
            continue;
        }
        if child.is_named() {
            if let (Some(l), Some(op)) = (left, operator.take()) {
                pairs.push((l, op, child));
            }
            left = Some(child);
            continue;
        }
        operator = match (operator, kind) {
            (Some(CmpOp::Is), Kind::KwNot) => Some(CmpOp::IsNot),
            (_, Kind::KwNot) => Some(CmpOp::NotIn),
            (Some(CmpOp::NotIn), Kind::KwIn) => Some(CmpOp::NotIn),
            (_, Kind::EqualEqual) => Some(CmpOp::Eq),
            (_, Kind::NotEqual | Kind::LessGreater) => Some(CmpOp::NotEq),
            (_, Kind::Less) => Some(CmpOp::Lt),
            (_, Kind::LessEqual) => Some(CmpOp::LtE),
            (_, Kind::Greater) => Some(CmpOp::Gt),
            (_, Kind::GreaterEqual) => Some(CmpOp::GtE),
            (_, Kind::KwIn) => Some(CmpOp::In),
            (_, Kind::KwNotIn) => Some(CmpOp::NotIn),
            (_, Kind::KwIs) => Some(CmpOp::Is),
            (_, Kind::KwIsNot) => Some(CmpOp::IsNot),
            (current, _) => current,
        };
    }
    pairs
}

/// The identifiers a binding target binds: names in `x`, `x, y`, `[a, (b, c)]`,
/// `*rest`; attributes and subscripts bind none.
pub fn target_names(target: Node<'_>) -> Vec<Node<'_>> {
    let mut names = Vec::new();
    let mut pending = vec![target];
    while let Some(node) = pending.pop() {
        match node.py_kind() {
            Kind::Identifier => names.push(node),
            Kind::PatternList
            | Kind::TuplePattern
            | Kind::ListPattern
            | Kind::ListSplatPattern
            | Kind::ParenthesizedExpression
            | Kind::Tuple
            | Kind::List
            | Kind::ExpressionList
            | Kind::ListSplat => {
                let mut inner = named_children(node);
                inner.reverse();
                pending.extend(inner);
            }
            _ => {}
        }
    }
    names
}

/// The value of a plain string literal (prefix and quotes removed; escapes
/// left as written), or `None` for f-strings with interpolations and other
/// expressions.
pub fn string_literal_value<'f>(file: &'f ParsedFile, node: Node<'_>) -> Option<&'f str> {
    if node.py_kind() != Kind::String {
        return None;
    }
    if children(node).iter().any(|c| c.py_kind() == Kind::Interpolation) {
        return None;
    }
    let text = file.node_text(node);
    let prefix_end = text.find(['\'', '"'])?;
    let rest = &text[prefix_end..];
    let quote_len = if rest.starts_with("\"\"\"") || rest.starts_with("'''") { 3 } else { 1 };
    rest.get(quote_len..rest.len().checked_sub(quote_len)?)
}

/// The node of the innermost scope (function, lambda, class or module)
/// that holds `node` (not `node` itself).
pub fn enclosing_scope(node: Node<'_>) -> Option<Node<'_>> {
    let mut current = node.parent();
    while let Some(n) = current {
        if matches!(n.py_kind(), Kind::FunctionDefinition | Kind::Lambda | Kind::ClassDefinition | Kind::Module) {
            return Some(n);
        }
        current = n.parent();
    }
    None
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

/// Whether `node` is a call of `super`.
pub(crate) fn is_super_call(file: &ParsedFile, node: Node<'_>) -> bool {
    node.py_kind() == Kind::Call
        && node.field(Field::Function).is_some_and(|f| f.py_kind() == Kind::Identifier && file.node_text(f) == "super")
}

#[cfg(test)]
mod tests {
    use super::*;
    use quarry_syntax::{Language, SourceFile};

    fn parse(source: &str) -> ParsedFile {
        ParsedFile::parse(SourceFile::from_text("t.py", source), Language::Python).unwrap()
    }

    #[test]
    fn comparison_operators() {
        let file = parse("a < b <= c\nx is not y\nx not in y\nx <> y\nx is (not y)\n");
        let ops: Vec<Vec<CmpOp>> = quarry_syntax::walk::Preorder::new(file.root())
            .filter(|n| n.py_kind() == Kind::ComparisonOperator)
            .map(|n| comparison_pairs(n).into_iter().map(|(_, op, _)| op).collect())
            .collect();
        assert_eq!(
            ops,
            vec![
                vec![CmpOp::Lt, CmpOp::LtE],
                vec![CmpOp::IsNot],
                vec![CmpOp::NotIn],
                vec![CmpOp::NotEq],
                vec![CmpOp::Is]
            ]
        );
    }

    #[test]
    fn string_values_and_builtins() {
        let file = parse("a = 'x.com'\nb = r\"\"\"y\"\"\"\nc = f'{a}'\nd = ''\n");
        let strings: Vec<Option<&str>> = quarry_syntax::walk::Preorder::new(file.root())
            .filter(|n| n.py_kind() == Kind::String)
            .map(|n| string_literal_value(&file, n))
            .collect();
        assert_eq!(strings, vec![Some("x.com"), Some("y"), None, Some("")]);
    }
}
