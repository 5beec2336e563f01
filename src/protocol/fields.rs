//! Structs read field by field from a JSON object read as a map.
//!
//! serde's derived `Deserialize` is compiled once per struct: the matching of
//! member names, a `next_value` per field type, the checks for repeated and
//! missing fields, and every struct nested in it inlined into it. The types
//! the client reads on its own (the `initialize` result, errors, listen
//! filters, roots, OAuth documents and records, snapshots and verdicts)
//! read the object as a `Value` instead, with the reader every `Value`
//! already uses, and take each field out of it with a small helper that is
//! not generic. With no derived reader left in the wasm, serde's struct
//! machinery left too (the field visitors, a `next_value` per field type,
//! the readers of `String`, `bool` and `Vec<String>`): -5.2 KB gzip of the
//! lite package's wasm, -6.3 KB of the full one (docs/size.md, session 31).
//! The types the typed Rust API returns (`ListToolsResult`, ...) keep their
//! derived readers: the JS API hands results on as text and never reads them.
//!
//! As lenient as the derived readers: unknown members are ignored, and a
//! `null` where an optional field belongs is the field absent. Two things
//! differ: a member given twice is taken at its last value (as a `Map`
//! keeps it) rather than refused, and a member of the wrong type is named
//! in this module's words ("`name` is not a string").

use std::collections::HashMap;

use serde::{Deserialize, Deserializer};
use serde_json::{Map, Value};

use super::json_kind;

/// An object's members, taken out one field at a time. A member that is
/// missing or of the wrong type does not stop the reading: the first such
/// error is kept, the field gets an empty value, and [`Fields::done`]
/// gives the error instead of the value. So a `from_fields` builds its
/// struct in one expression with no early return from each field, whose
/// code to drop the fields read before it was much of a reader's size:
/// -2.3 KB gzip of the lite wasm, -2.8 KB of the full one (docs/size.md,
/// session 31).
pub(crate) struct Fields {
    members: Map<String, Value>,
    error: Option<String>,
}

impl Fields {
    /// The object `deserializer` holds; anything else is refused as not
    /// `expecting` ("an object", "a snapshot (an object)").
    pub(crate) fn read<'de, D: Deserializer<'de>>(deserializer: D, expecting: &str) -> Result<Self, D::Error> {
        match Value::deserialize(deserializer)? {
            Value::Object(object) => Ok(Fields::of(object)),
            other => {
                Err(serde::de::Error::custom(format_args!("invalid type: {}, expected {expecting}", json_kind(&other))))
            }
        }
    }

    /// The members of an object already read.
    pub(crate) fn of(members: Map<String, Value>) -> Self {
        Fields { members, error: None }
    }

    /// `value`, or the first error met while reading it.
    pub(crate) fn done<T>(&mut self, value: T) -> Result<T, String> {
        match self.error.take() {
            Some(error) => Err(error),
            None => Ok(value),
        }
    }

    /// Keeps `error` if it is the first.
    #[inline(never)]
    pub(crate) fn fail(&mut self, error: String) {
        self.error.get_or_insert(error);
    }

    /// The first error met, or `key` missing: why a field that must be
    /// there could not be read.
    pub(crate) fn failure(&mut self, key: &str) -> String {
        self.error.take().unwrap_or_else(|| missing(key))
    }

    /// The member `key`, if present and not `null`.
    pub(crate) fn value(&mut self, key: &str) -> Option<Value> {
        self.members.remove(key).filter(|value| !value.is_null())
    }

    /// A member that must be there.
    fn required(&mut self, key: &str) -> Option<Value> {
        let found = self.value(key);
        if found.is_none() {
            self.fail(missing(key));
        }
        found
    }

    /// `found` as `kind` ("a string") by `read`, or the error.
    fn typed<T>(&mut self, key: &str, found: Option<Value>, kind: &str, read: fn(Value) -> Option<T>) -> Option<T> {
        let read = read(found?);
        if read.is_none() {
            self.wrong_type(key, kind);
        }
        read
    }

    /// Out of line, as the errors of every generic reader here: once, not
    /// once per type read.
    #[inline(never)]
    fn wrong_type(&mut self, key: &str, kind: &str) {
        self.fail(not_a(key, kind));
    }

    /// A string member.
    pub(crate) fn string(&mut self, key: &str) -> Option<String> {
        let found = self.value(key);
        self.typed(key, found, "a string", as_string)
    }

    /// A string member that must be there (empty when it is not).
    pub(crate) fn required_string(&mut self, key: &str) -> String {
        let found = self.required(key);
        self.typed(key, found, "a string", as_string).unwrap_or_default()
    }

