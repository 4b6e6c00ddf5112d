//! The JSON-RPC 2.0 envelope of a message body, checked before the message
//! reaches the server: LSP narrows JSON-RPC's ids (a string, a number or
//! null) to 32-bit integers and strings, which is all `lsp_server` can
//! hold. A request it could not hold (`"id": 1.5`, `4294967296`, `null`)
//! would be read as a notification and never answered; here it is refused
//! with an `InvalidRequest` error whose id is the client's text, as written,
//! so every request gets exactly one response.
//!
//! What JSON-RPC asks for each body:
//! - not JSON: a `ParseError` answer with a null id;
//! - a request (a `method` and an `id`) that breaks a rule (a `jsonrpc` other
//!   than `"2.0"`; one left out is let pass, a `method` that is not a string, an id LSP does not
//!   allow, a member given twice): an `InvalidRequest` answer, its id echoed
//!   when JSON-RPC allows it (a string, number or null), else null;
//! - an `id` without a `method`, `result` or `error`: an `InvalidRequest`
//!   answer echoing it; any other JSON that is no message (a number, an
//!   object of neither kind) or an invalid notification: one with a null id;
//! - a response that breaks a rule: nothing (a response is never answered);
//! - a batch (`[...]`, which LSP does not have): one array with an
//!   `InvalidRequest` answer per element that JSON-RPC would answer (every
//!   request, echoing its id), or nothing when none is (only notifications);
//!   an empty batch gets one answer with a null id.
//!
//! Nothing is refused that follows the rules: other members are ignored and
//! `params` is left to each method, as before.

use std::ops::Range;

use lsp_server::{ErrorCode, Message, Notification, Request, RequestId, Response, ResponseError};
use serde::de::IgnoredAny;
use serde_json::Value;

/// What a body is, as JSON-RPC sees it.
pub(crate) enum Envelope {
    /// A message that follows JSON-RPC's and LSP's rules.
    Message(Message),
    /// A body that breaks them.
    Invalid {
        /// What is wrong.
        reason: String,
        /// The error response JSON-RPC asks for (JSON text, its id as the
        /// client wrote it, or null), or `None` when it asks for none.
        answer: Option<String>,
    },
}

/// The members of an envelope, each of which may be given once.
const MEMBERS: [&str; 6] = ["jsonrpc", "id", "method", "params", "result", "error"];

/// Reads a body; `Err` when it is not JSON at all.
pub(crate) fn read(json: &[u8]) -> Result<Envelope, serde_json::Error> {
    match json.iter().find(|b| !b.is_ascii_whitespace()) {
        Some(b'{') => read_object(json),
        Some(b'[') => read_batch(json),
        _ => {
            serde_json::from_slice::<IgnoredAny>(json)?;
            let reason = "not a JSON-RPC message: JSON that is not an object".to_string();
            Ok(refused_with(ID_NULL, reason))
        }
    }
}

/// The error response of a refused message, its id JSON text.
pub(crate) fn error_response(id: &str, code: ErrorCode, message: &str) -> String {
    let error = serde_json::json!({"code": code as i32, "message": message});
    format!(r#"{{"jsonrpc":"2.0","id":{id},"error":{error}}}"#)
}

/// The id of an answer to a message whose id is unknown.
const ID_NULL: &str = "null";

/// An invalid message answered with `InvalidRequest`, the id `id` (JSON text).
fn refused_with(id: &str, reason: String) -> Envelope {
    let answer = error_response(id, ErrorCode::InvalidRequest, &format!("invalid request: {reason}"));
    Envelope::Invalid { reason, answer: Some(answer) }
}

/// An invalid message that JSON-RPC does not answer.
fn dropped(reason: String) -> Envelope {
    Envelope::Invalid { reason, answer: None }
}

/// What an `id` member holds.
enum Id<'a> {
    /// One LSP allows.
    Lsp(RequestId),
    /// One JSON-RPC allows but LSP does not (a number that is no 32-bit
    /// integer, or null): its JSON text, and why it is refused.
    Refused(&'a str, String),
    /// Not a JSON-RPC id at all (a boolean, an object, an array).
    Invalid(String),
}

impl Id<'_> {
    /// The JSON text an answer echoes: the id as written, or null when it
    /// is no JSON-RPC id.
    fn echoed(&self) -> String {
        match self {
            Id::Lsp(id) => serde_json::to_string(id).unwrap_or_else(|_| ID_NULL.into()),
            Id::Refused(text, _) => text.to_string(),
            Id::Invalid(_) => ID_NULL.into(),
        }
    }
}

