//! Q12 "Flask app is run in debug mode": `app.run(debug=True)` on a Flask
//! application starts the Werkzeug debugger, which lets anyone who can
//! reach the server run arbitrary code.
//!
//! ```python
//! from flask import Flask
//! app = Flask(__name__)
//! app.run(debug=True)       # answer: the call
//! ```
//!
//! The application is a name or `self` attribute assigned `Flask(...)` or
//! `flask.Flask(...)` in the file, with `Flask` imported from `flask`; the
//! call's `debug` keyword must be the constant `True`. The assignment and
//! the import are relevant. Negative form: `run` calls on a Flask
//! application without debug mode.

use crate::context::FileContext;
use crate::finding::{Polarity, RawFinding};
use crate::registry::{Hops, Query, QueryMeta};

/// The query.
pub static QUERY: Query = Query {
    meta: QueryMeta {
        id: "flask-debug",
        name: "Flask app is run in debug mode",
        index: 12,
        hops: Hops::Multi,
        description: "Running a Flask app in debug mode may allow an attacker to run arbitrary code through the Werkzeug debugger.",
        codeql: "python/ql/src/Security/CWE-215/FlaskDebug.ql",
    },
    find,
};

fn find(cx: &FileContext<'_>, polarity: Polarity) -> Vec<RawFinding> {
    let apps = flask_apps(cx);
    if apps.is_empty() {
        return Vec::new();
    }
    let mut findings = Vec::new();
    for &call in cx.nodes("call") {
        let Some(callee) = call.child_by_field_name("function").filter(|f| f.kind() == "attribute") else { continue };
        if callee.child_by_field_name("attribute").map(|a| cx.text(a)) != Some("run") {
            continue;
        }
        let Some(object) = callee.child_by_field_name("object") else { continue };
        let Some((_, assignment)) = apps.iter().find(|(name, _)| name == cx.text(object)) else { continue };
        let debug = crate::ast::call_arguments(call).into_iter().any(|a| {
            a.kind() == "keyword_argument"
                && a.child_by_field_name("name").is_some_and(|n| cx.text(n) == "debug")
                && a.child_by_field_name("value").is_some_and(|v| v.kind() == "true")
        });
        if debug != (polarity == Polarity::Positive) {
            continue;
        }
        let message = if debug {
            "A Flask app appears to be run in debug mode."
        } else {
            "A Flask app is run without debug mode."
        };
        findings.push(RawFinding::answer(cx.location(call), message).with_context([*assignment]));
    }
    findings
}

/// Names (`app`, `self.app`) assigned a Flask application, with the span
/// of the assignment.
fn flask_apps(cx: &FileContext<'_>) -> Vec<(String, quarry_syntax::Span)> {
    let imported_class = cx.nodes("import_from_statement").iter().any(|i| {
        i.child_by_field_name("module_name").is_some_and(|m| cx.text(m) == "flask")
            && crate::ast::named_children(*i)
                .iter()
                .skip(1)
                .any(|n| cx.text(*n).split_whitespace().next() == Some("Flask"))
    });
    let imported_module =
        cx.nodes("import_statement").iter().any(|i| cx.text(*i).split([' ', ',']).any(|p| p == "flask"));
    let mut apps = Vec::new();
    for &assignment in cx.nodes("assignment") {
        let (Some(left), Some(right)) =
            (assignment.child_by_field_name("left"), assignment.child_by_field_name("right"))
        else {
            continue;
        };
        let Some(callee) = right.child_by_field_name("function").filter(|_| right.kind() == "call") else { continue };
        let is_flask = match cx.text(callee) {
            "Flask" => imported_class,
            "flask.Flask" => imported_module,
            _ => false,
        };
        if is_flask && matches!(left.kind(), "identifier" | "attribute") {
            apps.push((cx.text(left).to_string(), cx.span(assignment)));
        }
    }
    apps
}
