//! A module that a file reaches only as an attribute of a package it
//! imports (`pkg.shapes.Base` after `import pkg`) is one it depends on: an
//! edit that changes what that module exports analyses the file again, and
//! its diagnostics are then those a fresh server publishes.

mod common;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use common::{uri, Session};
use lsp_server::Message;
use quarry_server::server::Ending;
use serde_json::{json, Value};

const APP: &str = "import pkg\n\n\nclass Point(pkg.shapes.Base):\n    pass\n\n\nPoint(1, 2, 3)\n";
const SHAPES: &str = "class Base:\n    def __init__(self, x):\n        self.x = x\n";

fn write(path: PathBuf, text: &str) -> PathBuf {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(&path, text).unwrap();
    path
}

/// The URI and diagnostics of a publication.
fn published(message: &Message) -> Option<(String, Value)> {
    match message {
        Message::Notification(n) if n.method == "textDocument/publishDiagnostics" => {
            Some((n.params["uri"].as_str().unwrap().to_string(), n.params["diagnostics"].clone()))
        }
        _ => None,
    }
}

/// The diagnostics of the first publication for `path`.
fn first_published(session: &Session, path: &Path) -> Value {
    loop {
        if let Some((published, diagnostics)) = published(&session.next()) {
            if published == uri(path) {
                return diagnostics;
            }
        }
    }
}

/// The query ids of a publication's diagnostics.
fn codes(diagnostics: &Value) -> Vec<String> {
    diagnostics.as_array().unwrap().iter().map(|d| d["code"].as_str().unwrap().to_string()).collect()
}

/// The analysis cache of the workspace, removed so that a session starts
/// from scratch (left alone when `QUARRY_CACHE_DIR` puts it elsewhere).
fn remove_cache(root: &Path, workspace: &Path) {
    let cache = quarry_workspace::cache_dir::location(workspace);
    if cache.starts_with(root) {
        let _ = std::fs::remove_dir_all(cache);
    }
}

#[test]
fn an_edit_of_a_submodule_read_as_an_attribute_analyses_its_reader_again() {
    let temp = tempfile::tempdir().unwrap();
    let workspace = temp.path().join("ws");
    write(workspace.join("pkg/__init__.py"), "");
    let app = write(workspace.join("app.py"), APP);
    let shapes = write(workspace.join("pkg/shapes.py"), SHAPES);
    remove_cache(temp.path(), &workspace);
    let session = Session::initialized(&workspace);
    let before = first_published(&session, &app);
    assert_eq!(codes(&before), ["wrong-number-class-arguments"], "{before}");

    // Base now takes three arguments: app.py's call is right.
    let edited = SHAPES.replace("(self, x)", "(self, x, y, z)");
    session.open(&shapes, SHAPES);
    session.diagnostics(&shapes, 1);
    session.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": uri(&shapes), "version": 2}, "contentChanges": [{"text": edited}]}),
    );
    std::fs::write(&shapes, &edited).unwrap();
    session.notify("textDocument/didSave", json!({"textDocument": {"uri": uri(&shapes)}}));
    session.diagnostics(&shapes, 2);
    let deadline = Instant::now() + Duration::from_secs(30);
    let mut after = None;
    while after.is_none() {
        let wait = deadline.saturating_duration_since(Instant::now());
        let Some(message) = session.next_within(wait) else { break };
        after = published(&message).filter(|(u, _)| *u == uri(&app)).map(|(_, d)| d);
    }
    let after = after.expect("app.py is analysed again after the edit of pkg/shapes.py");
    assert_eq!(session.shut_down(), Some(Ending::Clean));

    remove_cache(temp.path(), &workspace);
    let fresh = Session::initialized(&workspace);
    let expected = first_published(&fresh, &app);
    assert_eq!(fresh.shut_down(), Some(Ending::Clean));
    assert_eq!(after, expected);
    assert_eq!(codes(&after), Vec::<String>::new(), "{after}");
}
