//! The server's stdio transport: LSP base-protocol framing over standard
//! input and output, on two threads, as `lsp_server::Connection::stdio`
//! does, but a malformed message (bad header, bad JSON, a body over
//! [`MAX_MESSAGE_BYTES`]) is reported and skipped instead of ending the
//! connection.

use std::io::{self, BufRead, Read, Write};
use std::thread::JoinHandle;

use crossbeam_channel::{bounded, unbounded, Receiver, Sender};
use lsp_server::{Connection, Message};

/// The largest message body read; a longer one is skipped unread.
pub const MAX_MESSAGE_BYTES: usize = 256 * 1024 * 1024;

/// What the reader thread hands over: a message, or why one was skipped.
pub enum Incoming {
    /// A well-formed message.
    Message(Message),
    /// A message that could not be read, with the reason.
    Malformed(String),
}

/// The transport's threads; join them after the main loop ends.
pub struct Threads {
    reader: JoinHandle<()>,
    writer: JoinHandle<io::Result<()>>,
}

impl Threads {
    /// Waits for the writer to flush what was sent. The reader is left to
    /// end with standard input.
    pub fn join(self) -> io::Result<()> {
        drop(self.reader);
        self.writer.join().unwrap_or_else(|_| Err(io::Error::other("the writer thread panicked")))
    }
}

/// Starts the reader and writer threads on standard input and output: the
/// returned connection's `receiver` is unused (messages arrive on the
/// returned `Receiver<Incoming>`), its `sender` writes to standard output.
pub fn stdio() -> (Connection, Receiver<Incoming>, Threads) {
    let (out_sender, out_receiver) = unbounded::<Message>();
    let writer = std::thread::Builder::new()
        .name("quarry-lsp-writer".into())
        .spawn(move || {
            let stdout = io::stdout();
            let mut stdout = stdout.lock();
            for message in out_receiver {
                message.write(&mut stdout)?;
            }
            stdout.flush()
        })
        .expect("spawning the writer thread");
    let (in_sender, in_receiver) = unbounded::<Incoming>();
    let reader = std::thread::Builder::new()
        .name("quarry-lsp-reader".into())
        .spawn(move || read_loop(&mut io::stdin().lock(), &in_sender))
        .expect("spawning the reader thread");
    // The connection's own receiver is never fed: the main loop reads `Incoming`.
    let (_, unused) = bounded::<Message>(0);
    (Connection { sender: out_sender, receiver: unused }, in_receiver, Threads { reader, writer })
}

/// Reads messages until end of input (or `exit`), sending each, or a note
/// on why it was skipped, to `sender`.
pub fn read_loop(input: &mut impl BufRead, sender: &Sender<Incoming>) {
    loop {
        let incoming = match read_frame(input) {
            Ok(None) => return,
            Ok(Some(Ok(body))) => match serde_json::from_slice::<Message>(&body) {
                Ok(message) => Incoming::Message(message),
                Err(error) => Incoming::Malformed(format!("not a JSON-RPC message: {error}")),
            },
            Ok(Some(Err(reason))) => Incoming::Malformed(reason),
            Err(error) => {
                let _ = sender.send(Incoming::Malformed(format!("cannot read standard input: {error}")));
                return;
            }
        };
        let exit = matches!(&incoming, Incoming::Message(Message::Notification(n)) if n.method == "exit");
        if sender.send(incoming).is_err() || exit {
            return;
        }
    }
}

/// One framed body: `Ok(None)` at end of input, `Ok(Some(Err(reason)))`
/// for a frame that was skipped.
fn read_frame(input: &mut impl BufRead) -> io::Result<Option<Result<Vec<u8>, String>>> {
    let mut length: Option<Result<usize, String>> = None;
    let mut line = Vec::new();
    let mut saw_header = false;
    loop {
        line.clear();
        // A header line is short; a longer one is garbage read in pieces.
        if input.by_ref().take(64 * 1024).read_until(b'\n', &mut line)? == 0 {
            return Ok(None);
        }
        let text = String::from_utf8_lossy(&line);
        let text = text.trim_end_matches(['\r', '\n']);
        if text.is_empty() {
            if saw_header {
                break;
            }
            continue;
        }
        saw_header = true;
        if let Some((name, value)) = text.split_once(':') {
            if name.trim().eq_ignore_ascii_case("content-length") {
                length = Some(
                    value.trim().parse::<usize>().map_err(|_| format!("bad Content-Length header `{}`", value.trim())),
                );
            }
        }
    }
    let length = match length {
        None => return Ok(Some(Err("a message without a Content-Length header".into()))),
        Some(Err(reason)) => return Ok(Some(Err(reason))),
        Some(Ok(length)) => length,
    };
    if length > MAX_MESSAGE_BYTES {
        io::copy(&mut input.by_ref().take(length as u64), &mut io::sink())?;
        return Ok(Some(Err(format!("a message of {length} bytes, over the limit of {MAX_MESSAGE_BYTES}"))));
    }
    let mut body = Vec::with_capacity(length);
    input.by_ref().take(length as u64).read_to_end(&mut body)?;
    if body.len() < length {
        return Ok(None);
    }
    Ok(Some(Ok(body)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frames(input: &str) -> Vec<String> {
        let (sender, receiver) = unbounded();
        read_loop(&mut io::Cursor::new(input.as_bytes().to_vec()), &sender);
        drop(sender);
        receiver
            .iter()
            .map(|incoming| match incoming {
                Incoming::Message(Message::Notification(n)) => format!("notification {}", n.method),
                Incoming::Message(other) => format!("{other:?}"),
                Incoming::Malformed(reason) => format!("malformed: {reason}"),
            })
            .collect()
    }

    fn frame(body: &str) -> String {
        format!("Content-Length: {}\r\n\r\n{body}", body.len())
    }

    #[test]
    fn malformed_messages_are_skipped_and_reading_goes_on() {
        let good = frame(r#"{"jsonrpc":"2.0","method":"initialized","params":{}}"#);
        let input = format!(
            "{}{}Content-Length: x\r\n\r\n{good}{}",
            frame("{not json"),
            "Content-Type: text\r\n\r\n",
            frame(r#"{"jsonrpc":"2.0","method":"exit"}"#)
        );
        let got = frames(&input);
        assert!(got[0].starts_with("malformed: not a JSON-RPC message"), "{got:?}");
        assert_eq!(got[1], "malformed: a message without a Content-Length header");
        assert_eq!(got[2], "malformed: bad Content-Length header `x`");
        assert_eq!(got[3..], ["notification initialized", "notification exit"]);
    }

    #[test]
    fn an_oversized_length_is_skipped_without_allocating_it() {
        let input = format!("Content-Length: {}\r\n\r\n", MAX_MESSAGE_BYTES + 1);
        let got = frames(&input);
        assert!(got[0].contains("over the limit"), "{got:?}");
        assert_eq!(got.len(), 1);
    }
}
