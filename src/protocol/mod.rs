//! The protocol layer: JSON-RPC messages and MCP types of both eras (the
//! handshake revisions in [`types`]; revision 2026-07-28's vocabulary is
//! internal, and what of it a user meets, such as
//! [`ListenFilter`](crate::ListenFilter), is at the crate root). Method
//! names are in [`methods`], error codes in [`codes`]. Pure data, no I/O.

pub(crate) mod base64;
pub(crate) mod build;
pub(crate) mod fields;
pub(crate) mod json;
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

pub(crate) use build::object;

/// `value` as compact JSON text. The crate writes a `Value` through this
/// (the crate's own writer, `json::write`) and [`JsonText`], never through
/// `Value`'s own `Display`: that one is two more copies of serde_json's
/// writer in the wasm, a compact and a pretty one (docs/size.md, session 29).
pub(crate) fn json_text(value: &serde_json::Value) -> String {
    let mut out = String::new();
    json::write(value, &mut out);
    out
}

/// Shows a `Value` as compact JSON in `format!` and `write!`, through
/// [`json_text`].
pub(crate) struct JsonText<'a>(pub(crate) &'a serde_json::Value);

impl std::fmt::Display for JsonText<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&json_text(self.0))
    }
}

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
