//! Every request gets exactly one response echoing its id, as JSON-RPC 2.0
//! asks, whatever the client wrote: an id LSP does not allow (a fraction,
//! an integer outside 32 bits, null) is refused with `InvalidRequest`, its
//! id written back as the client wrote it; other envelope faults get one
//! sensible answer, or a logged drop where JSON-RPC asks for no answer; and
//! the server goes on answering normal requests afterwards. The bodies go
//! through the real transport (framing and envelope checks).

mod common;

use common::Session;
use quarry_server::server::Ending;
use serde_json::Value;

/// What the server sent after a body: the texts of its responses (messages
/// with an `id` and no `method`) and how many log messages came, up to the
/// response to a normal request sent after it, which is checked to be
/// answered normally.
fn answers_to(session: &mut Session, body: &str) -> (Vec<String>, usize) {
    session.send_raw(body);
    session.send_raw(r#"{"jsonrpc":"2.0","id":"ping","method":"quarry/ping"}"#);
    let (mut responses, mut logs) = (Vec::new(), 0);
    loop {
        let text = session.next_text();
        // An id serde_json cannot hold (1e400) was echoed: a response.
        let Ok(message) = serde_json::from_str::<Value>(&text) else {
            responses.push(text);
            continue;
        };
        if message["method"] == "window/logMessage" {
            logs += 1;
            continue;
        }
        if message.get("method").is_some() {
            continue;
        }
        if message["id"] == "ping" {
            assert_eq!(message["error"]["code"], -32601, "after {body}: {text}");
            return (responses, logs);
        }
        let each = message.as_array().cloned().unwrap_or_else(|| vec![message]);
        assert!(each.iter().all(|m| m["jsonrpc"] == "2.0"), "{text}");
        responses.push(text);
    }
}

/// The one response to `body`, checked to be an `InvalidRequest` error
/// written with `"id":ID` exactly; its message.
fn refused(session: &mut Session, body: &str, id: &str) -> String {
    let (responses, logs) = answers_to(session, body);
    let [response] = responses.as_slice() else { panic!("{body}: not one response: {responses:?}") };
    let echoed = format!(r#"{{"jsonrpc":"2.0","id":{id},"error":"#);
    assert!(response.starts_with(&echoed), "{body}: {response}");
    assert_eq!(logs, 1, "{body}");
    let parsed: Value = serde_json::from_str(&response[echoed.len()..response.len() - 1]).unwrap();
    assert_eq!(parsed["code"], -32600, "{body}: {response}");
    parsed["message"].as_str().unwrap().to_string()
}

#[test]
fn requests_whose_ids_lsp_does_not_allow_get_one_error_echoing_the_id() {
    let temp = tempfile::tempdir().unwrap();
    let mut session = Session::initialized(temp.path());
    let ids = [
        "1.5",
        "2.0",
        "4294967296",
        "-3000000000",
        "2147483648",
        "-2147483649",
        "1e3",
        "-0.0",
        "99999999999999999999999999999",
        "1.00000000000000000001",
        "1e400",
        "null",
    ];
    for id in ids {
        for method in ["textDocument/hover", "shutdown", "initialize", "exit"] {
            let body = format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"{method}","params":{{}}}}"#);
            let message = refused(&mut session, &body, id);
            assert!(message.contains("LSP"), "{body}: {message}");
        }
    }
    // None of those shut the server down: it still answers and shuts down cleanly.
    assert_eq!(session.shut_down(), Some(Ending::Clean));
}

#[test]
fn ids_lsp_allows_are_answered_as_before() {
    let temp = tempfile::tempdir().unwrap();
    let mut session = Session::initialized(temp.path());
    let long = format!(r#""{}""#, "9".repeat(100_000));
    for id in ["2147483647", "-2147483648", "0", r#""1.5""#, r#""""#, r#""\u00e9\ud83d\ude00""#, long.as_str()] {
        let body = format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"quarry/unknown"}}"#);
        let (responses, logs) = answers_to(&mut session, &body);
        let [response] = responses.as_slice() else { panic!("{body}: not one response: {responses:?}") };
        let parsed: Value = serde_json::from_str(response).unwrap();
        assert_eq!(parsed["id"], serde_json::from_str::<Value>(id).unwrap(), "{response}");
        assert_eq!(parsed["error"]["code"], -32601, "{response}");
        assert_eq!(logs, 0, "{body}");
    }
    assert_eq!(session.shut_down(), Some(Ending::Clean));
}

