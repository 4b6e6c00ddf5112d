//! LSP base-protocol framing that survives a hostile client: `Content-Length`
//! frames read from a byte stream, and after a malformed one (bad header, bad
//! JSON, a body over [`MAX_MESSAGE_BYTES`]) what followed its
//! `Content-Length:` is scanned again for the next `Content-Length:`,
//! wherever it starts, since a client writes no newline after a body and the
//! next header may be glued to the bad frame's bytes.

use std::io::{self, BufRead, Read};
use std::ops::Range;

use lsp_server::{ErrorCode, Message};

use quarry_stdx::json_surrogates::replace_lone_surrogates;

use crate::envelope::{self, Envelope};

/// The largest message body read; a longer one is reported and its bytes
/// scanned for the next header.
pub const MAX_MESSAGE_BYTES: usize = 256 * 1024 * 1024;

/// The most bytes read of one frame's header block after its
/// `Content-Length:`; a longer block is malformed.
const MAX_HEADER_BYTES: usize = 64 * 1024;

/// The header that starts a frame, lower-case, without its colon.
const HEADER_NAME: &[u8] = b"content-length";

/// How much of a bad header value a report quotes.
const QUOTED_CHARS: usize = 40;

/// What the reader thread hands over: a message, or why one was skipped.
pub enum Incoming {
    /// A well-formed message.
    Message(Message),
    /// A message that could not be read, with the reason; JSON-RPC asks
    /// for no answer (a bad frame, a bad response).
    Malformed(String),
    /// What was read is no valid message, and JSON-RPC asks for an answer
    /// (a request whose id LSP does not allow, JSON that is no message,
    /// a body that is not JSON, a batch).
    Refused {
        /// What is wrong.
        reason: String,
        /// The error response to send: JSON text whose id is written as
        /// the client wrote it (which `lsp_server::RequestId` may not
        /// hold), or null.
        answer: String,
    },
}

/// Reads LSP frames from a byte stream, resynchronising after a malformed
/// one. Every frame attempt drops at least its `Content-Length:` for good,
/// so rescanning always ends.
pub(crate) struct FrameReader<R> {
    input: Rewind<R>,
    /// The last frame was malformed: bytes before the next header are its
    /// remains, already reported.
    resyncing: bool,
    /// A `Content-Length:` was consumed, and the bytes skipped before it
    /// were reported; its frame comes next.
    at_header: bool,
}

impl<R: BufRead> FrameReader<R> {
    /// A reader of the frames of `input`.
    pub(crate) fn new(input: R) -> Self {
        FrameReader { input: Rewind::new(input), resyncing: false, at_header: false }
    }

    /// The next message, or why bytes were skipped; `None` at end of input.
    pub(crate) fn next_incoming(&mut self) -> io::Result<Option<Incoming>> {
        if !self.at_header {
            let skipped = skip_to_header(&mut self.input)?;
            self.at_header = skipped.found;
            if skipped.garbage && !self.resyncing {
                self.resyncing = true;
                return Ok(Some(Incoming::Malformed("a message without a Content-Length header".into())));
            }
            if !skipped.found {
                return Ok(None);
            }
        }
        self.at_header = false;
        let incoming = match read_frame(&mut self.input)? {
            None => return Ok(None),
            Some(Ok(body)) => self.decode(body),
            Some(Err(reason)) => {
                self.resyncing = true;
                Incoming::Malformed(reason)
            }
        };
        Ok(Some(incoming))
    }

    /// The message a body holds (lone surrogate escapes read as U+FFFD),
    /// its JSON-RPC envelope checked ([`crate::envelope`]). A body that is
    /// not JSON (a wrong length cut it or ran past it) is answered with a
    /// parse error and put back to be scanned for the next header; JSON that
    /// is no valid message was framed right: it is refused or dropped whole.
    fn decode(&mut self, body: Vec<u8>) -> Incoming {
        let mut read = envelope::read(&body);
        if !matches!(read, Ok(Envelope::Message(_))) {
            // Lone surrogates (JSON, but not Unicode) are replaced and the body read again.
            if let Some(repaired) = replace_lone_surrogates(&body) {
                read = envelope::read(&repaired);
            }
        }
        self.resyncing = read.is_err();
        match read {
            Ok(Envelope::Message(message)) => Incoming::Message(message),
            Ok(Envelope::Invalid { reason, answer: Some(answer) }) => Incoming::Refused { reason, answer },
            Ok(Envelope::Invalid { reason, answer: None }) => Incoming::Malformed(reason),
            Err(error) => {
                self.input.push_back(body);
                let reason = format!("not a JSON-RPC message: {error}");
                let answer = envelope::error_response("null", ErrorCode::ParseError, &format!("parse error: {error}"));
                Incoming::Refused { reason, answer }
            }
        }
    }
}

