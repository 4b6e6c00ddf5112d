//! `positionEncoding`: the server speaks the first encoding of the client's
//! list that it knows (UTF-8, UTF-16, UTF-32), and the diagnostics' columns
//! count that encoding's units; a client that offers none gets UTF-16.

mod common;

use common::Session;
use quarry_server::server::Ending;
use serde_json::json;

/// An unused import after non-ASCII text on its line.
const TEXT: &str = "x = '😀é'; import os\n";

fn first_range(encodings: serde_json::Value) -> (serde_json::Value, serde_json::Value) {
    let temp = tempfile::tempdir().unwrap();
    let path = temp.path().join("m.py");
    let (session, result) =
        Session::initialized_with(temp.path(), json!({"general": {"positionEncodings": encodings}}));
    session.open(&path, TEXT);
    let diagnostics = session.diagnostics(&path, 1);
    let range = diagnostics.as_array().unwrap().first().expect("a diagnostic")["range"].clone();
    assert_eq!(session.shut_down(), Some(Ending::Clean));
    (result["capabilities"]["positionEncoding"].clone(), range)
}

#[test]
fn columns_count_the_negotiated_encoding() {
    // `import os` starts at character 10: byte 14 in UTF-8, unit 11 in UTF-16.
    let range =
        |start: u32, end: u32| json!({"start": {"line": 0, "character": start}, "end": {"line": 0, "character": end}});
    assert_eq!(first_range(json!(["utf-8", "utf-16"])), (json!("utf-8"), range(14, 23)));
    assert_eq!(first_range(json!(["utf-32"])), (json!("utf-32"), range(10, 19)));
    assert_eq!(first_range(json!(["ucs-2"])), (json!("utf-16"), range(11, 20)));
}
