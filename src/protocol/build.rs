//! JSON built by hand from the crate's records: the counterpart of
//! [`fields`](super::fields), which reads them.
//!
//! serde's derived `Serialize` writes a struct through serde's struct
//! serializer, compiled once per field type and once per writer (text, or
//! a `Value` through `to_value`, which `serde_json::json!` calls for every
//! value it is given). The JS face's wasm writes every record it keeps or
//! sends through [`object!`] and [`Builder`] instead, and no serializer of
//! serde is compiled into it but the one that writes a `Value` as text
//! (docs/size.md, session 32). The public types keep their derived
//! `Serialize`; a test of each checks that both write the same.

use serde_json::{Map, Value};

/// A JSON object of these members, each value made a `Value` by
/// `Value::from`: `object! { "uri": uri, "limit": 3 }`. The crate builds
/// its objects with this, not serde_json's `json!`, which makes each value
/// a `Value` through `to_value`: serde's `Value` serializer, and one
/// serializer per type of value, compiled into the wasm for what a
/// conversion does (docs/size.md, session 32).
macro_rules! object {
    ($($key:tt: $value:expr),* $(,)?) => {{
        #[allow(unused_mut)]
        let mut object = serde_json::Map::new();
        $(object.insert(String::from($key), serde_json::Value::from($value));)*
        serde_json::Value::Object(object)
    }};
}
pub(crate) use object;

/// A JSON object built member by member; an absent (`None`) member is
/// left out, as `skip_serializing_if = "Option::is_none"` leaves it out.
/// Not generic, so each kind of member is compiled once.
#[derive(Default)]
pub(crate) struct Builder(Map<String, Value>);

impl Builder {
    pub(crate) fn new() -> Self {
        Builder::default()
    }

    /// A string member.
    pub(crate) fn text(&mut self, key: &str, text: Option<&str>) -> &mut Self {
        self.value(key, text.map(Value::from))
    }

    /// An array of strings.
    pub(crate) fn texts(&mut self, key: &str, texts: Option<&[String]>) -> &mut Self {
        let texts = texts.map(|texts| {
            let mut items = Vec::with_capacity(texts.len());
            for text in texts {
                items.push(Value::from(text.as_str()));
            }
            Value::Array(items)
        });
        self.value(key, texts)
    }

    /// A non-negative integer.
    pub(crate) fn unsigned(&mut self, key: &str, number: Option<u64>) -> &mut Self {
        self.value(key, number.map(Value::from))
    }

    /// A boolean.
    // Natively only the tests write one: the browser's redirect flow does.
    #[cfg_attr(not(all(target_arch = "wasm32", feature = "js")), allow(dead_code))]
    pub(crate) fn boolean(&mut self, key: &str, flag: Option<bool>) -> &mut Self {
        self.value(key, flag.map(Value::Bool))
    }

    /// A JSON object, copied.
    // Natively only the tests write one: the JS face does.
    #[cfg_attr(not(all(target_arch = "wasm32", feature = "js")), allow(dead_code))]
    pub(crate) fn object(&mut self, key: &str, object: Option<&Map<String, Value>>) -> &mut Self {
        self.value(key, object.map(|object| Value::Object(object.clone())))
    }

    /// Any value.
    pub(crate) fn value(&mut self, key: &str, value: Option<Value>) -> &mut Self {
        if let Some(value) = value {
            self.0.insert(key.to_owned(), value);
        }
        self
    }

    /// The object, leaving this builder empty.
    pub(crate) fn done(&mut self) -> Value {
        Value::Object(std::mem::take(&mut self.0))
    }
}

/// `Some(items)` unless there are none: a `Vec` member written with
/// `skip_serializing_if = "Vec::is_empty"`.
pub(crate) fn unless_empty<T>(items: &[T]) -> Option<&[T]> {
    (!items.is_empty()).then_some(items)
}

#[cfg(test)]
mod tests {
    use serde::Serialize;
    use serde_json::{Value, json};

    use crate::protocol::ErrorObject;
    use crate::protocol::types::{Implementation, LoggingLevel, Root, ServerCapabilities};

    fn serialized(value: &impl Serialize) -> Value {
        serde_json::to_value(value).expect("serializes")
    }

    #[test]
    fn object_builds_what_json_builds() {
        let name = String::from("n");
        let built =
            object! { "a": 1, "b": name.as_str(), "c": true, "d": vec!["x", "y"], "e": object! {}, "f": None::<u64> };
        assert_eq!(built, json!({ "a": 1, "b": "n", "c": true, "d": ["x", "y"], "e": {}, "f": null }));
        assert_eq!(object! {}, json!({}));
    }

    #[test]
    fn protocol_records_are_written_as_serialize_writes_them() {
        let mut info = Implementation::new("client", "1.0");
        assert_eq!(info.to_value(), serialized(&info));
        info.title = Some("Client".into());
        info.description = Some("A client".into());
        info.website_url = Some("https://example.com".into());
        assert_eq!(info.to_value(), serialized(&info));

        let mut error = ErrorObject::new(-32602, "bad params");
        assert_eq!(error.to_value(), serialized(&error));
        error.data = Some(json!({ "field": ["a", 1] }));
        assert_eq!(error.to_value(), serialized(&error));

        use LoggingLevel::*;
        for level in [Debug, Info, Notice, Warning, Error, Critical, Alert, Emergency] {
            assert_eq!(Value::from(level.as_str()), serialized(&level));
        }

        for root in
            [Root { uri: "file:///a".into(), name: None }, Root { uri: "file:///b".into(), name: Some("B".into()) }]
        {
            assert_eq!(root.to_value(), serialized(&root));
        }

        let mut capabilities = ServerCapabilities::default();
        assert_eq!(capabilities.to_value(), serialized(&capabilities));
        capabilities.tools = Some(json!({ "listChanged": true }).as_object().cloned().unwrap_or_default());
        capabilities.extensions = Some(Default::default());
        assert_eq!(capabilities.to_value(), serialized(&capabilities));
    }
}
