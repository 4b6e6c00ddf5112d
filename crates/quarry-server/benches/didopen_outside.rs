//! Time from the `didOpen` of a file outside the workspace folder to its
//! diagnostics, with the server running in-process on a real workspace
//! (the transport's channels stand in for standard input and output). Not
//! part of the test suite:
//!
//! ```sh
//! cargo bench -p quarry-server --bench didopen_outside -- WORKSPACE OUTSIDE_FILE [DIAGNOSTICS_JSON]
//! ```
//!
//! The workspace is analysed first (every file, as the server does on
//! start, with an empty analysis cache in a temporary folder, or the one
//! `QUARRY_CACHE_DIR` names) and the bench waits for 5 s of quiet; then
//! `OUTSIDE_FILE` is opened (its text from disk), the time to its
//! diagnostics is printed, and the publications that follow until 5 s of
//! quiet are counted. With `DIAGNOSTICS_JSON`, the last diagnostics
//! published for every file are written there (sorted by URI), to compare
//! two builds.

mod common;

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use crossbeam_channel::{Receiver, RecvTimeoutError};
use lsp_server::{Message, Notification};
use quarry_server::transport::Outgoing;
use serde_json::{json, Value};

fn main() {
    // SAFETY: first thing in `main`, before any parser or tree exists, and called once.
    unsafe { common::use_the_servers_allocator() };
    let args: Vec<String> = std::env::args().skip(1).filter(|a| a != "--bench").collect();
    let (Some(workspace), Some(outside)) = (args.first(), args.get(1)) else {
        eprintln!("usage: didopen_outside WORKSPACE OUTSIDE_FILE [DIAGNOSTICS_JSON]");
        std::process::exit(2);
    };
    let workspace = std::fs::canonicalize(workspace).expect("the workspace exists");
    let outside = std::fs::canonicalize(outside).expect("the outside file exists");
    assert!(!outside.starts_with(&workspace), "{} is inside the workspace", outside.display());
    let text = std::fs::read_to_string(&outside).expect("the outside file is readable");
    let uri = url::Url::from_file_path(&outside).unwrap().to_string();

    let session = common::InProcess::start(&workspace, "didopen");
    let from_server = &session.from_server;
    let send = |message: Message| session.send(message);

    let mut last = BTreeMap::new();
    let started = Instant::now();
    let before = drain_until_quiet(from_server, Duration::from_secs(5), &mut last);
    eprintln!("workspace analysed: {before} publications in {:.1} s", started.elapsed().as_secs_f64());

    let document = json!({"uri": uri, "languageId": "python", "version": 1, "text": text});
    let started = Instant::now();
    send(Notification::new("textDocument/didOpen".into(), json!({ "textDocument": document })).into());
    let (latency, others) = wait_version(from_server, &uri, 1, &mut last);
    let diagnostics = last.get(&uri).and_then(Value::as_array).map_or(0, Vec::len);
    println!(
        "didOpen → diagnostics of {}: {:.1} ms ({diagnostics} diagnostics, {others} other publications first)",
        outside.display(),
        ms(latency.max(started.elapsed()))
    );
    let after = drain_until_quiet(from_server, Duration::from_secs(5), &mut last);
    println!("publications after the open's (until 5 s of quiet): {after}");
    if let Some(out) = args.get(2) {
        let text = serde_json::to_string_pretty(&last).unwrap();
        std::fs::write(out, text).expect("writing the diagnostics");
    }
    drop(session);
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

/// Keeps the diagnostics of a publication as the last of its URI; whether
/// `message` was one.
fn record(message: &Outgoing, last: &mut BTreeMap<String, Value>) -> bool {
    match message {
        Outgoing::Message(Message::Notification(n)) if n.method == "textDocument/publishDiagnostics" => {
            let uri = n.params["uri"].as_str().unwrap_or_default().to_string();
            last.insert(uri, n.params["diagnostics"].clone());
            true
        }
        _ => false,
    }
}

/// Waits for the diagnostics of `version` of `uri`; how long it took and
/// how many other publications came first.
fn wait_version(
    from: &Receiver<Outgoing>,
    uri: &str,
    version: i64,
    last: &mut BTreeMap<String, Value>,
) -> (Duration, usize) {
    let started = Instant::now();
    let mut others = 0;
    loop {
        match from.recv_timeout(Duration::from_secs(600)) {
            Ok(message) => {
                if !record(&message, last) {
                    continue;
                }
                let Outgoing::Message(Message::Notification(n)) = message else { continue };
                if n.params["uri"] == json!(uri) && n.params["version"] == json!(version) {
                    return (started.elapsed(), others);
                }
                others += 1;
            }
            Err(RecvTimeoutError::Timeout) => panic!("no diagnostics for version {version}"),
            Err(RecvTimeoutError::Disconnected) => panic!("the server stopped"),
        }
    }
}

/// Reads publications until none comes for `quiet`; returns how many came.
fn drain_until_quiet(from: &Receiver<Outgoing>, quiet: Duration, last: &mut BTreeMap<String, Value>) -> usize {
    let mut published = 0;
    while let Ok(message) = from.recv_timeout(quiet) {
        published += usize::from(record(&message, last));
    }
    published
}
