//! JSON-RPC 2.0 messages and the one codec every transport shares.
//!
//! Decoding is lenient where the spec lets peers differ (a batch is accepted
//! whatever the negotiated revision) and strict where a mistake would corrupt
//! the session (ids keep their exact JSON type; a message that is neither a
//! request, a notification nor a response is an error, not a guess).

use std::fmt;

use serde::de::{self, Deserializer};
use serde::{Deserialize, Serialize, Serializer};
use serde_json::{Map, Value};

use super::raw::{self, RawResult};

/// A request id, type-exact: `"1"` and `1` are different ids.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum RequestId {
    /// A JSON integer id.
    Int(i64),
    /// A JSON string id.
    Str(String),
}

impl fmt::Display for RequestId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RequestId::Int(n) => write!(f, "{n}"),
            RequestId::Str(s) => write!(f, "{s:?}"),
        }
    }
}

impl From<i64> for RequestId {
    fn from(n: i64) -> Self {
        RequestId::Int(n)
    }
}

impl From<&str> for RequestId {
    fn from(s: &str) -> Self {
        RequestId::Str(s.to_owned())
    }
}

impl RequestId {
    /// Reads an id from a JSON value: an integer or a string, nothing else.
    pub fn from_value(value: &Value) -> Option<RequestId> {
        match value {
            Value::String(s) => Some(RequestId::Str(s.clone())),
            Value::Number(n) => n.as_i64().map(RequestId::Int),
            _ => None,
        }
    }

    /// The id as a JSON value.
    pub fn to_value(&self) -> Value {
        match self {
            RequestId::Int(n) => Value::from(*n),
            RequestId::Str(s) => Value::from(s.as_str()),
        }
    }
}

impl Serialize for RequestId {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            RequestId::Int(n) => serializer.serialize_i64(*n),
            RequestId::Str(s) => serializer.serialize_str(s),
        }
    }
}

impl<'de> Deserialize<'de> for RequestId {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let value = Value::deserialize(deserializer)?;
        RequestId::from_value(&value).ok_or_else(|| de::Error::custom("a request id must be a string or an integer"))
    }
}

/// A request: it expects exactly one response with the same id.
#[derive(Debug, Clone, PartialEq)]
pub struct Request {
    /// Its id.
    pub id: RequestId,
    /// The method to run.
    pub method: String,
    /// Parameters, an object when present.
    pub params: Option<Value>,
}

/// A notification: no id, no answer.
#[derive(Debug, Clone, PartialEq)]
pub struct Notification {
    /// The notification's method.
    pub method: String,
    /// Parameters, an object when present.
    pub params: Option<Value>,
}

/// The error object of an error response.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ErrorObject {
    /// The error code.
    pub code: i64,
    /// A short description.
    pub message: String,
    /// Anything else the peer attached.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<Value>,
}

impl ErrorObject {
    /// An error object with no data.
    pub fn new(code: i64, message: impl Into<String>) -> Self {
        ErrorObject { code, message: message.into(), data: None }
    }
}

impl fmt::Display for ErrorObject {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} (code {})", self.message, self.code)?;
        if let Some(data) = &self.data {
            write!(f, ", data: {data}")?;
        }
        Ok(())
    }
}

/// A response: the result or the error of one request.
#[derive(Debug, Clone, PartialEq)]
pub struct Response {
    /// The id of the request it answers; `None` only for an error about a
    /// request too malformed to read an id from.
    pub id: Option<RequestId>,
    /// The outcome: the result as the server sent it, or the error.
    pub outcome: Result<RawResult, ErrorObject>,
}

/// Any JSON-RPC message.
#[derive(Debug, Clone, PartialEq)]
pub enum Message {
    /// A request.
    Request(Request),
    /// A notification.
    Notification(Notification),
    /// A response (result or error).
    Response(Response),
}

impl Message {
    /// A request message.
    pub fn request(id: impl Into<RequestId>, method: impl Into<String>, params: Option<Value>) -> Self {
        Message::Request(Request { id: id.into(), method: method.into(), params })
    }

