//! The request-metadata headers of Streamable HTTP in the stateless
//! revision (2026-07-28, SEP-2243): `MCP-Protocol-Version`, `Mcp-Method`,
//! `Mcp-Name`, and the `Mcp-Param-*` headers tools ask for with
//! `x-mcp-header`, with the value encoding the spec prescribes.

use serde_json::{Map, Value};

use crate::debug::Quoted;
use crate::protocol::fields::{Fields, deserialize_by_fields};
use crate::protocol::methods;

/// The version header (the same value as `_meta`'s protocol version).
pub const VERSION_HEADER: &str = "MCP-Protocol-Version";
/// The method header, on every request.
pub const METHOD_HEADER: &str = "Mcp-Method";
/// The name header, on `tools/call`, `prompts/get` and `resources/read`.
pub const NAME_HEADER: &str = "Mcp-Name";
/// The prefix of a mirrored tool argument.
pub const PARAM_PREFIX: &str = "Mcp-Param-";

/// The largest integer mirrored into a header (±(2^53−1)).
const MAX_SAFE_INTEGER: i64 = (1 << 53) - 1;

/// One tool argument that goes into a header: the property path from the
/// input schema's root and the header's name after `Mcp-Param-`.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct ParamHeader {
    /// Property names from the root of the input schema.
    pub path: Vec<String>,
    /// The `x-mcp-header` value.
    pub name: String,
}

deserialize_by_fields!(ParamHeader);

impl ParamHeader {
    /// As JSON, the same as its `Serialize` writes it (`protocol::build`):
    /// part of a snapshot.
    #[cfg(any(all(target_arch = "wasm32", feature = "js", feature = "persist"), test))]
    pub(crate) fn to_value(&self) -> Value {
        crate::protocol::build::Builder::new().texts("path", Some(&self.path)).text("name", Some(&self.name)).done()
    }

    pub(crate) fn from_fields(fields: &mut Fields) -> Result<Self, String> {
        let path = fields.required_strings("path");
        let value = ParamHeader { path, name: fields.required_string("name") };
        fields.done(value)
    }
}

/// Encodes a header value: a plain value as-is when it is visible ASCII
/// with interior spaces only, else `=?base64?<base64 of the UTF-8>?=`
/// (also when a plain value would itself read as an encoded one).
pub fn encode_value(text: &str) -> String {
    let visible = text.bytes().all(|b| b == b' ' || (0x21..=0x7e).contains(&b));
    let padded = text.starts_with(' ') || text.ends_with(' ');
    let reads_as_encoded = text.starts_with("=?base64?") && text.ends_with("?=");
    let plain = visible && !padded && !reads_as_encoded;
    if plain { text.to_owned() } else { format!("=?base64?{}?=", crate::protocol::base64::standard(text.as_bytes())) }
}

/// The header text of an argument value: strings encoded, integers in
/// decimal, booleans as `true`/`false`; `None` for null, and for values no
/// header can carry (objects, arrays, integers beyond ±(2^53−1)).
pub fn argument_value(value: &Value) -> Option<String> {
    match value {
        Value::String(text) => Some(encode_value(text)),
        Value::Bool(flag) => Some(flag.to_string()),
        Value::Number(number) => match number.as_i64() {
            Some(integer) if (-MAX_SAFE_INTEGER..=MAX_SAFE_INTEGER).contains(&integer) => Some(integer.to_string()),
            Some(_) => None,
            None if number.as_u64().is_some() => None,
            None => Some(crate::protocol::json::Shown(number).to_string()),
        },
        Value::Null | Value::Array(_) | Value::Object(_) => None,
    }
}

/// Whether `name` is an RFC 9110 token (`tchar`s only, not empty).
fn is_token(name: &str) -> bool {
    !name.is_empty() && name.bytes().all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b))
}

/// Keywords whose values are data, not schemas.
const DATA_KEYWORDS: [&str; 5] = ["const", "enum", "default", "examples", "x-mcp-header"];

