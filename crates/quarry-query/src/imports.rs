//! Module-level imports of a file and how their names are used: reads that
//! reach the module's global (from any scope that does not bind the name
//! itself; class bodies read globals too), `__all__`, doctests, `# type:`
//! comments, string annotations and epytext `L{name}` references, following
//! CodeQL's `UnusedImport.ql`.

use std::collections::{HashMap, HashSet};

use crate::syntax::{Field, Kind, SyntaxNode};
use quarry_syntax::{ParsedFile, Span};
use tree_sitter::Node;

use crate::ast::named_children;
use crate::file_syntax::FileSyntax;
use crate::import_statements::{all_names, at_module_level_by, import_bindings, never_executed_by, AllNames};
use crate::node_tree::NodeTree;
use crate::scopes::{BindingKind, ScopeKind, Scopes};

/// One name bound by a module-level import statement.
#[derive(Debug, Clone)]
pub struct ImportedName<'f> {
    /// The bound name (`a` for `import a.b`, `c` for `from m import b as c`).
    pub name: String,
    /// The `import` or `from ... import` statement.
    pub statement: Node<'f>,
}

/// The imports of a file and the global uses of names.
#[derive(Debug, Clone)]
pub struct Imports<'f> {
    /// Names bound by module-level imports that may execute, in order.
    pub names: Vec<ImportedName<'f>>,
    /// The module's `__all__`.
    pub all: AllNames,
    global_uses: Vec<(String, Span)>,
    /// The spans of `global_uses` by name, in the same order.
    uses_by_name: HashMap<String, Vec<Span>>,
    /// What follows `>>>` or `...` on every doctest line of the docstrings, a line each.
    doctest_lines: String,
    type_comments: Vec<String>,
    string_annotations: Vec<String>,
    comments: Vec<String>,
    /// The text of every `L{...}` reference in the comments.
    linked: HashSet<String>,
    /// The words of the type comments and string annotations.
    hint_words: HashSet<String>,
}

