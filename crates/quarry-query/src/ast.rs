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

/// Names of Python's builtins (Python 2 and 3), as found in `builtins` /
/// `__builtin__`.
pub const BUILTIN_NAMES: &[&str] = &[
    "ArithmeticError",
    "AssertionError",
    "AttributeError",
    "BaseException",
    "BlockingIOError",
    "BrokenPipeError",
    "BufferError",
    "BytesWarning",
    "ChildProcessError",
    "ConnectionAbortedError",
    "ConnectionError",
    "ConnectionRefusedError",
    "ConnectionResetError",
    "DeprecationWarning",
    "EOFError",
    "Ellipsis",
    "EnvironmentError",
    "Exception",
    "False",
    "FileExistsError",
    "FileNotFoundError",
    "FloatingPointError",
    "FutureWarning",
    "GeneratorExit",
    "IOError",
    "ImportError",
    "ImportWarning",
    "IndentationError",
    "IndexError",
    "InterruptedError",
    "IsADirectoryError",
    "KeyError",
    "KeyboardInterrupt",
    "LookupError",
    "MemoryError",
    "ModuleNotFoundError",
    "NameError",
    "None",
    "NotADirectoryError",
    "NotImplemented",
    "NotImplementedError",
    "OSError",
    "OverflowError",
    "PendingDeprecationWarning",
    "PermissionError",
    "ProcessLookupError",
    "RecursionError",
    "ReferenceError",
    "ResourceWarning",
    "RuntimeError",
    "RuntimeWarning",
    "StandardError",
    "StopAsyncIteration",
    "StopIteration",
    "SyntaxError",
    "SyntaxWarning",
    "SystemError",
    "SystemExit",
    "TabError",
    "TimeoutError",
    "True",
    "TypeError",
    "UnboundLocalError",
    "UnicodeDecodeError",
    "UnicodeEncodeError",
    "UnicodeError",
    "UnicodeTranslateError",
    "UnicodeWarning",
    "UserWarning",
    "ValueError",
    "Warning",
    "WindowsError",
    "ZeroDivisionError",
    "__build_class__",
    "__debug__",
    "__doc__",
    "__import__",
    "__loader__",
    "__name__",
    "__package__",
    "__spec__",
    "abs",
    "all",
    "any",
    "apply",
    "ascii",
    "basestring",
    "bin",
    "bool",
    "breakpoint",
    "buffer",
    "bytearray",
    "bytes",
    "callable",
    "chr",
    "classmethod",
    "cmp",
    "coerce",
    "compile",
    "complex",
    "copyright",
    "credits",
    "delattr",
    "dict",
    "dir",
    "divmod",
    "enumerate",
    "eval",
    "exec",
    "execfile",
    "exit",
    "file",
    "filter",
    "float",
    "format",
    "frozenset",
    "getattr",
    "globals",
    "hasattr",
    "hash",
    "help",
    "hex",
    "id",
    "input",
    "int",
    "intern",
    "isinstance",
    "issubclass",
    "iter",
    "len",
    "license",
    "list",
    "locals",
    "long",
    "map",
    "max",
    "memoryview",
    "min",
    "next",
    "object",
    "oct",
    "open",
    "ord",
    "pow",
    "print",
    "property",
    "quit",
    "range",
    "raw_input",
    "reduce",
    "reload",
    "repr",
    "reversed",
    "round",
    "set",
    "setattr",
    "slice",
    "sorted",
    "staticmethod",
    "str",
    "sum",
    "super",
    "tuple",
    "type",
    "unichr",
    "unicode",
    "vars",
    "xrange",
    "zip",
];

/// Whether `name` is a Python builtin.
pub fn is_builtin_name(name: &str) -> bool {
    BUILTIN_NAMES.binary_search(&name).is_ok()
}

/// The value of a plain string literal (prefix and quotes removed; escapes
/// left as written), or `None` for f-strings with interpolations and other
/// expressions.
pub fn string_literal_value<'f>(file: &'f ParsedFile, node: Node<'_>) -> Option<&'f str> {
    if node.kind() != "string" {
        return None;
    }
    if children(node).iter().any(|c| c.kind() == "interpolation") {
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
        if matches!(n.kind(), "function_definition" | "lambda" | "class_definition" | "module") {
            return Some(n);
        }
        current = n.parent();
    }
    None
}

/// What each imported name of the file stands for: `import os.path as p`
/// maps `p` to `os.path`, `import os.path` maps `os` to `os`, `from tempfile
/// import mktemp as m` maps `m` to `tempfile.mktemp`. Star imports and
/// relative imports are skipped. Imports anywhere in the file count.
pub fn import_aliases(file: &ParsedFile, imports: &[Node<'_>]) -> Vec<(String, String)> {
    let mut aliases = Vec::new();
    for &statement in imports {
        let module = statement.child_by_field_name("module_name");
        let from = match (statement.kind(), module) {
            ("import_from_statement", Some(m)) if m.kind() == "dotted_name" => Some(file.node_text(m).to_string()),
            ("import_from_statement", _) => continue,
            _ => None,
        };
        for child in named_children(statement) {
            if Some(child.id()) == module.map(|m| m.id()) {
                continue;
            }
            let (dotted, alias) = match child.kind() {
                "aliased_import" => (child.child_by_field_name("name"), child.child_by_field_name("alias")),
                "dotted_name" => (Some(child), None),
                _ => continue,
            };
            let Some(dotted) = dotted else { continue };
            let path: String = file.node_text(dotted).split_whitespace().collect();
            let full = match &from {
                Some(m) => format!("{m}.{path}"),
                None => path.clone(),
            };
            match alias {
                Some(a) => aliases.push((file.node_text(a).to_string(), full)),
                None if from.is_some() => aliases.push((path, full)),
                None => {
                    let first = path.split('.').next().unwrap_or_default().to_string();
                    aliases.push((first.clone(), first));
                }
            }
        }
    }
    aliases
}

/// The qualified name a dotted callee refers to through the file's imports
/// (`t.mktemp` with `import tempfile as t` is `tempfile.mktemp`), or `None`
/// when its first part is not an imported name.
pub fn resolve_imported(aliases: &[(String, String)], dotted: &str) -> Option<String> {
    let dotted: String = dotted.split_whitespace().collect();
    let (first, rest) = match dotted.split_once('.') {
        Some((first, rest)) => (first, Some(rest)),
        None => (dotted.as_str(), None),
    };
    let (_, target) = aliases.iter().rev().find(|(name, _)| name == first)?;
    Some(match rest {
        Some(rest) => format!("{target}.{rest}"),
        None => target.clone(),
    })
}

/// Positional parameter counts of a function, as CodeQL's `minParameters`
/// and `maxParameters` see them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Arity {
    /// Positional parameters (before `*`/`*args`), `self` included.
    pub positional: usize,
    /// How many of them have defaults.
    pub defaults: usize,
    /// Whether there is a `*args` parameter.
    pub varargs: bool,
}

