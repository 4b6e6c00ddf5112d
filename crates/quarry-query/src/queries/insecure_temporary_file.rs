//! Q44 "Insecure temporary file": `tempfile.mktemp()`, `os.tmpnam()` and
//! `os.tempnam()` only return a file name; another process can create the
//! file between the call and its use (CWE-377).
//!
//! ```python
//! import tempfile
//! path = tempfile.mktemp()      # answer: the call
//! ```
//!
//! Calls are resolved through the file's imports (`import tempfile as t`,
//! `from tempfile import mktemp`), standing in for CodeQL's points-to.
//! Negative form: calls to the safe `tempfile` functions (`mkstemp`,
//! `mkdtemp`, `NamedTemporaryFile`, `TemporaryFile`, `SpooledTemporaryFile`,
//! `TemporaryDirectory`).

use crate::ast::callee_text;

use crate::context::FileContext;
use crate::finding::{Polarity, RawFinding};
use crate::import_statements::{import_aliases, resolve_imported};
use crate::query::{Hops, Query, QueryMeta};
use crate::syntax::Kind;

/// The query.
pub static QUERY: Query = Query {
    meta: QueryMeta {
        id: "insecure-temporary-file",
        name: "Insecure temporary file",
        index: 44,
        hops: Hops::Single,
        description: "Creating a temporary file using this method may be insecure.",
        codeql: "python/ql/src/Security/CWE-377/InsecureTemporaryFile.ql",
    },
    find,
};

const INSECURE: &[&str] = &["tempfile.mktemp", "os.tmpnam", "os.tempnam"];

const SAFE: &[&str] = &[
    "tempfile.mkstemp",
    "tempfile.mkdtemp",
    "tempfile.NamedTemporaryFile",
    "tempfile.TemporaryFile",
    "tempfile.SpooledTemporaryFile",
    "tempfile.TemporaryDirectory",
];

fn find(cx: &FileContext<'_>, polarity: Polarity) -> Vec<RawFinding> {
    let imports: Vec<_> =
        cx.nodes(Kind::ImportStatement).iter().chain(cx.nodes(Kind::ImportFromStatement)).copied().collect();
    let aliases = import_aliases(cx.file(), &imports);
    let wanted = match polarity {
        Polarity::Positive => INSECURE,
        Polarity::Negative => SAFE,
    };
    let mut findings = Vec::new();
    for &call in cx.nodes(Kind::Call) {
        let Some(callee) = callee_text(cx.file(), call) else { continue };
        let Some(qualified) = resolve_imported(&aliases, callee) else { continue };
        if !wanted.contains(&qualified.as_str()) {
            continue;
        }
        let (module, function) = qualified.split_once('.').unwrap_or(("", qualified.as_str()));
        let message = match polarity {
            Polarity::Positive => format!("Call to deprecated function {module}.{function} may be insecure."),
            Polarity::Negative => format!("Call to {module}.{function} creates the file securely."),
        };
        findings.push(RawFinding::answer(cx.span(call), message));
    }
    findings
}
