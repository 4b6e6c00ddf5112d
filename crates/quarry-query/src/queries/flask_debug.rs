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
//! `flask.Flask(...)` in the file, where the callee resolves to an import of
//! `flask.Flask` (through an alias too) or of the `flask` module; a
//! name must resolve to that assignment (a parameter `app` of another
//! function is not the module's `app`); its
//! `run` method is called directly or through a name bound to `app.run`,
//! outside `if False:`, with a `debug` keyword that is a true constant, or
//! a name whose last module-level assignment before the call is one. The
//! application's assignment is relevant. Negative form: `run` calls on a Flask
//! application without debug mode.

use crate::context::FileContext;
use crate::finding::{Polarity, RawFinding};
use crate::imports::imported_qualified_name;
use crate::query::{Hops, Query, QueryMeta};
use crate::syntax::{Field, Kind, SyntaxNode};

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
    for &call in cx.nodes(Kind::Call) {
        let Some(callee) = call.field(Field::Function) else { continue };
        let app = match callee.py_kind() {
            Kind::Attribute if callee.field(Field::Attribute).map(|a| cx.text(a)) == Some("run") => {
                callee.field(Field::Object).and_then(|o| app_of(cx, &apps, o))
            }
            Kind::Identifier => {
                let binder = cx.scopes().resolve(callee.id()).and_then(|b| b.binder_id);
                runners.iter().find(|(alias, _)| Some(*alias) == binder).map(|(_, app)| *app)
            }
            _ => None,
        };
        let Some(app) = app else { continue };
        if crate::import_statements::never_executed(cx.file(), call) {
            continue;
        }
        let debug = crate::ast::call_arguments(call).into_iter().any(|a| {
            a.py_kind() == Kind::KeywordArgument
                && a.field(Field::Name).is_some_and(|n| cx.text(n) == "debug")
                && a.field(Field::Value).is_some_and(|v| truthy(cx, v, call.start_byte()))
        });
        if debug != (polarity == Polarity::Positive) {
            continue;
        }
        let message = if debug {
            "A Flask app appears to be run in debug mode."
        } else {
            "A Flask app is run without debug mode."
        };
        findings.push(RawFinding::answer(cx.location(call), message).with_context([app.assignment]));
    }
    findings
}

/// Whether a `debug=` value is a true constant, directly or through the
/// last module-level assignment of a name before the call.
fn truthy(cx: &FileContext<'_>, value: tree_sitter::Node<'_>, before: usize) -> bool {
    let value = crate::ast::strip_parentheses(value);
    match value.py_kind() {
        Kind::True => true,
        Kind::Integer | Kind::Float => {
            cx.text(value).trim_start_matches(['0', '.', '_']).chars().any(|c| c.is_ascii_digit() && c != '0')
        }
        Kind::Identifier => {
            let name = cx.text(value);
            let assignment = cx.nodes(Kind::Assignment).iter().rev().find(|a| {
                a.start_byte() < before
                    && cx.enclosing_function(**a).is_none()
                    && a.field(Field::Left).is_some_and(|l| cx.text(l) == name)
            });
            assignment.and_then(|a| a.field(Field::Right)).is_some_and(|r| {
                matches!(r.py_kind(), Kind::True | Kind::Integer | Kind::Float) && truthy(cx, r, before)
            })
        }
        _ => false,
    }
}

/// A Flask application: the name or `self` attribute assigned
/// `Flask(...)`, the assignment's span and its node id.
struct App {
    name: String,
    assignment: quarry_syntax::Span,
    assignment_id: usize,
}

/// The application an expression refers to: a name read resolves to the
/// application's assignment (a parameter or another function's local of the
/// same name does not), an attribute (`self.app`) matches by its text.
fn app_of<'a>(cx: &FileContext<'_>, apps: &'a [App], object: tree_sitter::Node<'_>) -> Option<&'a App> {
    if object.py_kind() == Kind::Identifier {
        let binder = cx.scopes().resolve(object.id())?.binder_id?;
        apps.iter().find(|a| a.assignment_id == binder)
    } else {
        apps.iter().find(|a| a.name == cx.text(object))
    }
}

/// Assignments of an application's `run` method to a name (`runapp =
/// app.run`), by node id, with the application.
fn run_aliases<'a>(cx: &FileContext<'_>, apps: &'a [App]) -> Vec<(usize, &'a App)> {
    let mut aliases = Vec::new();
    for &assignment in cx.nodes(Kind::Assignment) {
        let (Some(left), Some(right)) = (assignment.field(Field::Left), assignment.field(Field::Right)) else {
            continue;
        };
        if left.py_kind() != Kind::Identifier || right.py_kind() != Kind::Attribute {
            continue;
        }
        let app = right.field(Field::Object).and_then(|o| app_of(cx, apps, o));
        let method = right.field(Field::Attribute).map(|a| cx.text(a));
        if let (Some(app), Some("run")) = (app, method) {
            aliases.push((assignment.id(), app));
        }
    }
    aliases
}

/// Whether a callee is the `Flask` class: a name that resolves to an import
/// of `flask.Flask` (aliases included), or `flask.Flask` through an import
/// of the `flask` module.
fn is_flask_class(cx: &FileContext<'_>, callee: tree_sitter::Node<'_>) -> bool {
    match callee.py_kind() {
        Kind::Identifier => imported_qualified_name(cx.syntax(), cx.scopes(), callee).as_deref() == Some("flask.Flask"),
        Kind::Attribute => {
            callee.field(Field::Attribute).is_some_and(|a| cx.text(a) == "Flask")
                && callee
                    .field(Field::Object)
                    .filter(|o| o.py_kind() == Kind::Identifier)
                    .and_then(|o| imported_qualified_name(cx.syntax(), cx.scopes(), o))
                    .as_deref()
                    == Some("flask")
        }
        _ => false,
    }
}

/// Names (`app`, `self.app`) assigned a Flask application.
fn flask_apps(cx: &FileContext<'_>) -> Vec<App> {
    let mut apps = Vec::new();
    for &assignment in cx.nodes(Kind::Assignment) {
        let (Some(left), Some(right)) = (assignment.field(Field::Left), assignment.field(Field::Right)) else {
            continue;
        };
        let Some(callee) = right.field(Field::Function).filter(|_| right.py_kind() == Kind::Call) else { continue };
        let is_flask = is_flask_class(cx, callee);
        if is_flask && matches!(left.py_kind(), Kind::Identifier | Kind::Attribute) {
            apps.push(App {
                name: cx.text(left).to_string(),
                assignment: cx.span(assignment),
                assignment_id: assignment.id(),
            });
        }
    }
    apps
}
