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
        let Some(string) = first.named_child(0).filter(|s| s.py_kind() == python::Kind::String) else { continue };
        let comment = python_string_value(&text[string.byte_range()]);
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

/// The value of a Python string literal's source: prefixes and quotes
/// removed, indentation removed as `inspect.cleandoc` does.
pub fn python_string_value(literal: &str) -> String {
    let body = literal.trim_start_matches(|c: char| c.is_ascii_alphabetic());
    let inner = ["\"\"\"", "'''", "\"", "'"]
        .iter()
        .find_map(|q| body.strip_prefix(q).and_then(|b| b.strip_suffix(q)))
        .unwrap_or(body);
    cleandoc(inner)
}

/// `inspect.cleandoc`: the first line stripped, the common indentation of the
/// other lines removed, blank lines at both ends dropped.
pub fn cleandoc(doc: &str) -> String {
    let lines: Vec<&str> = doc.lines().collect();
    let indent = lines
        .iter()
        .skip(1)
        .filter(|l| !l.trim().is_empty())
        .map(|l| l.len() - l.trim_start().len())
        .min()
        .unwrap_or(0);
    let mut out: Vec<String> = Vec::with_capacity(lines.len());
    for (i, l) in lines.iter().enumerate() {
        if i == 0 {
            out.push(l.trim().to_string());
        } else {
            out.push(l.get(indent..).unwrap_or("").trim_end().to_string());
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
