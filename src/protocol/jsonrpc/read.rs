//! Reading messages: one payload (a message or a batch) into [`Message`]s,
//! with a typed error for whatever a peer sends that is not one.

use std::sync::Arc;

use serde_json::Value;

use super::{DecodeError, ErrorObject, Message, Notification, Request, RequestId, Response};
use crate::protocol::JsonText;
use crate::protocol::json::{self, JsonError};
use crate::protocol::raw::{self, RawResult};

/// Decodes one payload: a single message, or a batch of them.
///
/// The outer `Result` fails when the payload is not JSON; inside a batch each
/// element succeeds or fails on its own, so one bad element does not lose the
/// others.
pub fn decode(payload: &str) -> Result<Vec<Result<Message, DecodeError>>, DecodeError> {
    decode_in(payload, None)
}

/// [`decode`] of a payload its owner gives up: each message's result stays
/// in it ([`RawResult`]), not copied out.
pub(crate) fn decode_owned(payload: String) -> Result<Vec<Result<Message, DecodeError>>, DecodeError> {
    let shared = Arc::new(payload);
    decode_in(&shared, Some(&shared))
}

/// [`decode`]; with `shared`, the text `payload` is, results stay in it.
fn decode_in(payload: &str, shared: Option<&Arc<String>>) -> Result<Vec<Result<Message, DecodeError>>, DecodeError> {
    let payload = payload.strip_prefix('\u{feff}').unwrap_or(payload);
    if first_byte(payload) == Some(b'[') {
        let Some(items) = raw::elements(payload) else { return Err(syntax_error(payload)) };
        if items.is_empty() {
            return Err(DecodeError::EmptyBatch);
        }
        return Ok(items.into_iter().map(|item| decode_text(item, shared)).collect());
    }
    match decode_text(payload, shared) {
        Err(error @ DecodeError::NotJson(_)) => Err(error),
        one => Ok(vec![one]),
    }
}

/// The first byte of `payload` that is not JSON whitespace (what may come
/// before a value: text that starts with other whitespace is not JSON).
fn first_byte(payload: &str) -> Option<u8> {
    payload.bytes().find(|b| !matches!(b, b' ' | b'\t' | b'\n' | b'\r'))
}

/// Decodes a payload that must hold exactly one message (no batch).
pub fn decode_one(payload: &str) -> Result<Message, DecodeError> {
    decode_text(payload.strip_prefix('\u{feff}').unwrap_or(payload), None)
}

/// Decodes the text of one message (not a batch); with `shared`, the text
/// `payload` is a slice of, its result stays in it.
fn decode_text(payload: &str, shared: Option<&Arc<String>>) -> Result<Message, DecodeError> {
    if first_byte(payload) != Some(b'{') {
        // Not an object: say whether it is JSON at all.
        parse(payload)?;
        return Err(DecodeError::Invalid("a message must be a JSON object".into()));
    }
    let Some(parts) = Parts::read(payload) else { return Err(not_readable(payload)) };
    classify(parts, shared)
}

/// Why a message [`Parts::read`] refused cannot be read: a result nested
/// deeper than a `Value` holds, or with a number no `f64` holds, says so;
/// anything else is the reader's own error and position.
fn not_readable(payload: &str) -> DecodeError {
    let members = raw::members(payload);
    let unholdable = members.as_ref().and_then(|members| raw::member_text(members, "result")).and_then(raw::unholdable);
    match (unholdable, parse(payload)) {
        (Some(reason), _) => DecodeError::NotJson(format!("the result cannot be read: {reason}")),
        (None, Err(error)) => error,
        // Cannot happen (the same reader); said plainly if it does.
        (None, Ok(_)) => DecodeError::NotJson("the message cannot be read".into()),
    }
}

/// The members of a message the codec reads, each as the server gave it:
/// `None` when absent, `Some(Value::Null)` for an explicit `null` (as in a
/// map of the message), and the result as its text. Others are skipped; of
/// a member given twice the last counts, as in a map.
#[derive(Default)]
struct Parts<'a> {
    jsonrpc: Option<Value>,
    id: Option<Value>,
    method: Option<Value>,
    params: Option<Value>,
    error: Option<Value>,
    result: Option<&'a str>,
}

