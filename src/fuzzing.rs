//! The door for the fuzz targets in `fuzz/` (feature `fuzzing`): one entry
//! point per parser that reads bytes from outside, each taking the raw
//! input. Hidden from the docs; not an API.
//!
//! The entry points check more than "no panic": each asserts a property the
//! parser promises (chunking does not change SSE events, a decoded message
//! re-encodes to itself, a parsed URL prints back to a URL that parses to the
//! same parts), so the fuzzer finds wrong answers too. The corpus in
//! fuzz/corpus/ is replayed through them by this module's tests, so a crash
//! found once stays a regular `cargo test --lib` test.

use crate::auth::{challenge, metadata};
use crate::http::url::{self, Url};
use crate::protocol::{json, jsonrpc, raw, schema};
use crate::transport::sse::{SseEvent, SseParser};

/// The SSE parser: the whole input at once, then split at a point chosen by
/// its first byte and fed byte by byte after it, must give the same events,
/// last event id and retry. A small limit (the first byte again) exercises
/// the size-limit paths too.
pub fn sse(data: &[u8]) {
    let Some((&selector, stream)) = data.split_first() else { return };
    let limit = 16 + usize::from(selector & 0x3f) * 4;
    let whole = run_sse(limit, &[stream]);
    let cut = usize::from(selector).min(stream.len());
    let (head, tail) = stream.split_at(cut);
    let mut pieces = vec![head];
    pieces.extend(tail.chunks(1));
    let split = run_sse(limit, &pieces);
    assert_eq!(whole, split, "the events depend on where the stream was cut");
}

type SseRun = (Vec<SseEvent>, usize, String, Option<std::time::Duration>);

fn run_sse(limit: usize, chunks: &[&[u8]]) -> SseRun {
    let mut parser = SseParser::with_limit(limit);
    let mut events = Vec::new();
    let mut errors = 0;
    for chunk in chunks {
        if parser.feed(chunk, &mut events).is_err() {
            errors += 1;
        }
    }
    for event in &events {
        assert!(event.data.len() <= limit, "an event larger than the limit was dispatched");
        assert!(!event.id.contains('\0'), "an id with NUL was adopted");
    }
    parser.finish();
    // Errors are counted per chunk, so only whether there was one compares.
    (events, errors.min(1), parser.last_event_id().to_owned(), parser.retry())
}

/// The JSON-RPC codec: whatever decodes re-encodes to JSON that decodes to
/// the same message. Floats too: they are read correctly rounded, so a
/// float's shortest text reads as that float (fuzz/corpus/jsonrpc/
/// float-shortest-text, `9.999999999999999e55`, read as `1e56` while floats
/// were read as serde_json reads them without `float_roundtrip`).
pub fn jsonrpc(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let Ok(messages) = jsonrpc::decode(text) else { return };
    for message in messages.into_iter().flatten() {
        let encoded = message.to_json();
        let again = jsonrpc::decode_one(&encoded).unwrap_or_else(|e| panic!("{encoded} does not decode: {e}"));
        assert!(again == message, "{encoded} decodes to another message: {again:?}");
    }
}

/// The `WWW-Authenticate` parser, and the Bearer challenge picked from it.
pub fn www_authenticate(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else { return };
    if let Ok(challenges) = challenge::parse(text) {
        for found in &challenges {
            let _ = found.param("realm");
        }
    }
    if let Some(bearer) = challenge::bearer(text.split('\n')) {
        let _ = bearer.is_insufficient_scope();
    }
}

/// The URL module: a parsed URL prints back to one that parses to the same
/// parts; joining and resolving references never panic.
pub fn url(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let (base, reference) = text.split_once('\n').unwrap_or((text, ""));
    if let Ok(parsed) = Url::parse(base) {
        let printed = parsed.to_string();
        let again = Url::parse(&printed).unwrap_or_else(|e| panic!("{base:?} printed as {printed:?}: {e}"));
        assert_eq!(again, parsed, "{base:?} printed as {printed:?} parses differently");
        let _ = (parsed.origin(), parsed.same_origin(&again), parsed.is_loopback(), parsed.query_pairs());
        let _ = parsed.join(reference);
    }
    // Only the legacy transport resolves references (its `endpoint` event).
    #[cfg(feature = "legacy-sse")]
    {
        let _ = url::resolve(base, reference);
        let _ = url::origin_parts(base);
    }
    let _ = url::parse_form(text);
}

/// The OAuth metadata parsers (protected resource, authorization server),
/// with the URL lists they are fetched from.
pub fn metadata(data: &[u8]) {
    const SERVER: &str = "https://mcp.example/mcp";
    const ISSUER: &str = "https://as.example";
    for allow_insecure in [false, true] {
        let _ = metadata::parse_protected_resource(data, "https://mcp.example/.well-known/x", SERVER, allow_insecure);
        let _ = metadata::parse_authorization_server(data, "https://as.example/.well-known/y", ISSUER, allow_insecure);
    }
    if let Ok(text) = std::str::from_utf8(data) {
        let _ = metadata::protected_resource_urls(SERVER, Some(text));
        let _ = metadata::authorization_server_urls(text);
    }
}