impl<'f> Imports<'f> {
    /// Collects the imports and uses of a parsed file from its node index
    /// and scopes.
    pub fn build(syntax: &FileSyntax<'f>, scopes: &Scopes) -> Imports<'f> {
        let file = syntax.file();
        let nodes = |kind: Kind| syntax.nodes(kind);
        let mut names = Vec::new();
        for kind in [Kind::ImportStatement, Kind::ImportFromStatement] {
            for &statement in nodes(kind) {
                let parent = |n: Node<'f>| syntax.parent(n);
                if !at_module_level_by(statement, parent) || never_executed_by(file, statement, parent) {
                    continue;
                }
                for name in bound_names(file, statement) {
                    names.push(ImportedName { name, statement });
                }
            }
        }
        names.sort_by_key(|n| n.statement.start_byte());
        let texts = |kind: Kind| nodes(kind).iter().map(|n| file.node_text(*n).to_string()).collect::<Vec<_>>();
        let comments = texts(Kind::Comment);
        let global_uses = global_uses(scopes);
        let type_comments: Vec<String> = comments.iter().filter(|c| is_type_comment(c)).cloned().collect();
        let string_annotations = string_annotations(file, &nodes);
        let hints =
            type_comments.iter().map(|c| &c["# type:".len()..]).chain(string_annotations.iter().map(String::as_str));
        Imports {
            names,
            all: all_names(file, nodes(Kind::Assignment), nodes(Kind::AugmentedAssignment), nodes(Kind::Call)),
            uses_by_name: index_by_name(&global_uses),
            global_uses,
            doctest_lines: doctest_lines(&docstrings(file, syntax.parents(), &nodes)),
            linked: comments.iter().flat_map(|c| link_targets(c)).map(str::to_string).collect(),
            hint_words: hints.flat_map(words).map(str::to_string).collect(),
            type_comments,
            string_annotations,
            comments,
        }
    }

    /// The spans where `name` is read as a global.
    pub fn uses_of<'a>(&'a self, name: &'a str) -> impl Iterator<Item = Span> + 'a {
        self.uses_by_name.get(name).into_iter().flatten().copied()
    }

    /// The spans of every global read of an imported name.
    pub fn uses_of_imports(&self) -> Vec<Span> {
        let imported: HashSet<&str> = self.names.iter().map(|i| i.name.as_str()).collect();
        self.global_uses.iter().filter(|(n, _)| imported.contains(n.as_str())).map(|(_, s)| *s).collect()
    }

    /// Whether CodeQL would count the imported `name` as used: read as a
    /// global, listed in `__all__`, named in a doctest, a type comment, a
    /// string annotation or an epytext `L{...}` comment, or acceptable as
    /// unused (`_`, `__x`, `dummy`, `empty`, `*unused*`). An opaque
    /// `__all__` makes every import count as used.
    pub fn is_used(&self, name: &str) -> bool {
        self.uses_of(name).next().is_some()
            || match &self.all {
                AllNames::Absent => false,
                AllNames::Listed(listed) => listed.iter().any(|n| n == name),
                AllNames::Opaque => true,
            }
            || acceptable_unused(name)
            || self.linked_in_comment(name)
            || self.doctest_lines.contains(name)
            || self.named_in_hint(name)
    }

    /// Whether a comment holds `L{name}`; looked up in the index unless a
    /// `}` in the name keeps it from being one reference's whole text.
    fn linked_in_comment(&self, name: &str) -> bool {
        if name.contains('}') {
            return self.comments.iter().any(|c| c.contains(&format!("L{{{name}}}")));
        }
        self.linked.contains(name)
    }

    /// Whether a type comment or string annotation holds `name` as a whole
    /// word; looked up in the index when the name is one word.
    fn named_in_hint(&self, name: &str) -> bool {
        if !name.is_empty() && name.chars().all(is_word_char) {
            return self.hint_words.contains(name);
        }
        self.type_comments.iter().any(|c| contains_word(&c["# type:".len()..], name))
            || self.string_annotations.iter().any(|a| contains_word(a, name))
    }
}

/// What a read of a name stands for when it resolves to an import
/// (`flask.Flask` for `Flask` after `from flask import Flask`, or for `F`
/// after `from flask import Flask as F`); `None` for any other binding.
pub fn imported_qualified_name(syntax: &FileSyntax<'_>, scopes: &Scopes, read: Node<'_>) -> Option<String> {
    let binding = scopes.resolve(read.id())?;
    if binding.kind != Some(BindingKind::Import) {
        return None;
    }
    let statement = [Kind::ImportStatement, Kind::ImportFromStatement, Kind::FutureImportStatement]
        .into_iter()
        .flat_map(|kind| syntax.nodes(kind).iter())
        .find(|s| Some(s.id()) == binding.binder_id)?;
    import_bindings(syntax.file(), *statement)
        .into_iter()
        .find(|b| b.identifier.id() == binding.node_id)
        .map(|b| b.qualified)
}

/// The names a module-level import binds for CodeQL's unused-import
/// question: none for `__future__` imports.
fn bound_names(file: &ParsedFile, statement: Node<'_>) -> Vec<String> {
    if statement.py_kind() == Kind::FutureImportStatement
        || statement.field(Field::ModuleName).is_some_and(|m| file.node_text(m) == "__future__")
    {
        return Vec::new();
    }
    import_bindings(file, statement).into_iter().map(|b| b.name).collect()
}

/// The spans of `uses` grouped by name, each group in the order of `uses`.
fn index_by_name(uses: &[(String, Span)]) -> HashMap<String, Vec<Span>> {
    let mut index: HashMap<String, Vec<Span>> = HashMap::new();
    for (name, span) in uses {
        index.entry(name.clone()).or_default().push(*span);
    }
    index
}

/// Every read of a name that reaches the module's global: no function,
/// lambda or comprehension between the use and the module binds the name.
fn global_uses(scopes: &Scopes) -> Vec<(String, Span)> {
    let mut uses = Vec::new();
    for scope in scopes.all() {
        for event in &scope.uses {
            let mut global = true;
            let mut current = Some(scope);
            while let Some(s) = current {
                if s.kind == ScopeKind::Module {
                    break;
                }
                if s.kind != ScopeKind::Class && s.is_local(&event.name) && !s.globals.contains(&event.name) {
                    global = false;
                    break;
                }
                current = s.parent.map(|p| scopes.get(p));
            }
            if global {
                uses.push((event.name.clone(), event.span));
            }
        }
    }
    uses
}

/// The text of every docstring, in source order: a string that is a child
/// of the expression statement that comes first (comments aside) in a
/// module, class or function body. Found from the bodies down, so no
/// string looks for its parent.
fn docstrings<'n, 'f: 'n>(
    file: &ParsedFile,
    tree: &NodeTree<'f>,
    nodes: &impl Fn(Kind) -> &'n [Node<'f>],
) -> Vec<String> {
    let mut docstrings: Vec<Node<'f>> = Vec::new();
    for &body in nodes(Kind::Module).iter().chain(nodes(Kind::Block)) {
        let first = tree.named_children(body).find(|c| c.py_kind() != Kind::Comment);
        if let Some(statement) = first.filter(|f| f.py_kind() == Kind::ExpressionStatement) {
            docstrings.extend(tree.named_children(statement).filter(|c| c.py_kind() == Kind::String));
        }
    }
    docstrings.sort_by_key(|s| s.start_byte());
    docstrings.iter().map(|s| file.node_text(*s).into()).collect()
}