impl<'a> Parts<'a> {
    /// The members of the message `text` in one pass, each read as it
    /// comes (a `Value` map of the message would hash each key on the way
    /// in and again on the way out, and a progress flood is thousands of
    /// these a second). The result is not built: its text is checked to
    /// be one value a `Value` can hold (so one nested deeper is refused
    /// now, not when somebody parses it) and kept. `None` when `text` is
    /// not such an object.
    fn read(text: &'a str) -> Option<Parts<'a>> {
        let mut parts = Parts::default();
        let mut reader = json::Reader::new(text);
        reader
            .members(|name, reader| {
                let slot = match &*name {
                    "jsonrpc" => &mut parts.jsonrpc,
                    "id" => &mut parts.id,
                    "method" => &mut parts.method,
                    "params" => &mut parts.params,
                    "error" => &mut parts.error,
                    "result" => return reader.span(true).map(|text| parts.result = Some(text)),
                    _ => return reader.span(false).map(drop),
                };
                *slot = Some(reader.value()?);
                Ok(())
            })
            .ok()?;
        reader.end().ok()?;
        Some(parts)
    }
}

/// Parses a payload as JSON. A leading byte order mark is skipped, as
/// browsers do for a JSON body (so native and web agree).
fn parse(payload: &str) -> Result<Value, DecodeError> {
    let payload = payload.strip_prefix('\u{feff}').unwrap_or(payload);
    json::parse(payload).map_err(|error| not_json(payload, &error))
}

/// Why `payload`, which the span reader refused, is not JSON: the
/// reader's words and position.
fn syntax_error(payload: &str) -> DecodeError {
    match json::check(payload) {
        Err(error) => not_json(payload, &error),
        // Cannot happen (the same reader); said plainly if it does.
        Ok(()) => DecodeError::NotJson("the payload cannot be read".into()),
    }
}

/// A syntax error, naming what JSON-RPC peers are known to send instead of
/// JSON (`NaN`, `Infinity`).
fn not_json(payload: &str, error: &JsonError) -> DecodeError {
    let rest = crate::ascii::trim_start_any(payload.get(error.offset()..).unwrap_or_default(), b"-+");
    let word = if rest.starts_with("NaN") {
        Some("NaN")
    } else if rest.starts_with("Infinity") {
        Some("Infinity")
    } else {
        None
    };
    match word {
        Some(word) => DecodeError::NotJson(format!("{error} ({word} is not a JSON number)")),
        None => DecodeError::NotJson(error.to_string()),
    }
}

/// Classifies a message's members; a result is kept (in `shared`, the
/// text the payload is a slice of, if given) only in a valid response.
fn classify(parts: Parts<'_>, shared: Option<&Arc<String>>) -> Result<Message, DecodeError> {
    match &parts.jsonrpc {
        Some(Value::String(v)) if v == "2.0" => {}
        Some(other) => {
            return Err(DecodeError::Invalid(format!("\"jsonrpc\" must be \"2.0\", found {}", JsonText(other))));
        }
        None => return Err(DecodeError::Invalid("missing \"jsonrpc\": \"2.0\"".into())),
    }
    let id = match parts.id {
        None | Some(Value::Null) => None,
        Some(raw) => Some(RequestId::from_value(&raw).ok_or_else(|| {
            DecodeError::Invalid(format!("an id must be a string or an integer, found {}", JsonText(&raw)))
        })?),
    };
    let params = parts.params;
    if let Some(method) = parts.method {
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
    match (parts.result, parts.error) {
        (Some(_), Some(_)) => Err(DecodeError::Invalid("a response has both \"result\" and \"error\"".into())),
        (Some(text), None) => {
            let id = id.ok_or_else(|| DecodeError::Invalid("a result response has no id".into()))?;
            let result = match shared {
                Some(payload) => RawResult::within(payload, text),
                None => RawResult::from_checked(text),
            };
            Ok(Message::Response(Response { id: Some(id), outcome: Ok(result) }))
        }
        (None, Some(error)) => {
            // A malformed error still carries the server's words: keep them.
            let said = error.get("message").and_then(Value::as_str).map(|m| m.chars().take(300).collect::<String>());
            let error: ErrorObject = super::super::fields::from_value(error, "an object").map_err(|e| {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_payload_given_up_decodes_as_one_lent() {
        let deep = format!(r#"{{"jsonrpc":"2.0","id":3,"result":{}}}"#, "[".repeat(200) + &"]".repeat(200));
        let payloads = [
            r#"{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"hi \"there\""}]}}"#,
            "\u{feff} {\"jsonrpc\":\"2.0\",\"id\":\"a\",\"result\":{}}\n",
            r#"{"result":{"x":1},"id":2,"jsonrpc":"2.0"}"#,
            r#"[{"jsonrpc":"2.0","id":1,"result":{}},{"jsonrpc":"2.0","id":2,"result":{"a":1}}]"#,
            r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":2}}"#,
            r#"{"jsonrpc":"2.0","id":4,"error":{"code":-32601,"message":"no"}}"#,
            r#"{"jsonrpc":"2.0","id":5,"result":{},"result":{"twice":true}}"#,
            r#"{"jsonrpc":"2.0","id":6,"result":"#,
            "not json",
            "[]",
            &deep,
        ];
        for payload in payloads {
            assert_eq!(decode_owned(payload.to_owned()), decode(payload), "{payload}");
        }
    }

    #[test]
    fn a_result_may_nest_as_deep_as_a_value_and_no_deeper() {
        let nested = |depth: usize| format!("{}{}", "[".repeat(depth), "]".repeat(depth));
        // Other members are skipped whatever their depth.
        let message = |result: &str| format!(r#"{{"jsonrpc":"2.0","id":1,"result":{result},"other":{}}}"#, nested(133));
        let result_of = |payload: &str| match decode_one(payload) {
            Ok(Message::Response(Response { outcome: Ok(result), .. })) => Ok(result.text().to_owned()),
            other => Err(format!("{other:?}")),
        };
        let holdable = nested(127);
        assert_eq!(result_of(&message(&holdable)), Ok(holdable));
        let too_deep = result_of(&message(&nested(128)));
        assert!(
            too_deep.as_ref().is_err_and(|e| e.contains("the result cannot be read: recursion limit exceeded")),
            "{too_deep:?}"
        );
        let huge = result_of(&message(r#"{"n":1e400}"#));
        assert!(huge.as_ref().is_err_and(|e| e.contains("number out of range")), "{huge:?}");
        // Brackets inside strings (escaped quotes too) do not count; every
        // kind of value is read.
        let quoted = format!(r#"{{"a":"\"{}\\","b":[1,-2.5e3,true,null,{{"c":"d"}}]}}"#, "[".repeat(300));
        assert_eq!(result_of(&message(&quoted)), Ok(quoted));
    }

    #[test]
    fn a_result_is_read_in_place_not_copied_out_of_its_payload() {
        let payload = format!(r#"{{"jsonrpc":"2.0","id":1,"result":{{"text":"{}"}}}}"#, "x".repeat(1 << 20));
        let bytes = payload.as_ptr() as usize..payload.as_ptr() as usize + payload.len();
        let Ok(mut messages) = decode_owned(payload) else { panic!("a response") };
        let Some(Ok(Message::Response(Response { outcome: Ok(result), .. }))) = messages.pop() else {
            panic!("one response")
        };
        assert_eq!(result.text().len(), (1 << 20) + r#"{"text":""}"#.len());
        assert!(bytes.contains(&(result.text().as_ptr() as usize)), "the result is the payload's own bytes");
    }

    #[test]
    fn a_result_kept_in_its_payload_reads_as_the_server_wrote_it() {
        let payload = r#"{"jsonrpc":"2.0","id":7,"result":  {"content":[{"type":"text","text":"é ✓"}]}  }"#;
        let Ok(mut messages) = decode_owned(payload.to_owned()) else { panic!("{payload} did not decode") };
        let Some(Ok(Message::Response(Response { outcome: Ok(result), .. }))) = messages.pop() else {
            panic!("{payload} is one response")
        };
        assert_eq!(result.text(), r#"{"content":[{"type":"text","text":"é ✓"}]}"#);
    }
}
