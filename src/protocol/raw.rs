//! A result as the server sent it: its JSON text, checked but not parsed.
//!
//! Most results are only handed on: the JS face gives them to `JSON.parse`,
//! which builds them far faster than wasm can build a `Value` and serialize
//! it again (a 10,000-tool `tools/list` took 2.3x the TS SDK's time that
//! way). So the codec keeps a response's `result` as text, and whoever needs
//! its contents parses them, whole ([`RawResult::to_value`]) or only the
//! fields they read ([`RawResult::parse`] into a narrow struct, whose
//! unknown fields the parser skips without building them).

use std::fmt;
use std::sync::Arc;

use serde::de::DeserializeOwned;
use serde_json::Value;

use super::json;

/// A JSON object's members in order, each value left as its text. The
/// codec, the output-schema check and the JS face all read results through
/// this one shape (and [`elements`]) rather than a derived struct each; the
/// spans come from the crate's JSON reader (`protocol::json`).
pub(crate) type Members<'a> = Vec<(String, &'a str)>;

/// The members of the JSON object `text`; `None` when it is not one (the
/// caller asks the reader for the precise error).
pub(crate) fn members(text: &str) -> Option<Members<'_>> {
    let mut reader = json::Reader::new(text);
    let mut found = Vec::new();
    reader
        .members(|name, reader| {
            let value = reader.span(false)?;
            found.push((name.into_owned(), value));
            Ok(())
        })
        .ok()?;
    reader.end().ok()?;
    Some(found)
}

/// The elements of the JSON array `text`, each left as its text.
pub(crate) fn elements(text: &str) -> Option<Vec<&str>> {
    let mut reader = json::Reader::new(text);
    let mut found = Vec::new();
    reader.elements(|reader| reader.span(false).map(|value| found.push(value))).ok()?;
    reader.end().ok()?;
    Some(found)
}

/// The text of the member `key` (the last, if given twice, as in a `Value`).
pub(crate) fn member_text<'a>(members: &Members<'a>, key: &str) -> Option<&'a str> {
    members.iter().rev().find(|(name, _)| name == key).map(|(_, text)| *text)
}

/// A member's value (`None` when absent; the text was checked, so only a
/// nesting deeper than the parser allows reads as `null`).
pub(crate) fn member(members: &Members<'_>, key: &str) -> Option<Value> {
    member_text(members, key).map(|text| json::parse(text).unwrap_or(Value::Null))
}

/// A `T` read from a `Value` by way of its text.
///
/// `serde_json::from_value` makes every `Deserialize` impl it reaches a
/// second copy in the wasm module, for serde_json's `Value` deserializer
/// (with its byte-slice parser, 10 KB of the lite wasm net, 1.9 KB gzip;
/// docs/size.md). The paths that turn a `Value` into a
/// type are cold (JS options, the handshake, a server request's params,
/// error objects), so they pay one serialization instead, and the module
/// keeps one parser: the one reading text. The message leaves out the
/// position, which would point into text the caller never saw.
pub(crate) fn from_value<T: DeserializeOwned>(value: &Value) -> serde_json::Result<T> {
    from_text(&super::json_text(value))
}

/// [`serde_json::from_str`] with the error's position left out.
fn from_text<T: DeserializeOwned>(text: &str) -> serde_json::Result<T> {
    crate::protocol::objects::from_str(text).map_err(without_position)
}

/// The error without its line and column (a function of its own, not a
/// closure: it is compiled once rather than once per type read).
fn without_position(e: serde_json::Error) -> serde_json::Error {
    if e.line() == 0 {
        return e;
    }
    let message = e.to_string();
    let message = message.rsplit_once(" at line ").map_or(message.as_str(), |(message, _)| message);
    serde::de::Error::custom(message)
}

/// Why the JSON value `text` cannot be held in a `Value` (nested too deep,
/// or a number no `f64` holds); `None` when it can.
pub(crate) fn unholdable(text: &str) -> Option<String> {
    let mut reader = json::Reader::new(text);
    reader.span(true).and_then(|_| reader.end()).err().map(|e| e.to_string())
}