/// Reads the JSON text of an `id` member.
fn read_id(text: &str) -> Id<'_> {
    match text.as_bytes().first() {
        Some(b'"') => match serde_json::from_str::<String>(text) {
            Ok(id) => Id::Lsp(RequestId::from(id)),
            Err(_) => Id::Invalid("an id that cannot be read".into()),
        },
        Some(b'n') => Id::Refused(text, "a null id (LSP ids are integers or strings)".into()),
        Some(b't' | b'f') => Id::Invalid("a boolean id (ids are strings, numbers or null)".into()),
        Some(b'{') => Id::Invalid("an object as id (ids are strings, numbers or null)".into()),
        Some(b'[') => Id::Invalid("an array as id (ids are strings, numbers or null)".into()),
        _ => match text.parse::<i32>() {
            Ok(id) => Id::Lsp(RequestId::from(id)),
            Err(_) => Id::Refused(
                text,
                format!(
                    "the id {} is not one LSP allows (an integer from {} to {}, or a string)",
                    quoted(text),
                    i32::MIN,
                    i32::MAX
                ),
            ),
        },
    }
}

/// `text` cut for a message.
fn quoted(text: &str) -> String {
    const SHOWN: usize = 40;
    match text.char_indices().nth(SHOWN) {
        Some((at, _)) => format!("{}...", &text[..at]),
        None => text.to_string(),
    }
}

/// An object's envelope members: the JSON text of each, the last when one
/// is given twice (as `serde_json` reads an object), and the first given
/// twice.
struct Members<'a> {
    jsonrpc: Option<&'a str>,
    id: Option<&'a str>,
    method: Option<&'a str>,
    params: Option<&'a str>,
    result: Option<&'a str>,
    error: Option<&'a str>,
    twice: Option<&'static str>,
}