    /// A notification message.
    pub fn notification(method: impl Into<String>, params: Option<Value>) -> Self {
        Message::Notification(Notification { method: method.into(), params })
    }

    /// A successful response.
    pub fn result(id: RequestId, result: Value) -> Self {
        Message::Response(Response { id: Some(id), outcome: Ok(RawResult::from(result)) })
    }

    /// An error response.
    pub fn error(id: Option<RequestId>, error: ErrorObject) -> Self {
        Message::Response(Response { id, outcome: Err(error) })
    }

    /// The method, for requests and notifications.
    pub fn method(&self) -> Option<&str> {
        match self {
            Message::Request(r) => Some(&r.method),
            Message::Notification(n) => Some(&n.method),
            Message::Response(_) => None,
        }
    }

    /// Whether this is a request (it expects an answer).
    pub fn is_request(&self) -> bool {
        matches!(self, Message::Request(_))
    }

    /// Compact JSON with no raw newline, ready for a stdio line or a POST body.
    pub fn to_json(&self) -> String {
        // Written member by member: a `Value` tree of the message would deep-
        // copy the params (or re-parse the result) only to serialize them.
        // Serialising strings and `Value`s cannot fail.
        let text = |value: &str| serde_json::to_string(value).unwrap_or_default();
        let params = |params: &Option<Value>| match params {
            Some(params) => format!(r#","params":{}"#, serde_json::to_string(params).unwrap_or_default()),
            None => String::new(),
        };
        match self {
            Message::Request(r) => format!(
                r#"{{"jsonrpc":"2.0","id":{},"method":{}{}}}"#,
                r.id.to_value(),
                text(&r.method),
                params(&r.params)
            ),
            Message::Notification(n) => {
                format!(r#"{{"jsonrpc":"2.0","method":{}{}}}"#, text(&n.method), params(&n.params))
            }
            Message::Response(Response { id, outcome: Ok(result) }) => {
                // The result's text goes in as it is, never parsed again.
                let id = id.as_ref().map_or(Value::Null, RequestId::to_value);
                format!(r#"{{"jsonrpc":"2.0","id":{id},"result":{}}}"#, result.text())
            }
            Message::Response(_) => serde_json::to_string(&self.to_value()).unwrap_or_default(),
        }
    }

    /// The message as a JSON value.
    pub fn to_value(&self) -> Value {
        let mut object = Map::new();
        object.insert("jsonrpc".into(), Value::from("2.0"));
        match self {
            Message::Request(r) => {
                object.insert("id".into(), r.id.to_value());
                object.insert("method".into(), Value::from(r.method.as_str()));
                if let Some(params) = &r.params {
                    object.insert("params".into(), params.clone());
                }
            }
            Message::Notification(n) => {
                object.insert("method".into(), Value::from(n.method.as_str()));
                if let Some(params) = &n.params {
                    object.insert("params".into(), params.clone());
                }
            }
            Message::Response(r) => {
                object.insert("id".into(), r.id.as_ref().map_or(Value::Null, RequestId::to_value));
                match &r.outcome {
                    Ok(result) => {
                        // Valid JSON by construction.
                        object.insert("result".into(), result.to_value().unwrap_or(Value::Null));
                    }
                    Err(error) => {
                        object.insert("error".into(), serde_json::to_value(error).unwrap_or(Value::Null));
                    }
                }
            }
        }
        Value::Object(object)
    }
}

impl Serialize for Message {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.to_value().serialize(serializer)
    }
}

/// Why bytes from a peer are not a JSON-RPC message.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum DecodeError {
    /// Not JSON at all.
    #[error("not JSON: {0}")]
    NotJson(String),
    /// JSON, but not a JSON-RPC 2.0 message.
    #[error("not a JSON-RPC 2.0 message: {0}")]
    Invalid(String),
    /// An empty batch (`[]`), which JSON-RPC forbids.
    #[error("an empty JSON-RPC batch")]
    EmptyBatch,
}

/// Decodes one payload: a single message, or a batch of them.
///
/// The outer `Result` fails when the payload is not JSON; inside a batch each
/// element succeeds or fails on its own, so one bad element does not lose the
/// others.
pub fn decode(payload: &str) -> Result<Vec<Result<Message, DecodeError>>, DecodeError> {
    let payload = payload.strip_prefix('\u{feff}').unwrap_or(payload);
    if payload.trim_start().starts_with('[') {
        let Some(items) = raw::elements(payload) else { return Err(syntax_error(payload)) };
        if items.is_empty() {
            return Err(DecodeError::EmptyBatch);
        }
        return Ok(items.into_iter().map(decode_text).collect());
    }
    match decode_text(payload) {
        Err(error @ DecodeError::NotJson(_)) => Err(error),
        one => Ok(vec![one]),
    }
}

/// Decodes a payload that must hold exactly one message (no batch).
pub fn decode_one(payload: &str) -> Result<Message, DecodeError> {
    decode_text(payload.strip_prefix('\u{feff}').unwrap_or(payload))
}

/// Decodes the text of one message (not a batch).
fn decode_text(payload: &str) -> Result<Message, DecodeError> {
    if !payload.trim_start().starts_with('{') {
        // Not an object: say whether it is JSON at all.
        parse(payload)?;
        return Err(DecodeError::Invalid("a message must be a JSON object".into()));
    }
    if !payload.contains(r#""result""#) {
        // No result to keep as text (a notification, a request, an error;
        // a "result" key spelled with escapes is still found below): one
        // parse into a `Value` is the cheapest way through.
        let Value::Object(mut object) = parse(payload)? else {
            return Err(DecodeError::Invalid("a message must be a JSON object".into()));
        };
        let result = object.remove("result").map(RawResult::from);
        return classify(object, result);
    }
    // The members stay text; all but `result` are small and parsed here.
    let Some(members) = raw::members(payload) else { return Err(syntax_error(payload)) };
    let result = raw::member_text(&members, "result");
    if result.is_some_and(raw::too_deep) {
        return Err(DecodeError::NotJson(format!(
            "recursion limit exceeded: the result nests deeper than {} levels",
            raw::MAX_DEPTH
        )));
    }
    let result = result.map(RawResult::from_checked);
    let mut object = Map::new();
    for key in ["jsonrpc", "id", "method", "params", "error"] {
        if let Some(value) = raw::member(&members, key) {
            object.insert(key.into(), value);
        }
    }
    classify(object, result)
}

/// Parses a payload as JSON. A leading byte order mark is skipped, as
/// browsers do for a JSON body (so native and web agree).
fn parse(payload: &str) -> Result<Value, DecodeError> {
    let payload = payload.strip_prefix('\u{feff}').unwrap_or(payload);
    serde_json::from_str(payload).map_err(|error| not_json(payload, &error))
}

/// Why `payload`, which the span reader refused, is not JSON: serde_json's
/// own words and position.
fn syntax_error(payload: &str) -> DecodeError {
    match serde_json::from_str::<serde::de::IgnoredAny>(payload) {
        Err(error) => not_json(payload, &error),
        // Cannot happen (both are serde_json's parser); said plainly if it does.
        Ok(_) => DecodeError::NotJson("the payload cannot be read".into()),
    }
}

/// A syntax error, naming what JSON-RPC peers are known to send instead of
/// JSON (`NaN`, `Infinity`).
fn not_json(payload: &str, error: &serde_json::Error) -> DecodeError {
    let at = offset(payload, error.line(), error.column());
    let rest = payload.get(at.saturating_sub(1)..).unwrap_or_default().trim_start_matches(['-', '+']);
    match ["NaN", "Infinity"].into_iter().find(|word| rest.starts_with(word)) {
        Some(word) => DecodeError::NotJson(format!("{error} ({word} is not a JSON number)")),
        None => DecodeError::NotJson(error.to_string()),
    }
}

/// The byte offset of a 1-based line and column (serde_json's positions).
fn offset(text: &str, line: usize, column: usize) -> usize {
    let start: usize = text.split_inclusive('\n').take(line.saturating_sub(1)).map(str::len).sum();
    (start + column).min(text.len())
}

/// Classifies a message's members (all but `result`, given apart).
fn classify(mut object: Map<String, Value>, result: Option<RawResult>) -> Result<Message, DecodeError> {
    match object.get("jsonrpc") {
        Some(Value::String(v)) if v == "2.0" => {}
        Some(other) => return Err(DecodeError::Invalid(format!("\"jsonrpc\" must be \"2.0\", found {other}"))),
        None => return Err(DecodeError::Invalid("missing \"jsonrpc\": \"2.0\"".into())),
    }
    let id = match object.remove("id") {
        None | Some(Value::Null) => None,
        Some(raw) => Some(
            RequestId::from_value(&raw)
                .ok_or_else(|| DecodeError::Invalid(format!("an id must be a string or an integer, found {raw}")))?,
        ),
    };
    let params = object.remove("params");
    if let Some(method) = object.remove("method") {
        let Value::String(method) = method else {
            return Err(DecodeError::Invalid("\"method\" must be a string".into()));
        };
        if let Some(p) = &params
            && !(p.is_object() || p.is_array())
        {
            return Err(DecodeError::Invalid(format!("\"params\" of {method} must be an object or an array")));
        }
        return Ok(match id {
            Some(id) => Message::Request(Request { id, method, params }),
            None => Message::Notification(Notification { method, params }),
        });
    }
    match (result, object.remove("error")) {
        (Some(_), Some(_)) => Err(DecodeError::Invalid("a response has both \"result\" and \"error\"".into())),
        (Some(result), None) => {
            let id = id.ok_or_else(|| DecodeError::Invalid("a result response has no id".into()))?;
            Ok(Message::Response(Response { id: Some(id), outcome: Ok(result) }))
        }
        (None, Some(error)) => {
            // A malformed error still carries the server's words: keep them.
            let said = error.get("message").and_then(Value::as_str).map(|m| m.chars().take(300).collect::<String>());
            let error: ErrorObject = super::raw::from_value(&error).map_err(|e| {
                DecodeError::Invalid(match &said {
                    Some(message) => format!("malformed error object ({e}); the server said: {message}"),
                    None => format!("malformed error object: {e}"),
                })
            })?;
            Ok(Message::Response(Response { id, outcome: Err(error) }))
        }
        (None, None) => Err(DecodeError::Invalid("neither a request, a notification nor a response".into())),
    }
}

/// The standard JSON-RPC and MCP error codes a client meets.
pub mod codes {
    /// Invalid JSON was received.
    pub const PARSE_ERROR: i64 = -32700;
    /// The JSON is not a valid request.
    pub const INVALID_REQUEST: i64 = -32600;
    /// The method does not exist or is not offered.
    pub const METHOD_NOT_FOUND: i64 = -32601;
    /// Invalid method parameters.
    pub const INVALID_PARAMS: i64 = -32602;
    /// Internal error.
    pub const INTERNAL_ERROR: i64 = -32603;
    /// MCP: the resource does not exist.
    pub const RESOURCE_NOT_FOUND: i64 = -32002;
    /// MCP 2025-11-25: the server needs URL-mode elicitation first.
    pub const URL_ELICITATION_REQUIRED: i64 = -32042;
    /// MCP: the user rejected a sampling request.
    pub const USER_REJECTED: i64 = -1;
    /// 2026-07-28: headers missing, malformed or different from the body.
    pub const HEADER_MISMATCH: i64 = -32020;
    /// 2026-07-28: the request did not declare a client capability the
    /// server needs.
    pub const MISSING_REQUIRED_CLIENT_CAPABILITY: i64 = -32021;
    /// 2026-07-28: the server does not speak the request's revision.
    pub const UNSUPPORTED_PROTOCOL_VERSION: i64 = -32022;
}