/// Whether `needle` occurs in `text`, looked for by its byte at `anchor`
/// (an ASCII byte rare in JSON, such as an uppercase letter or a
/// backslash): `memchr` (`str::find` of one character) skips to each one
/// and the bytes around it are compared. On a 10,000-tool page `contains`
/// with its two-way searcher took 1.9 ms for two needles, 6% of the list.
/// The crate's every search for a string goes through here: `core`'s
/// two-way searcher (about 2 KB of wasm) is then not in the module.
pub(crate) fn mentions(text: &str, needle: &str, anchor: usize) -> bool {
    let (bytes, wanted) = (text.as_bytes(), needle.as_bytes());
    let Some(&mark) = wanted.get(anchor).filter(|b| b.is_ascii()) else {
        // No ASCII byte to look for (no caller's case): every position.
        return wanted.is_empty() || bytes.windows(wanted.len()).any(|window| window == wanted);
    };
    let mut from = 0;
    // `from` follows an ASCII byte (or is 0), so it is a char boundary.
    while let Some(found) = text[from..].find(mark as char) {
        let at = from + found;
        if let Some(start) = at.checked_sub(anchor)
            && bytes.get(start..start + wanted.len()) == Some(wanted)
        {
            return true;
        }
        from = at + 1;
    }
    false
}

/// The JSON text of one result, valid JSON by construction.
///
/// A result decoded from a payload the transport gave up (a JSON body or
/// an SSE event's data) stays where it is in that text, which the result
/// then keeps: a large result (a file's contents) is held once, not copied
/// out of the body it came in. That matters most in wasm, whose memory
/// never shrinks: an 8 MB result grew it by 16 MB, now by 8 (docs/speed.md).
/// The results of a batch share its text, which lives until the last of
/// them is dropped. Clones share the text too.
#[derive(Clone)]
pub struct RawResult {
    text: Arc<String>,
    start: usize,
    end: usize,
}

impl RawResult {
    /// The result's text, exactly as it came (no surrounding whitespace).
    pub fn text(&self) -> &str {
        // The span was checked against the text when it was made.
        self.text.get(self.start..self.end).unwrap_or_default()
    }

    /// The result as a JSON value.
    pub fn to_value(&self) -> Result<Value, serde_json::Error> {
        Ok(self.value()?)
    }

    /// [`RawResult::to_value`] with the crate's own error: what the engine
    /// uses, so that no serde_json error is made (or shown) in the wasm.
    pub(crate) fn value(&self) -> Result<Value, json::JsonError> {
        json::parse(self.text())
    }

    /// The result read into `T`, which may name only the fields it needs.
    pub fn parse<T: DeserializeOwned>(&self) -> Result<T, serde_json::Error> {
        crate::protocol::objects::from_str(self.text())
    }

    /// Whether the result is a JSON object (every MCP result is).
    pub fn is_object(&self) -> bool {
        self.text().starts_with('{')
    }

    /// What kind of JSON value the result is, for messages: "an object",
    /// "an array", "a string", "a number", "a boolean" or "null".
    pub fn kind(&self) -> &'static str {
        match self.text().as_bytes().first() {
            Some(b'{') => "an object",
            Some(b'[') => "an array",
            Some(b'"') => "a string",
            Some(b't' | b'f') => "a boolean",
            Some(b'n') => "null",
            _ => "a number",
        }
    }

    /// A result of text that was checked to be one JSON value.
    pub(crate) fn from_checked(text: &str) -> Self {
        RawResult::whole(text.to_owned())
    }

    /// `part`, a checked JSON value that is a slice of `payload`, kept in
    /// place rather than copied.
    pub(crate) fn within(payload: &Arc<String>, part: &str) -> Self {
        // Where `part` starts in `payload`: the difference of the two
        // addresses, confirmed by slicing (a `part` from elsewhere is copied).
        let start = (part.as_ptr() as usize).wrapping_sub(payload.as_ptr() as usize);
        let end = start.saturating_add(part.len());
        match payload.get(start..end) {
            Some(found) if std::ptr::eq(found.as_ptr(), part.as_ptr()) => {
                RawResult { text: Arc::clone(payload), start, end }
            }
            _ => RawResult::from_checked(part),
        }
    }

    fn whole(text: String) -> Self {
        let end = text.len();
        RawResult { text: Arc::new(text), start: 0, end }
    }
}

impl From<Value> for RawResult {
    fn from(value: Value) -> Self {
        RawResult::from(&value)
    }
}

impl From<&Value> for RawResult {
    fn from(value: &Value) -> Self {
        // A `Value` always serializes (its map keys are strings); the
        // fallback only keeps this infallible.
        RawResult::whole(super::json_text(value))
    }
}

/// Two results are equal when they hold the same JSON value, whatever the
/// spacing or key order of their texts.
impl PartialEq for RawResult {
    fn eq(&self, other: &Self) -> bool {
        self.text() == other.text() || matches!((self.to_value(), other.to_value()), (Ok(a), Ok(b)) if a == b)
    }
}

