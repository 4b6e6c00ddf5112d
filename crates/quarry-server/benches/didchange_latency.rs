//! Time from a `didChange` of an open module to the diagnostics of that
//! version, over 100 edits, with the server running in-process on a real
//! workspace (the transport's channels stand in for standard input and
//! output; the work is the same). Not part of the test suite:
//!
//! ```sh
//! cargo bench -p quarry-server --bench didchange_latency -- WORKSPACE [MODULE] [EDITS]
//! ```
//!
//! `MODULE` is relative to `WORKSPACE` (default `argparse.py`, for the
//! CPython standard library). The workspace is analysed first (every file,
//! as the server does on start, with an empty analysis cache in a temporary
//! folder, or the one `QUARRY_CACHE_DIR` names); the edits start when it is
//! done. Each edit
//! appends an assignment at the end of the module (incremental sync) and
//! waits for that version's diagnostics. Prints p50, p95 and max.

mod common;

use std::path::PathBuf;
use std::time::{Duration, Instant};

use crossbeam_channel::{Receiver, RecvTimeoutError};
use lsp_server::{Message, Notification};
use quarry_server::transport::Outgoing;
use serde_json::json;

fn main() {
    // SAFETY: first thing in `main`, before any parser or tree exists, and called once.
    unsafe { common::use_the_servers_allocator() };
    let args: Vec<String> = std::env::args().skip(1).filter(|a| a != "--bench").collect();
    let Some(workspace) = args.first().map(PathBuf::from) else {
        eprintln!("usage: didchange_latency WORKSPACE [MODULE] [EDITS]");
        std::process::exit(2);
    };
    let workspace = std::fs::canonicalize(&workspace).expect("the workspace exists");
    let module = workspace.join(args.get(1).map_or("argparse.py", String::as_str));
    let edits: usize = args.get(2).and_then(|n| n.parse().ok()).unwrap_or(100);
    let text = std::fs::read_to_string(&module).expect("the module is readable");
    // The analysis cache in a fresh folder of its own, unless
    // QUARRY_CACHE_DIR names one (to time a start on a warm cache): the
    // workspace is left untouched.
    let uri = url::Url::from_file_path(&module).unwrap().to_string();

    let session = common::InProcess::start(&workspace, "didchange");
    let from_server = &session.from_server;
    let send = |message: Message| session.send(message);

    let started = Instant::now();
    send(
        Notification::new(
            "textDocument/didOpen".into(),
            json!({"textDocument": {"uri": uri, "languageId": "python", "version": 0, "text": text}}),
        )
        .into(),
    );
    let first = wait_version(from_server, &uri, 0);
    eprintln!("open → diagnostics: {:.1} ms ({} diagnostics)", ms(first), LAST.with(|l| *l.borrow()));
    // The rest of the workspace: every file published once, then quiet.
    let published = drain_until_quiet(from_server, Duration::from_secs(5));
    eprintln!("workspace analysed: {published} publications in {:.1} s", started.elapsed().as_secs_f64());

    let lines = text.lines().count() as u32 + 1;
    let mut latencies = Vec::with_capacity(edits);
    for version in 1..=edits as i64 {
        let at = json!({"line": lines + version as u32 - 1, "character": 0});
        let change = json!({"range": {"start": at, "end": at}, "text": format!("edited_{version} = {version}\n")});
        let started = Instant::now();
        send(
            Notification::new(
                "textDocument/didChange".into(),
                json!({"textDocument": {"uri": uri, "version": version}, "contentChanges": [change]}),
            )
            .into(),
        );
        latencies.push(wait_version(from_server, &uri, version).max(started.elapsed()));
    }
    latencies.sort();
    let pick = |q: f64| latencies[((latencies.len() as f64 * q).ceil() as usize).clamp(1, latencies.len()) - 1];
    println!(
        "didChange → diagnostics over {edits} edits of {}: p50 {:.1} ms, p95 {:.1} ms, max {:.1} ms",
        module.strip_prefix(&workspace).unwrap_or(&module).display(),
        ms(pick(0.50)),
        ms(pick(0.95)),
        ms(*latencies.last().unwrap())
    );
    drop(session);
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

/// Waits for the diagnostics of `version` of `uri`; returns how long it took.
fn wait_version(from: &Receiver<Outgoing>, uri: &str, version: i64) -> Duration {
    let started = Instant::now();
    loop {
        match from.recv_timeout(Duration::from_secs(600)) {
            Ok(Outgoing::Message(Message::Notification(n)))
                if n.method == "textDocument/publishDiagnostics"
                    && n.params["uri"] == json!(uri)
                    && n.params["version"] == json!(version) =>
            {
                LAST.with(|l| *l.borrow_mut() = n.params["diagnostics"].as_array().map_or(0, Vec::len));
                return started.elapsed();
            }
            Ok(_) => {}
            Err(RecvTimeoutError::Timeout) => panic!("no diagnostics for version {version}"),
            Err(RecvTimeoutError::Disconnected) => panic!("the server stopped"),
        }
    }
}

thread_local! {
    static LAST: std::cell::RefCell<usize> = const { std::cell::RefCell::new(0) };
}

/// Reads publications until none comes for `quiet`; returns how many came.
fn drain_until_quiet(from: &Receiver<Outgoing>, quiet: Duration) -> usize {
    let mut published = 0;
    loop {
        match from.recv_timeout(quiet) {
            Ok(Outgoing::Message(Message::Notification(n))) if n.method == "textDocument/publishDiagnostics" => {
                published += 1
            }
            Ok(_) => {}
            Err(_) => return published,
        }
    }
}
