//! `quarry server` driven over its standard input and output as an editor
//! drives it: initialize, diagnostics of open and unopened files equal to
//! `quarry query --format json`, edits (full and incremental), code actions,
//! hover, a cross-module edit refreshing the importing file, shutdown and
//! exit, and input that must not stop it.

mod common;
mod lsp;

use std::path::{Path, PathBuf};
use std::process::Command;

use lsp::{key, uri, Client};
use serde_json::{json, Value};

const BASE: &str = "class Base:\n    def __init__(self):\n        self.x = 1\n";
const CHILD: &str =
    "import os\nfrom base import Base\n\n\nclass Child(Base):\n    def __init__(self):\n        self.y = 2\n";
const OTHER: &str = "import sys\nx = 1\nif x == x:\n    pass\n";

fn fixture(tag: &str) -> PathBuf {
    let dir = common::named_project(
        &format!("server-{tag}"),
        &[("base.py", BASE.as_bytes()), ("child.py", CHILD.as_bytes()), ("other.py", OTHER.as_bytes())],
    );
    std::fs::canonicalize(dir).unwrap()
}

/// `quarry query --format json` on `dir`, as (file name, diagnostic key)
/// pairs with LSP ranges (the files are ASCII, so columns agree).
fn cli_findings(dir: &Path) -> Vec<(String, (String, u64, u64, String))> {
    let out = Command::new(env!("CARGO_BIN_EXE_quarry"))
        .args(["query", "--format", "json", "--quiet", "."])
        .current_dir(dir)
        .output()
        .unwrap();
    let records: Vec<Value> = serde_json::from_slice(&out.stdout).expect("JSON output");
    let mut found: Vec<_> = records
        .iter()
        .map(|r| {
            let file = Path::new(r["file"].as_str().unwrap()).file_name().unwrap().to_string_lossy().into_owned();
            let span = &r["answer_spans"][0];
            let key = (
                r["query_id"].as_str().unwrap().to_string(),
                span["start_line"].as_u64().unwrap(),
                span["start_column"].as_u64().unwrap(),
                r["message"].as_str().unwrap().to_string(),
            );
            (file, key)
        })
        .collect();
    found.sort();
    found
}

/// How many spans beyond the first answer span `quarry query` reports for
/// the finding of `query` in child.py (facts and further answers).
fn related_spans(dir: &Path, query: &str) -> usize {
    let out = Command::new(env!("CARGO_BIN_EXE_quarry"))
        .args(["query", "--format", "json", "--quiet", "."])
        .current_dir(dir)
        .output()
        .unwrap();
    let records: Vec<Value> = serde_json::from_slice(&out.stdout).unwrap();
    let record = records.iter().find(|r| r["query_id"] == query).unwrap();
    let count = |key: &str| record[key].as_array().map_or(0, Vec::len);
    count("answer_spans") - 1 + count("supporting_fact_spans")
}

/// The first publication of each of `names`, as (file name, key) pairs.
fn server_findings(client: &mut Client, dir: &Path, names: &[&str]) -> Vec<(String, (String, u64, u64, String))> {
    let mut found = Vec::new();
    for name in names {
        for diagnostic in client.diagnostics(&dir.join(name), None) {
            found.push((name.to_string(), key(&diagnostic)));
        }
    }
    found.sort();
    found
}

#[test]
fn diagnostics_of_open_and_unopened_files_equal_the_command_line_findings() {
    let dir = fixture("equal");
    let expected = cli_findings(&dir);
    assert!(expected.iter().any(|(f, k)| f == "child.py" && k.0 == "missing-call-to-init"), "{expected:?}");
    assert!(
        expected.iter().any(|(f, k)| f == "other.py" && k.0 == "comparison-of-identical-expressions"),
        "{expected:?}"
    );
    let mut client = Client::initialized(&dir);
    client.open(&dir.join("child.py"), CHILD, 1);
    let got = server_findings(&mut client, &dir, &["base.py", "child.py", "other.py"]);
    assert_eq!(got, expected);
    // Related information carries the supporting facts; negative forms never show.
    client.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": uri(&dir.join("child.py")), "version": 2},
        "contentChanges": [{"text": CHILD}]}),
    );
    let child = client.diagnostics(&dir.join("child.py"), Some(2));
    let init = child.iter().find(|d| d["code"] == "missing-call-to-init").unwrap();
    assert_eq!(init["source"], "quarry");
    let related = init["relatedInformation"].as_array().map_or(0, Vec::len);
    assert_eq!(related, related_spans(&dir, "missing-call-to-init"), "{init}");
    assert_eq!(client.shutdown(), Some(0));
}

