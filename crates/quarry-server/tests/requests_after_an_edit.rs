//! A code action or a hover asked right after an edit, before the edited
//! document was analysed again, is answered from the diagnostics of the
//! edited text: never with an edit at the positions of the text before.

mod common;

use common::{uri, Session};
use quarry_server::server::Ending;
use serde_json::json;

#[test]
fn a_code_action_right_after_an_edit_is_for_the_current_text() {
    let temp = tempfile::tempdir().unwrap();
    let path = temp.path().join("m.py");
    let mut session = Session::initialized(temp.path());
    session.open(&path, "x = 1\ny = 2\nz = 3\nimport os\n");
    // Held sending version 1's diagnostics (the import on line 3) while
    // the edit and the request are queued behind.
    let before = session.diagnostics(&path, 1);
    assert_eq!(before[0]["range"]["start"]["line"], 3, "{before}");
    session.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": uri(&path), "version": 2}, "contentChanges": [{"text": "import os\n"}]}),
    );
    let whole = json!({"start": {"line": 0, "character": 0}, "end": {"line": 9, "character": 0}});
    let id = session.request(
        "textDocument/codeAction",
        json!({"textDocument": {"uri": uri(&path)}, "range": whole, "context": {"diagnostics": []}}),
    );
    let answer = session.response(id).response_result.expect("code actions");
    let edits = answer[0]["edit"]["changes"][uri(&path)].as_array().expect("one edit").clone();
    assert_eq!(edits.len(), 1, "{answer}");
    // The import is on line 0 now: the `# noqa` goes at its end.
    assert_eq!(edits[0]["range"]["start"], json!({"line": 0, "character": 9}), "{answer}");
    assert_eq!(answer.as_array().unwrap().len(), 1, "{answer}");
    assert_eq!(session.shut_down(), Some(Ending::Clean));
}