    /// An object member.
    pub(crate) fn object(&mut self, key: &str) -> Option<Map<String, Value>> {
        let found = self.value(key);
        self.typed(key, found, "an object", as_object)
    }

    /// A boolean member.
    pub(crate) fn boolean(&mut self, key: &str) -> Option<bool> {
        let found = self.value(key);
        self.typed(key, found, "a boolean", |found| found.as_bool())
    }

    /// A boolean member, `false` when absent.
    pub(crate) fn flag(&mut self, key: &str) -> bool {
        self.boolean(key).unwrap_or_default()
    }

    /// An integer member that must be there.
    pub(crate) fn required_integer(&mut self, key: &str) -> i64 {
        let found = self.required(key);
        self.typed(key, found, "an integer", |found| found.as_i64()).unwrap_or_default()
    }

    /// A number.
    pub(crate) fn number(&mut self, key: &str) -> Option<f64> {
        let found = self.value(key);
        self.typed(key, found, "a number", |found| found.as_f64())
    }

    /// A number that must be there.
    pub(crate) fn required_number(&mut self, key: &str) -> f64 {
        let found = self.required(key);
        self.typed(key, found, "a number", |found| found.as_f64()).unwrap_or_default()
    }

    /// A whole number from 0 (seconds since the epoch, say).
    pub(crate) fn unsigned(&mut self, key: &str) -> Option<u64> {
        let found = self.value(key);
        self.typed(key, found, "a whole number", |found| found.as_u64())
    }

    /// A whole number from 0 that must be there.
    pub(crate) fn required_unsigned(&mut self, key: &str) -> u64 {
        let found = self.required(key);
        self.typed(key, found, "a whole number", |found| found.as_u64()).unwrap_or_default()
    }

    /// A version number: a whole number from 0 that fits a `u32`.
    pub(crate) fn version(&mut self, key: &str) -> u32 {
        let version = self.required_unsigned(key);
        u32::try_from(version).unwrap_or_else(|_| {
            self.fail(format!("`{key}` {version} is not a version"));
            0
        })
    }

    /// An array of strings.
    pub(crate) fn strings(&mut self, key: &str) -> Option<Vec<String>> {
        let found = self.value(key);
        self.typed(key, found, "an array of strings", as_strings)
    }

    /// An array of strings that must be there.
    pub(crate) fn required_strings(&mut self, key: &str) -> Vec<String> {
        let found = self.required(key);
        self.typed(key, found, "an array of strings", as_strings).unwrap_or_default()
    }

    /// An array of objects, each read by `read`; empty when absent.
    pub(crate) fn objects<T>(&mut self, key: &str, read: fn(&mut Fields) -> Result<T, String>) -> Vec<T> {
        let found = self.value(key).map(|found| objects_in(found, key, read));
        self.kept(found).unwrap_or_default()
    }

    /// An object member whose members are each read by `read` (given the
    /// member's value and its key, for messages); empty when absent.
    pub(crate) fn map_of<T>(
        &mut self,
        key: &str,
        read: impl Fn(Value, &str) -> Result<T, String>,
    ) -> HashMap<String, T> {
        let members = self.object(key).unwrap_or_default();
        let read = members.into_iter().map(|(name, found)| read(found, &name).map(|read| (name, read))).collect();
        self.kept(Some(read)).unwrap_or_default()
    }

    /// An object member read by `read`.
    pub(crate) fn nested<T>(&mut self, key: &str, read: fn(&mut Fields) -> Result<T, String>) -> Option<T> {
        let found = self.object(key).map(|object| read(&mut Fields::of(object)));
        self.kept(found)
    }

    /// What a reading gave, its error kept.
    fn kept<T>(&mut self, read: Option<Result<T, String>>) -> Option<T> {
        match read? {
            Ok(read) => Some(read),
            Err(error) => {
                self.fail(error);
                None
            }
        }
    }
}

fn as_string(found: Value) -> Option<String> {
    match found {
        Value::String(found) => Some(found),
        _ => None,
    }
}

/// Loops, not `collect` into an `Option` or a `Result`: each of those is an
/// iterator adapter of its own in the wasm.
fn as_strings(found: Value) -> Option<Vec<String>> {
    let Value::Array(items) = found else { return None };
    let mut strings = Vec::with_capacity(items.len());
    for item in items {
        strings.push(as_string(item)?);
    }
    Some(strings)
}

fn as_object(found: Value) -> Option<Map<String, Value>> {
    match found {
        Value::Object(found) => Some(found),
        _ => None,
    }
}

/// A type read field by field ([`deserialize_by_fields!`] implements it).
pub(crate) trait FromFields: Sized {
    /// The type from an object's members.
    fn from_fields(fields: &mut Fields) -> Result<Self, String>;
}

