//! The tasks extension of revision 2026-07-28 (`io.modelcontextprotocol/tasks`,
//! SEP-2663): a `tools/call` may be answered with a task, which the client
//! polls with `tasks/get`, feeds with `tasks/update` and may end with
//! `tasks/cancel` (the method names are in [`crate::protocol::methods`]).

use serde_json::{Map, Value};

use crate::protocol::ErrorObject;

/// The extension's identifier, declared in `clientCapabilities.extensions`.
pub const TASKS_EXTENSION: &str = "io.modelcontextprotocol/tasks";

/// The `extensions` entry of the client capabilities.
pub fn extension_capability() -> Value {
    crate::protocol::object! { TASKS_EXTENSION: crate::protocol::object! {} }
}

/// A task as `tools/call` (`resultType: "task"`) or `tasks/get` reports
/// it, read leniently from the raw result.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Task<'a> {
    /// `taskId`.
    pub task_id: Option<&'a str>,
    /// `status`; `working` when absent.
    pub status: &'a str,
    /// `pollIntervalMs`, as sent.
    pub poll_interval_ms: Option<f64>,
    /// `inputRequests` of an `input_required` task.
    pub input_requests: Option<&'a Map<String, Value>>,
    /// `result` of a completed task (any JSON; an object is expected).
    pub result: Option<&'a Value>,
    /// `error` of a failed task.
    pub error: Option<&'a Value>,
    /// `statusMessage`.
    pub status_message: Option<&'a str>,
}

impl<'a> Task<'a> {
    /// Reads a task.
    pub fn of(task: &'a Value) -> Self {
        Task {
            task_id: task.get("taskId").and_then(Value::as_str),
            status: task.get("status").and_then(Value::as_str).unwrap_or("working"),
            poll_interval_ms: task.get("pollIntervalMs").and_then(Value::as_f64),
            input_requests: task.get("inputRequests").and_then(Value::as_object),
            result: task.get("result"),
            error: task.get("error"),
            status_message: task.get("statusMessage").and_then(Value::as_str),
        }
    }

    /// The error of a failed task, if readable.
    pub fn error_object(&self) -> Option<ErrorObject> {
        self.error.and_then(|e| crate::protocol::fields::from_value::<ErrorObject>(e.clone(), "an object").ok())
    }
}
