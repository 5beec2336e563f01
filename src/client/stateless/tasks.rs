//! The tasks extension of revision 2026-07-28 (`io.modelcontextprotocol/tasks`,
//! SEP-2663), for clients that opt in with [`crate::ClientOptions::with_tasks`].
//!
//! A server may answer `tools/call` with a task (`resultType: "task"`)
//! instead of the tool's result. The public contract of `call_tool` stays
//! the same: the task is driven here until it ends. `tasks/get` is polled
//! at the server's `pollIntervalMs`; an `input_required` task gets its
//! `inputRequests` answered by the usual handlers through `tasks/update`
//! (each key once); a completed task gives its `result`, a failed one its
//! JSON-RPC error. A caller who gives up (drops the call, or the task
//! deadline passes) has the task cancelled with `tasks/cancel`, never with
//! `notifications/cancelled`.

use std::time::Duration;

use serde_json::{Map, Value};

use crate::client::{Client, Error, RequestOptions};
use crate::debug::Quoted;
use crate::protocol::methods::{TASKS_CANCEL, TASKS_GET, TASKS_UPDATE};
use crate::protocol::stateless::{ResultType, Task};
use crate::protocol::{ErrorObject, ProtocolVersion};
use crate::runtime::{now_millis, sleep};

/// How often to poll when the server suggests nothing.
const DEFAULT_POLL_INTERVAL: Duration = Duration::from_secs(1);
/// The bounds put on a server's `pollIntervalMs`.
const MIN_POLL_INTERVAL: Duration = Duration::from_millis(50);
const MAX_POLL_INTERVAL: Duration = Duration::from_secs(30);

fn poll_interval(task: &Value) -> Duration {
    Task::of(task)
        .poll_interval_ms
        .filter(|ms| ms.is_finite() && *ms >= 0.0)
        .map(|ms| Duration::from_millis(ms as u64))
        .unwrap_or(DEFAULT_POLL_INTERVAL)
        .clamp(MIN_POLL_INTERVAL, MAX_POLL_INTERVAL)
}

/// How long to wait before the next `tasks/get`: the server's interval,
/// but never past the task deadline (`left_ms` away), so a long
/// `pollIntervalMs` cannot stretch `task_timeout`.
fn next_poll(task: &Value, left_ms: f64) -> Duration {
    let left = crate::runtime::duration_from_millis(left_ms);
    poll_interval(task).min(left)
}

/// Cancels the task if the call is abandoned before it ended.
struct CancelTaskOnDrop {
    client: Client,
    task_id: Option<String>,
    version: ProtocolVersion,
}

impl Drop for CancelTaskOnDrop {
    fn drop(&mut self) {
        let Some(task_id) = self.task_id.take() else { return };
        let client = self.client.clone();
        let version = self.version;
        let cancel = async move {
            if let Err(error) = client.task_request(TASKS_CANCEL, &task_id, Map::new(), version).await {
                log::warn!("cancelling task {task_id}: {error}");
            }
        };
        if let Err(error) = crate::runtime::spawn(cancel) {
            log::warn!("could not cancel an abandoned task: {error}");
        }
    }
}

impl Client {
    /// One `tasks/*` request about `task_id`.
    async fn task_request(
        &self,
        method: &str,
        task_id: &str,
        params: Map<String, Value>,
        version: ProtocolVersion,
    ) -> Result<Value, Error> {
        let mut params = params;
        params.insert("taskId".into(), Value::from(task_id));
        let mut options = RequestOptions::default();
        let result = self.stateless_round(method, params, version, &mut options).await?;
        match ResultType::of(&result).as_str() {
            None | Some("complete") => Ok(result),
            Some(other) => Err(Error::InvalidResult {
                method: method.to_owned(),
                reason: format!("resultType {other} is not one {method} allows", other = Quoted(other)),
            }),
        }
    }

    /// Drives the task a `tools/call` created to its end and returns what
    /// the call itself would have: the tool's result, or its error.
    pub(crate) async fn drive_task(
        &self,
        method: &str,
        created: Value,
        version: ProtocolVersion,
        limit: Duration,
    ) -> Result<Value, Error> {
        let invalid = |reason: &str| Error::InvalidResult { method: method.to_owned(), reason: reason.to_owned() };
        let task_id = Task::of(&created).task_id.ok_or_else(|| invalid("a task without a taskId"))?;
        let task_id = task_id.to_owned();
        let mut guard = CancelTaskOnDrop { client: self.clone(), task_id: Some(task_id.clone()), version };
        let deadline = now_millis() + limit.as_secs_f64() * 1000.0;
        let mut answered = crate::hash::Names::default();
        let mut task = created;
        loop {
            let view = Task::of(&task);
            match view.status {
                "completed" => {
                    guard.task_id = None;
                    return match view.result {
                        Some(result @ Value::Object(_)) => Ok(result.clone()),
                        _ => Err(invalid("a completed task without its result")),
                    };
                }
                "failed" => {
                    guard.task_id = None;
                    let error = view.error_object();
                    let error = error.unwrap_or_else(|| ErrorObject::new(-32603, "the task failed without an error"));
                    return Err(Error::Rpc { method: method.to_owned(), error: Box::new(error) });
                }
                "cancelled" => {
                    guard.task_id = None;
                    let message = view.status_message.unwrap_or("no reason given");
                    let reason = Some(format!("the server cancelled task {task_id}: {message}"));
                    return Err(Error::Cancelled { method: method.to_owned(), reason });
                }
                "input_required" => {
                    let requests = view.input_requests;
                    let fresh = requests.into_iter().flatten().filter(|(key, _)| !answered.contains(key));
                    let responses = self.answer_requests(method, fresh).await?;
                    if !responses.is_empty() {
                        for key in responses.keys() {
                            answered.insert(key.clone());
                        }
                        let mut params = Map::new();
                        params.insert("inputResponses".into(), Value::Object(responses));
                        self.task_request(TASKS_UPDATE, &task_id, params, version).await?;
                    }
                }
                _ => {}
            }
            if now_millis() >= deadline {
                // The guard cancels the task on the way out.
                return Err(Error::Timeout { method: method.to_owned(), after: limit });
            }
            sleep(next_poll(&task, deadline - now_millis())).await;
            task = self.task_request(TASKS_GET, &task_id, Map::new(), version).await?;
            if Task::of(&task).task_id.is_some_and(|id| id != task_id) {
                return Err(invalid("tasks/get answered about another task"));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn poll_intervals_are_bounded() {
        assert_eq!(poll_interval(&json!({})), DEFAULT_POLL_INTERVAL);
        assert_eq!(poll_interval(&json!({"pollIntervalMs": 200})), Duration::from_millis(200));
        assert_eq!(poll_interval(&json!({"pollIntervalMs": 0})), MIN_POLL_INTERVAL);
        assert_eq!(poll_interval(&json!({"pollIntervalMs": 1e12})), MAX_POLL_INTERVAL);
        assert_eq!(poll_interval(&json!({"pollIntervalMs": -1})), DEFAULT_POLL_INTERVAL);
    }

    #[test]
    fn polls_never_wait_past_the_deadline() {
        let task = json!({"pollIntervalMs": 1000});
        assert_eq!(next_poll(&task, 5000.0), Duration::from_secs(1));
        assert_eq!(next_poll(&task, 300.0), Duration::from_millis(300));
        assert_eq!(next_poll(&task, -20.0), Duration::ZERO);
        assert_eq!(next_poll(&task, f64::MAX), Duration::from_secs(1));
    }
}
