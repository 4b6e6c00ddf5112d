//! Helpers over tree-sitter Python nodes: headers as CodeQL reports them,
//! enclosing definitions, names of calls, literal tests.

use quarry_syntax::{ParsedFile, Span};
use tree_sitter::Node;

/// Compound statements whose CodeQL location is their header up to the colon.
const COMPOUND: &[&str] = &[
    "function_definition",
    "class_definition",
    "if_statement",
    "elif_clause",
    "else_clause",
    "for_statement",
    "while_statement",
    "try_statement",
    "except_clause",
    "except_group_clause",
    "finally_clause",
    "with_statement",
    "match_statement",
    "case_clause",
];

/// The span CodeQL reports for a node: for compound statements (`def`,
/// `class`, `if`, `except`, ...) the header from its keyword up to and
/// including the colon before the body; for everything else the whole node.
/// A decorated definition is reported by its `def` or `class` header.
pub fn location(file: &ParsedFile, node: Node<'_>) -> Span {
    let node = if node.kind() == "decorated_definition" {
        node.child_by_field_name("definition").unwrap_or(node)
    } else {
        node
    };
    if COMPOUND.contains(&node.kind()) {
        if let Some(colon) = children(node).into_iter().find(|c| c.kind() == ":") {
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
        match n.kind() {
            "function_definition" => return Some(n),
            "class_definition" | "lambda" => return None,
            _ => current = n.parent(),
        }
    }
    None
}

/// The class whose body directly holds the function definition `function`
/// (through a decorator if any), if it is a method.
pub fn method_class(function: Node<'_>) -> Option<Node<'_>> {
    let mut parent = function.parent()?;
    if parent.kind() == "decorated_definition" {
        parent = parent.parent()?;
    }
    // The body block may sit inside `if`/`try` statements of the class body.
    let mut current = Some(parent);
    while let Some(n) = current {
        match n.kind() {
            "class_definition" => return Some(n),
            "function_definition" | "lambda" | "module" => return None,
            _ => current = n.parent(),
        }
    }
    None
}

/// The decorators of a function or class definition, as their expression text.
pub fn decorators<'f>(file: &'f ParsedFile, definition: Node<'_>) -> Vec<&'f str> {
    let Some(parent) = definition.parent().filter(|p| p.kind() == "decorated_definition") else {
        return Vec::new();
    };
    named_children(parent)
        .into_iter()
        .filter(|c| c.kind() == "decorator")
        .map(|d| file.node_text(d).trim_start_matches('@').trim())
        .collect()
}

/// The text of a node's field, if present.
pub fn field_text<'f>(file: &'f ParsedFile, node: Node<'_>, field: &str) -> Option<&'f str> {
    node.child_by_field_name(field).map(|n| file.node_text(n))
}

/// For a call, the dotted text of its callee (`f`, `os.path.join`, `self.m`).
pub fn callee_text<'f>(file: &'f ParsedFile, call: Node<'_>) -> Option<&'f str> {
    call.child_by_field_name("function").map(|f| file.node_text(f))
}

/// The positional and keyword arguments of a call (argument list children).
pub fn call_arguments(call: Node<'_>) -> Vec<Node<'_>> {
    call.child_by_field_name("arguments").map(named_children).unwrap_or_default()
}

/// Whether a node is a literal constant: number, string, `True`, `False`,
/// `None`, or a unary minus/plus of a number.
pub fn is_constant(node: Node<'_>) -> bool {
    match node.kind() {
        "integer" | "float" | "string" | "concatenated_string" | "true" | "false" | "none" => true,
        "unary_operator" => {
            node.child_by_field_name("argument").is_some_and(|a| matches!(a.kind(), "integer" | "float"))
        }
        "parenthesized_expression" => node.named_child(0).is_some_and(is_constant),
        _ => false,
    }
}

/// Removes redundant parentheses around an expression.
pub fn strip_parentheses(mut node: Node<'_>) -> Node<'_> {
    while node.kind() == "parenthesized_expression" {
        match node.named_child(0) {
            Some(inner) if inner.kind() != "comment" => node = inner,
            _ => break,
        }
    }
    node
}

/// The parameter names of a function definition, in order, with `*args` and
/// `**kwargs` names included (without stars).
pub fn parameter_names<'t>(file: &ParsedFile, function: Node<'t>) -> Vec<(String, Node<'t>)> {
    let Some(parameters) = function.child_by_field_name("parameters") else {
        return Vec::new();
    };
    named_children(parameters)
        .into_iter()
        .filter_map(|p| parameter_identifier(p).map(|id| (file.node_text(id).to_string(), id)))
        .collect()
}

/// The identifier a parameter node binds.
pub fn parameter_identifier(parameter: Node<'_>) -> Option<Node<'_>> {
    match parameter.kind() {
        "identifier" => Some(parameter),
        "default_parameter" | "typed_default_parameter" => {
            parameter.child_by_field_name("name").and_then(parameter_identifier)
        }
        "typed_parameter" | "list_splat_pattern" | "dictionary_splat_pattern" => {
            named_children(parameter).into_iter().find_map(parameter_identifier)
        }
        _ => None,
    }
}

/// The statements of a block (`block` node) or module, skipping comments.
pub fn statements(block: Node<'_>) -> Vec<Node<'_>> {
    named_children(block).into_iter().filter(|c| c.kind() != "comment").collect()
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
    for node in quarry_syntax::walk::Preorder::new(expression) {
        if !node.is_named() {
            continue;
        }
        match node.kind() {
            "identifier" => {
                // The attribute name of `"a".upper` is not a name read.
                let is_attribute_name = node
                    .parent()
                    .filter(|p| p.kind() == "attribute")
                    .and_then(|p| p.child_by_field_name("attribute"))
                    .is_some_and(|a| a.id() == node.id());
                if !is_attribute_name {
                    return false;
                }
            }
            "call"
            | "lambda"
            | "list_comprehension"
            | "set_comprehension"
            | "dictionary_comprehension"
            | "generator_expression"
            | "yield"
            | "await"
            | "named_expression"
            | "ERROR" => return false,
            _ => {}
        }
    }
    true
}

/// The operand pairs of a comparison with the operator between them:
/// `a < b <= c` gives `(a, "<", b)` and `(b, "<=", c)`. Operator text is
/// normalised to single spaces (`not in`, `is not`).
pub fn comparison_pairs<'t>(file: &ParsedFile, comparison: Node<'t>) -> Vec<(Node<'t>, String, Node<'t>)> {
    let mut pairs = Vec::new();
    let mut left: Option<Node<'t>> = None;
    let mut operator: Option<String> = None;
    for child in children(comparison) {
        if child.kind() == "comment" {
            continue;
        }
        if child.is_named() {
            if let (Some(l), Some(op)) = (left, operator.take()) {
                pairs.push((l, op, child));
            }
            left = Some(child);
        } else {
            operator = Some(file.node_text(child).split_whitespace().collect::<Vec<_>>().join(" "));
        }
    }
    pairs
}

/// The module names an import statement imports, with the node naming each:
/// `import a.b as c, d` gives `a.b` and `d`; `from m import x` gives `m`
/// (relative imports give nothing). `future_import_statement` gives `__future__`.
pub fn imported_modules<'t>(file: &ParsedFile, statement: Node<'t>) -> Vec<(String, Node<'t>)> {
    let dotted = |n: Node<'t>| file.node_text(n).split_whitespace().collect::<String>();
    match statement.kind() {
        "import_statement" => named_children(statement)
            .into_iter()
            .filter_map(|n| match n.kind() {
                "dotted_name" => Some(n),
                "aliased_import" => n.child_by_field_name("name"),
                _ => None,
            })
            .map(|n| (dotted(n), n))
            .collect(),
        "import_from_statement" => statement
            .child_by_field_name("module_name")
            .filter(|m| m.kind() == "dotted_name")
            .map(|m| vec![(dotted(m), m)])
            .unwrap_or_default(),
        _ => Vec::new(),
    }
}

/// The innermost scope (module, class, function, lambda, comprehension)
/// whose defining node spans `node`; the module if none does.
pub fn innermost_scope(scopes: &crate::scopes::Scopes, node: Node<'_>) -> crate::scopes::ScopeId {
    let mut best = 0;
    let mut best_len = usize::MAX;
    for (id, scope) in scopes.all().iter().enumerate() {
        let span = &scope.span;
        if span.start_byte <= node.start_byte() && node.end_byte() <= span.end_byte && scope.node_id != node.id() {
            let len = span.end_byte - span.start_byte;
            if len < best_len {
                best = id;
                best_len = len;
            }
        }
    }
    best
}

/// The identifiers a binding target binds: names in `x`, `x, y`, `[a, (b, c)]`,
/// `*rest`; attributes and subscripts bind none.
pub fn target_names(target: Node<'_>) -> Vec<Node<'_>> {
    let mut names = Vec::new();
    let mut pending = vec![target];
    while let Some(node) = pending.pop() {
        match node.kind() {
            "identifier" => names.push(node),
            "pattern_list"
            | "tuple_pattern"
            | "list_pattern"
            | "list_splat_pattern"
            | "parenthesized_expression"
            | "tuple"
            | "list"
            | "expression_list"
            | "list_splat" => {
                let mut inner = named_children(node);
                inner.reverse();
                pending.extend(inner);
            }
            _ => {}
        }
    }
    names
}

/// Common third-party packages: usually not installed where the code is
/// analysed, so CodeQL cannot resolve them and reports nothing.
const THIRD_PARTY: &[&str] = &[
    "numpy",
    "scipy",
    "pylab",
    "matplotlib",
    "pandas",
    "sympy",
    "django",
    "flask",
    "werkzeug",
    "jinja2",
    "tornado",
    "twisted",
    "zope",
    "sqlalchemy",
    "PyQt4",
    "PyQt5",
    "PySide",
    "gtk",
    "gobject",
    "gi",
    "wx",
    "pygame",
    "pyglet",
    "OpenGL",
    "kivy",
    "fabric",
    "nose",
    "mock",
    "six",
    "lxml",
    "Crypto",
    "boto",
    "google",
    "cv2",
    "reportlab",
];

/// Whether a dotted module name belongs to a common third-party package
/// (`numpy`, `django.db`, `PyQt4.QtGui`, ...), which CodeQL usually cannot
/// resolve because it is not installed where the code is analysed.
pub fn is_common_third_party(module: &str) -> bool {
    THIRD_PARTY.contains(&module.split('.').next().unwrap_or_default())
}