/// The crate's JSON reader and writer (`protocol::json`) and the span
/// reader every result goes through (`protocol::raw`): a `Value` read is
/// the one serde_json reads (floats bit for bit, as its `float_roundtrip`
/// reads them: the nearest float), and refused
/// where serde_json refuses it; a `Value` is written as serde_json writes
/// it; a syntax check passes what serde_json skips;
/// what the span reader reads as an object's members or an array's
/// elements is what serde_json reads, member by member, and it refuses
/// nothing serde_json reads as an object or array. `mentions` finds a needle exactly where `contains`
/// does (the first line is the needle, the first byte picks its anchor).
pub fn raw(data: &[u8]) {
    use serde_json::Value;
    let Some((&anchor, rest)) = data.split_first() else { return };
    let Ok(text) = std::str::from_utf8(rest) else { return };
    let (needle, haystack) = text.split_once('\n').unwrap_or(("", text));
    let anchor = usize::from(anchor) % needle.len().max(1);
    assert_eq!(raw::mentions(haystack, needle, anchor), haystack.contains(needle), "{needle:?} at {anchor}");

    let parsed = serde_json::from_str::<Value>(text);
    let skips = serde_json::from_str::<serde::de::IgnoredAny>(text).is_ok();
    match (json::parse(text), &parsed) {
        (Ok(ours), Ok(theirs)) => assert_eq!(&ours, theirs, "{text:?}"),
        (Err(_), Err(_)) => {}
        (ours, theirs) => panic!("{text:?}: {ours:?} vs {theirs:?}"),
    }
    if let Ok(value) = &parsed {
        let theirs = serde_json::to_string(value).unwrap_or_default();
        assert_eq!(crate::protocol::json_text(value), theirs, "writing {text:?}");
    }
    assert_eq!(json::check(text).is_ok(), skips, "checking {text:?}");
    match (raw::members(text), &parsed) {
        (Some(members), parsed) => {
            assert!(skips, "members of what serde_json does not read: {text:?}");
            if let Ok(Value::Object(map)) = parsed {
                assert!(members.iter().all(|(name, _)| map.contains_key(name)), "{text:?}");
                for (name, value) in map {
                    assert_eq!(raw::member(&members, name).as_ref(), Some(value), "member {name:?} of {text:?}");
                }
            }
            // A member a `Value` cannot hold is one serde_json cannot read.
            for (_, value) in &members {
                let holdable = raw::unholdable(value).is_none();
                assert_eq!(holdable, serde_json::from_str::<Value>(value).is_ok(), "{value:?}");
            }
        }
        (None, Ok(Value::Object(_))) => panic!("serde_json reads an object that members() refuses: {text:?}"),
        (None, _) => {}
    }
    match (raw::elements(text), &parsed) {
        (Some(elements), parsed) => {
            assert!(skips, "elements of what serde_json does not read: {text:?}");
            if let Ok(Value::Array(items)) = parsed {
                assert_eq!(elements.len(), items.len(), "{text:?}");
                for (span, item) in elements.iter().zip(items) {
                    assert_eq!(serde_json::from_str::<Value>(span).ok().as_ref(), Some(item), "{span:?} in {text:?}");
                }
            }
        }
        (None, Ok(Value::Array(_))) => panic!("serde_json reads an array that elements() refuses: {text:?}"),
        (None, _) => {}
    }
}

/// The JSON Schema validator, on `[schema, value]` JSON: it ends (its step
/// budget), `uniqueItems` finds an equal pair in every array of the value
/// exactly when a comparison of every pair does, and a quoted value is the
/// start of the value's JSON.
pub fn schema(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let Ok(serde_json::Value::Array(pair)) = serde_json::from_str(text) else { return };
    let [schema, value] = pair.as_slice() else { return };
    let _ = schema::validate(schema, value);
    let _ = schema::validate(value, schema);
    for value in [schema, value] {
        agrees_on_unique_items(value);
        let quoted = schema::quoted(value);
        let whole = value.to_string();
        let start = quoted.strip_suffix("...").unwrap_or(&quoted);
        assert!(whole.starts_with(start) && start.len() <= schema::QUOTED, "{quoted:?} quotes {whole:?}");
    }
}

fn agrees_on_unique_items(value: &serde_json::Value) {
    use serde_json::Value;
    match value {
        Value::Array(items) => {
            let pairwise = items.iter().enumerate().any(|(i, a)| items[..i].iter().any(|b| schema::equal(a, b)));
            let sorted = schema::equal_pair(items);
            assert_eq!(sorted.is_some(), pairwise, "uniqueItems of {value}");
            if let Some((j, i)) = sorted {
                assert!(j < i && schema::equal(&items[j], &items[i]), "items {j} and {i} of {value}");
            }
            items.iter().for_each(agrees_on_unique_items);
        }
        Value::Object(members) => members.values().for_each(agrees_on_unique_items),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    /// Every file of fuzz/corpus/<target>/ (the minimized corpus and any
    /// crash reproducer) through its entry point.
    fn replay(target: &str, run: fn(&[u8])) {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/corpus").join(target);
        let entries = std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
        let mut count = 0;
        for entry in entries {
            let path = entry.expect("a directory entry").path();
            let input = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            run(&input);
            count += 1;
        }
        assert!(count > 0, "{} is empty", dir.display());
    }

    #[test]
    fn sse_corpus() {
        replay("sse", super::sse);
    }

    #[test]
    fn jsonrpc_corpus() {
        replay("jsonrpc", super::jsonrpc);
    }

    #[test]
    fn www_authenticate_corpus() {
        replay("www_authenticate", super::www_authenticate);
    }

    #[test]
    fn url_corpus() {
        replay("url", super::url);
    }

    #[test]
    fn metadata_corpus() {
        replay("metadata", super::metadata);
    }

    #[test]
    fn raw_corpus() {
        replay("raw", super::raw);
    }

    #[test]
    fn schema_corpus() {
        replay("schema", super::schema);
    }
}
