//! Q46 "Should use a 'with' statement": a `try`/`finally` whose `finally`
//! only closes a context manager (`f.close()`); `with` says the same more
//! clearly and cannot forget the close.
//!
//! ```python
//! f = open(path)
//! try:
//!     data = f.read()
//! finally:
//!     f.close()            # answer: the close call
//! ```
//!
//! The `finally` block must hold just that one call. CodeQL knows through
//! points-to that the closed object's class is a context manager; quarry
//! accepts a name assigned, in the same scope, from a call to a well-known
//! context-manager factory (`open`, `io.open`, `codecs.open`, `gzip.open`,
//! `bz2.BZ2File`, `zipfile.ZipFile`, `tarfile.open`, `socket.socket`,
//! `subprocess.Popen`, `sqlite3.connect`, `tempfile.NamedTemporaryFile`,
//! `tempfile.TemporaryFile`, `urllib.request.urlopen`, `ftplib.FTP`,
//! `smtplib.SMTP`) or to a class of the file that has `__enter__` and
//! `__exit__` (defined in it or in base classes of the file). Objects held in attributes (`self.f.close()`) are left out,
//! as in CodeQL.
//!
//! Negative form: other `close()` calls in `finally` blocks: ones that share
//! the block with other statements, or close objects not known to be
//! context managers.

use crate::syntax::{Field, Kind, SyntaxNode};
use tree_sitter::Node;

use crate::ast::{callee_text, statements, strip_parentheses};

use crate::context::FileContext;
use crate::finding::{Polarity, RawFinding};
use crate::import_statements::{import_aliases, resolve_imported, ImportAliases};
use crate::query::{Hops, Query, QueryMeta};
use crate::reachability::clause_block;

/// The query.
pub static QUERY: Query = Query {
    meta: QueryMeta {
        id: "should-use-with",
        name: "Should use a 'with' statement",
        index: 46,
        hops: Hops::Single,
        description:
            "Using a 'try-finally' block to ensure only that a resource is closed makes code more difficult to read.",
        codeql: "python/ql/src/Statements/ShouldUseWithStatement.ql",
    },
    find,
};

const CONTEXT_MANAGER_FACTORIES: &[&str] = &[
    "io.open",
    "codecs.open",
    "gzip.open",
    "gzip.GzipFile",
    "bz2.BZ2File",
    "bz2.open",
    "zipfile.ZipFile",
    "tarfile.open",
    "tarfile.TarFile",
    "socket.socket",
    "subprocess.Popen",
    "sqlite3.connect",
    "tempfile.NamedTemporaryFile",
    "tempfile.TemporaryFile",
    "urllib.request.urlopen",
    "ftplib.FTP",
    "smtplib.SMTP",
];

fn find(cx: &FileContext<'_>, polarity: Polarity) -> Vec<RawFinding> {
    let imports: Vec<_> =
        cx.nodes(Kind::ImportStatement).iter().chain(cx.nodes(Kind::ImportFromStatement)).copied().collect();
    let aliases = import_aliases(cx.file(), &imports);
    let mut findings = Vec::new();
    for &clause in cx.nodes(Kind::FinallyClause) {
        let Some(block) = clause_block(clause) else { continue };
        let items = statements(block);
        for statement in &items {
            let Some(call) = statement.named_child(0).filter(|c| c.py_kind() == Kind::Call) else { continue };
            let Some(function) = call.field(Field::Function).filter(|f| f.py_kind() == Kind::Attribute) else {
                continue;
            };
            if function.field(Field::Attribute).map(|a| cx.text(a)) != Some("close") {
                continue;
            }
            let class = if items.len() == 1 {
                function
                    .field(Field::Object)
                    .map(strip_parentheses)
                    .filter(|o| o.py_kind() == Kind::Identifier)
                    .and_then(|o| context_manager_class(cx, &aliases, o, *statement))
            } else {
                None
            };
            match (polarity, class) {
                (Polarity::Positive, Some(class)) => findings.push(RawFinding::answer(
                    cx.span(call),
                    format!(
                        "Instance of context-manager class {class} is closed in a finally block. Consider using 'with' statement."
                    ),
                )),
                (Polarity::Negative, None) => findings.push(RawFinding::answer(
                    cx.span(call),
                    "This close call is not the only cleanup of a known context manager.",
                )),
                _ => {}
            }
        }
    }
    findings
}

/// The context-manager class (or factory) the name was last assigned from,
/// in the scope of `statement`, before it.
fn context_manager_class(
    cx: &FileContext<'_>,
    aliases: &ImportAliases,
    name: Node<'_>,
    statement: Node<'_>,
) -> Option<String> {
    let scope = cx.syntax().enclosing_scope(statement)?;
    let wanted = cx.text(name);
    let assignment = cx
        .nodes(Kind::Assignment)
        .iter()
        .filter(|a| a.start_byte() < statement.start_byte())
        .filter(|a| cx.syntax().enclosing_scope(**a).is_some_and(|s| s.id() == scope.id()))
        .filter(|a| a.field(Field::Left).is_some_and(|l| l.py_kind() == Kind::Identifier && cx.text(l) == wanted))
        .last()?;
    let value = strip_parentheses(assignment.field(Field::Right)?);
    if value.py_kind() != Kind::Call {
        return None;
    }
    let callee = callee_text(cx.file(), value)?;
    match resolve_imported(aliases, callee) {
        Some(qualified) => CONTEXT_MANAGER_FACTORIES.contains(&qualified.as_str()).then_some(qualified),
        None if callee == "open" || callee == "file" => Some(callee.to_string()),
        None => is_context_manager_class(cx, callee).then(|| callee.to_string()),
    }
}

/// Whether the file defines a class of that name that has `__enter__` and
/// `__exit__`, itself or through base classes defined in the file.
fn is_context_manager_class(cx: &FileContext<'_>, name: &str) -> bool {
    let mut methods: Vec<&str> = Vec::new();
    let mut pending = vec![name.to_string()];
    let mut seen: Vec<String> = Vec::new();
    while let Some(current) = pending.pop() {
        if seen.contains(&current) || seen.len() > 64 {
            continue;
        }
        let Some(class) = cx
            .nodes(Kind::ClassDefinition)
            .iter()
            .find(|c| crate::ast::field_text(cx.file(), **c, Field::Name) == Some(&current))
        else {
            continue;
        };
        seen.push(current);
        if let Some(body) = class.field(Field::Body) {
            methods.extend(
                crate::ast::named_children(body)
                    .into_iter()
                    .map(|m| {
                        if m.py_kind() == Kind::DecoratedDefinition {
                            m.field(Field::Definition).unwrap_or(m)
                        } else {
                            m
                        }
                    })
                    .filter(|m| m.py_kind() == Kind::FunctionDefinition)
                    .filter_map(|m| crate::ast::field_text(cx.file(), m, Field::Name)),
            );
        }
        if let Some(bases) = class.field(Field::Superclasses) {
            for base in crate::ast::named_children(bases) {
                if base.py_kind() == Kind::Identifier {
                    pending.push(cx.text(base).to_string());
                }
            }
        }
    }
    methods.contains(&"__enter__") && methods.contains(&"__exit__")
}