/// A `T` from a `Value` already parsed, with no JSON text in between (what
/// serde would need: its `Value` reader is not in the wasm, see
/// `raw::from_value`); anything but an object is refused as not
/// `expecting`.
pub(crate) fn from_value<T: FromFields>(value: Value, expecting: &str) -> Result<T, String> {
    match value {
        Value::Object(object) => T::from_fields(&mut Fields::of(object)),
        other => Err(not_an_object(&other, expecting)),
    }
}

/// The error of [`from_value`], out of line: once, not once per type read.
#[inline(never)]
fn not_an_object(other: &Value, expecting: &str) -> String {
    format!("invalid type: {}, expected {expecting}", json_kind(other))
}

/// A `T` from JSON (UTF-8 bytes), parsed by the crate's reader
/// (`protocol::json`) and read field by field: no serde reader of the
/// text, and none of `T`.
pub(crate) fn from_bytes<T: FromFields>(bytes: &[u8], expecting: &str) -> Result<T, String> {
    match super::json::parse_bytes(bytes) {
        Ok(value) => from_value(value, expecting),
        Err(error) => Err(not_json(error)),
    }
}

/// The error of [`from_bytes`], out of line (see [`not_an_object`]).
#[inline(never)]
fn not_json(error: super::json::JsonError) -> String {
    error.to_string()
}

/// `found`, an array of objects, each read by `read`; `key` names it in
/// the error.
pub(crate) fn objects_in<T>(
    found: Value,
    key: &str,
    read: fn(&mut Fields) -> Result<T, String>,
) -> Result<Vec<T>, String> {
    match found {
        Value::Array(items) => {
            let mut objects = Vec::with_capacity(items.len());
            for item in items {
                let Value::Object(object) = item else { return Err(not_a(key, "an array of objects")) };
                objects.push(read(&mut Fields::of(object))?);
            }
            Ok(objects)
        }
        _ => Err(not_a(key, "an array of objects")),
    }
}

/// "`key` is not `kind`", out of line (see [`Fields::typed`]).
#[inline(never)]
fn not_a(key: &str, kind: &str) -> String {
    format!("`{key}` is not {kind}")
}

/// `found`, an object, read by `read`; `key` names it in the error.
pub(crate) fn object_in<T>(found: Value, key: &str, read: fn(&mut Fields) -> Result<T, String>) -> Result<T, String> {
    match found {
        Value::Object(object) => read(&mut Fields::of(object)),
        _ => Err(not_a(key, "an object")),
    }
}

/// The error of a member that must be there.
pub(crate) fn missing(key: &str) -> String {
    format!("missing field `{key}`")
}