/// What [`skip_to_header`] passed over.
struct Skipped {
    /// A `Content-Length:` was found (and consumed).
    found: bool,
    /// Bytes were skipped that are not just whitespace and header lines
    /// leading to the `Content-Length:`.
    garbage: bool,
}

/// Consumes input up to and including the next `Content-Length:`, in any
/// case, wherever it starts; spaces or tabs may come before the colon.
fn skip_to_header(input: &mut impl BufRead) -> io::Result<Skipped> {
    let mut matcher = HeaderMatcher::default();
    loop {
        let buffer = match input.fill_buf() {
            Ok(buffer) => buffer,
            Err(error) if error.kind() == io::ErrorKind::Interrupted => continue,
            Err(error) => return Err(error),
        };
        if buffer.is_empty() {
            return Ok(Skipped { found: false, garbage: matcher.skipped_content() });
        }
        let end = buffer.iter().position(|&byte| matcher.feed(byte));
        let used = end.map_or(buffer.len(), |at| at + 1);
        input.consume(used);
        if end.is_some() {
            return Ok(Skipped { found: true, garbage: matcher.garbage });
        }
    }
}

/// Whether `line` holds a `Content-Length:` anywhere.
fn mentions_header(line: &[u8]) -> bool {
    let mut matcher = HeaderMatcher::default();
    line.iter().any(|&byte| matcher.feed(byte))
}

/// Matches `Content-Length:` byte by byte, and judges the bytes skipped
/// before it. Its first letter occurs in it once, so after a mismatch a
/// match can only start at the current byte.
#[derive(Default)]
struct HeaderMatcher {
    /// How many bytes of [`HEADER_NAME`] are matched; all of them while
    /// waiting for the colon.
    matched: usize,
    /// The current line has bytes other than whitespace outside a match.
    line_content: bool,
    /// The current line has a colon outside a match.
    line_colon: bool,
    /// Lines with content came since the last blank line.
    block_content: bool,
    /// Bytes were skipped that are no header lines leading straight to a
    /// `Content-Length:` (as a `Content-Type:` before it is).
    garbage: bool,
}

impl HeaderMatcher {
    /// Takes one byte; true when it completes `Content-Length:`.
    fn feed(&mut self, byte: u8) -> bool {
        let byte = byte.to_ascii_lowercase();
        if self.advance(byte) {
            self.garbage |= self.line_content;
            return true;
        }
        if self.matched == 0 {
            self.skip(byte);
        }
        false
    }

    /// Extends the match by one byte: true when it is complete. Bytes that
    /// fall out of a partial match are content of their line.
    fn advance(&mut self, byte: u8) -> bool {
        if self.matched == HEADER_NAME.len() {
            match byte {
                b':' => {
                    self.matched = 0;
                    return true;
                }
                b' ' | b'\t' => return false,
                _ => {}
            }
        } else if byte == HEADER_NAME[self.matched] {
            self.matched += 1;
            return false;
        }
        self.line_content |= self.matched > 0;
        self.matched = usize::from(byte == HEADER_NAME[0]);
        false
    }

    /// Notes a skipped byte outside any match.
    fn skip(&mut self, byte: u8) {
        match byte {
            b'\n' => self.end_line(),
            b':' => {
                self.line_colon = true;
                self.line_content = true;
            }
            _ => self.line_content |= !byte.is_ascii_whitespace(),
        }
    }

    /// A line without a colon is garbage, and so is a blank line ending a
    /// block of lines: a header without a `Content-Length`.
    fn end_line(&mut self) {
        if self.line_content {
            self.garbage |= !self.line_colon;
            self.block_content = true;
        } else {
            self.garbage |= self.block_content;
            self.block_content = false;
        }
        self.line_content = false;
        self.line_colon = false;
    }

    /// Whether anything but whitespace was skipped, for input that ended
    /// before a `Content-Length:`.
    fn skipped_content(&self) -> bool {
        self.garbage || self.line_content || self.block_content || self.matched > 0
    }
}

/// Reads one frame after its `Content-Length:`: the body, or why the frame
/// is malformed (what it consumed is put back to be scanned again), or
/// `None` at end of input.
fn read_frame<R: BufRead>(input: &mut Rewind<R>) -> io::Result<Option<Result<Vec<u8>, String>>> {
    let mut header = Vec::new();
    let length = match read_header(input, &mut header)? {
        None => return Ok(None),
        Some(Ok(length)) => length,
        Some(Err(reason)) => {
            input.push_back(header);
            return Ok(Some(Err(reason)));
        }
    };
    // Grown as bytes arrive, not reserved on the header's word.
    let mut body = Vec::with_capacity(length.min(MAX_HEADER_BYTES));
    input.by_ref().take(u64::try_from(length).unwrap_or(u64::MAX)).read_to_end(&mut body)?;
    if body.len() < length {
        let reason = format!("a message cut short by the end of input: {} of {length} bytes", body.len());
        input.push_back(body);
        return Ok(Some(Err(reason)));
    }
    Ok(Some(Ok(body)))
}

