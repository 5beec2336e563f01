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

/// Bytes from a peer as text, each invalid sequence replaced by U+FFFD as
/// `String::from_utf8_lossy` replaces it. Valid UTF-8 (the rule) is checked
/// once by `str::from_utf8`, several times faster than the lossy decoder's
/// walk over a large body; the rest of an invalid text is cut at each error
/// `str::from_utf8` reports, so the wasm has one UTF-8 validator, not a
/// second one in `Utf8Chunks` (0.7 KB).
pub(crate) fn utf8_lossy(bytes: &[u8]) -> std::borrow::Cow<'_, str> {
    let mut rest = match std::str::from_utf8(bytes) {
        Ok(text) => return std::borrow::Cow::Borrowed(text),
        Err(_) => bytes,
    };
    let mut out = String::with_capacity(bytes.len());
    loop {
        match std::str::from_utf8(rest) {
            Ok(text) => {
                out.push_str(text);
                return std::borrow::Cow::Owned(out);
            }
            Err(error) => {
                let (valid, after) = rest.split_at(error.valid_up_to());
                // What `from_utf8` accepted up to the error is valid.
                out.push_str(std::str::from_utf8(valid).unwrap_or_default());
                out.push(char::REPLACEMENT_CHARACTER);
                // `None`: the text ends inside a sequence, one replacement for it.
                rest = after.get(error.error_len().unwrap_or(after.len())..).unwrap_or_default();
            }
        }
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
