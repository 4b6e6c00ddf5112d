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
//! `flask.Flask(...)` in the file, with `Flask` imported from `flask`; its
//! `run` method is called directly or through a name bound to `app.run`,
//! outside `if False:`, with a `debug` keyword that is a true constant, or
//! a name whose last module-level assignment before the call is one. The
//! application's assignment is relevant. Negative form: `run` calls on a Flask
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
    let runners = run_aliases(cx, &apps);
    let mut findings = Vec::new();
    for &call in cx.nodes("call") {
        let Some(callee) = call.child_by_field_name("function") else { continue };
        let target = match callee.kind() {
            "attribute" if callee.child_by_field_name("attribute").map(|a| cx.text(a)) == Some("run") => {
                callee.child_by_field_name("object").map(|o| cx.text(o))
            }
            "identifier" => runners.iter().find(|(alias, _)| alias == cx.text(callee)).map(|(_, app)| app.as_str()),
            _ => None,
        };
        let Some((_, assignment)) = target.and_then(|t| apps.iter().find(|(name, _)| name == t)) else { continue };
        if crate::imports::never_executed(cx.file(), call) {
            continue;
        }
        let debug = crate::ast::call_arguments(call).into_iter().any(|a| {
            a.kind() == "keyword_argument"
                && a.child_by_field_name("name").is_some_and(|n| cx.text(n) == "debug")
                && a.child_by_field_name("value").is_some_and(|v| truthy(cx, v, call.start_byte()))
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

/// Whether a `debug=` value is a true constant, directly or through the
/// last module-level assignment of a name before the call.
fn truthy(cx: &FileContext<'_>, value: tree_sitter::Node<'_>, before: usize) -> bool {
    let value = crate::ast::strip_parentheses(value);
    match value.kind() {
        "true" => true,
        "integer" | "float" => {
            cx.text(value).trim_start_matches(['0', '.', '_']).chars().any(|c| c.is_ascii_digit() && c != '0')
        }
        "identifier" => {
            let name = cx.text(value);
            let assignment = cx.nodes("assignment").iter().rev().find(|a| {
                a.start_byte() < before
                    && cx.enclosing_function(**a).is_none()
                    && a.child_by_field_name("left").is_some_and(|l| cx.text(l) == name)
            });
            assignment
                .and_then(|a| a.child_by_field_name("right"))
                .is_some_and(|r| matches!(r.kind(), "true" | "integer" | "float") && truthy(cx, r, before))
        }
        _ => false,
    }
}

/// Names bound to an application's `run` method (`runapp = app.run`), with the application.
fn run_aliases(cx: &FileContext<'_>, apps: &[(String, quarry_syntax::Span)]) -> Vec<(String, String)> {
    let mut aliases = Vec::new();
    for &assignment in cx.nodes("assignment") {
        let (Some(left), Some(right)) =
            (assignment.child_by_field_name("left"), assignment.child_by_field_name("right"))
        else {
            continue;
        };
        if left.kind() != "identifier" || right.kind() != "attribute" {
            continue;
        }
        let object = right.child_by_field_name("object").map(|o| cx.text(o));
        let method = right.child_by_field_name("attribute").map(|a| cx.text(a));
        if let (Some(object), Some("run")) = (object, method) {
            if apps.iter().any(|(name, _)| name == object) {
                aliases.push((cx.text(left).to_string(), object.to_string()));
            }
        }
    }
    aliases
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
