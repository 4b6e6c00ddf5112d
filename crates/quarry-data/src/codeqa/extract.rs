//! Functions with their comments: Python functions with a docstring and
//! Java methods and constructors with a Javadoc comment, from tree-sitter
//! parses (quarry-syntax).

use std::ops::Range;

use quarry_syntax::kinds::java::{self, JavaNode};
use quarry_syntax::kinds::python::{self, SyntaxNode};
use quarry_syntax::walk::Preorder;
use quarry_syntax::{Language, ParsedFile};
use tree_sitter::Node;

use super::code_text::{code_original, subtokenize};

/// A function and its comment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Function {
    /// The function's name.
    pub name: String,
    /// 0-based line of its first line (decorators included).
    pub line: usize,
    /// The comment's text (docstring or Javadoc without delimiters).
    pub comment: String,
    /// The function as `.code.original` holds it.
    pub code_original: String,
    /// The function as `.code` holds it.
    pub code: String,
}

/// Every documented function of a parsed file, in source order.
pub fn functions(file: &ParsedFile) -> Vec<Function> {
    match file.language() {
        Language::Python => python_functions(file),
        Language::Java => java_functions(file),
    }
}

fn python_functions(file: &ParsedFile) -> Vec<Function> {
    let text = file.text();
    let mut out = Vec::new();
    for node in Preorder::new(file.root()) {
        if node.py_kind() != python::Kind::FunctionDefinition {
            continue;
        }
        let Some(body) = node.field(python::Field::Body) else { continue };
        let Some(first) = body.named_child(0) else { continue };
        if first.py_kind() != python::Kind::ExpressionStatement {
            continue;
        }
        let Some(comment) = first.named_child(0).and_then(|s| python_docstring(text, s)) else { continue };
        if comment.trim().is_empty() {
            continue;
        }
        // Decorators belong to the function, as in the released code.
        let outer = node.parent().filter(|p| p.py_kind() == python::Kind::DecoratedDefinition).unwrap_or(node);
        let name = node.field(python::Field::Name).map(|n| text[n.byte_range()].to_string()).unwrap_or_default();
        out.push(function(file, outer, name, comment, vec![first.byte_range()], python_role));
    }
    out
}

fn java_functions(file: &ParsedFile) -> Vec<Function> {
    let text = file.text();
    let mut out = Vec::new();
    for node in Preorder::new(file.root()) {
        if !matches!(node.java_kind(), java::Kind::MethodDeclaration | java::Kind::ConstructorDeclaration) {
            continue;
        }
        let Some(prev) = node.prev_sibling().filter(|p| p.java_kind() == java::Kind::BlockComment) else { continue };
        let raw = &text[prev.byte_range()];
        if !raw.starts_with("/**") {
            continue;
        }
        let comment = javadoc_text(raw);
        if comment.trim().is_empty() {
            continue;
        }
        let name = node.java_field(java::Field::Name).map(|n| text[n.byte_range()].to_string()).unwrap_or_default();
        out.push(function(file, node, name, comment, Vec::new(), java_role));
    }
    out
}

/// What a node inside a function is to `.code.original`: a comment (removed), a string
/// literal (kept whole) or anything else.
enum Role {
    Comment,
    String,
    Other,
}

fn python_role(node: Node) -> Role {
    match node.py_kind() {
        python::Kind::Comment => Role::Comment,
        python::Kind::String => Role::String,
        _ => Role::Other,
    }
}

fn java_role(node: Node) -> Role {
    match node.java_kind() {
        java::Kind::LineComment | java::Kind::BlockComment => Role::Comment,
        java::Kind::StringLiteral => Role::String,
        _ => Role::Other,
    }
}

fn function(
    file: &ParsedFile,
    node: Node,
    name: String,
    comment: String,
    mut removed: Vec<Range<usize>>,
    role: fn(Node) -> Role,
) -> Function {
    let text = file.text();
    let base = node.start_byte();
    let mut strings = Vec::new();
    for n in Preorder::new(node) {
        match role(n) {
            Role::Comment => removed.push(n.byte_range()),
            Role::String => strings.push(n.byte_range()),
            Role::Other => {}
        }
    }
    let rel = |r: &Range<usize>| r.start.saturating_sub(base)..r.end.saturating_sub(base);
    let removed: Vec<Range<usize>> = removed.iter().map(rel).collect();
    let strings: Vec<Range<usize>> = strings.iter().map(rel).collect();
    let original = code_original(&text[node.byte_range()], &removed, &strings);
    Function { name, line: node.start_position().row, comment, code: subtokenize(&original), code_original: original }
}

/// The docstring an expression makes when it is a body's first statement, as Python
/// sees one: a string literal, or literals written side by side (joined), but not an
/// f-string or bytes literal (no docstring to Python); `None` otherwise.
fn python_docstring(text: &str, expression: Node<'_>) -> Option<String> {
    let parts: Vec<&str> = match expression.py_kind() {
        python::Kind::String => vec![&text[expression.byte_range()]],
        python::Kind::ConcatenatedString => (0..expression.named_child_count())
            .filter_map(|i| expression.named_child(i))
            .map(|p| &text[p.byte_range()])
            .collect(),
        _ => return None,
    };
    let prefix = |literal: &str| literal.chars().take_while(char::is_ascii_alphabetic).collect::<String>();
    if parts.iter().any(|p| prefix(p).chars().any(|c| matches!(c, 'f' | 'F' | 'b' | 'B'))) {
        return None;
    }
    let joined: String = parts.iter().map(|p| string_inner(p)).collect();
    Some(cleandoc(&joined))
}

