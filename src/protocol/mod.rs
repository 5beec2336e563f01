//! The protocol layer: JSON-RPC messages and MCP types of both eras (the
//! handshake revisions in [`types`]; revision 2026-07-28's vocabulary is
//! internal, and what of it a user meets, such as
//! [`ListenFilter`](crate::ListenFilter), is at the crate root). Method
//! names are in [`methods`], error codes in [`codes`]. Pure data, no I/O.

pub(crate) mod jsonrpc;
pub mod methods;
pub(crate) mod objects;
pub(crate) mod raw;
pub(crate) mod schema;
pub(crate) mod stateless;
pub mod types;
pub(crate) mod version;

pub use jsonrpc::{
    DecodeError, ErrorObject, Message, Notification, Request, RequestId, Response, codes, decode, decode_one,
};
pub use raw::RawResult;
pub use schema::SchemaError;
pub use version::{Era, ProtocolVersion, UnsupportedVersion};

/// What kind of JSON value this is, for messages about the wrong kind:
/// "an object", "an array", "a string", "a number", "a boolean" or "null"
/// (the words of [`RawResult::kind`]).
pub fn json_kind(value: &serde_json::Value) -> &'static str {
    use serde_json::Value;
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}
