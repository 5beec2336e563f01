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

use super::fields::{Fields, deserialize_by_fields};

use super::raw::RawResult;

mod read;

use crate::debug::Quoted;
pub(crate) use read::decode_owned;
pub use read::{decode, decode_one};

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
            RequestId::Str(s) => write!(f, "{s}", s = Quoted(s)),
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
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ErrorObject {
    /// The error code.
    pub code: i64,
    /// A short description.
    pub message: String,
    /// Anything else the peer attached.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub data: Option<Value>,
}

deserialize_by_fields!(ErrorObject);

impl ErrorObject {
    fn from_fields(fields: &mut Fields) -> Result<Self, String> {
        let value = ErrorObject {
            code: fields.required_integer("code"),
            message: fields.required_string("message"),
            data: fields.value("data"),
        };
        fields.done(value)
    }

    /// An error object with no data.
    pub fn new(code: i64, message: impl Into<String>) -> Self {
        ErrorObject { code, message: message.into(), data: None }
    }

    /// As JSON, the same as its `Serialize` writes it, built by hand: the
    /// wasm needs no serializer for it (see `protocol::object!`).
    pub(crate) fn to_value(&self) -> Value {
        let mut object = super::object! { "code": self.code, "message": self.message.as_str() };
        if let Some(data) = &self.data {
            object["data"] = data.clone();
        }
        object
    }
}

impl fmt::Display for ErrorObject {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} (code {})", self.message, self.code)?;
        if let Some(data) = &self.data {
            write!(f, ", data: {}", super::JsonText(data))?;
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
        // Written member by member into one buffer: a `Value` tree of the
        // message would deep-copy the params (or re-parse the result) only
        // to write them, and `format!` would cost a sequential call a few
        // microseconds in wasm.
        let mut out = String::from(r#"{"jsonrpc":"2.0""#);
        let (id, method, params) = match self {
            Message::Request(r) => (Some(&r.id), &r.method, &r.params),
            Message::Notification(n) => (None, &n.method, &n.params),
            Message::Response(Response { id, outcome: Ok(result) }) => {
                // The result's text goes in as it is, never parsed again.
                out.push_str(r#","id":"#);
                id_text(id.as_ref(), &mut out);
                out.push_str(r#","result":"#);
                out.push_str(result.text());
                out.push('}');
                return out;
            }
            Message::Response(_) => return super::json_text(&self.to_value()),
        };
        if let Some(id) = id {
            out.push_str(r#","id":"#);
            id_text(Some(id), &mut out);
        }
        out.push_str(r#","method":"#);
        super::json::write_string(method, &mut out);
        if let Some(params) = params {
            out.push_str(r#","params":"#);
            super::json::write(params, &mut out);
        }
        out.push('}');
        out
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
                        object.insert("error".into(), error.to_value());
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

/// An id as JSON (`null` for none).
fn id_text(id: Option<&RequestId>, out: &mut String) {
    match id {
        None => out.push_str("null"),
        Some(RequestId::Int(n)) => {
            use fmt::Write as _;
            // Writing to a `String` cannot fail.
            let _ = write!(out, "{n}");
        }
        Some(RequestId::Str(text)) => super::json::write_string(text, out),
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
