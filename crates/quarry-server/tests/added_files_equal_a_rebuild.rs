//! Opening files the project lacks adds them without a rebuild
//! (`Project::with_files_added`) and analyses again only the files whose
//! imports may resolve differently with them, and their importers. Each
//! scenario below opens such files in a session that first analysed the
//! workspace, and compares the last diagnostics published for every file
//! with those of a full rebuild: a fresh server on the same files (the
//! same documents open, the project built once with all of them), each
//! with an analysis cache of its own.

mod common;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use common::{uri, Session};
use lsp_server::Message;
use quarry_server::server::Ending;
use serde_json::{json, Value};

/// One case: files on disk (paths under a temporary folder whose `ws`
/// folder is the workspace), documents opened once the workspace was
/// analysed, and the files whose diagnostics the opens change.
struct Scenario {
    name: &'static str,
    /// Files on disk: path, text.
    disk: &'static [(&'static str, &'static str)],
    /// Documents opened (path, text), group by group: each group is
    /// analysed before the next is opened.
    opens: &'static [&'static [(&'static str, &'static str)]],
    /// The files whose diagnostics in the rebuild differ from those first
    /// published for them: what the scenario needs to analyse again.
    changes: &'static [&'static str],
}

const SCENARIOS: &[Scenario] = &[
    Scenario {
        name: "a module outside the workspace that a workspace file imports",
        disk: &[("ws/app.py", "from helper import area\n\nprint(area(3))\n"), ("ws/b.py", "import os\n")],
        opens: &[&[("x/helper.py", "def area(width, height):\n    return width * height\n")]],
        changes: &["ws/app.py"],
    },
    Scenario {
        name: "a script outside the workspace that nothing imports",
        disk: &[("ws/app.py", "from helper import area\n\nprint(area(3))\n"), ("ws/b.py", "import os\n")],
        opens: &[&[("x/tool.py", "import os\nimport json\n\nprint(os.getcwd())\n")]],
        changes: &[],
    },
    Scenario {
        name: "the opened file imports itself by its dotted name",
        disk: &[("ws/app.py", "import os\n"), ("x/pkg/__init__.py", "")],
        opens: &[&[(
            "x/pkg/mod.py",
            "from pkg.mod import *\nimport pkg.mod\n\n__all__ = ['f']\n\n\ndef f():\n    pass\n",
        )]],
        changes: &[],
    },
    Scenario {
        name: "a workspace file imports itself by a name that exists once the common folder widens",
        disk: &[
            ("ws/app.py", "from ws.app import *\n\n__all__ = ['f']\n\n\ndef f():\n    pass\n"),
            ("ws/b.py", "import os\n"),
        ],
        opens: &[&[("x/tool.py", "import os\n\nprint(os.getcwd())\n")]],
        changes: &["ws/app.py"],
    },
    Scenario {
        name: "workspace files import each other by the workspace folder's name",
        disk: &[
            ("ws/util.py", "def area(width, height):\n    return width * height\n"),
            ("ws/app.py", "from ws.util import area\n\nprint(area(3))\n"),
        ],
        opens: &[&[("x/tool.py", "import os\n\nprint(os.getcwd())\n")]],
        changes: &["ws/app.py"],
    },
    Scenario {
        name: "a new __init__.py renames a module that imports itself by its old name",
        disk: &[
            ("ws/pkg/m.py", "from m import *\n\n__all__ = ['f']\n\n\ndef f():\n    pass\n"),
            ("ws/main.py", "import os\n"),
        ],
        opens: &[&[("ws/pkg/__init__.py", "")]],
        changes: &["ws/pkg/m.py"],
    },
    Scenario {
        name: "a new __init__.py makes a folder a package that a workspace file imports",
        disk: &[
            ("ws/lib/shapes.py", "class Base:\n    def __init__(self, x):\n        self.x = x\n"),
            ("ws/main.py", "import lib\n\n\nclass Point(lib.shapes.Base):\n    pass\n\n\nPoint(1, 2, 3)\n"),
        ],
        opens: &[&[("ws/lib/__init__.py", "")]],
        changes: &["ws/main.py"],
    },
    Scenario {
        name: "a new submodule reached as an attribute of an imported package",
        disk: &[
            ("ws/pkg/__init__.py", ""),
            ("ws/app.py", "import pkg\n\n\nclass Point(pkg.shapes.Base):\n    pass\n\n\nPoint(1, 2, 3)\n"),
        ],
        opens: &[&[("ws/pkg/shapes.py", "class Base:\n    def __init__(self, x):\n        self.x = x\n")]],
        changes: &["ws/app.py"],
    },
    Scenario {
        name: "relative imports of a new sibling module",
        disk: &[
            ("ws/pkg/__init__.py", ""),
            ("ws/pkg/user.py", "from .helper import area\nfrom . import helper\n\nprint(area(3), helper)\n"),
        ],
        opens: &[&[("ws/pkg/helper.py", "def area(width, height):\n    return width * height\n")]],
        changes: &["ws/pkg/user.py"],
    },
    Scenario {
        name: "a new module shadows a standard library module the workspace imports",
        disk: &[("ws/app.py", "from json import *\n\nprint(loads)\n"), ("ws/b.py", "import os\n")],
        opens: &[&[("x/json.py", "def loads(text):\n    return text\n")]],
        changes: &["ws/app.py"],
    },
    Scenario {
        name: "the second file opened is imported by the first",
        disk: &[("ws/app.py", "import os\n")],
        opens: &[
            &[("x/a.py", "from b import area\n\nprint(area(3))\n")],
            &[("x/b.py", "def area(width, height):\n    return width * height\n")],
        ],
        changes: &["x/a.py"],
    },
    Scenario {
        name: "the second file opened is the package of the first",
        disk: &[("ws/app.py", "import os\n")],
        opens: &[
            &[("x/pkg/mod.py", "from mod import *\n\n__all__ = ['f']\n\n\ndef f():\n    pass\n")],
            &[("x/pkg/__init__.py", "")],
        ],
        changes: &["x/pkg/mod.py"],
    },
];

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
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

