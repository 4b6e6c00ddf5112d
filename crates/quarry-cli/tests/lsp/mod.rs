//! A small LSP client for the tests: starts `quarry server`, frames
//! messages over its standard input and output, and waits for answers and
//! diagnostics with a timeout.

use std::io::{BufRead, BufReader, Read, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{channel, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

/// How long any one answer may take.
pub const TIMEOUT: Duration = Duration::from_secs(60);

/// A running `quarry server` and what it sent that was not read yet.
pub struct Client {
    child: Child,
    stdin: ChildStdin,
    incoming: Receiver<Value>,
    next_id: i64,
    /// Messages received while waiting for something else.
    pub backlog: Vec<Value>,
}

impl Client {
    /// Starts the server in `dir`.
    pub fn start(dir: &Path) -> Client {
        let mut child = Command::new(env!("CARGO_BIN_EXE_quarry"))
            .arg("server")
            .current_dir(dir)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("quarry server starts");
        let stdin = child.stdin.take().unwrap();
        let mut stdout = BufReader::new(child.stdout.take().unwrap());
        let (sender, incoming) = channel();
        std::thread::spawn(move || loop {
            let mut length = None;
            loop {
                let mut line = String::new();
                if stdout.read_line(&mut line).unwrap_or(0) == 0 {
                    return;
                }
                let line = line.trim_end();
                if line.is_empty() {
                    break;
                }
                if let Some(value) = line.strip_prefix("Content-Length: ") {
                    length = value.parse::<usize>().ok();
                }
            }
            let mut body = vec![0; length.expect("a Content-Length header")];
            if stdout.read_exact(&mut body).is_err() {
                return;
            }
            if sender.send(serde_json::from_slice(&body).expect("the server sends JSON")).is_err() {
                return;
            }
        });
        Client { child, stdin, incoming, next_id: 1, backlog: Vec::new() }
    }

    /// Starts the server and initializes it on the workspace `dir`.
    pub fn initialized(dir: &Path) -> Client {
        let mut client = Client::start(dir);
        let root = uri(dir);
        let result = client.request(
            "initialize",
            json!({"processId": null, "rootUri": root, "capabilities": {},
                   "workspaceFolders": [{"uri": root, "name": "fixture"}]}),
        );
        assert!(result["result"]["capabilities"]["hoverProvider"].as_bool().unwrap(), "{result}");
        client.notify("initialized", json!({}));
        client
    }

    /// Writes raw bytes to the server.
    pub fn send_raw(&mut self, bytes: &[u8]) {
        self.stdin.write_all(bytes).unwrap();
        self.stdin.flush().unwrap();
    }

    /// Sends one message.
    pub fn send(&mut self, message: &Value) {
        let body = serde_json::to_vec(message).unwrap();
        self.send_raw(format!("Content-Length: {}\r\n\r\n", body.len()).as_bytes());
        self.send_raw(&body);
    }

    /// Sends a notification.
    pub fn notify(&mut self, method: &str, params: Value) {
        self.send(&json!({"jsonrpc": "2.0", "method": method, "params": params}));
    }

    /// Sends a request without waiting; returns its id.
    pub fn send_request(&mut self, method: &str, params: Value) -> i64 {
        let id = self.next_id;
        self.next_id += 1;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        id
    }

    /// Sends a request and waits for its response (the whole message).
    pub fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.send_request(method, params);
        self.wait_for(|m| m["id"] == json!(id) && m.get("method").is_none())
    }

    /// Waits for a message matching `wanted`, keeping the others.
    pub fn wait_for(&mut self, wanted: impl Fn(&Value) -> bool) -> Value {
        if let Some(at) = self.backlog.iter().position(&wanted) {
            return self.backlog.remove(at);
        }
        let deadline = Instant::now() + TIMEOUT;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.incoming.recv_timeout(left) {
                Ok(message) if wanted(&message) => return message,
                Ok(message) => self.backlog.push(message),
                Err(RecvTimeoutError::Timeout) => panic!("timed out; received meanwhile: {:#?}", self.backlog),
                Err(RecvTimeoutError::Disconnected) => panic!("the server closed; received: {:#?}", self.backlog),
            }
        }
    }

    /// Keeps every message that arrives within `quiet` of the one before.
    pub fn drain(&mut self, quiet: Duration) {
        while let Ok(message) = self.incoming.recv_timeout(quiet) {
            self.backlog.push(message);
        }
    }

    /// The diagnostics of the next publication for `file` (whose version, when
    /// given, is `version`), dropping earlier publications for it.
    pub fn diagnostics(&mut self, file: &Path, version: Option<i64>) -> Vec<Value> {
        let uri = uri(file);
        let matches = |m: &Value| {
            m["method"] == "textDocument/publishDiagnostics"
                && m["params"]["uri"] == json!(uri)
                && version.is_none_or(|v| m["params"]["version"] == json!(v))
        };
        let message = self.wait_for(matches);
        message["params"]["diagnostics"].as_array().unwrap().clone()
    }

    /// Opens a document with its text.
    pub fn open(&mut self, file: &Path, text: &str, version: i64) {
        let document = json!({"uri": uri(file), "languageId": "python", "version": version, "text": text});
        self.notify("textDocument/didOpen", json!({ "textDocument": document }));
    }

    /// Whether the server is still running.
    pub fn running(&mut self) -> bool {
        self.child.try_wait().unwrap().is_none()
    }

    /// `shutdown` then `exit`; returns the exit code.
    pub fn shutdown(mut self) -> Option<i32> {
        let response = self.request("shutdown", Value::Null);
        assert_eq!(response["result"], Value::Null, "{response}");
        self.notify("exit", Value::Null);
        let deadline = Instant::now() + TIMEOUT;
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                return status.code();
            }
            assert!(Instant::now() < deadline, "the server did not exit");
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for Client {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The `file:` URI of a path.
pub fn uri(path: &Path) -> String {
    let path = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    let mut out = String::from("file://");
    for byte in path.to_string_lossy().bytes() {
        match byte {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'/' | b'-' | b'_' | b'.' | b'~' => out.push(byte as char),
            _ => out.push_str(&format!("%{byte:02X}")),
        }
    }
    out
}

/// A diagnostic as `(code, start line, start character, message)`.
pub fn key(diagnostic: &Value) -> (String, u64, u64, String) {
    (
        diagnostic["code"].as_str().unwrap_or_default().to_string(),
        diagnostic["range"]["start"]["line"].as_u64().unwrap(),
        diagnostic["range"]["start"]["character"].as_u64().unwrap(),
        diagnostic["message"].as_str().unwrap_or_default().to_string(),
    )
}