/// The `x-mcp-header` annotations of a tool's input schema, or why the tool
/// must not be offered: an annotation that is empty or not a token, on a
/// property that is not an `integer`, `string` or `boolean`, reached other
/// than through `properties` from the root, or named twice
/// (case-insensitively).
pub fn param_headers(input_schema: &Value) -> Result<Vec<ParamHeader>, String> {
    let mut found = Vec::new();
    walk(input_schema, true, &mut Vec::new(), &mut found)?;
    // Pairs compared directly: a tool has a handful of these, and a map
    // type of its own costs more wasm than the loop.
    for (at, header) in found.iter().enumerate() {
        if let Some(first) = found[..at].iter().find(|earlier| earlier.name.eq_ignore_ascii_case(&header.name)) {
            return Err(format!(
                "x-mcp-header {} is used twice (also as {})",
                Quoted(&header.name),
                Quoted(&first.name)
            ));
        }
    }
    Ok(found)
}

fn walk(schema: &Value, reachable: bool, path: &mut Vec<String>, found: &mut Vec<ParamHeader>) -> Result<(), String> {
    let object = match schema {
        Value::Object(object) => object,
        Value::Array(items) => {
            for item in items {
                walk(item, false, path, found)?;
            }
            return Ok(());
        }
        _ => return Ok(()),
    };
    if let Some(annotation) = object.get("x-mcp-header") {
        let where_ = if path.is_empty() { "the schema root".to_owned() } else { crate::debug::joined(path, ".") };
        let Some(name) = annotation.as_str() else {
            return Err(format!("x-mcp-header on {where_} is not a string"));
        };
        if !reachable || path.is_empty() {
            return Err(format!(
                "x-mcp-header {name} on {where_} is not reached through `properties` alone",
                name = Quoted(name)
            ));
        }
        if !is_token(name) {
            return Err(format!("x-mcp-header {name} on {where_} is not an HTTP token", name = Quoted(name)));
        }
        match object.get("type").and_then(Value::as_str) {
            Some("integer" | "string" | "boolean") => {}
            other => {
                return Err(format!(
                    "x-mcp-header {name} is on {where_} of type {}, not integer, string or boolean",
                    other.map_or_else(
                        || object.get("type").map_or_else(|| "none".to_owned(), crate::protocol::json_text),
                        str::to_owned
                    ),
                    name = Quoted(name)
                ));
            }
        }
        found.push(ParamHeader { path: path.clone(), name: name.to_owned() });
    }
    for (keyword, value) in object {
        if DATA_KEYWORDS.contains(&keyword.as_str()) {
            continue;
        }
        if keyword == "properties"
            && let Value::Object(properties) = value
        {
            for (property, subschema) in properties {
                path.push(property.clone());
                let outcome = walk(subschema, reachable, path, found);
                path.pop();
                outcome?;
            }
        } else {
            walk(value, false, path, found)?;
        }
    }
    Ok(())
}

/// The value at `path` in the arguments.
fn lookup<'a>(arguments: &'a Map<String, Value>, path: &[String]) -> Option<&'a Value> {
    let (first, rest) = path.split_first()?;
    let mut value = arguments.get(first)?;
    for key in rest {
        value = value.as_object()?.get(key)?;
    }
    Some(value)
}

