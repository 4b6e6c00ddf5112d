//! A document that starts with a byte-order mark: quarry analyses its text
//! without it (as CPython reads it), and the diagnostics' ranges on the
//! first line count it, as the editor's text holds it.

mod common;

use common::Session;
use quarry_server::server::Ending;
use serde_json::json;

#[test]
fn ranges_on_the_first_line_count_the_byte_order_mark() {
    let temp = tempfile::tempdir().unwrap();
    let path = temp.path().join("m.py");
    let session = Session::initialized(temp.path());
    session.open(&path, "\u{feff}import os\nimport sys\n");
    let diagnostics = session.diagnostics(&path, 1);
    let ranges: Vec<_> = diagnostics.as_array().unwrap().iter().map(|d| d["range"].clone()).collect();
    let range = |line, start, end| json!({"start": {"line": line, "character": start}, "end": {"line": line, "character": end}});
    assert_eq!(ranges, [range(0, 1, 10), range(1, 0, 10)]);
    assert_eq!(session.shut_down(), Some(Ending::Clean));
}