impl Arity {
    /// The fewest positional arguments a call must pass.
    pub fn min(&self) -> usize {
        self.positional.saturating_sub(self.defaults)
    }

    /// The most positional arguments a call may pass (`usize::MAX` with `*args`).
    pub fn max(&self) -> usize {
        if self.varargs {
            usize::MAX
        } else {
            self.positional
        }
    }
}

/// The positional arity of a function definition.
pub fn arity(function: Node<'_>) -> Arity {
    let mut arity = Arity { positional: 0, defaults: 0, varargs: false };
    let Some(parameters) = function.child_by_field_name("parameters") else { return arity };
    let mut keyword_only = false;
    for parameter in named_children(parameters) {
        let splat = |n: Node<'_>| {
            n.kind() == "list_splat_pattern"
                || (n.kind() == "typed_parameter" && named_children(n).iter().any(|c| c.kind() == "list_splat_pattern"))
        };
        let double_splat = |n: Node<'_>| {
            n.kind() == "dictionary_splat_pattern"
                || (n.kind() == "typed_parameter"
                    && named_children(n).iter().any(|c| c.kind() == "dictionary_splat_pattern"))
        };
        match parameter.kind() {
            _ if splat(parameter) => {
                arity.varargs = true;
                keyword_only = true;
            }
            _ if double_splat(parameter) => {}
            "keyword_separator" => keyword_only = true,
            "positional_separator" | "comment" => {}
            "identifier" | "typed_parameter" | "tuple_pattern" if !keyword_only => arity.positional += 1,
            "default_parameter" | "typed_default_parameter" if !keyword_only => {
                arity.positional += 1;
                arity.defaults += 1;
            }
            _ => {}
        }
    }
    arity
}

#[cfg(test)]
mod tests {
    use super::*;
    use quarry_syntax::{Language, SourceFile};

    fn parse(source: &str) -> ParsedFile {
        ParsedFile::parse(SourceFile::from_text("t.py", source), Language::Python).unwrap()
    }

    fn first<'t>(file: &'t ParsedFile, kind: &str) -> Node<'t> {
        quarry_syntax::walk::Preorder::new(file.root()).find(|n| n.kind() == kind).unwrap()
    }

    #[test]
    fn imports_resolve_through_aliases() {
        let file =
            parse("import os.path\nimport tempfile as t\nfrom tempfile import mktemp as m, mkstemp\nfrom . import x\n");
        let imports: Vec<Node<'_>> = quarry_syntax::walk::Preorder::new(file.root())
            .filter(|n| matches!(n.kind(), "import_statement" | "import_from_statement"))
            .collect();
        let aliases = import_aliases(&file, &imports);
        assert_eq!(resolve_imported(&aliases, "t.mktemp").as_deref(), Some("tempfile.mktemp"));
        assert_eq!(resolve_imported(&aliases, "m").as_deref(), Some("tempfile.mktemp"));
        assert_eq!(resolve_imported(&aliases, "mkstemp").as_deref(), Some("tempfile.mkstemp"));
        assert_eq!(resolve_imported(&aliases, "os.path.join").as_deref(), Some("os.path.join"));
        assert_eq!(resolve_imported(&aliases, "x"), None);
        assert_eq!(resolve_imported(&aliases, "tempfile.mktemp"), None);
    }

    #[test]
    fn positional_arity() {
        let file = parse("def f(self, a, b=1, *args, c, d=2, **kw):\n    pass\n");
        let a = arity(first(&file, "function_definition"));
        assert_eq!((a.positional, a.defaults, a.varargs, a.min(), a.max()), (3, 1, true, 2, usize::MAX));
        let file = parse("def g(self, *, key):\n    pass\n");
        let a = arity(first(&file, "function_definition"));
        assert_eq!((a.min(), a.max()), (1, 1));
        let file = parse("h = lambda self, other=None: self\n");
        let a = arity(first(&file, "lambda"));
        assert_eq!((a.min(), a.max()), (1, 2));
    }

    #[test]
    fn string_values_and_builtins() {
        let file = parse("a = 'x.com'\nb = r\"\"\"y\"\"\"\nc = f'{a}'\nd = ''\n");
        let strings: Vec<Option<&str>> = quarry_syntax::walk::Preorder::new(file.root())
            .filter(|n| n.kind() == "string")
            .map(|n| string_literal_value(&file, n))
            .collect();
        assert_eq!(strings, vec![Some("x.com"), Some("y"), None, Some("")]);
        assert!(is_builtin_name("len") && is_builtin_name("unicode") && !is_builtin_name("self"));
    }
}
