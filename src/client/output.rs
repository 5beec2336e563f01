//! Tools' output schemas: remembered from each `tools/list` page, and a
//! `tools/call` result's `structuredContent` checked against its tool's.
//!
//! Both read only the fields they need from the result's text (narrow
//! structs; the parser skips the rest unbuilt), so a 10,000-tool list or a
//! large call result is not parsed into a tree here.

use std::sync::Mutex;

use serde_json::{Map, Value};

use super::Error;
use crate::protocol::RawResult;
use crate::protocol::methods::{TOOLS_CALL, TOOLS_LIST};
use crate::protocol::raw::{elements, member, member_text, members, mentions};
use crate::protocol::schema::{self, SchemaError};

/// What a request was, as far as output schemas go.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Call<'a> {
    /// A `tools/call` of this tool.
    Tool(&'a str),
    /// A `tools/list` without a `cursor`.
    FirstPage,
    /// Anything else (a later `tools/list` page, another method).
    Other,
}

/// Remembers the output schemas a `tools/list` page names, and checks a
/// `tools/call` result of `tool` against its tool's. A first page (asked
/// for without a `cursor`) starts the remembered set anew: the schemas of
/// tools the server no longer lists do not stay for the life of the client.
///
/// The schemas are kept in a JSON object's map (hashed, like a `HashMap`):
/// its code is in the module anyway, where a `HashMap` of its own was some
/// 2 KB more of wasm.
pub(crate) fn check(
    schemas: &Mutex<Map<String, Value>>,
    method: &str,
    call: Call<'_>,
    result: &RawResult,
) -> Result<(), Error> {
    match (method, call) {
        (TOOLS_LIST, call) => {
            let mut schemas = schemas.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
            if call == Call::FirstPage {
                schemas.clear();
            }
            // Nothing remembered to forget, and no schema named (a key can
            // only be spelled otherwise with a \u escape): the page need
            // not be read. Most servers declare no output schemas.
            let text = result.text();
            if schemas.is_empty() && !mentions(text, "outputSchema", 6) && !mentions(text, "\\u", 0) {
                return Ok(());
            }
            // A page of another shape names no schema; the JS face and the
            // typed API report the shape.
            let Some(tools) = members(text).and_then(|page| elements(member_text(&page, "tools")?)) else {
                return Ok(());
            };
            for tool in tools {
                let Some(tool) = members(tool) else { continue };
                if let Some(Value::String(name)) = member(&tool, "name") {
                    match member(&tool, "outputSchema") {
                        Some(schema) if schema.is_object() => schemas.insert(name, schema),
                        _ => schemas.remove(&name),
                    };
                }
            }
            Ok(())
        }
        (TOOLS_CALL, Call::Tool(tool)) => {
            // Held through the check, which neither waits nor calls out:
            // the schema is read in place rather than copied for each call.
            let schemas = schemas.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
            // Most tools declare none: their results are not read.
            let Some(schema) = schemas.get(tool) else { return Ok(()) };
            let Some(outcome) = members(result.text()) else { return Ok(()) };
            // A tool error's content need not match (the spec checks
            // results, and an error carries its message instead).
            let failed = member(&outcome, "isError").and_then(|e| e.as_bool()).unwrap_or(false);
            let invalid = |error| Error::InvalidStructuredContent { tool: tool.to_owned(), error };
            match member(&outcome, "structuredContent") {
                Some(content) if !failed => schema::validate(schema, &content).map_err(invalid),
                None if !failed && member(&outcome, "resultType").is_none_or(|t| t == "complete") => {
                    Err(invalid(SchemaError {
                        path: "/".into(),
                        message: "the tool has an output schema but the result no structuredContent".into(),
                    }))
                }
                _ => Ok(()),
            }
        }
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn list(schemas: &Mutex<Map<String, Value>>, call: Call<'_>, tools: Value) {
        let page = RawResult::from(json!({ "tools": tools }));
        assert!(check(schemas, TOOLS_LIST, call, &page).is_ok());
    }

    fn call(schemas: &Mutex<Map<String, Value>>, tool: &str, content: Value) -> Result<(), Error> {
        let result = RawResult::from(json!({ "content": [], "structuredContent": content }));
        check(schemas, TOOLS_CALL, Call::Tool(tool), &result)
    }

    #[test]
    fn a_first_page_forgets_the_schemas_of_tools_no_longer_listed() {
        let schemas = Mutex::new(Map::new());
        let typed = |name: &str| json!({ "name": name, "outputSchema": { "type": "object", "required": ["n"] } });
        list(&schemas, Call::FirstPage, json!([typed("a")]));
        list(&schemas, Call::Other, json!([typed("b")]));
        assert!(call(&schemas, "a", json!({})).is_err(), "page 1's schema is checked");
        assert!(call(&schemas, "b", json!({})).is_err(), "a later page adds to it");
        // The list again from its start, without `a` and `b`.
        list(&schemas, Call::FirstPage, json!([{ "name": "c" }]));
        assert!(call(&schemas, "a", json!({})).is_ok());
        assert!(call(&schemas, "b", json!({})).is_ok());
        assert_eq!(schemas.lock().map(|kept| kept.len()).unwrap_or(usize::MAX), 0);
        // Fresh churn of tool names stays bounded by one listing.
        for round in 0..50 {
            list(&schemas, Call::FirstPage, json!([typed(&format!("tool-{round}"))]));
        }
        assert_eq!(schemas.lock().map(|kept| kept.len()).unwrap_or(usize::MAX), 1);
    }
}