/// Reads the header block after a `Content-Length:` into `header`, up to
/// its empty line: the length, why the block is malformed, or `None` at end
/// of input.
fn read_header(input: &mut impl BufRead, header: &mut Vec<u8>) -> io::Result<Option<Result<usize, String>>> {
    let value = match read_line(input, header)? {
        Line::Read(range) => range,
        Line::TooLong => return Ok(Some(Err(header_too_long()))),
        Line::End => return Ok(None),
    };
    loop {
        match read_line(input, header)? {
            Line::Read(range) => {
                let line = &header[range];
                if line.iter().all(|&b| b == b'\r' || b == b'\n') {
                    break;
                }
                if mentions_header(line) {
                    return Ok(Some(Err("two Content-Length headers in one message".into())));
                }
            }
            Line::TooLong => return Ok(Some(Err(header_too_long()))),
            Line::End => return Ok(None),
        }
    }
    Ok(Some(parse_length(&header[value])))
}

/// Why a header block over [`MAX_HEADER_BYTES`] is refused.
pub(crate) fn header_too_long() -> String {
    format!("a message header over {MAX_HEADER_BYTES} bytes")
}

/// One header line read by [`read_line`].
enum Line {
    /// The line, newline included, at this range of the header.
    Read(Range<usize>),
    /// The header reached [`MAX_HEADER_BYTES`] before the line ended.
    TooLong,
    /// Input ended before the line did.
    End,
}

/// Appends one line to `header`, keeping it within [`MAX_HEADER_BYTES`].
fn read_line(input: &mut impl BufRead, header: &mut Vec<u8>) -> io::Result<Line> {
    let start = header.len();
    let room = MAX_HEADER_BYTES.saturating_sub(start);
    let read = input.by_ref().take(room as u64).read_until(b'\n', header)?;
    Ok(if read > 0 && header.ends_with(b"\n") {
        Line::Read(start..header.len())
    } else if read == room {
        Line::TooLong
    } else {
        Line::End
    })
}

/// The body length a `Content-Length` value gives, or why it gives none.
fn parse_length(value: &[u8]) -> Result<usize, String> {
    let text = String::from_utf8_lossy(value);
    let text = text.trim();
    let over = |length: &str| format!("a message of {length} bytes, over the limit of {MAX_MESSAGE_BYTES}");
    match text.parse::<usize>() {
        Ok(length) if length <= MAX_MESSAGE_BYTES => Ok(length),
        Ok(length) => Err(over(&length.to_string())),
        Err(_) if !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit()) => Err(over(&quoted(text))),
        Err(_) => Err(format!("bad Content-Length header `{}`", quoted(text))),
    }
}

/// `text`, cut to [`QUOTED_CHARS`] characters for a report.
fn quoted(text: &str) -> String {
    match text.char_indices().nth(QUOTED_CHARS) {
        Some((at, _)) => format!("{}...", &text[..at]),
        None => text.to_string(),
    }
}

/// A buffered reader that bytes can be put back in front of.
struct Rewind<R> {
    inner: R,
    /// Bytes put back, read before `inner` from `at` on.
    pending: Vec<u8>,
    at: usize,
}

impl<R> Rewind<R> {
    fn new(inner: R) -> Self {
        Rewind { inner, pending: Vec::new(), at: 0 }
    }

    /// Makes `bytes` the next bytes read, before any put back earlier.
    fn push_back(&mut self, mut bytes: Vec<u8>) {
        bytes.extend_from_slice(&self.pending[self.at..]);
        self.pending = bytes;
        self.at = 0;
    }
}

impl<R: BufRead> Read for Rewind<R> {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        let available = self.fill_buf()?;
        let count = available.len().min(out.len());
        out[..count].copy_from_slice(&available[..count]);
        self.consume(count);
        Ok(count)
    }
}

impl<R: BufRead> BufRead for Rewind<R> {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        if self.at < self.pending.len() {
            Ok(&self.pending[self.at..])
        } else {
            self.inner.fill_buf()
        }
    }

    fn consume(&mut self, amount: usize) {
        if self.at < self.pending.len() {
            self.at = (self.at + amount).min(self.pending.len());
            if self.at == self.pending.len() {
                self.pending = Vec::new();
                self.at = 0;
            }
        } else {
            self.inner.consume(amount);
        }
    }
}