impl PartialEq<Value> for RawResult {
    fn eq(&self, other: &Value) -> bool {
        self.to_value().is_ok_and(|value| &value == other)
    }
}

impl fmt::Debug for RawResult {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.text())
    }
}

impl fmt::Display for RawResult {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.text())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn members_keep_each_value_as_its_text() {
        let text = " {\"a\" : [1, {\"b\":\"}\"}] ,\"k\\u0065y\":-1.5e3,\"a\":null}\n";
        let found = members(text).unwrap_or_default();
        assert_eq!(found.len(), 3);
        assert_eq!(found[0], ("a".to_owned(), "[1, {\"b\":\"}\"}]"));
        assert_eq!(member_text(&found, "key"), Some("-1.5e3"));
        // A later duplicate wins, as in a `Value`.
        assert_eq!(member(&found, "a"), Some(Value::Null));
        assert_eq!(members("{}"), Some(vec![]));
        assert_eq!(elements(" [ ] "), Some(vec![]));
        assert_eq!(elements("[1,\"x\",{}]"), Some(vec!["1", "\"x\"", "{}"]));
    }

    #[test]
    fn a_result_within_its_payload_shares_it_and_one_from_elsewhere_is_copied() {
        let payload = Arc::new(String::from(r#"{"id":1,"result":{"a":[1,2]}}"#));
        let start = payload.find("{\"a\"").unwrap_or_default();
        let kept = RawResult::within(&payload, &payload[start..start + 11]);
        assert_eq!(kept.text(), r#"{"a":[1,2]}"#);
        assert_eq!(Arc::strong_count(&payload), 2, "the result keeps the payload");
        let copied = RawResult::within(&payload, r#"{"a":[1,2]}"#);
        assert_eq!(copied.text(), kept.text());
        assert_eq!(Arc::strong_count(&payload), 2, "text from elsewhere is copied, not tied to the payload");
        let clone = kept.clone();
        assert_eq!(clone.text(), r#"{"a":[1,2]}"#);
        assert_eq!(Arc::strong_count(&payload), 3, "clones share the text");
        drop((kept, clone));
        assert_eq!(Arc::strong_count(&payload), 1);
    }

    #[test]
    fn what_a_value_cannot_hold_is_named() {
        // serde_json's nesting limit: a value nested this deep is refused.
        let nested = |depth: usize| format!("{}{}", "[".repeat(depth), "]".repeat(depth));
        assert_eq!(unholdable(&nested(127)), None);
        assert!(unholdable(&nested(128)).is_some_and(|reason| reason.contains("recursion limit exceeded")));
        // A number no `f64` holds is refused as a `Value` refuses it.
        let huge = r#"{"n":1e400}"#;
        assert!(serde_json::from_str::<Value>(huge).is_err());
        assert!(
            unholdable(huge).is_some_and(|reason| reason.contains("number out of range")),
            "{:?}",
            unholdable(huge)
        );
        // Unbounded reading takes any depth.
        assert!(members(&format!(r#"{{"a":{}}}"#, nested(300))).is_some());
    }

    #[test]
    fn a_needle_is_found_by_its_rare_byte() {
        let page = r#"{"tools":[{"name":"é","outputSchema":{}}]}"#;
        assert!(mentions(page, "outputSchema", 6));
        assert!(mentions(r#"{"a":"\u0041"}"#, "\\u", 0));
        assert!(!mentions(r#"{"name":"Schema","output":"S"}"#, "outputSchema", 6));
        assert!(!mentions("Schema", "outputSchema", 6), "an anchor too near the start is no match");
        assert!(mentions("éoutputSchema", "outputSchema", 6));
        assert!(!mentions(r#"{"a":"\n"}"#, "\\u", 0));
    }

    #[test]
    fn what_is_not_one_json_object_or_array_is_refused() {
        for text in [
            "",
            "{",
            "{\"a\":1,}",
            "{\"a\" 1}",
            "{1:2}",
            "{\"a\":1}x",
            "{\"a\":1}{}",
            "{\"a\":NaN}",
            "{\"a\":\"\u{1}\"}",
            "\u{a0}{}",
            "[1,]",
            "[1 2]",
            "[",
            "{\"a\":[}",
        ] {
            assert!(members(text).is_none() && elements(text).is_none(), "accepted {text:?}");
        }
    }
}