/// A string literal's source without its prefix and quotes (escapes kept as written, as
/// the released extraction keeps them).
fn string_inner(literal: &str) -> &str {
    let body = literal.trim_start_matches(|c: char| c.is_ascii_alphabetic());
    ["\"\"\"", "'''", "\"", "'"]
        .iter()
        .find_map(|q| body.strip_prefix(q).and_then(|b| b.strip_suffix(q)))
        .unwrap_or(body)
}

/// The value of a Python string literal's source: prefixes and quotes
/// removed, indentation removed as `inspect.cleandoc` does.
pub fn python_string_value(literal: &str) -> String {
    cleandoc(string_inner(literal))
}

/// `inspect.cleandoc`: tabs expanded, the first line stripped, the common
/// indentation of the other lines (counted in characters, as Python counts
/// them) removed, blank lines at both ends dropped; trailing whitespace of
/// each line is dropped too.
pub fn cleandoc(doc: &str) -> String {
    let expanded = expand_tabs(doc);
    let lines: Vec<&str> = expanded.lines().collect();
    let indent = lines
        .iter()
        .skip(1)
        .filter(|l| !l.trim().is_empty())
        .map(|l| l.chars().count() - l.trim_start().chars().count())
        .min()
        .unwrap_or(0);
    let mut out: Vec<String> = Vec::with_capacity(lines.len());
    for (i, l) in lines.iter().enumerate() {
        if i == 0 {
            out.push(l.trim().to_string());
        } else {
            let rest: String = l.chars().skip(indent).collect();
            out.push(rest.trim_end().to_string());
        }
    }
    while out.first().is_some_and(|l| l.is_empty()) {
        out.remove(0);
    }
    while out.last().is_some_and(|l| l.is_empty()) {
        out.pop();
    }
    out.join("\n")
}

/// Python's `str.expandtabs()`: each tab becomes the spaces up to the next
/// multiple of 8 columns, counted from the last line end.
fn expand_tabs(text: &str) -> std::borrow::Cow<'_, str> {
    if !text.contains('\t') {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    let mut column = 0;
    for c in text.chars() {
        match c {
            '\t' => {
                let spaces = 8 - column % 8;
                out.extend(std::iter::repeat_n(' ', spaces));
                column += spaces;
            }
            '\n' | '\r' => {
                out.push(c);
                column = 0;
            }
            _ => {
                out.push(c);
                column += 1;
            }
        }
    }
    std::borrow::Cow::Owned(out)
}

/// The description of a Javadoc comment: delimiters and leading `*`
/// removed, HTML tags dropped, cut before the first block tag (`@param`, ...).
pub fn javadoc_text(raw: &str) -> String {
    let inner = raw.trim_start_matches("/**").trim_end_matches("*/");
    let mut lines = Vec::new();
    for line in inner.lines() {
        let l = line.trim().trim_start_matches('*').trim();
        if l.starts_with('@') {
            break;
        }
        lines.push(l.to_string());
    }
    let joined = lines.join("\n");
    let mut out = String::with_capacity(joined.len());
    let mut in_tag = false;
    for c in joined.chars() {
        match c {
            '<' => in_tag = true,
            '>' if in_tag => in_tag = false,
            _ if !in_tag => out.push(c),
            _ => {}
        }
    }
    out.replace("{@code ", "").replace("{@link ", "").replace('}', "").trim().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use quarry_syntax::SourceFile;

    fn parse(path: &str, text: &str, language: Language) -> ParsedFile {
        ParsedFile::parse(SourceFile::from_text(path, text), language).unwrap()
    }

    #[test]
    fn python_docstrings_and_code() {
        let f = parse(
            "m.py",
            "@cache\ndef get(x):\n    \"\"\"Return the value.\n\n    More.\n    \"\"\"\n    # note\n    return x.value\n\ndef bare():\n    pass\n",
            Language::Python,
        );
        let fs = functions(&f);
        assert_eq!(fs.len(), 1);
        assert_eq!(fs[0].name, "get");
        assert_eq!(fs[0].comment, "Return the value.\n\nMore.");
        assert_eq!(fs[0].code_original, "@cachedef get x return x value");
        assert_eq!(fs[0].line, 0);
    }

    #[test]
    fn docstrings_are_what_python_calls_docstrings() {
        let text = "def a():\n    f\"\"\"Return {x}.\"\"\"\ndef b():\n    b\"\"\"Bytes.\"\"\"\n\
                    def c():\n    \"Return \" \"joined.\"\ndef d():\n    r\"\"\"Raw \\d.\"\"\"\n";
        let fs = functions(&parse("m.py", text, Language::Python));
        let found: Vec<(&str, &str)> = fs.iter().map(|f| (f.name.as_str(), f.comment.as_str())).collect();
        assert_eq!(found, [("c", "Return joined."), ("d", "Raw \\d.")]);
    }

    #[test]
    fn cleandoc_counts_characters_and_expands_tabs_as_python_does() {
        // inspect.cleandoc("First.\n\n  x\n\u3000y\n    ") keeps `y`, one character in.
        assert_eq!(cleandoc("First.\n\n  x\n\u{3000}y\n    "), "First.\n\n x\ny");
        assert_eq!(cleandoc("line one\n\tline two\n        line three"), "line one\nline two\nline three");
    }

    #[test]
    fn java_javadoc() {
        let f = parse(
            "A.java",
            "class A {\n  /**\n   * Returns the <b>size</b>.\n   * @return size\n   */\n  int size() { return n; }\n  int other() { return 1; }\n}\n",
            Language::Java,
        );
        let fs = functions(&f);
        assert_eq!(fs.len(), 1);
        assert_eq!(fs[0].comment, "Returns the size.");
        assert_eq!(fs[0].code_original, "int size { return n }");
    }
}
