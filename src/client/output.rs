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

/// Remembers the output schemas a `tools/list` page names, and checks a
/// `tools/call` result of `tool` against its tool's.
///
/// The schemas are kept in a JSON object's map (hashed, like a `HashMap`):
/// its code is in the module anyway, where a `HashMap` of its own was some
/// 2 KB more of wasm.
pub(crate) fn check(
    schemas: &Mutex<Map<String, Value>>,
    method: &str,
    tool: Option<&str>,
    result: &RawResult,
) -> Result<(), Error> {
    match (method, tool) {
        (TOOLS_LIST, _) => {
            let mut schemas = schemas.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
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
        (TOOLS_CALL, Some(tool)) => {
            let schema = {
                let schemas = schemas.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
                match schemas.get(tool) {
                    Some(schema) => schema.clone(),
                    // Most tools declare none: their results are not read.
                    None => return Ok(()),
                }
            };
            let Some(outcome) = members(result.text()) else { return Ok(()) };
            // A tool error's content need not match (the spec checks
            // results, and an error carries its message instead).
            let failed = member(&outcome, "isError").and_then(|e| e.as_bool()).unwrap_or(false);
            let invalid = |error| Error::InvalidStructuredContent { tool: tool.to_owned(), error };
            match member(&outcome, "structuredContent") {
                Some(content) if !failed => schema::validate(&schema, &content).map_err(invalid),
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