#[test]
fn edits_unsaved_text_actions_and_hover() {
    let dir = fixture("edits");
    let mut client = Client::initialized(&dir);
    let other = dir.join("other.py");
    let other_uri = uri(&other);
    client.open(&other, OTHER, 1);
    let codes = |ds: &[Value]| ds.iter().map(|d| d["code"].as_str().unwrap().to_string()).collect::<Vec<_>>();
    let first = client.diagnostics(&other, Some(1));
    assert!(codes(&first).contains(&"unused-import".to_string()), "{first:?}");
    // Incremental change, unsaved: `import sys` becomes used.
    client.notify("textDocument/didChange", json!({"textDocument": {"uri": other_uri, "version": 2},
        "contentChanges": [{"range": {"start": {"line": 1, "character": 4}, "end": {"line": 1, "character": 5}}, "text": "sys.maxsize"}]}));
    let second = client.diagnostics(&other, Some(2));
    assert!(!codes(&second).contains(&"unused-import".to_string()), "{second:?}");
    assert!(codes(&second).contains(&"comparison-of-identical-expressions".to_string()), "{second:?}");
    // Hover on the finding: the query's documentation.
    let is = second.iter().find(|d| d["code"] == "comparison-of-identical-expressions").unwrap().clone();
    let hover = client
        .request("textDocument/hover", json!({"textDocument": {"uri": other_uri}, "position": is["range"]["start"]}));
    let text = hover["result"]["contents"]["value"].as_str().unwrap();
    assert!(text.contains("comparison-of-identical-expressions") && text.contains("CodeQL"), "{text}");
    // Nothing to say where there is no diagnostic.
    let nothing = client.request(
        "textDocument/hover",
        json!({"textDocument": {"uri": other_uri}, "position": {"line": 3, "character": 0}}),
    );
    assert_eq!(nothing["result"], Value::Null);
    // Code action: add `# noqa: ID` on the line.
    let actions = client.request(
        "textDocument/codeAction",
        json!({"textDocument": {"uri": other_uri}, "range": is["range"],
        "context": {"diagnostics": [is]}}),
    );
    let action = &actions["result"][0];
    assert_eq!(action["kind"], "quickfix");
    let edit = &action["edit"]["changes"][&other_uri][0];
    assert_eq!(edit["newText"], "  # noqa: comparison-of-identical-expressions");
    assert_eq!(edit["range"]["start"], json!({"line": 2, "character": 10}));
    // Full change applying it: the finding is suppressed; then a stale noqa
    // becomes an unused suppression with an action removing it.
    let suppressed = "import sys\nx = sys.maxsize\nif x == x:  # noqa: comparison-of-identical-expressions\n    pass\n";
    client.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": other_uri, "version": 3}, "contentChanges": [{"text": suppressed}]}),
    );
    assert!(client.diagnostics(&other, Some(3)).is_empty());
    let stale = "import sys\nx = sys.maxsize\nif x == 1:  # noqa: comparison-of-identical-expressions\n    pass\n";
    client.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": other_uri, "version": 4}, "contentChanges": [{"text": stale}]}),
    );
    let unused = client.diagnostics(&other, Some(4));
    assert_eq!(codes(&unused), ["unused-suppression"]);
    let actions = client.request(
        "textDocument/codeAction",
        json!({"textDocument": {"uri": other_uri}, "range": unused[0]["range"],
        "context": {"diagnostics": unused}}),
    );
    let edit = &actions["result"][0]["edit"]["changes"][&other_uri][0];
    assert_eq!(edit["newText"], "");
    assert_eq!(edit["range"], json!({"start": {"line": 2, "character": 10}, "end": {"line": 2, "character": 55}}));
    assert_eq!(client.shutdown(), Some(0));
}

#[test]
fn an_edit_of_a_module_refreshes_the_file_that_imports_it() {
    let dir = fixture("cross");
    let mut client = Client::initialized(&dir);
    let (base, child) = (dir.join("base.py"), dir.join("child.py"));
    client.open(&child, CHILD, 1);
    let before = client.diagnostics(&child, Some(1));
    assert!(before.iter().any(|d| d["code"] == "missing-call-to-init"), "{before:?}");
    // Unsaved edit of base.py: Base no longer defines __init__, so Child
    // misses no call; child.py is analysed again without being touched.
    client.open(&base, BASE, 1);
    client.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": uri(&base), "version": 2},
        "contentChanges": [{"text": "class Base:\n    pass\n"}]}),
    );
    let after = client.diagnostics(&child, Some(1));
    assert!(!after.iter().any(|d| d["code"] == "missing-call-to-init"), "{after:?}");
    // An edit that changes nothing other modules see refreshes nothing.
    client.backlog.clear();
    client.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": uri(&base), "version": 3},
        "contentChanges": [{"text": "class Base:\n    pass\n# a comment\n"}]}),
    );
    client.diagnostics(&base, Some(3));
    let hover = client.request(
        "textDocument/hover",
        json!({"textDocument": {"uri": uri(&child)}, "position": {"line": 0, "character": 0}}),
    );
    assert!(hover.get("result").is_some());
    // A refresh would come right after base.py's analysis: wait for quiet.
    client.drain(std::time::Duration::from_secs(2));
    let uri_child = json!(uri(&child));
    assert!(!client.backlog.iter().any(|m| m["params"]["uri"] == uri_child), "child.py was refreshed needlessly");
    assert_eq!(client.shutdown(), Some(0));
}

