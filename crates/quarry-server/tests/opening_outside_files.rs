//! Opening a file outside the workspace folder adds it to the project
//! without analysing the workspace again: its own diagnostics come first,
//! then only the files whose imports it changes (those that import it,
//! directly or through others) are analysed again, as a rebuild of the
//! whole project would have found them; the other files keep what was
//! published for them.

mod common;

use std::path::{Path, PathBuf};

use common::{uri, Session};
use lsp_server::Message;
use quarry_server::server::Ending;
use serde_json::Value;

fn write(path: PathBuf, text: &str) -> PathBuf {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(&path, text).unwrap();
    path
}

/// The query ids of a publication's diagnostics.
fn codes(diagnostics: &Value) -> Vec<String> {
    diagnostics.as_array().unwrap().iter().map(|d| d["code"].as_str().unwrap().to_string()).collect()
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

/// Takes publications until every one of `files` has had one; all those
/// taken, in order.
fn until_published(session: &Session, files: &[&Path]) -> Vec<(String, Value)> {
    let mut left: Vec<String> = files.iter().map(|f| uri(f)).collect();
    let mut taken = Vec::new();
    while !left.is_empty() {
        if let Some((uri, diagnostics)) = published(&session.next()) {
            left.retain(|u| *u != uri);
            taken.push((uri, diagnostics));
        }
    }
    taken
}

#[test]
fn opening_a_file_outside_the_workspace_analyses_it_and_its_importers_only() {
    let temp = tempfile::tempdir().unwrap();
    let workspace = temp.path().join("workspace");
    // Files are analysed in the order of their paths: a rebuild would
    // analyse `b.py` before `importer.py`.
    let unrelated = write(workspace.join("b.py"), "import os\n");
    let importer = write(workspace.join("importer.py"), "from helper import area\n\nprint(area(3))\n");
    let through = write(workspace.join("user.py"), "from importer import area\n\nprint(area)\n");
    let open_importer = workspace.join("opened.py");
    let helper =
        write(temp.path().join("elsewhere/helper.py"), "def area(width, height):\n    return width * height\n");

    let session = Session::initialized(&workspace);
    session.open(&open_importer, "from helper import area\narea(1)\n");
    let first = until_published(&session, &[&unrelated, &importer, &through, &open_importer]);
    let before = |file: &Path| first.iter().find(|(u, _)| *u == uri(file)).map(|(_, d)| codes(d)).unwrap();
    // `helper` is not in the project yet: its function is unknown.
    assert_eq!(before(&importer), Vec::<String>::new());
    assert_eq!(before(&open_importer), Vec::<String>::new());
    assert_eq!(before(&unrelated), ["unused-import"]);

    session.open(&helper, &std::fs::read_to_string(&helper).unwrap());
    let after = until_published(&session, &[&helper, &importer, &open_importer, &through]);
    let uris: Vec<&str> = after.iter().map(|(u, _)| u.as_str()).collect();
    assert!(!uris.contains(&uri(&unrelated).as_str()), "b.py was analysed again: {uris:?}");
    assert_eq!(after.len(), 4, "{uris:?}");
    // The opened file's diagnostics come first: they wait for no other file.
    assert_eq!(uris[0], uri(&helper));
    let now = |file: &Path| after.iter().find(|(u, _)| *u == uri(file)).map(|(_, d)| codes(d)).unwrap();
    // Now the calls are judged against `helper.area`, as when the project is built with it.
    assert_eq!(now(&importer), ["wrong-number-arguments"]);
    assert_eq!(now(&open_importer), ["wrong-number-arguments"]);
    assert_eq!(now(&through), Vec::<String>::new());

    // Nothing else was due: `shutdown` is answered with no publication before it.
    let (ending, before_answer) = session.shut_down_seeing();
    let late: Vec<String> = before_answer.iter().filter_map(published).map(|(u, _)| u).collect();
    assert!(late.is_empty(), "{late:?}");
    assert_eq!(ending, Some(Ending::Clean));
}