/// The request-metadata headers of one stateless request.
pub fn request_headers(
    version: &str,
    method: &str,
    params: &Map<String, Value>,
    tool_headers: Option<&[ParamHeader]>,
) -> Vec<(String, String)> {
    let mut headers =
        vec![(VERSION_HEADER.to_owned(), version.to_owned()), (METHOD_HEADER.to_owned(), method.to_owned())];
    let name = match method {
        methods::TOOLS_CALL | methods::PROMPTS_GET => params.get("name"),
        methods::RESOURCES_READ => params.get("uri"),
        "tasks/get" | "tasks/update" | "tasks/cancel" => params.get("taskId"),
        _ => None,
    };
    if let Some(name) = name.and_then(argument_value) {
        headers.push((NAME_HEADER.to_owned(), name));
    }
    if let (methods::TOOLS_CALL, Some(tool_headers), Some(arguments)) =
        (method, tool_headers, params.get("arguments").and_then(Value::as_object))
    {
        for header in tool_headers {
            if let Some(value) = lookup(arguments, &header.path).and_then(argument_value) {
                headers.push((format!("{PARAM_PREFIX}{}", header.name), value));
            }
        }
    }
    headers
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn values_are_encoded_as_the_spec_says() {
        assert_eq!(encode_value("us-west1"), "us-west1");
        assert_eq!(encode_value("us west 1"), "us west 1");
        assert_eq!(encode_value(""), "");
        assert_eq!(encode_value("Hello, 世界"), "=?base64?SGVsbG8sIOS4lueVjA==?=");
        assert_eq!(encode_value(" padded "), "=?base64?IHBhZGRlZCA=?=");
        assert_eq!(encode_value("a\r\nb"), "=?base64?YQ0KYg==?=");
        assert_eq!(encode_value("\tx"), "=?base64?CXg=?=");
        assert_eq!(encode_value("=?base64?abc?="), "=?base64?PT9iYXNlNjQ/YWJjPz0=?=");
        assert_eq!(argument_value(&json!(42)), Some("42".into()));
        assert_eq!(argument_value(&json!(-7)), Some("-7".into()));
        assert_eq!(argument_value(&json!(true)), Some("true".into()));
        assert_eq!(argument_value(&json!(null)), None);
        assert_eq!(argument_value(&json!(9007199254740993_i64)), None);
    }

    #[test]
    fn annotations_are_found_through_properties_only() {
        let schema = json!({"type": "object", "properties": {
            "region": {"type": "string", "x-mcp-header": "Region"},
            "nested": {"type": "object", "properties": {"n": {"type": "integer", "x-mcp-header": "N"}}},
            "plain": {"type": "number"}
        }});
        let headers = param_headers(&schema).unwrap();
        assert_eq!(headers.len(), 2);
        assert!(headers.contains(&ParamHeader { path: vec!["region".into()], name: "Region".into() }));
        assert!(headers.contains(&ParamHeader { path: vec!["nested".into(), "n".into()], name: "N".into() }));
    }

    #[test]
    fn invalid_annotations_are_refused() {
        let bad = [
            json!({"properties": {"a": {"type": "string", "x-mcp-header": ""}}}),
            json!({"properties": {"a": {"type": "number", "x-mcp-header": "A"}}}),
            json!({"properties": {"a": {"type": "object", "x-mcp-header": "A"}}}),
            json!({"properties": {"a": {"type": "array", "x-mcp-header": "A"}}}),
            json!({"properties": {"a": {"type": "null", "x-mcp-header": "A"}}}),
            json!({"properties": {"a": {"type": "string", "x-mcp-header": "My Field"}}}),
            json!({"properties": {"a": {"type": "string", "x-mcp-header": "a:b"}}}),
            json!({"properties": {"a": {"type": "string", "x-mcp-header": "Région"}}}),
            json!({"properties": {"a": {"type": "string", "x-mcp-header": "a\tb"}}}),
            json!({"properties": {"a": {"type": "string", "x-mcp-header": "F"}, "b": {"type": "string", "x-mcp-header": "f"}}}),
            json!({"properties": {"a": {"type": "array", "items": {"type": "string", "x-mcp-header": "A"}}}}),
            json!({"properties": {"a": {"anyOf": [{"type": "string", "x-mcp-header": "A"}]}}}),
        ];
        for schema in bad {
            assert!(param_headers(&schema).is_err(), "{schema}");
        }
    }

    #[test]
    fn refusals_name_what_is_wrong() {
        let twice = json!({"properties": {"a": {"type": "string", "x-mcp-header": "Region"}, "b": {"type": "string", "x-mcp-header": "REGION"}}});
        assert_eq!(param_headers(&twice).unwrap_err(), r#"x-mcp-header "REGION" is used twice (also as "Region")"#);
        let untyped = json!({"properties": {"a": {"x-mcp-header": "A"}}});
        assert!(param_headers(&untyped).unwrap_err().contains("of type none,"), "{untyped}");
        let numbered = json!({"properties": {"a": {"type": 3, "x-mcp-header": "A"}}});
        assert!(param_headers(&numbered).unwrap_err().contains("of type 3,"), "{numbered}");
    }

    #[test]
    fn tool_calls_carry_name_and_params() {
        let headers = [
            ParamHeader { path: vec!["region".into()], name: "Region".into() },
            ParamHeader { path: vec!["verbose".into()], name: "Verbose".into() },
        ];
        let params = json!({"name": "t", "arguments": {"region": "eu", "verbose": null}});
        let got = request_headers("2026-07-28", "tools/call", params.as_object().unwrap(), Some(&headers));
        assert_eq!(
            got,
            vec![
                ("MCP-Protocol-Version".to_owned(), "2026-07-28".to_owned()),
                ("Mcp-Method".to_owned(), "tools/call".to_owned()),
                ("Mcp-Name".to_owned(), "t".to_owned()),
                ("Mcp-Param-Region".to_owned(), "eu".to_owned()),
            ]
        );
    }
}
