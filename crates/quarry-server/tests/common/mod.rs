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
use lsp_server::{Message, Notification, Request, RequestId};
use quarry_server::server::{Ending, Server};
use quarry_server::transport::{read_loop, Incoming, Outgoing};
use serde_json::{json, Value};

/// How long the test waits for any one message before failing (a hang,
/// not a timing the test asserts).
const HANG: Duration = Duration::from_secs(120);

/// A server running on its own thread.
pub struct Session {
    to_server: Sender<Incoming>,
    from_server: Receiver<Outgoing>,
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
        let mut session = Session::start();
        let result = session.initialize(root, capabilities);
        session.notify("initialized", json!({}));
        (session, result)
    }

    /// Starts a server, waiting for `initialize`.
    pub fn start() -> Session {
        let (to_server, incoming) = unbounded::<Incoming>();
        let (out, from_server) = bounded::<Outgoing>(0);
        let thread = std::thread::spawn(move || Server::initialize(out, incoming).map(Server::run));
        Session { to_server, from_server, thread: Some(thread), next_id: 1 }
    }

    /// Sends `initialize` on the workspace folder `root` for a client of
    /// `capabilities`; the server's result.
    pub fn initialize(&mut self, root: &Path, capabilities: Value) -> Value {
        let root = uri(root);
        let id = self.request("initialize", json!({"processId": null, "rootUri": root, "capabilities": capabilities}));
        self.response(id).response_result.expect("initialize succeeds")
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

    /// Queues a message body as a client writes it: framed, and read by
    /// the transport's reader (framing and envelope checks included).
    pub fn send_raw(&self, body: &str) {
        let frame = format!("Content-Length: {}\r\n\r\n{body}", body.len());
        read_loop(&mut std::io::Cursor::new(frame.into_bytes()), &self.to_server);
    }

    /// The next thing the server sends, as the JSON text a client reads.
    pub fn next_text(&self) -> String {
        let mut frame = Vec::new();
        self.from_server.recv_timeout(HANG).expect("the server sent nothing").write(&mut frame).unwrap();
        let text = String::from_utf8(frame).expect("the server writes UTF-8");
        let (_, body) = text.split_once("\r\n\r\n").expect("a header, then the body");
        body.to_string()
    }

    /// The next message the server sends within `wait`; `None` when it
    /// sends none that soon (an answer that no `Message` holds fails the
    /// test, as with [`Session::next`]).
    pub fn next_within(&self, wait: Duration) -> Option<Message> {
        match self.from_server.recv_timeout(wait).ok()? {
            Outgoing::Message(message) => Some(message),
            Outgoing::Raw(text) => panic!("the server sent {text}, not a message"),
        }
    }

    /// The next message the server sends (an answer that no `Message`
    /// holds fails the test: take those with [`Session::next_text`]).
    pub fn next(&self) -> Message {
        match self.from_server.recv_timeout(HANG).expect("the server sent nothing") {
            Outgoing::Message(message) => message,
            Outgoing::Raw(text) => panic!("the server sent {text}, not a message"),
        }
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
    pub fn shut_down(self) -> Option<Ending> {
        self.shut_down_seeing().0
    }

    /// Shuts the server down; how its loop ended, and the messages it sent
    /// before answering `shutdown`.
    pub fn shut_down_seeing(mut self) -> (Option<Ending>, Vec<Message>) {
        let id = self.request("shutdown", Value::Null);
        let mut before = Vec::new();
        self.until(|m| {
            let answer = matches!(m, Message::Response(r) if r.id == id);
            if !answer {
                before.push(m.clone());
            }
            answer
        });
        self.notify("exit", Value::Null);
        // Whatever the server still sends is dropped.
        let thread = self.thread.take().expect("the server thread");
        drop(self.from_server);
        (thread.join().expect("the server thread does not panic"), before)
    }
}

/// The `file:` URI of a path.
pub fn uri(path: &Path) -> String {
    url::Url::from_file_path(path).expect("an absolute path").to_string()
}