/// `impl Deserialize for $type` by way of its
/// `fn from_fields(&mut Fields) -> Result<Self, String>`; a value that is
/// not an object is refused as not `$expecting` (default "an object").
macro_rules! deserialize_by_fields {
    ($type:ty) => {
        $crate::protocol::fields::deserialize_by_fields!($type, "an object");
    };
    ($type:ty, $expecting:literal) => {
        impl $crate::protocol::fields::FromFields for $type {
            fn from_fields(fields: &mut $crate::protocol::fields::Fields) -> Result<Self, String> {
                <$type>::from_fields(fields)
            }
        }

        impl<'de> serde::Deserialize<'de> for $type {
            fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                let mut fields = $crate::protocol::fields::Fields::read(deserializer, $expecting)?;
                <$type>::from_fields(&mut fields).map_err(serde::de::Error::custom)
            }
        }
    };
}
pub(crate) use deserialize_by_fields;

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn fields(value: Value) -> Fields {
        match value {
            Value::Object(object) => Fields::of(object),
            _ => unreachable!("the tests give objects"),
        }
    }

    /// A member to read and a reading of it.
    type Case = (Value, fn(&mut Fields));

    /// A `from_fields` of one string member `s`.
    fn string(fields: &mut Fields) -> Result<String, String> {
        let value = fields.required_string("s");
        fields.done(value)
    }

    #[test]
    fn each_kind_is_read_and_null_is_absent() {
        let mut read = fields(json!({
            "s": "x", "o": {"a": 1}, "b": true, "i": -32601, "u": 1700000000, "f": 0.5, "l": ["a", "b"],
            "n": null, "v": [1], "os": [{"s": "y"}], "no": {"s": "z"}, "m": {"k": {"s": "w"}}
        }));
        assert_eq!(read.string("s"), Some("x".into()));
        assert_eq!(read.object("o"), json!({"a": 1}).as_object().cloned());
        assert_eq!(read.boolean("b"), Some(true));
        assert_eq!(read.required_integer("i"), -32601);
        assert_eq!(read.unsigned("u"), Some(1_700_000_000));
        assert_eq!(read.number("f"), Some(0.5));
        assert_eq!(read.strings("l"), Some(vec!["a".to_string(), "b".to_string()]));
        assert_eq!(read.string("n"), None);
        assert_eq!(read.value("v"), Some(json!([1])));
        assert_eq!(read.objects("os", string), vec!["y".to_string()]);
        assert_eq!(read.nested("no", string), Some("z".to_string()));
        let map = read.map_of("m", |found, key| object_in(found, key, string));
        assert_eq!(map.get("k").map(String::as_str), Some("w"));
        // Absent, and not an error.
        assert_eq!(read.boolean("absent"), None);
        assert!(!read.flag("absent"));
        assert_eq!(read.strings("absent"), None);
        assert_eq!(read.object("absent"), None);
        assert_eq!(read.objects("absent", string), Vec::<String>::new());
        assert_eq!(read.nested("absent", string), None);
        assert_eq!(read.done(()), Ok(()));
    }

    #[test]
    fn what_is_not_an_object_is_refused_as_not_what_was_expected() {
        for (text, kind) in [("null", "null"), ("[1]", "an array"), ("\"x\"", "a string"), ("3", "a number")] {
            let mut reader = serde_json::Deserializer::from_str(text);
            let error = Fields::read(&mut reader, "a thing (an object)").err().map(|e| e.to_string());
            let expected = format!("invalid type: {kind}, expected a thing (an object)");
            assert!(error.as_deref().is_some_and(|e| e.starts_with(&expected)), "{text}: {error:?}");
        }
        let mut reader = serde_json::Deserializer::from_str(r#"{"a": 1}"#);
        assert!(Fields::read(&mut reader, "an object").is_ok_and(|mut read| read.value("a") == Some(json!(1))));
    }

    #[test]
    fn a_missing_or_mistyped_member_is_named_and_the_first_is_the_error() {
        let cases: [Case; 14] = [
            (json!({"k": 1}), |f| {
                let _ = f.string("k");
            }),
            (json!({"k": "x"}), |f| {
                let _ = f.object("k");
            }),
            (json!({"k": 1}), |f| {
                let _ = f.boolean("k");
            }),
            (json!({"k": 1.5}), |f| {
                let _ = f.required_integer("k");
            }),
            (json!({"k": -1}), |f| {
                let _ = f.unsigned("k");
            }),
            (json!({"k": 1.5}), |f| {
                let _ = f.unsigned("k");
            }),
            (json!({"k": "x"}), |f| {
                let _ = f.number("k");
            }),
            (json!({"k": ["a", 2]}), |f| {
                let _ = f.strings("k");
            }),
            (json!({"k": "no"}), |f| {
                let _ = f.strings("k");
            }),
            (json!({"k": [1]}), |f| {
                let _ = f.objects("k", string);
            }),
            (json!({"k": {}}), |f| {
                let _ = f.nested("k", string);
            }),
            (json!({}), |f| {
                let _ = f.required_string("k");
            }),
            (json!({"k": null}), |f| {
                let _ = f.required_strings("k");
            }),
            (json!({"k": 4294967296_u64}), |f| {
                let _ = f.version("k");
            }),
        ];
        let expected = [
            "`k` is not a string",
            "`k` is not an object",
            "`k` is not a boolean",
            "`k` is not an integer",
            "`k` is not a whole number",
            "`k` is not a whole number",
            "`k` is not a number",
            "`k` is not an array of strings",
            "`k` is not an array of strings",
            "`k` is not an array of objects",
            "missing field `s`",
            "missing field `k`",
            "missing field `k`",
            "`k` 4294967296 is not a version",
        ];
        for ((object, read), expected) in cases.into_iter().zip(expected) {
            let mut fields = fields(object);
            read(&mut fields);
            assert_eq!(fields.done(()), Err(expected.to_string()));
        }
        // Reading goes on after an error; the first one is the answer.
        let mut read = fields(json!({"a": 1, "b": "ok"}));
        let (a, b, c) = (read.string("a"), read.required_string("b"), read.required_string("c"));
        assert_eq!((a, b.as_str(), c.as_str()), (None, "ok", ""));
        assert_eq!(read.done(()), Err("`a` is not a string".to_string()));
        // A nested object that must be there: its own error, else missing.
        let mut read = fields(json!({"no": {}}));
        assert_eq!(read.nested("no", string), None);
        assert_eq!(read.failure("no"), "missing field `s`");
        assert_eq!(read.failure("gone"), "missing field `gone`");
    }
}