#[test]
fn bad_input_and_deleted_files_do_not_stop_the_server() {
    let dir = fixture("robust");
    let mut client = Client::initialized(&dir);
    // Malformed JSON, a frame without a length, an unknown request and notification.
    client.send_raw(b"Content-Length: 9\r\n\r\n{not json");
    client.send_raw(b"Content-Type: nothing\r\n\r\n");
    let unknown = client.request("quarry/unknown", json!({}));
    assert_eq!(unknown["error"]["code"], -32601);
    client.notify("quarry/unknownNotification", json!({}));
    let bad_params = client.request("textDocument/hover", json!({"textDocument": 3}));
    assert_eq!(bad_params["error"]["code"], -32602);
    let logged = client.wait_for(|m| {
        m["method"] == "window/logMessage"
            && m["params"]["message"].as_str().unwrap().contains("not a JSON-RPC message")
    });
    assert_eq!(logged["params"]["type"], 1);
    // A thousand changes in a row: the last text is what is analysed.
    let other = dir.join("other.py");
    client.open(&other, OTHER, 1);
    for version in 2..=1001 {
        let text = if version % 2 == 0 { "import sys\n" } else { "import os\n" };
        client.notify("textDocument/didChange", json!({"textDocument": {"uri": uri(&other), "version": version},
            "contentChanges": [{"range": {"start": {"line": 0, "character": 0}, "end": {"line": 99, "character": 0}}, "text": text}]}));
    }
    let last = client.diagnostics(&other, Some(1001));
    assert_eq!(last.len(), 1);
    assert!(last[0]["message"].as_str().unwrap().contains("os"), "{last:?}");
    // A file deleted while open: still analysed from its unsaved text; and
    // once closed its diagnostics are cleared.
    let child = dir.join("child.py");
    client.open(&child, CHILD, 1);
    client.diagnostics(&child, Some(1));
    std::fs::remove_file(&child).unwrap();
    client.notify("workspace/didChangeWatchedFiles", json!({"changes": [{"uri": uri(&child), "type": 3}]}));
    client.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": uri(&child), "version": 2}, "contentChanges": [{"text": CHILD}]}),
    );
    assert!(!client.diagnostics(&child, Some(2)).is_empty());
    client.backlog.clear();
    client.notify("textDocument/didClose", json!({"textDocument": {"uri": uri(&child)}}));
    assert!(client.diagnostics(&child, None).is_empty());
    // A 50 MB document: bounded by the per-file time budget; the server answers meanwhile.
    let big = "x = [1, 2, 3]\n".repeat(50 * 1024 * 1024 / 14);
    client.open(&dir.join("big.py"), &big, 1);
    let hover = client.request(
        "textDocument/hover",
        json!({"textDocument": {"uri": uri(&other)}, "position": {"line": 0, "character": 0}}),
    );
    assert!(hover.get("result").is_some() || hover.get("error").is_some());
    client.diagnostics(&dir.join("big.py"), Some(1));
    assert!(client.running());
    assert_eq!(client.shutdown(), Some(0));
}

#[test]
fn a_bad_configuration_is_logged_and_a_fixed_one_reloaded() {
    let dir = fixture("config");
    std::fs::write(dir.join("quarry.toml"), "select = [\"no-such-query\"]\n").unwrap();
    let mut client = Client::initialized(&dir);
    let logged = client.wait_for(|m| m["method"] == "window/logMessage" && m["params"]["type"] == 1);
    let message = logged["params"]["message"].as_str().unwrap();
    assert!(message.contains("quarry.toml") && message.contains("no-such-query"), "{message}");
    // Fixed: only one query selected; the change is picked up.
    std::fs::write(dir.join("quarry.toml"), "select = [\"unused-import\"]\n").unwrap();
    client.notify(
        "workspace/didChangeWatchedFiles",
        json!({"changes": [{"uri": uri(&dir.join("quarry.toml")), "type": 2}]}),
    );
    client.wait_for(|m| {
        m["method"] == "window/logMessage" && m["params"]["message"].as_str().unwrap().contains("reloaded")
    });
    client.backlog.clear();
    let other = client.diagnostics(&dir.join("other.py"), None);
    assert_eq!(other.iter().map(|d| d["code"].as_str().unwrap()).collect::<Vec<_>>(), ["unused-import"]);
    assert_eq!(client.shutdown(), Some(0));
}

#[test]
fn requests_before_initialize_and_after_shutdown_are_refused() {
    let dir = fixture("lifecycle");
    let mut client = Client::start(&dir);
    let early = client.request("textDocument/hover", json!({}));
    assert_eq!(early["error"]["code"], -32002);
    client.request("initialize", json!({"processId": null, "rootUri": uri(&dir), "capabilities": {}}));
    let id = client.send_request("shutdown", Value::Null);
    client.wait_for(|m| m["id"] == json!(id));
    let late = client.request("textDocument/hover", json!({}));
    assert_eq!(late["error"]["code"], -32600);
    client.notify("exit", Value::Null);
}
