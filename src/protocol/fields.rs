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

/// An object's members, taken out one field at a time.
pub(crate) struct Fields(Map<String, Value>);

impl Fields {
    /// The object `deserializer` holds; anything else is refused as not
    /// `expecting` ("an object", "a snapshot (an object)").
    pub(crate) fn read<'de, D: Deserializer<'de>>(deserializer: D, expecting: &str) -> Result<Self, D::Error> {
        match Value::deserialize(deserializer)? {
            Value::Object(object) => Ok(Fields(object)),
            other => {
                Err(serde::de::Error::custom(format_args!("invalid type: {}, expected {expecting}", json_kind(&other))))
            }
        }
    }

    /// The members of an object already read.
    pub(crate) fn of(object: Map<String, Value>) -> Self {
        Fields(object)
    }

    /// The member `key`, if present and not `null`.
    pub(crate) fn value(&mut self, key: &str) -> Option<Value> {
        self.0.remove(key).filter(|value| !value.is_null())
    }

    /// A string member.
    pub(crate) fn string(&mut self, key: &str) -> Result<Option<String>, String> {
        match self.value(key) {
            None => Ok(None),
            Some(Value::String(found)) => Ok(Some(found)),
            Some(_) => Err(format!("`{key}` is not a string")),
        }
    }

    /// A string member that must be there.
    pub(crate) fn required_string(&mut self, key: &str) -> Result<String, String> {
        self.string(key)?.ok_or_else(|| missing(key))
    }

    /// An object member.
    pub(crate) fn object(&mut self, key: &str) -> Result<Option<Map<String, Value>>, String> {
        match self.value(key) {
            None => Ok(None),
            Some(Value::Object(found)) => Ok(Some(found)),
            Some(_) => Err(format!("`{key}` is not an object")),
        }
    }

    /// A boolean member.
    pub(crate) fn boolean(&mut self, key: &str) -> Result<Option<bool>, String> {
        match self.value(key) {
            None => Ok(None),
            Some(Value::Bool(found)) => Ok(Some(found)),
            Some(_) => Err(format!("`{key}` is not a boolean")),
        }
    }

    /// A boolean member, `false` when absent.
    pub(crate) fn flag(&mut self, key: &str) -> Result<bool, String> {
        self.boolean(key).map(Option::unwrap_or_default)
    }

    /// An integer member that must be there.
    pub(crate) fn required_integer(&mut self, key: &str) -> Result<i64, String> {
        let found = self.value(key).ok_or_else(|| missing(key))?;
        found.as_i64().ok_or_else(|| format!("`{key}` is not an integer"))
    }

    /// A number.
    pub(crate) fn number(&mut self, key: &str) -> Result<Option<f64>, String> {
        match self.value(key) {
            None => Ok(None),
            Some(found) => found.as_f64().map(Some).ok_or_else(|| format!("`{key}` is not a number")),
        }
    }

    /// A whole number from 0 (seconds since the epoch, say).
    pub(crate) fn unsigned(&mut self, key: &str) -> Result<Option<u64>, String> {
        match self.value(key) {
            None => Ok(None),
            Some(found) => found.as_u64().map(Some).ok_or_else(|| format!("`{key}` is not a whole number")),
        }
    }

    /// An array of strings.
    pub(crate) fn strings(&mut self, key: &str) -> Result<Option<Vec<String>>, String> {
        let not_strings = || format!("`{key}` is not an array of strings");
        match self.value(key) {
            None => Ok(None),
            Some(Value::Array(items)) => items
                .into_iter()
                .map(|item| match item {
                    Value::String(found) => Ok(found),
                    _ => Err(not_strings()),
                })
                .collect::<Result<_, _>>()
                .map(Some),
            Some(_) => Err(not_strings()),
        }
    }

    /// An array of objects, each read by `read`; empty when absent.
    pub(crate) fn objects<T>(
        &mut self,
        key: &str,
        read: fn(&mut Fields) -> Result<T, String>,
    ) -> Result<Vec<T>, String> {
        self.value(key).map_or(Ok(Vec::new()), |found| objects_in(found, key, read))
    }

