//! The server in-process for the tests: messages go in through the
//! transport's channel, and come out through a rendezvous channel, so the
//! server waits at each message it sends until the test takes it. A test
//! that queues messages before taking the one the server is sending knows
//! they are all waiting when the server reads on: which of them it handles
//! before analysing is not left to the scheduler.

#![allow(dead_code)]

use std::path::Path;
use std::thread::JoinHandle;
use std::time::Duration;

use crossbeam_channel::{bounded, unbounded, Receiver, Sender};
use lsp_server::{Connection, Message, Notification, Request, RequestId};
use quarry_server::server::{Ending, Server};
use quarry_server::transport::Incoming;
use serde_json::{json, Value};

/// How long the test waits for any one message before failing (a hang,
/// not a timing the test asserts).
const HANG: Duration = Duration::from_secs(120);

/// A server running on its own thread.
pub struct Session {
    to_server: Sender<Incoming>,
    from_server: Receiver<Message>,
    thread: Option<JoinHandle<Option<Ending>>>,
    next_id: i32,
}

impl Session {
    /// Starts a server and initializes it on the workspace folder `root`.
    pub fn initialized(root: &Path) -> Session {
        Session::initialized_with(root, json!({})).0
    }

    /// Starts a server and initializes it on the workspace folder `root`
    /// for a client of `capabilities`; the session and the server's
    /// `initialize` result.
    pub fn initialized_with(root: &Path, capabilities: Value) -> (Session, Value) {
        let (to_server, incoming) = unbounded::<Incoming>();
        let (sender, from_server) = bounded::<Message>(0);
        let connection = Connection { sender, receiver: bounded(0).1 };
        let thread = std::thread::spawn(move || Server::initialize(connection, incoming).map(Server::run));
        let mut session = Session { to_server, from_server, thread: Some(thread), next_id: 1 };
        let root = uri(root);
        let id =
            session.request("initialize", json!({"processId": null, "rootUri": root, "capabilities": capabilities}));
        let result = session.response(id).response_result.expect("initialize succeeds");
        session.notify("initialized", json!({}));
        (session, result)
    }

    /// Queues a request; returns its id.
    pub fn request(&mut self, method: &str, params: Value) -> RequestId {
        let id = RequestId::from(self.next_id);
        self.next_id += 1;
        self.send(Request::new(id.clone(), method.into(), params).into());
        id
    }

    /// Queues a notification.
    pub fn notify(&self, method: &str, params: Value) {
        self.send(Notification::new(method.into(), params).into());
    }

    fn send(&self, message: Message) {
        self.to_server.send(Incoming::Message(message)).expect("the server is running");
    }

    /// The next message the server sends.
    pub fn next(&self) -> Message {
        self.from_server.recv_timeout(HANG).expect("the server sent nothing")
    }

    /// Takes messages up to the first for which `wanted` holds (the server
    /// is then held sending the message after it).
    pub fn until(&self, mut wanted: impl FnMut(&Message) -> bool) -> Message {
        loop {
            let message = self.next();
            if wanted(&message) {
                return message;
            }
        }
    }

    /// The response to request `id`.
    pub fn response(&self, id: RequestId) -> lsp_server::Response {
        match self.until(|m| matches!(m, Message::Response(r) if r.id == id)) {
            Message::Response(response) => response,
            _ => unreachable!("until returns a response"),
        }
    }

    /// The diagnostics published for `path` at `version`.
    pub fn diagnostics(&self, path: &Path, version: i32) -> Value {
        let uri = uri(path);
        let published = self.until(|m| {
            matches!(m, Message::Notification(n) if n.method == "textDocument/publishDiagnostics"
                && n.params["uri"] == uri && n.params["version"] == version)
        });
        match published {
            Message::Notification(n) => n.params["diagnostics"].clone(),
            _ => unreachable!("until returns a notification"),
        }
    }

    /// Opens a document of `text` at `path`, version 1.
    pub fn open(&self, path: &Path, text: &str) {
        let document = json!({"uri": uri(path), "languageId": "python", "version": 1, "text": text});
        self.notify("textDocument/didOpen", json!({ "textDocument": document }));
    }

    /// Shuts the server down; how its loop ended.
    pub fn shut_down(mut self) -> Option<Ending> {
        let id = self.request("shutdown", Value::Null);
        self.response(id);
        self.notify("exit", Value::Null);
        // Whatever the server still sends is dropped.
        let thread = self.thread.take().expect("the server thread");
        drop(self.from_server);
        thread.join().expect("the server thread does not panic")
    }
}

/// The `file:` URI of a path.
pub fn uri(path: &Path) -> String {
    url::Url::from_file_path(path).expect("an absolute path").to_string()
}
