//! A notification whose parameters do not decode cannot be answered; it is
//! ignored and logged, so that an edit the server could not apply (the
//! document is then out of step with the editor) is not lost silently.

mod common;

use common::{uri, Session};
use lsp_server::Message;
use quarry_server::server::Ending;
use serde_json::json;

#[test]
fn an_edit_with_bad_positions_is_logged() {
    let temp = tempfile::tempdir().unwrap();
    let path = temp.path().join("m.py");
    let mut session = Session::initialized(temp.path());
    session.open(&path, "import os\n");
    session.diagnostics(&path, 1);
    let negative = json!({"start": {"line": -1, "character": 0}, "end": {"line": 0, "character": 0}});
    session.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": uri(&path), "version": 2}, "contentChanges": [{"range": negative, "text": "x"}]}),
    );
    // Whatever the server says about the edit comes before its answer to a later request.
    let at = json!({"textDocument": {"uri": uri(&path)}, "position": {"line": 0, "character": 0}});
    let id = session.request("textDocument/hover", at);
    let mut logs = Vec::new();
    session.until(|m| match m {
        Message::Notification(n) if n.method == "window/logMessage" => {
            logs.push(n.params.clone());
            false
        }
        Message::Response(r) => r.id == id,
        _ => false,
    });
    let [logged] = logs.as_slice() else { panic!("not one log message: {logs:?}") };
    let message = logged["message"].as_str().unwrap();
    assert!(message.contains("ignored `textDocument/didChange`: invalid parameters"), "{message}");
    assert_eq!(logged["type"], 1);
    assert_eq!(session.shut_down(), Some(Ending::Clean));
}