/// The code of the doctest lines of `docstrings`: on every line, what follows its first
/// `>>>` and what follows its first `...`, each on a line of its own. Built once, so that
/// whether a doctest mentions a name is one search however many imports ask (a name holds
/// no line break, so no match spans two of these lines).
fn doctest_lines(docstrings: &[String]) -> String {
    let mut out = String::new();
    for line in docstrings.iter().flat_map(|d| d.lines()) {
        for marker in [">>>", "..."] {
            if let Some(at) = line.find(marker) {
                out.push_str(&line[at + marker.len()..]);
                out.push('\n');
            }
        }
    }
    out
}

/// Strings inside parameter, assignment and return annotations, and the
/// other places a string is a type hint: the value of an `X: TypeAlias = ...`
/// and the first argument of `cast(...)`.
fn string_annotations<'n, 'f: 'n>(file: &ParsedFile, nodes: &impl Fn(Kind) -> &'n [Node<'f>]) -> Vec<String> {
    let mut annotations = Vec::new();
    let mut roots = Vec::new();
    for kind in [Kind::TypedParameter, Kind::TypedDefaultParameter, Kind::Assignment] {
        roots.extend(nodes(kind).iter().filter_map(|n| n.field(Field::Type)));
    }
    roots.extend(nodes(Kind::FunctionDefinition).iter().filter_map(|f| f.field(Field::ReturnType)));
    let is_named = |node: Option<Node<'_>>, name: &str| {
        node.is_some_and(|n| {
            let text = file.node_text(n);
            text == name || text.strip_suffix(name).is_some_and(|t| t.ends_with('.'))
        })
    };
    roots.extend(
        nodes(Kind::Assignment)
            .iter()
            .filter(|a| is_named(a.field(Field::Type), "TypeAlias"))
            .filter_map(|a| a.field(Field::Right)),
    );
    roots.extend(
        nodes(Kind::Call)
            .iter()
            .filter(|c| is_named(c.field(Field::Function), "cast"))
            .filter_map(|c| c.field(Field::Arguments).and_then(|a| named_children(a).into_iter().next())),
    );
    for root in roots {
        for node in quarry_syntax::walk::Preorder::new(root) {
            if node.py_kind() == Kind::String {
                annotations.push(file.node_text(node).to_string());
            }
        }
    }
    annotations
}

/// Whether `name` occurs in `text` as a whole word.
/// Whether a comment is a type comment (`# type: List[int]`), not the
/// `# type: ignore` pragma, which names no type. CodeQL matches any
/// `# type:` comment containing the name as a substring, so `ignore` would
/// count as a use of `re`; quarry requires a whole word in a real type comment.
fn is_type_comment(comment: &str) -> bool {
    let Some(body) = comment.strip_prefix("# type:") else { return false };
    let body = body.trim_start();
    let pragma =
        body.strip_prefix("ignore").is_some_and(|rest| rest.is_empty() || rest.starts_with(['[', '#', ' ', '\t']));
    !pragma
}

