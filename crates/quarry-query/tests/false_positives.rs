//! Regression tests for the false-positive classes found by judging
//! findings on third-party packages (issue 20): each case is reported
//! nothing, and a control that differs only in the key property is
//! reported, so the test fails if the query stops looking at all.

use quarry_query::report::analyze_parsed;
use quarry_query::{find_query, Polarity};
use quarry_syntax::{Language, ParsedFile, SourceFile};

/// The first lines (0-based) of the answers `query` reports on `source`.
fn answer_lines(query: &str, path: &str, source: &str) -> Vec<usize> {
    let file = ParsedFile::parse(SourceFile::from_text(path, source), Language::Python).unwrap();
    let query = find_query(query).expect("query exists");
    let report = analyze_parsed(&file, &[query], &[Polarity::Positive]);
    report.findings.iter().map(|f| f.answer_spans[0].start_line).collect()
}

/// The answer texts `query` reports on `source` (positive form).
fn answers(query: &str, path: &str, source: &str) -> Vec<String> {
    let file = ParsedFile::parse(SourceFile::from_text(path, source), Language::Python).unwrap();
    let query = find_query(query).expect("query exists");
    let report = analyze_parsed(&file, &[query], &[Polarity::Positive]);
    report.findings.iter().map(|f| f.answer_spans[0].span.clone()).collect()
}

#[test]
fn annotated_star_parameters_are_not_positional() {
    let source = "\
from typing import Any
class Handler(object):
    def emit(self, record, *args: Any, **kwargs: Any):
        return record
    def plain(self, record, extra):
        return record
    def run(self, record):
        self.emit(record)
        self.plain(record)
";
    assert_eq!(answers("wrong-number-arguments", "h.py", source), vec!["self.plain(record)"]);
}

#[test]
fn classes_with_unknown_decorators_are_left_alone() {
    let source = "\
import attr
class Base(object):
    def __eq__(self, other):
        return self.key == other.key
@attr.s
class Generated(Base):
    def tag(self, label):
        self.label = label
class Plain(Base):
    def tag(self, label):
        self.label = label
";
    assert_eq!(answer_lines("missing-equals", "m.py", source), vec![8]);
    let source = "\
@attr.s(hash=True)
class Generated(object):
    def __hash__(self):
        return 0
class Plain(object):
    def __hash__(self):
        return 0
";
    assert_eq!(answer_lines("equals-hash-mismatch", "e.py", source), vec![5]);
}

#[test]
fn names_resolve_by_scope_not_by_text() {
    let source = "\
from flask import Flask
def create():
    app = Flask(__name__)
    return app
def serve(app):
    app.run(debug=True)
application = Flask(__name__)
application.run(debug=True)
";
    assert_eq!(answers("flask-debug", "f.py", source), vec!["application.run(debug=True)"]);
    // The class is found through an alias, and a local `Flask` is not flask's.
    let source = "\
from flask import Flask as F
class Flask(object):
    def run(self, debug=False):
        pass
web = F(__name__)
web.run(debug=True)
local = Flask()
local.run(debug=True)
";
    assert_eq!(answers("flask-debug", "g.py", source), vec!["web.run(debug=True)"]);
}

#[test]
fn locals_at_module_level_is_the_namespace() {
    let source = "\
locals()['VERSION'] = 1
def configure(**options):
    locals()['x'] = 1
";
    assert_eq!(answers("modification-of-locals", "l.py", source), vec!["locals()['x']"]);
}

#[test]
fn type_stubs_get_no_findings() {
    let source = "def f(x): pass\nclass C:\n    def m(self): pass\nimport os\n";
    assert!(answers("unused-import", "s.pyi", source).is_empty());
    assert_eq!(answers("unused-import", "s.py", source), vec!["import os"]);
}
