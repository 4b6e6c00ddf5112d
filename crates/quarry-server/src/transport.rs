//! The server's stdio transport: LSP base-protocol messages over standard
//! input and output, on two threads, as `lsp_server::Connection::stdio`
//! does, but a malformed message is reported and skipped instead of ending
//! the connection ([`crate::framing`] reads the frames and resynchronises,
//! [`crate::envelope`] checks each message's JSON-RPC envelope), and what
//! the server sends may be an answer `lsp_server` cannot hold ([`Outgoing`]).

use std::io::{self, BufRead, Write};
use std::thread::JoinHandle;

use crossbeam_channel::{unbounded, Receiver, Sender};
use lsp_server::{Message, Notification, Request, Response};

use crate::framing::FrameReader;
pub use crate::framing::{Incoming, MAX_MESSAGE_BYTES};

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

/// What the server sends.
#[derive(Debug)]
pub enum Outgoing {
    /// A message.
    Message(Message),
    /// An answer that no `lsp_server` message holds, as JSON text: an error
    /// response to a request whose id is not a 32-bit integer or a string
    /// (echoed as the client wrote it), or a batch's array of them.
    Raw(String),
}

impl Outgoing {
    /// Writes it as one base-protocol frame, and flushes.
    pub fn write(&self, out: &mut impl Write) -> io::Result<()> {
        match self {
            Outgoing::Message(message) => message.write(out),
            Outgoing::Raw(json) => {
                write!(out, "Content-Length: {}\r\n\r\n", json.len())?;
                out.write_all(json.as_bytes())?;
                out.flush()
            }
        }
    }
}

impl From<Message> for Outgoing {
    fn from(message: Message) -> Outgoing {
        Outgoing::Message(message)
    }
}

impl From<Response> for Outgoing {
    fn from(response: Response) -> Outgoing {
        Outgoing::Message(response.into())
    }
}

impl From<Notification> for Outgoing {
    fn from(notification: Notification) -> Outgoing {
        Outgoing::Message(notification.into())
    }
}

impl From<Request> for Outgoing {
    fn from(request: Request) -> Outgoing {
        Outgoing::Message(request.into())
    }
}

/// Starts the reader and writer threads on standard input and output:
/// messages arrive on the returned `Receiver<Incoming>`, and what is sent
/// on the returned `Sender<Outgoing>` is written to standard output.
pub fn stdio() -> (Sender<Outgoing>, Receiver<Incoming>, Threads) {
    let (out_sender, out_receiver) = unbounded::<Outgoing>();
    let writer = std::thread::Builder::new()
        .name("quarry-lsp-writer".into())
        .spawn(move || {
            let stdout = io::stdout();
            let mut stdout = stdout.lock();
            for outgoing in out_receiver {
                outgoing.write(&mut stdout)?;
            }
            stdout.flush()
        })
        .expect("spawning the writer thread");
    let (in_sender, in_receiver) = unbounded::<Incoming>();
    let reader = std::thread::Builder::new()
        .name("quarry-lsp-reader".into())
        .spawn(move || read_loop(&mut io::stdin().lock(), &in_sender))
        .expect("spawning the reader thread");
    (out_sender, in_receiver, Threads { reader, writer })
}