fn contains_word(text: &str, name: &str) -> bool {
    text.match_indices(name).any(|(at, _)| {
        let before = text[..at].chars().next_back();
        let after = text[at + name.len()..].chars().next();
        !before.is_some_and(is_word_char) && !after.is_some_and(is_word_char)
    })
}

/// Whether `c` can be part of a word for [`contains_word`].
fn is_word_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// The maximal runs of word characters in `text`: a one-word name is
/// [`contains_word`] in `text` exactly when it is one of them.
fn words(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| !is_word_char(c)).filter(|w| !w.is_empty())
}

/// The text of every `L{...}` in a comment, up to the first `}` after it:
/// `L{name}` is in the comment exactly when `name` (without `}`) is one.
fn link_targets(comment: &str) -> impl Iterator<Item = &str> {
    comment.match_indices("L{").filter_map(move |(at, _)| {
        let rest = &comment[at + 2..];
        rest.find('}').map(|end| &rest[..end])
    })
}

/// Names CodeQL accepts as deliberately unused.
fn acceptable_unused(name: &str) -> bool {
    name.chars().all(|c| c == '_')
        || name.starts_with("__")
        || name == "empty"
        || name == "dummy"
        || name.contains("unused")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::FileContext;
    use quarry_syntax::{Language, SourceFile};

    fn used(text: &str) -> Vec<(String, bool)> {
        let file = ParsedFile::parse(SourceFile::from_text("t.py", text), Language::Python).unwrap();
        let cx = FileContext::new(&file);
        let imports = cx.imports();
        imports.names.iter().map(|n| (n.name.clone(), imports.is_used(&n.name))).collect()
    }

    #[test]
    fn names_and_uses() {
        let text = "import os.path, sys as system\nfrom m import a, b as c\nfrom __future__ import division\nfrom x import *\nprint(os)\ndef f(c):\n    return c\n";
        let expected = [("os", true), ("system", false), ("a", false), ("c", false)];
        let got = used(text);
        assert_eq!(got, expected.map(|(n, u)| (n.to_string(), u)));
    }

    #[test]
    fn comment_links_and_hint_words_match_whole_names() {
        let text = "import a, b, c, d, e, f, g\n# L{L{a} and L{b.x} and L{ c}\nv = 1  # type: List[dd]\ndef h(x: 'e.T', y: 'ff') -> 'Optional[g]':\n    return x\n";
        let expected = [("a", true), ("b", false), ("c", false), ("d", false), ("e", true), ("f", false), ("g", true)];
        assert_eq!(used(text), expected.map(|(n, u)| (n.to_string(), u)));
    }

    #[test]
    fn all_doctests_comments_and_annotations() {
        let text = "import a, b, d, e, f, g\n__all__ = ['a']\n# see L{b}\ndef h(x: 'Optional[d]') -> 'e':\n    '''\n    >>> f.run()\n    '''\nv = 1  # type: g.T\nif False:\n    import never\nclass K:\n    import inner\n";
        assert!(used(text).iter().all(|(_, u)| *u));
    }

    #[test]
    fn only_doctest_lines_of_docstrings_use_a_name() {
        let text = "import a, b, c, d\ndef h():\n    '''Uses b in prose.\n\n    >>> a.run()\n    ... c.more()\n    '''\nx = '>>> d'\n";
        let expected = [("a", true), ("b", false), ("c", true), ("d", false)];
        assert_eq!(used(text), expected.map(|(n, u)| (n.to_string(), u)));
    }

    #[test]
    fn type_ignore_is_no_use_of_re() {
        // Regression: `ignore` contains `re`, and any `# type:` comment used to count.
        let text = "import re\nimport typing\nx = f()  # type: ignore\ny = g()  # type: ignore[attr-defined]\nz = 1  # type: typing.Any\n";
        assert_eq!(used(text), [("re".to_string(), false), ("typing".to_string(), true)]);
    }

    #[test]
    fn opaque_all_and_class_uses() {
        let text = "import a\n__all__ = ['x']\n__all__.extend(more)\n";
        assert_eq!(used(text), [("a".to_string(), true)]);
        let text = "import a\nclass C:\n    a = a\n";
        assert_eq!(used(text), [("a".to_string(), true)]);
    }
}
