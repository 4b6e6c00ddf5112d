//! What the server's benches share: the server running in-process on a workspace (the
//! transport's channels stand in for standard input and output), with an analysis cache
//! of its own.

use std::path::{Path, PathBuf};
use std::thread::JoinHandle;

use crossbeam_channel::{unbounded, Receiver, Sender};
use lsp_server::{Message, Notification, Request, RequestId};
use quarry_server::server::Server;
use quarry_server::transport::{Incoming, Outgoing};
use serde_json::{json, Value};

#[global_allocator]
static GLOBAL: quarry_query::allocator::MiMalloc = quarry_query::allocator::MiMalloc;

/// Allocates as `quarry server` does: tree-sitter's trees through the global allocator, freed
/// memory kept for reuse.
///
/// # Safety
/// As [`quarry_query::allocator::route_tree_sitter_allocations`]: called once, first thing
/// in `main`, before any parser or tree exists.
pub unsafe fn use_the_servers_allocator() {
    // SAFETY: the caller's promise, above.
    unsafe { quarry_query::allocator::route_tree_sitter_allocations() };
    quarry_query::allocator::keep_freed_memory();
}

/// A server initialised on a workspace folder, running on a thread of its own.
pub struct InProcess {
    to_server: Sender<Incoming>,
    /// What the server sends.
    pub from_server: Receiver<Outgoing>,
    server: Option<JoinHandle<()>>,
    /// The analysis cache's folder made for this run (`None`: `QUARRY_CACHE_DIR` named one).
    fresh_cache: Option<PathBuf>,
}

impl InProcess {
    /// Starts the server on `workspace` and initialises it; the analysis cache is a fresh
    /// temporary folder named after `bench`, unless `QUARRY_CACHE_DIR` names one (to time a
    /// start on a warm cache), so the workspace is left untouched.
    pub fn start(workspace: &Path, bench: &str) -> InProcess {
        let given = std::env::var_os("QUARRY_CACHE_DIR").filter(|dir| !dir.is_empty());
        let fresh_cache =
            given.is_none().then(|| std::env::temp_dir().join(format!("quarry-{bench}-{}", std::process::id())));
        if let Some(fresh) = &fresh_cache {
            std::env::set_var("QUARRY_CACHE_DIR", fresh);
        }
        let (to_server, incoming) = unbounded::<Incoming>();
        let (out, from_server) = unbounded::<Outgoing>();
        let server = std::thread::spawn(move || {
            let _ = Server::initialize(out, incoming).map(Server::run);
        });
        let session = InProcess { to_server, from_server, server: Some(server), fresh_cache };
        let root = url::Url::from_file_path(workspace).unwrap().to_string();
        let params = json!({"processId": null, "rootUri": root, "capabilities": {}});
        session.send(Request::new(RequestId::from(1), "initialize".into(), params).into());
        session.send(Notification::new("initialized".into(), json!({})).into());
        session
    }

    /// Sends `message` to the server.
    pub fn send(&self, message: Message) {
        self.to_server.send(Incoming::Message(message)).unwrap();
    }
}

impl Drop for InProcess {
    /// Shuts the server down, waits for it and removes the cache made for the run.
    fn drop(&mut self) {
        self.send(Request::new(RequestId::from(2), "shutdown".into(), Value::Null).into());
        self.send(Notification::new("exit".into(), Value::Null).into());
        if let Some(server) = self.server.take() {
            let _ = server.join();
        }
        if let Some(fresh) = &self.fresh_cache {
            let _ = std::fs::remove_dir_all(fresh);
        }
    }
}