/// Reads messages until end of input (or `exit`), sending each, or a note
/// on why it was skipped, to `sender`.
pub fn read_loop(input: &mut impl BufRead, sender: &Sender<Incoming>) {
    let mut reader = FrameReader::new(input);
    loop {
        let incoming = match reader.next_incoming() {
            Ok(None) => return,
            Ok(Some(incoming)) => incoming,
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::framing::header_too_long;

    const REQUEST: &str = r#"{"jsonrpc":"2.0","id":1,"method":"shutdown"}"#;
    const INITIALIZED: &str = r#"{"jsonrpc":"2.0","method":"initialized","params":{}}"#;

    /// What `read_loop` hands over for `input`, read through a buffer of
    /// `capacity` bytes, each rendered as a line.
    fn frames_with(input: &[u8], capacity: usize) -> Vec<String> {
        let (sender, receiver) = unbounded();
        let mut reader = io::BufReader::with_capacity(capacity, io::Cursor::new(input.to_vec()));
        read_loop(&mut reader, &sender);
        drop(sender);
        receiver
            .iter()
            .map(|incoming| match incoming {
                Incoming::Message(Message::Notification(n)) => format!("notification {}", n.method),
                Incoming::Message(Message::Request(r)) => format!("request {}", r.method),
                Incoming::Message(other) => format!("{other:?}"),
                Incoming::Malformed(reason) => format!("malformed: {reason}"),
                // Also reported, with an answer.
                Incoming::Refused { reason, answer } => {
                    assert!(answer.contains(r#""error":{"code":-32"#), "{answer}");
                    format!("malformed: {reason}")
                }
            })
            .collect()
    }

    /// [`frames_with`] through a usual buffer, checked to give the same
    /// through buffers so small that every header straddles two of them.
    fn frames(input: &str) -> Vec<String> {
        let got = frames_with(input.as_bytes(), 8 * 1024);
        for capacity in [1, 3, 16] {
            assert_eq!(frames_with(input.as_bytes(), capacity), got, "through a buffer of {capacity} bytes");
        }
        got
    }

    fn frame(body: &str) -> String {
        format!("Content-Length: {}\r\n\r\n{body}", body.len())
    }

    /// Splits what was read into the reports and the messages.
    fn split(got: Vec<String>) -> (Vec<String>, Vec<String>) {
        got.into_iter().partition(|line| line.starts_with("malformed: "))
    }

    #[test]
    fn malformed_messages_are_skipped_and_reading_goes_on() {
        let good = frame(INITIALIZED);
        let input = format!(
            "{}{good}Content-Type: text\r\n\r\nContent-Length: x\r\n\r\n{good}{}",
            frame("{not json"),
            frame(r#"{"jsonrpc":"2.0","method":"exit"}"#)
        );
        let got = frames(&input);
        assert!(got[0].starts_with("malformed: not a JSON-RPC message"), "{got:?}");
        assert_eq!(got[1], "notification initialized");
        assert_eq!(got[2], "malformed: a message without a Content-Length header");
        assert_eq!(got[3], "malformed: bad Content-Length header `x`");
        assert_eq!(got[4..], ["notification initialized", "notification exit"]);
    }

    #[test]
    fn a_request_after_a_hostile_frame_is_read() {
        let over = format!("malformed: a message of 99999999999999999999 bytes, over the limit of {MAX_MESSAGE_BYTES}");
        let not_json = "malformed: not a JSON-RPC message";
        let cases: [(String, Vec<&str>); 8] = [
            ("Content-Length: abc\r\n\r\n{}".into(), vec!["malformed: bad Content-Length header `abc`"]),
            ("Content-Length: -1\r\n\r\n{}".into(), vec!["malformed: bad Content-Length header `-1`"]),
            ("Content-Length: 99999999999999999999\r\n\r\n{}".into(), vec![over.as_str()]),
            ("\r\n\r\n{}".into(), vec!["malformed: a message without a Content-Length header"]),
            (
                "Content-Length: 2\r\nContent-Length: 3\r\n\r\n{}".into(),
                vec!["malformed: two Content-Length headers in one message", not_json],
            ),
            (format!("Content-Length: 5\r\n\r\n{INITIALIZED}"), vec![not_json]),
            ("Content-Length: 1000\r\n\r\n{}".into(), vec!["malformed: a message cut short by the end of input"]),
            (
                format!("Content-Length: {}\r\n\r\n{{}}", MAX_MESSAGE_BYTES + 1),
                vec!["malformed: a message of 268435457"],
            ),
        ];
        for (hostile, reports) in cases {
            let (got, messages) = split(frames(&format!("{hostile}{}", frame(REQUEST))));
            assert_eq!(messages, ["request shutdown"], "after {hostile:?}");
            assert_eq!(got.len(), reports.len(), "after {hostile:?}: {got:?}");
            for (report, expected) in got.iter().zip(reports) {
                assert!(report.starts_with(expected), "after {hostile:?}: {report:?}, not {expected:?}");
            }
        }
    }

    #[test]
    fn messages_a_too_long_length_swallowed_are_read_again() {
        let input = format!("Content-Length: 60\r\n\r\n{{}}{}{}", frame(REQUEST), frame(INITIALIZED));
        let (reports, messages) = split(frames(&input));
        assert_eq!(messages, ["request shutdown", "notification initialized"]);
        assert_eq!(reports.len(), 1, "{reports:?}");
        assert!(reports[0].contains("not a JSON-RPC message"), "{reports:?}");
    }

    #[test]
    fn json_that_is_no_message_is_dropped_whole() {
        // Framed right: nothing in it is taken for a header.
        let tricky = r#"{"note":"Content-Length: 2\r\n\r\n{}"}"#;
        let input = format!("{}{}", frame(tricky), frame(REQUEST));
        let (reports, messages) = split(frames(&input));
        assert_eq!(messages, ["request shutdown"]);
        assert_eq!(reports.len(), 1, "{reports:?}");
        assert!(reports[0].contains("not a JSON-RPC message"), "{reports:?}");
    }

    #[test]
    fn long_garbage_and_long_headers_are_skipped() {
        let garbage = format!("{}{}", "x".repeat(200_000), frame(REQUEST));
        assert_eq!(frames(&garbage), ["malformed: a message without a Content-Length header", "request shutdown"]);
        let header = format!("Content-Length: 2\r\nX-Junk: {}\r\n\r\n{{}}{}", "a".repeat(70_000), frame(REQUEST));
        assert_eq!(frames(&header), [format!("malformed: {}", header_too_long()), "request shutdown".into()]);
    }

    #[test]
    fn other_headers_and_spellings_of_the_length_are_accepted() {
        let len = REQUEST.len();
        let inputs = [
            format!(
                "Content-Type: application/vscode-jsonrpc; charset=utf-8\r\nContent-Length: {len}\r\n\r\n{REQUEST}"
            ),
            format!("Content-Length: {len}\r\nContent-Type: application/vscode-jsonrpc\r\n\r\n{REQUEST}"),
            format!("content-LENGTH : {len}\r\n\r\n{REQUEST}"),
            format!("\r\n{}", frame(REQUEST)),
        ];
        for input in inputs {
            assert_eq!(frames(&input), ["request shutdown"], "{input:?}");
        }
    }

    #[test]
    fn every_cut_of_hostile_input_ends_reading_and_makes_up_nothing() {
        let input = format!(
            "Content-Length: 2\r\nContent-Length: 3\r\n\r\n{{}}Content-Length: 5\r\n\r\n{INITIALIZED}{}",
            frame(REQUEST)
        );
        let (reports, messages) = split(frames(&input));
        assert_eq!(messages, ["request shutdown"]);
        assert_eq!(reports.len(), 3, "{reports:?}");
        for end in 0..input.len() {
            let (_, messages) = split(frames_with(&input.as_bytes()[..end], 7));
            assert!(messages.is_empty(), "cut at {end}: {messages:?}");
        }
    }

    #[test]
    fn an_edit_with_a_lone_surrogate_is_read_with_a_replacement_character() {
        let change = r#"{"jsonrpc":"2.0","method":"textDocument/didChange","params":{"text":"x = '\ud83d'"}}"#;
        let (sender, receiver) = unbounded();
        read_loop(&mut io::Cursor::new(frame(change).into_bytes()), &sender);
        drop(sender);
        let got: Vec<Incoming> = receiver.iter().collect();
        let [Incoming::Message(Message::Notification(n))] = got.as_slice() else { panic!("not read as one message") };
        assert_eq!(n.params["text"], "x = '\u{fffd}'");
    }

    #[test]
    fn reading_stops_at_exit() {
        let exit = r#"{"jsonrpc":"2.0","method":"exit"}"#;
        assert_eq!(frames(&format!("{}{}", frame(exit), frame(REQUEST))), ["notification exit"]);
    }
}