/// The analysis cache folder of the workspace, removed so that a session
/// starts from scratch (left alone when `QUARRY_CACHE_DIR` puts it
/// elsewhere).
fn remove_cache(root: &Path, workspace: &Path) {
    let cache = quarry_workspace::cache_dir::location(workspace);
    if cache.starts_with(root) {
        let _ = std::fs::remove_dir_all(cache);
    }
}

/// The `didOpen`s of a group of documents.
fn open_all(session: &Session, root: &Path, group: &[(&str, &str)]) {
    for (path, text) in group {
        session.open(&root.join(path), text);
    }
}

/// What a server started on the whole set publishes: the documents are
/// opened, then a watched file's creation rebuilds the project, all queued
/// before the server reads on from `initialize`, so every file is
/// analysed once, in the rebuilt project.
fn rebuilt(scenario: &Scenario, root: &Path, files: &BTreeSet<String>) -> BTreeMap<String, Value> {
    let workspace = root.join("ws");
    remove_cache(root, &workspace);
    let mut session = Session::start();
    let id = session.request("initialize", json!({"processId": null, "rootUri": uri(&workspace), "capabilities": {}}));
    session.notify("initialized", json!({}));
    for group in scenario.opens {
        open_all(&session, root, group);
    }
    let (created, _) = scenario.disk.iter().find(|(p, _)| p.starts_with("ws/")).expect("a workspace file");
    session
        .notify("workspace/didChangeWatchedFiles", json!({"changes": [{"uri": uri(&root.join(created)), "type": 1}]}));
    session.response(id).response_result.expect("initialize succeeds");
    let mut last = BTreeMap::new();
    while !files.iter().all(|f| last.contains_key(f)) {
        if let Some((uri, diagnostics)) = published(&session.next()) {
            last.insert(uri, diagnostics);
        }
    }
    let (ending, late) = session.shut_down_seeing();
    assert_eq!(ending, Some(Ending::Clean));
    let late: Vec<String> = late.iter().filter_map(published).map(|(u, _)| u).collect();
    assert!(late.is_empty(), "{}: the rebuild published again: {late:?}", scenario.name);
    last
}