    /// An object member whose members are each read by `read` (given the
    /// member's value and its key, for messages); empty when absent.
    pub(crate) fn map_of<T>(
        &mut self,
        key: &str,
        read: impl Fn(Value, &str) -> Result<T, String>,
    ) -> Result<HashMap<String, T>, String> {
        let members = self.object(key)?.unwrap_or_default();
        members.into_iter().map(|(name, found)| read(found, &name).map(|read| (name, read))).collect()
    }

    /// An object member read by `read`.
    pub(crate) fn nested<T>(
        &mut self,
        key: &str,
        read: fn(&mut Fields) -> Result<T, String>,
    ) -> Result<Option<T>, String> {
        self.object(key)?.map(|object| read(&mut Fields(object))).transpose()
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
        Value::Object(object) => T::from_fields(&mut Fields(object)),
        other => Err(format!("invalid type: {}, expected {expecting}", json_kind(&other))),
    }
}

/// `found`, an array of objects, each read by `read`; `key` names it in
/// the error.
pub(crate) fn objects_in<T>(
    found: Value,
    key: &str,
    read: fn(&mut Fields) -> Result<T, String>,
) -> Result<Vec<T>, String> {
    match found {
        Value::Array(items) => items
            .into_iter()
            .map(|item| match item {
                Value::Object(object) => read(&mut Fields(object)),
                _ => Err(format!("`{key}` is not an array of objects")),
            })
            .collect(),
        _ => Err(format!("`{key}` is not an array of objects")),
    }
}

/// `found`, an object, read by `read`; `key` names it in the error.
pub(crate) fn object_in<T>(found: Value, key: &str, read: fn(&mut Fields) -> Result<T, String>) -> Result<T, String> {
    match found {
        Value::Object(object) => read(&mut Fields(object)),
        _ => Err(format!("`{key}` is not an object")),
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

    #[test]
    fn each_kind_is_read_and_null_is_absent() {
        let mut read = fields(json!({
            "s": "x", "o": {"a": 1}, "b": true, "u": 1700000000, "l": ["a", "b"], "n": null, "v": [1],
            "os": [{"s": "y"}], "no": {"s": "z"}
        }));
        let string = |fields: &mut Fields| fields.required_string("s");
        assert_eq!(read.string("s"), Ok(Some("x".into())));
        assert_eq!(read.object("o"), Ok(Some(json!({"a": 1}).as_object().cloned().unwrap_or_default())));
        assert_eq!(read.boolean("b"), Ok(Some(true)));
        assert_eq!(read.unsigned("u"), Ok(Some(1_700_000_000)));
        assert_eq!(read.strings("l"), Ok(Some(vec!["a".to_string(), "b".to_string()])));
        assert_eq!(read.string("n"), Ok(None));
        assert_eq!(read.value("v"), Some(json!([1])));
        assert_eq!(read.objects("os", string), Ok(vec!["y".to_string()]));
        assert_eq!(read.nested("no", string), Ok(Some("z".to_string())));
        // Absent.
        assert_eq!(read.boolean("absent"), Ok(None));
        assert_eq!(read.strings("absent"), Ok(None));
        assert_eq!(read.object("absent"), Ok(None));
        assert_eq!(read.objects("absent", string), Ok(Vec::new()));
        assert_eq!(read.nested("absent", string), Ok(None));
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
    fn a_missing_or_mistyped_member_is_named() {
        let mut read = fields(json!({
            "s": 1, "o": "x", "b": 1, "u": -1, "f": 1.5, "l": ["a", 2], "m": "no", "os": [1], "no": {}
        }));
        let string = |fields: &mut Fields| fields.required_string("s");
        assert_eq!(read.string("s"), Err("`s` is not a string".into()));
        assert_eq!(read.object("o"), Err("`o` is not an object".into()));
        assert_eq!(read.boolean("b"), Err("`b` is not a boolean".into()));
        assert_eq!(read.unsigned("u"), Err("`u` is not a whole number".into()));
        assert_eq!(read.unsigned("f"), Err("`f` is not a whole number".into()));
        assert_eq!(read.strings("l"), Err("`l` is not an array of strings".into()));
        assert_eq!(read.strings("m"), Err("`m` is not an array of strings".into()));
        assert_eq!(read.objects("os", string), Err("`os` is not an array of objects".into()));
        assert_eq!(read.nested("no", string), Err("missing field `s`".into()));
        assert_eq!(read.required_string("gone"), Err("missing field `gone`".into()));
    }
}