impl<'a> Members<'a> {
    /// The envelope members of the JSON object `json` (all of it), `None`
    /// when it is not one JSON object.
    fn of(json: &'a [u8]) -> Option<Members<'a>> {
        let mut found: [Option<&'a str>; 6] = [None; 6];
        let mut twice = None;
        for (key, range) in object_members(json)? {
            if let Some(at) = MEMBERS.iter().position(|m| *m == key) {
                let text = std::str::from_utf8(&json[range]).ok()?;
                if found[at].replace(text).is_some() && twice.is_none() {
                    twice = Some(MEMBERS[at]);
                }
            }
        }
        let [jsonrpc, id, method, params, result, error] = found;
        Some(Members { jsonrpc, id, method, params, result, error, twice })
    }

    /// The first rule of every message it breaks: `jsonrpc`, when given, is
    /// `"2.0"` (a client that leaves it out, as some do, is still understood),
    /// no envelope member is given twice.
    fn common_fault(&self) -> Option<String> {
        if let Some(member) = self.twice {
            return Some(format!("the member `{member}` is given twice"));
        }
        match self.jsonrpc {
            Some(r#""2.0""#) => None,
            Some(other) => Some(format!("`jsonrpc` is {}, not \"2.0\"", quoted(other))),
            None => None,
        }
    }
}

/// Reads a body that starts with `{`.
fn read_object(json: &[u8]) -> Result<Envelope, serde_json::Error> {
    let Some(members) = Members::of(json) else {
        // Not one object: serde_json says why.
        serde_json::from_slice::<IgnoredAny>(json)?;
        return Err(serde::de::Error::custom("not one JSON object"));
    };
    Ok(classify(&members))
}

/// What an object whose members are `members` is.
fn classify(members: &Members<'_>) -> Envelope {
    let fault = members.common_fault();
    let id = members.id.map(read_id);
    match (members.method, id) {
        (Some(method), Some(id)) => request(members, method, id, fault),
        (Some(method), None) => notification(members, method, fault),
        (None, id) if members.result.is_some() || members.error.is_some() => response(members, id, fault),
        (None, Some(id)) => {
            let reason = fault.unwrap_or_else(|| "a request without a `method`".into());
            refused_with(&id.echoed(), reason)
        }
        (None, None) => refused_with(
            ID_NULL,
            "not a JSON-RPC message: an object with no `method`, `id`, `result` or `error`".into(),
        ),
    }
}

/// The method name of a `method` member's JSON text, or why it has none.
fn method_name(text: &str) -> Result<String, String> {
    serde_json::from_str::<String>(text).map_err(|_| format!("`method` is {}, not a string", quoted(text)))
}

/// The value of a `params` member (null when absent).
fn params(text: Option<&str>) -> Result<Value, String> {
    text.map_or(Ok(Value::Null), |text| {
        serde_json::from_str(text).map_err(|e| format!("parameters that cannot be read: {e}"))
    })
}

fn request(members: &Members<'_>, method: &str, id: Id<'_>, fault: Option<String>) -> Envelope {
    let echoed = id.echoed();
    let checked = match (fault, id) {
        (Some(fault), _) => Err(fault),
        (None, Id::Refused(_, why) | Id::Invalid(why)) => Err(why),
        (None, Id::Lsp(id)) => method_name(method).map(|method| (id, method)),
    };
    let (id, method) = match checked {
        Ok(read) => read,
        Err(reason) => return refused_with(&echoed, reason),
    };
    match params(members.params) {
        Ok(params) => Envelope::Message(Message::Request(Request { id, method, params })),
        Err(reason) => {
            let answer = error_response(&echoed, ErrorCode::InvalidParams, &reason);
            Envelope::Invalid { reason, answer: Some(answer) }
        }
    }
}

fn notification(members: &Members<'_>, method: &str, fault: Option<String>) -> Envelope {
    let method = match fault.map_or_else(|| method_name(method), Err) {
        Ok(method) => method,
        // Not a notification JSON-RPC would leave unanswered: an invalid request, its id unknown.
        Err(reason) => return refused_with(ID_NULL, reason),
    };
    match params(members.params) {
        Ok(params) => Envelope::Message(Message::Notification(Notification { method, params })),
        Err(reason) => dropped(format!("`{method}`: {reason}")),
    }
}

fn response(members: &Members<'_>, id: Option<Id<'_>>, fault: Option<String>) -> Envelope {
    let read = || -> Result<Response, String> {
        if let Some(fault) = fault {
            return Err(fault);
        }
        let id = match id {
            Some(Id::Lsp(id)) => id,
            Some(Id::Refused(_, why) | Id::Invalid(why)) => return Err(why),
            None => return Err("no `id`".into()),
        };
        let response_result = match (members.result, members.error) {
            (Some(_), Some(_)) => return Err("both `result` and `error`".into()),
            (Some(result), None) => {
                Ok(serde_json::from_str(result).map_err(|e| format!("a `result` that cannot be read: {e}"))?)
            }
            (None, Some(error)) => Err(serde_json::from_str::<ResponseError>(error)
                .map_err(|e| format!("an `error` that cannot be read: {e}"))?),
            (None, None) => unreachable!("a response has a result or an error"),
        };
        Ok(Response { id, response_result })
    };
    match read() {
        Ok(response) => Envelope::Message(Message::Response(response)),
        Err(reason) => dropped(format!("an invalid response: {reason}")),
    }
}

/// Reads a body that starts with `[`: a batch, which LSP does not have.
fn read_batch(json: &[u8]) -> Result<Envelope, serde_json::Error> {
    let Some(elements) = array_elements(json) else {
        serde_json::from_slice::<IgnoredAny>(json)?;
        return Err(serde::de::Error::custom("not one JSON array"));
    };
    if elements.is_empty() {
        return Ok(refused_with(ID_NULL, "an empty batch".into()));
    }
    const NO_BATCHES: &str = "a batch (LSP has no batches: send each message on its own)";
    let mut answers = Vec::new();
    for range in &elements {
        let element = &json[range.clone()];
        let answer = match Members::of(element).map(|members| (classify(&members), members)) {
            // A request that would have been taken alone is refused for being in a batch.
            Some((Envelope::Message(Message::Request(request)), _)) => {
                let id = serde_json::to_string(&request.id).unwrap_or_else(|_| ID_NULL.into());
                Some(error_response(&id, ErrorCode::InvalidRequest, &format!("invalid request: {NO_BATCHES}")))
            }
            Some((Envelope::Invalid { answer, .. }, _)) => answer,
            Some((Envelope::Message(_), _)) => None,
            None => {
                let reason = "invalid request: not a JSON-RPC message: JSON that is not an object";
                Some(error_response(ID_NULL, ErrorCode::InvalidRequest, reason))
            }
        };
        answers.extend(answer);
    }
    let reason = format!("{NO_BATCHES} of {} messages", elements.len());
    let answer = (!answers.is_empty()).then(|| format!("[{}]", answers.join(",")));
    Ok(Envelope::Invalid { reason, answer })
}

/// The members of the JSON object that is all of `json`: each key and the
/// byte range of its value, in order; `None` when `json` is not one valid
/// JSON object. Values are skipped by `serde_json`, which checks them.
fn object_members(json: &[u8]) -> Option<Vec<(String, Range<usize>)>> {
    let mut at = skip_whitespace(json, 0);
    if json.get(at) != Some(&b'{') {
        return None;
    }
    at = skip_whitespace(json, at + 1);
    let mut members = Vec::new();
    if json.get(at) == Some(&b'}') {
        return whole(json, at + 1).then_some(members);
    }
    loop {
        if json.get(at) != Some(&b'"') {
            return None;
        }
        let (key, end) = next_value::<String>(json, at)?;
        at = skip_whitespace(json, end);
        if json.get(at) != Some(&b':') {
            return None;
        }
        let start = skip_whitespace(json, at + 1);
        let (IgnoredAny, end) = next_value::<IgnoredAny>(json, start)?;
        members.push((key, start..end));
        at = skip_whitespace(json, end);
        match json.get(at) {
            Some(b',') => at = skip_whitespace(json, at + 1),
            Some(b'}') => return whole(json, at + 1).then_some(members),
            _ => return None,
        }
    }
}

/// The byte ranges of the elements of the JSON array that is all of
/// `json`; `None` when it is not one valid JSON array.
fn array_elements(json: &[u8]) -> Option<Vec<Range<usize>>> {
    let mut at = skip_whitespace(json, 0);
    if json.get(at) != Some(&b'[') {
        return None;
    }
    at = skip_whitespace(json, at + 1);
    let mut elements = Vec::new();
    if json.get(at) == Some(&b']') {
        return whole(json, at + 1).then_some(elements);
    }
    loop {
        let (IgnoredAny, end) = next_value::<IgnoredAny>(json, at)?;
        elements.push(at..end);
        at = skip_whitespace(json, end);
        match json.get(at) {
            Some(b',') => at = skip_whitespace(json, at + 1),
            Some(b']') => return whole(json, at + 1).then_some(elements),
            _ => return None,
        }
    }
}

/// The JSON value starting at `at` (no whitespace before it), and where it
/// ends.
fn next_value<T: serde::de::DeserializeOwned>(json: &[u8], at: usize) -> Option<(T, usize)> {
    let mut values = serde_json::Deserializer::from_slice(json.get(at..)?).into_iter::<T>();
    let value = values.next()?.ok()?;
    Some((value, at + values.byte_offset()))
}

/// Whether only whitespace follows `at`.
fn whole(json: &[u8], at: usize) -> bool {
    skip_whitespace(json, at) == json.len()
}

/// The first byte from `at` on that is not JSON whitespace.
fn skip_whitespace(json: &[u8], mut at: usize) -> usize {
    while matches!(json.get(at), Some(b' ' | b'\t' | b'\n' | b'\r')) {
        at += 1;
    }
    at
}