/// How long the opening session may take to publish what the rebuild
/// did (a failure waits this long; a pass does not).
const SETTLE: Duration = Duration::from_secs(10);

/// The opening session: the workspace is analysed, then each group of
/// documents opened and analysed (a hover on each queued behind the
/// `didOpen`s has it analysed before the next group is read). The first
/// and the last diagnostics published for each file, once the last ones
/// equal `expected` (or [`SETTLE`] passed), and a short quiet followed.
fn opened(
    scenario: &Scenario,
    root: &Path,
    expected: &BTreeMap<String, Value>,
) -> (BTreeMap<String, Value>, BTreeMap<String, Value>) {
    let workspace = root.join("ws");
    remove_cache(root, &workspace);
    let mut session = Session::initialized(&workspace);
    let on_disk: BTreeSet<String> =
        scenario.disk.iter().filter(|(p, _)| p.starts_with("ws/")).map(|(p, _)| uri(&root.join(p))).collect();
    let (mut first, mut last) = (BTreeMap::new(), BTreeMap::new());
    let mut record = |message: &Message, last: &mut BTreeMap<String, Value>| {
        if let Some((uri, diagnostics)) = published(message) {
            first.entry(uri.clone()).or_insert_with(|| diagnostics.clone());
            last.insert(uri, diagnostics);
        }
    };
    while !on_disk.iter().all(|f| last.contains_key(f)) {
        record(&session.next(), &mut last);
    }
    for group in scenario.opens {
        open_all(&session, root, group);
        for (path, _) in group.iter() {
            let at = json!({"textDocument": {"uri": uri(&root.join(path))}, "position": {"line": 0, "character": 0}});
            session.request("textDocument/hover", at);
        }
    }
    let settled = Instant::now() + SETTLE;
    while last != *expected {
        let Some(message) = session.next_within(settled.saturating_duration_since(Instant::now())) else { break };
        record(&message, &mut last);
    }
    while let Some(message) = session.next_within(Duration::from_millis(300)) {
        record(&message, &mut last);
    }
    assert_eq!(session.shut_down(), Some(Ending::Clean));
    (first, last)
}

#[test]
fn opening_files_outside_the_project_ends_as_a_rebuild_does() {
    let mut failures = Vec::new();
    for scenario in SCENARIOS {
        let temp = tempfile::tempdir().unwrap();
        let root = temp.path();
        for (path, text) in scenario.disk {
            write(&root.join(path), text);
        }
        let relative = |uri: &str| {
            let path = url::Url::parse(uri).unwrap().to_file_path().unwrap();
            path.strip_prefix(root).unwrap().to_string_lossy().into_owned()
        };
        let mut files: BTreeSet<String> =
            scenario.disk.iter().filter(|(p, _)| p.starts_with("ws/")).map(|(p, _)| uri(&root.join(p))).collect();
        files.extend(scenario.opens.iter().flat_map(|g| g.iter()).map(|(p, _)| uri(&root.join(p))));
        let expected = rebuilt(scenario, root, &files);
        let (first, last) = opened(scenario, root, &expected);
        let differing: Vec<String> = files
            .iter()
            .filter(|f| last.get(*f) != expected.get(*f))
            .map(|f| format!("{}: {:?}, a rebuild {:?}", relative(f), last.get(f), expected.get(f)))
            .collect();
        if !differing.is_empty() {
            failures.push(format!("{}:\n    {}", scenario.name, differing.join("\n    ")));
        }
        let changed: Vec<String> =
            files.iter().filter(|f| first.get(*f) != expected.get(*f)).map(|f| relative(f)).collect();
        let changes: Vec<String> = scenario.changes.iter().map(|c| PathBuf::from(c).display().to_string()).collect();
        if changed != changes {
            failures.push(format!("{}: the opens changed {changed:?}, not {changes:?}", scenario.name));
        }
    }
    assert!(failures.is_empty(), "differs from a rebuild:\n{}", failures.join("\n"));
}