#[test]
fn other_envelope_faults_get_one_answer_or_a_logged_drop() {
    let temp = tempfile::tempdir().unwrap();
    let mut session = Session::initialized(temp.path());
    // Requests JSON-RPC answers, with the id it can echo (null when the id is no JSON-RPC id).
    let answered = [
        (r#"{"jsonrpc":"2.0","id":{"a":1},"method":"shutdown"}"#, "null"),
        (r#"{"jsonrpc":"2.0","id":[1],"method":"shutdown"}"#, "null"),
        (r#"{"jsonrpc":"2.0","id":true,"method":"shutdown"}"#, "null"),
        (r#"{"jsonrpc":"2.0","id":7}"#, "7"),
        (r#"{"jsonrpc":"2.0","id":"x","params":{}}"#, r#""x""#),
        (r#"{"jsonrpc":"2.0","id":8,"method":5}"#, "8"),
        (r#"{"jsonrpc":"2.0","id":8.5,"method":null}"#, "8.5"),
        (r#"{"jsonrpc":"1.0","id":9,"method":"shutdown"}"#, "9"),
        (r#"{"jsonrpc":"2.0","id":11,"id":12,"method":"shutdown"}"#, "12"),
        (r#"{"jsonrpc":"2.0","method":"shutdown","method":"exit","id":13}"#, "13"),
        // No request at all: answered with a null id.
        (r#"{"jsonrpc":"2.0","method":1,"params":"bar"}"#, "null"),
        (r#"{"jsonrpc":"1.0","method":"exit"}"#, "null"),
        (r#"{"note":"no message"}"#, "null"),
        ("{}", "null"),
        ("42", "null"),
        (r#""a string""#, "null"),
        ("null", "null"),
        ("[]", "null"),
    ];
    for (body, id) in answered {
        let message = refused(&mut session, body, id);
        assert!(message.starts_with("invalid request: "), "{body}: {message}");
    }
    // A request that leaves `jsonrpc` out is understood, as lsp-server read it before.
    let (responses, _) = answers_to(&mut session, r#"{"id":10,"method":"quarry/unknown"}"#);
    let [response] = responses.as_slice() else { panic!("not one response without jsonrpc: {responses:?}") };
    assert!(response.contains(r#""id":10"#) && response.contains("-32601"), "{response}");
    // Not JSON: a parse error with a null id.
    let (responses, logs) = answers_to(&mut session, r#"{"jsonrpc":"2.0","id":14,"method":"#);
    let [response] = responses.as_slice() else { panic!("not one response to bad JSON: {responses:?}") };
    assert!(response.contains(r#""id":null,"error":{"code":-32700"#), "{response}");
    assert_eq!(logs, 1);
    // A batch: one array, an answer for each request echoing its id, none for its notification.
    let batch = r#"[{"jsonrpc":"2.0","id":15,"method":"shutdown"},{"jsonrpc":"2.0","method":"exit"},
        {"jsonrpc":"2.0","id":16.5,"method":"textDocument/hover"},{"jsonrpc":"2.0","id":"s","result":null},5]"#;
    let (responses, _) = answers_to(&mut session, batch);
    let [response] = responses.as_slice() else { panic!("not one answer to a batch: {responses:?}") };
    let ids: Vec<&str> =
        [r#""id":15,"#, r#""id":16.5,"#, r#""id":null,"#].into_iter().filter(|id| response.contains(id)).collect();
    assert_eq!(ids.len(), 3, "{response}");
    let parsed: Value = serde_json::from_str(response).unwrap();
    assert_eq!(parsed.as_array().map(Vec::len), Some(3), "{response}");
    assert!(parsed.as_array().unwrap().iter().all(|a| a["error"]["code"] == -32600), "{response}");
    // Dropped and logged: what JSON-RPC does not answer.
    let dropped = [
        r#"[{"jsonrpc":"2.0","method":"exit"},{"jsonrpc":"2.0","method":"initialized"}]"#,
        r#"{"jsonrpc":"2.0","id":1.5,"result":null}"#,
        r#"{"jsonrpc":"2.0","id":2,"result":null,"error":{"code":1,"message":"m"}}"#,
        r#"{"jsonrpc":"2.0","id":3,"error":"not an error object"}"#,
        r#"{"jsonrpc":"1.0","id":4,"result":null}"#,
        r#"{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"n":1e400}}"#,
    ];
    for body in dropped {
        let (responses, logs) = answers_to(&mut session, body);
        assert!(responses.is_empty(), "{body}: {responses:?}");
        assert_eq!(logs, 1, "{body}");
    }
    // A notification that breaks no rule is no fault.
    let (responses, logs) = answers_to(&mut session, r#"{"jsonrpc":"2.0","method":"$/setTrace","params":{}}"#);
    assert_eq!((responses.len(), logs), (0, 0));
    assert_eq!(session.shut_down(), Some(Ending::Clean));
}

#[test]
fn a_refused_request_before_initialize_is_answered_too() {
    let temp = tempfile::tempdir().unwrap();
    let mut session = Session::start();
    session.send_raw(r#"{"jsonrpc":"2.0","id":0.5,"method":"initialize","params":{}}"#);
    let response = session.next_text();
    assert!(response.contains(r#""id":0.5,"error":{"code":-32600"#), "{response}");
    // The real `initialize` comes next, and is answered.
    let result = session.initialize(temp.path(), serde_json::json!({}));
    assert!(result["capabilities"].is_object(), "{result}");
    session.notify("initialized", serde_json::json!({}));
    assert_eq!(session.shut_down(), Some(Ending::Clean));
}
