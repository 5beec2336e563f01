//! What a result of revision 2026-07-28 is (`resultType`), and the
//! `input_required` rounds of a multi round-trip request.

use serde_json::{Map, Value};

/// A result's `resultType`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ResultType<'a> {
    /// No `resultType` (older servers send none).
    Unstated,
    /// `complete`.
    Complete,
    /// `input_required`: answer its input requests, send the request again.
    InputRequired,
    /// `task` (the tasks extension).
    Task,
    /// Anything else, as sent (not necessarily a string).
    Other(&'a Value),
}

impl<'a> ResultType<'a> {
    /// The `resultType` of a result.
    pub fn of(result: &'a Value) -> Self {
        match result.get("resultType") {
            None => ResultType::Unstated,
            Some(Value::String(kind)) if kind == "complete" => ResultType::Complete,
            Some(Value::String(kind)) if kind == "input_required" => ResultType::InputRequired,
            Some(Value::String(kind)) if kind == "task" => ResultType::Task,
            Some(other) => ResultType::Other(other),
        }
    }

    /// The string sent, if it was one.
    pub fn as_str(&self) -> Option<&'a str> {
        match self {
            ResultType::Unstated => None,
            ResultType::Complete => Some("complete"),
            ResultType::InputRequired => Some("input_required"),
            ResultType::Task => Some("task"),
            ResultType::Other(value) => value.as_str(),
        }
    }
}

impl std::fmt::Display for ResultType<'_> {
    /// As JSON: `"task"` with its quotes, `5`, and `null` when unstated.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match (self, self.as_str()) {
            (ResultType::Other(value), _) => write!(f, "{}", crate::protocol::JsonText(value)),
            (_, Some(kind)) => write!(f, "{}", crate::protocol::JsonText(&Value::from(kind))),
            (_, None) => f.write_str("null"),
        }
    }
}

/// An `input_required` result: what the server asks, and its state.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct InputRequired<'a> {
    /// `inputRequests`: `{key: {method, params}}` (absent when not an object).
    pub input_requests: Option<&'a Map<String, Value>>,
    /// `requestState`: opaque, echoed byte for byte, never read.
    pub request_state: Option<&'a Value>,
}

impl<'a> InputRequired<'a> {
    /// Reads an `input_required` result.
    pub fn of(result: &'a Value) -> Self {
        InputRequired {
            input_requests: result.get("inputRequests").and_then(Value::as_object),
            request_state: result.get("requestState"),
        }
    }
}

/// One input request: which handler answers it, with what.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct InputRequest<'a> {
    /// `method` (empty when absent).
    pub method: &'a str,
    /// `params`.
    pub params: Option<&'a Value>,
}

impl<'a> InputRequest<'a> {
    /// Reads one entry of `inputRequests`.
    pub fn of(request: &'a Value) -> Self {
        InputRequest {
            method: request.get("method").and_then(Value::as_str).unwrap_or_default(),
            params: request.get("params"),
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn result_types_are_read_and_printed_as_sent() {
        assert_eq!(ResultType::of(&json!({})), ResultType::Unstated);
        assert_eq!(ResultType::of(&json!({"resultType": "complete"})), ResultType::Complete);
        assert_eq!(ResultType::of(&json!({"resultType": "task"})).to_string(), "\"task\"");
        let odd = json!({"resultType": 5});
        assert_eq!(ResultType::of(&odd).to_string(), "5");
        assert_eq!(ResultType::of(&odd).as_str(), None);
        let state = json!({"resultType": "input_required", "requestState": {"b": 1, "a": [2]}});
        assert_eq!(InputRequired::of(&state).request_state, Some(&json!({"b": 1, "a": [2]})));
    }
}
