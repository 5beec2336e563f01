//! `rmcp-peer`: a small MCP server built on rmcp 3.11.0 (the official Rust SDK),
//! for mcp-edge's interop tests. It serves both protocol eras the way rmcp
//! does by default: a client that sends `initialize` gets a handshake session
//! (2024-11-05 .. 2025-11-25), a client that sends `server/discover` or a
//! request with complete 2026-07-28 `_meta` is served statelessly.
//!
//! ```text
//! rmcp-peer stdio   # over stdin/stdout
//! rmcp-peer http    # Streamable HTTP on 127.0.0.1:$PORT/mcp (PORT=0: any port),
//!                   # prints `listening http://127.0.0.1:<port>/mcp` once bound
//! ```
//!
//! What it offers:
//! - tools `add {a,b}`, `echo {text}`, `route {region,query}` (`region` is
//!   annotated `x-mcp-header: Region`, so a 2026-07-28 HTTP client must send
//!   `Mcp-Param-Region`, and rmcp checks it against the body);
//! - `confirm`, which asks the user: in 2026-07-28 by returning an
//!   `input_required` result (answered on a retried request), before that
//!   with an `elicitation/create` server request;
//! - the resource `demo://counter` (subscribable), `bump` (increments it and
//!   sends `notifications/resources/updated`) and `grow` (adds a tool and
//!   sends `notifications/tools/list_changed`). Handshake sessions get these
//!   notifications via `resources/subscribe` / their session; 2026-07-28
//!   clients via `subscriptions/listen` streams.
//! - the tasks extension (`io.modelcontextprotocol/tasks`, SEP-2663), run by
//!   rmcp's `TaskManager`: `slow_compute {seconds, label?}` (sleeps, then
//!   `done: <label>`), `task_confirm` (the task turns `input_required` with
//!   `confirm`'s form and waits for `tasks/update`) and `slow_fail
//!   {seconds?, label?}` (ends `failed` with a JSON-RPC error). A request that
//!   declares the extension gets a task (`resultType: "task"`); one that does
//!   not gets the same work done synchronously.
//!
//! Task events go to stderr, one line each, for the tests to watch:
//! `rmcp-peer: task created <id> for <tool>`, `rmcp-peer: <tool> ran
//! synchronously`, `rmcp-peer: tasks/update <id> <keys>`, `rmcp-peer:
//! tasks/cancel <id>`, `rmcp-peer: task <id> stopped: cancelled`.
//!
//! State is process-wide (one `Arc<Shared>`): over HTTP rmcp builds a handler
//! per session, and per request in 2026-07-28 mode, and they must all see the
//! same counter, the same grown tools and the same listeners.

use std::collections::VecDeque;
use std::io::Write;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, CancelTaskParams, ContentBlock, CreateTaskResult,
    ElicitRequest, ElicitRequestParams, ElicitResult, GetTaskParams, GetTaskResult, Implementation,
    InitializeRequestParams, InitializeResult, InputRequest, InputRequests, InputRequiredResult, JsonObject,
    ListResourcesResult, ListToolsResult, PaginatedRequestParams, ProtocolVersion, ReadResourceRequestParams,
    ReadResourceResponse, ReadResourceResult, Resource, ResourceContents, ResourceUpdatedNotificationParam,
    ServerCapabilities, ServerConfig, SubscribeRequestParams, SubscriptionFilter, Tool, UnsubscribeRequestParams,
    UpdateTaskParams,
};
use rmcp::service::{RequestContext, SubscriptionContext, SubscriptionSink};
use rmcp::task_manager::{TaskContext, TaskExit, TaskFuture, TaskManager, TaskOptions};
use rmcp::transport::StreamableHttpServerConfig;
use rmcp::transport::streamable_http_server::StreamableHttpService;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::{ErrorData, Peer, RoleServer, ServerHandler, ServiceExt};
use serde_json::{Value, json};

const COUNTER_URI: &str = "demo://counter";
/// The key of `confirm`'s one input request, and the `requestState` it
/// expects back: checking the echo proves the client returned it verbatim.
const CONFIRM_KEY: &str = "confirm";
const CONFIRM_STATE: &str = "confirm/round-1";
/// The `pollIntervalMs` tasks suggest: short, so the tests run quickly.
const TASK_POLL_MS: u64 = 100;
/// The longest a task tool may be asked to sleep.
const MAX_SECONDS: f64 = 600.0;

/// Everything the handlers share, whichever connection they serve.
#[derive(Default)]
struct Shared {
    counter: AtomicU64,
    /// Names of the tools `grow` added, in order.
    grown: Mutex<Vec<String>>,
    /// Handshake era: sessions (to tell them `tools/list_changed`)...
    sessions: Mutex<Vec<Peer<RoleServer>>>,
    /// ... and their `resources/subscribe` subscriptions.
    subscribed: Mutex<Vec<(Peer<RoleServer>, String)>>,
    /// 2026-07-28: `subscriptions/listen` streams.
    listeners: Mutex<Listeners>,
    next_listener: AtomicU64,
    /// Tasks (SEP-2663), shared like the rest: over HTTP, `tasks/get` is
    /// served by another handler than the `tools/call` that made the task.
    tasks: TaskManager,
}

/// A change subscribers hear about.
#[derive(Clone)]
enum Change {
    ToolsChanged,
    ResourceUpdated(&'static str),
}

/// rmcp acknowledges a `subscriptions/listen` before it calls
/// [`ServerHandler::listen`], so a client may send a request that changes
/// something (`bump`) as soon as it reads the acknowledgement, and that
/// request may run before `listen` has registered the stream's sink. To lose
/// nothing, each accepted subscription gets a buffer of the changes made
/// until its `listen` starts (`pending`, oldest first), replayed there.
#[derive(Default)]
struct Listeners {
    active: Vec<(u64, SubscriptionSink)>,
    pending: VecDeque<Vec<Change>>,
}

/// Bounds `pending` should an accepted subscription never reach `listen`
/// (its acknowledgement could not be sent).
const MAX_PENDING: usize = 32;

/// A poisoned lock only means another handler panicked: the data is fine.
fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

#[derive(Clone, Default)]
struct Demo {
    shared: Arc<Shared>,
}

fn schema(value: Value) -> Arc<JsonObject> {
    match value {
        Value::Object(map) => Arc::new(map),
        _ => Arc::new(JsonObject::new()),
    }
}

fn text(result: impl Into<String>) -> CallToolResponse {
    CallToolResult::success(vec![ContentBlock::text(result)]).into()
}

fn argument<'a>(request: &'a CallToolRequestParams, name: &str) -> Option<&'a Value> {
    request.arguments.as_ref().and_then(|arguments| arguments.get(name))
}

fn int_argument(request: &CallToolRequestParams, name: &str) -> Result<i64, ErrorData> {
    argument(request, name)
        .and_then(Value::as_i64)
        .ok_or_else(|| ErrorData::invalid_params(format!("`{name}` must be an integer"), None))
}

fn str_argument(request: &CallToolRequestParams, name: &str) -> Result<String, ErrorData> {
    argument(request, name)
        .and_then(Value::as_str)
        .map(str::to_owned)
        .ok_or_else(|| ErrorData::invalid_params(format!("`{name}` must be a string"), None))
}

/// The form `confirm` shows: a yes/no and a free-text reason.
fn confirm_question() -> Result<ElicitRequestParams, ErrorData> {
    serde_json::from_value(json!({
        "mode": "form",
        "message": "Proceed with the demo action?",
        "requestedSchema": {
            "type": "object",
            "properties": {
                "confirmed": {"type": "boolean", "title": "Confirmed", "default": false},
                "reason": {"type": "string", "title": "Reason"}
            },
            "required": ["confirmed"]
        }
    }))
    .map_err(|e| ErrorData::internal_error(format!("bad elicitation form: {e}"), None))
}

/// What `confirm` reports: how it asked (`input_required`,
/// `elicitation/create` or `task input_required`), then the action and the
/// content exactly as the client sent them.
fn confirm_answer(via: &str, answer: &Value) -> String {
    let action = answer.get("action").and_then(Value::as_str).unwrap_or("?");
    let content = answer.get("content").cloned().unwrap_or(Value::Null);
    format!("via {via}, user answered: {action} {content}")
}

/// One line on stderr about a task, for the tests (see the module docs).
fn note(line: impl std::fmt::Display) {
    eprintln!("rmcp-peer: {line}");
}

/// `seconds` (a number, 0 to [`MAX_SECONDS`]), or `default` when absent.
fn seconds_argument(request: &CallToolRequestParams, default: Option<f64>) -> Result<Duration, ErrorData> {
    let seconds = match argument(request, "seconds") {
        None => default,
        Some(value) => value.as_f64(),
    };
    seconds
        .filter(|s| s.is_finite() && (0.0..=MAX_SECONDS).contains(s))
        .map(Duration::from_secs_f64)
        .ok_or_else(|| ErrorData::invalid_params(format!("`seconds` must be a number from 0 to {MAX_SECONDS}"), None))
}

/// `label`, if any, else `default`.
fn label_argument(request: &CallToolRequestParams, default: &str) -> String {
    argument(request, "label").and_then(Value::as_str).unwrap_or(default).to_owned()
}

/// The error `slow_fail` ends with, as a task or not.
fn slow_fail_error(label: &str) -> ErrorData {
    ErrorData::internal_error(format!("slow_fail failed on purpose: {label}"), Some(json!({"label": label})))
}

/// Whether this request declared the tasks extension (per request in
/// 2026-07-28, at `initialize` in a handshake session).
fn declares_tasks(context: &RequestContext<RoleServer>) -> bool {
    context.client_capabilities().is_some_and(|capabilities| capabilities.supports_tasks())
}

/// Sends a change on one listen stream. The sink drops what this listener
/// did not ask for (`NotificationNotAccepted`): that is the filter working.
async fn deliver(sink: &SubscriptionSink, change: &Change) {
    let _ = match change {
        Change::ToolsChanged => sink.notify_tool_list_changed().await,
        Change::ResourceUpdated(uri) => sink.notify_resource_updated(*uri).await,
    };
}

fn is_stateless(context: &RequestContext<RoleServer>) -> bool {
    context.protocol_version().is_some_and(|v| v >= ProtocolVersion::V_2026_07_28)
}

impl Demo {
    fn base_tools() -> Vec<Tool> {
        vec![
            Tool::new(
                "add",
                "Adds two integers",
                schema(json!({
                    "type": "object",
                    "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
                    "required": ["a", "b"]
                })),
            ),
            Tool::new(
                "echo",
                "Returns its text",
                schema(json!({
                    "type": "object",
                    "properties": {"text": {"type": "string"}},
                    "required": ["text"]
                })),
            ),
            Tool::new(
                "route",
                "Echoes region and query; region travels in the Mcp-Param-Region header too (2026-07-28 HTTP)",
                schema(json!({
                    "type": "object",
                    "properties": {
                        "region": {"type": "string", "x-mcp-header": "Region"},
                        "query": {"type": "string"}
                    },
                    "required": ["region", "query"]
                })),
            ),
            Tool::new(
                "confirm",
                "Asks the user to confirm (elicitation) and reports the answer",
                schema(json!({"type": "object", "properties": {}})),
            ),
            Tool::new(
                "bump",
                "Increments demo://counter and notifies its subscribers",
                schema(json!({"type": "object", "properties": {}})),
            ),
            Tool::new(
                "grow",
                "Adds a tool and notifies tools/list_changed",
                schema(json!({"type": "object", "properties": {}})),
            ),
            Tool::new(
                "slow_compute",
                "Sleeps `seconds`, then answers `done: <label>`; a task when the request declares the tasks extension",
                schema(json!({
                    "type": "object",
                    "properties": {"seconds": {"type": "number"}, "label": {"type": "string"}},
                    "required": ["seconds"]
                })),
            ),
            Tool::new(
                "task_confirm",
                "Like confirm, but as a task that turns input_required (when the request declares the tasks extension)",
                schema(json!({"type": "object", "properties": {}})),
            ),
            Tool::new(
                "slow_fail",
                "Sleeps `seconds` (default 0.2), then fails with a JSON-RPC error; a task ends `failed`",
                schema(json!({
                    "type": "object",
                    "properties": {"seconds": {"type": "number"}, "label": {"type": "string"}}
                })),
            ),
        ]
    }

    fn tools(&self) -> Vec<Tool> {
        let mut tools = Self::base_tools();
        for name in lock(&self.shared.grown).iter() {
            tools.push(Tool::new(
                name.clone(),
                "Added by grow; returns its own name",
                schema(json!({"type": "object", "properties": {}})),
            ));
        }
        tools
    }

    async fn confirm(
        &self,
        request: &CallToolRequestParams,
        context: &RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        if is_stateless(context) {
            // 2026-07-28 forbids server-to-client requests: ask through an
            // `input_required` result, and read the answer from the retry.
            let Some(responses) = &request.input_responses else {
                let mut requests = InputRequests::new();
                requests
                    .insert(CONFIRM_KEY.to_owned(), InputRequest::Elicitation(ElicitRequest::new(confirm_question()?)));
                return Ok(InputRequiredResult::new(Some(requests), Some(CONFIRM_STATE.to_owned())).into());
            };
            if request.request_state.as_deref() != Some(CONFIRM_STATE) {
                return Err(ErrorData::invalid_params(
                    format!("requestState not echoed: {:?}", request.request_state),
                    None,
                ));
            }
            let answer = responses
                .get(CONFIRM_KEY)
                .ok_or_else(|| ErrorData::invalid_params(format!("no input response `{CONFIRM_KEY}`"), None))?;
            Ok(text(confirm_answer("input_required", answer)))
        } else {
            // The handshake era: an `elicitation/create` request on this session.
            let result: ElicitResult = context
                .peer
                .create_elicitation(confirm_question()?)
                .await
                .map_err(|e| ErrorData::internal_error(format!("elicitation failed: {e}"), None))?;
            let answer = serde_json::to_value(&result).unwrap_or(Value::Null);
            Ok(text(confirm_answer("elicitation/create", &answer)))
        }
    }

    /// Runs `work` as a task: rmcp's `TaskManager` spawns it and the client
    /// gets the seed state (`resultType: "task"`) to poll.
    fn spawn_task(
        &self,
        tool: &str,
        work: impl FnOnce(TaskContext) -> TaskFuture,
    ) -> Result<CallToolResponse, ErrorData> {
        let options = TaskOptions::new().with_poll_interval_ms(TASK_POLL_MS);
        let task = self.shared.tasks.spawn(options, work);
        note(format_args!("task created {} for {tool}", task.task_id));
        Ok(CreateTaskResult::new(task).into())
    }

    /// `slow_compute`: a task that sleeps, stopping early if cancelled.
    async fn slow_compute(
        &self,
        request: &CallToolRequestParams,
        context: &RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let duration = seconds_argument(request, None)?;
        let done = format!("done: {}", label_argument(request, ""));
        if !declares_tasks(context) {
            tokio::time::sleep(duration).await;
            note("slow_compute ran synchronously");
            return Ok(text(done));
        }
        self.spawn_task("slow_compute", move |task| {
            Box::pin(async move {
                tokio::select! {
                    () = task.cancelled() => {
                        note(format_args!("task {} stopped: cancelled", task.task_id()));
                        Err(TaskExit::Cancelled)
                    }
                    () = tokio::time::sleep(duration) => Ok(CallToolResult::success(vec![ContentBlock::text(done)])),
                }
            })
        })
    }

    /// `task_confirm`: `confirm`'s question asked from inside a task, which
    /// reports `input_required` until the client answers with `tasks/update`.
    async fn task_confirm(
        &self,
        request: &CallToolRequestParams,
        context: &RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        if !declares_tasks(context) {
            note("task_confirm ran synchronously");
            return self.confirm(request, context).await;
        }
        let question = InputRequest::Elicitation(ElicitRequest::new(confirm_question()?));
        self.spawn_task("task_confirm", move |task| {
            Box::pin(async move {
                let answer = task.request_input(CONFIRM_KEY, question).await?;
                let reply = confirm_answer("task input_required", &answer);
                Ok(CallToolResult::success(vec![ContentBlock::text(reply)]))
            })
        })
    }

    /// `slow_fail`: sleeps, then fails (a task settles `failed`).
    async fn slow_fail(
        &self,
        request: &CallToolRequestParams,
        context: &RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let duration = seconds_argument(request, Some(0.2))?;
        let error = slow_fail_error(&label_argument(request, "slow_fail"));
        if !declares_tasks(context) {
            tokio::time::sleep(duration).await;
            note("slow_fail ran synchronously");
            return Err(error);
        }
        self.spawn_task("slow_fail", move |_task| {
            Box::pin(async move {
                tokio::time::sleep(duration).await;
                Err(TaskExit::Error(error))
            })
        })
    }

    /// Tells every interested party about a change: handshake sessions
    /// (subscribed ones, for a resource) and 2026-07-28 listen streams.
    async fn publish(&self, change: Change) {
        let sessions: Vec<Peer<RoleServer>> = match change {
            Change::ToolsChanged => lock(&self.shared.sessions).clone(),
            Change::ResourceUpdated(uri) => lock(&self.shared.subscribed)
                .iter()
                .filter(|(_, subscribed)| subscribed == uri)
                .map(|(peer, _)| peer.clone())
                .collect(),
        };
        for peer in sessions {
            // A closed session is pruned below; nothing else to do here.
            let _ = match change {
                Change::ToolsChanged => peer.notify_tool_list_changed().await,
                Change::ResourceUpdated(uri) => {
                    peer.notify_resource_updated(ResourceUpdatedNotificationParam::new(uri)).await
                }
            };
        }
        let sinks = {
            let mut listeners = lock(&self.shared.listeners);
            for missed in listeners.pending.iter_mut() {
                missed.push(change.clone());
            }
            listeners.active.clone()
        };
        for (_, sink) in sinks {
            deliver(&sink, &change).await;
        }
        self.prune();
    }

    /// Forgets sessions whose transport has gone.
    fn prune(&self) {
        lock(&self.shared.sessions).retain(|peer| !peer.is_transport_closed());
        lock(&self.shared.subscribed).retain(|(peer, _)| !peer.is_transport_closed());
    }
}

// `resources/subscribe` and `resources/unsubscribe` are deprecated in rmcp
// (legacy-only), which is exactly why they are here: handshake clients use them.
#[allow(deprecated)]
impl ServerHandler for Demo {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(
            ServerCapabilities::builder()
                .enable_resources()
                .enable_tools()
                .enable_tool_list_changed()
                .enable_resources_subscribe()
                .enable_tasks()
                .build(),
        )
        .with_server_info(Implementation::new("rmcp-peer", "0.1.0"))
        .with_instructions("mcp-edge's interop peer, built on rmcp 3.11.0")
    }

    async fn initialize(
        &self,
        request: InitializeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<InitializeResult, ErrorData> {
        // A handshake session: remember it for `tools/list_changed`. Here
        // rather than on `notifications/initialized`, which is handled
        // concurrently with the requests that follow it.
        context.peer.set_peer_info(request.clone());
        lock(&self.shared.sessions).push(context.peer);
        self.negotiate_initialize(&request)
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(self.tools()))
    }

    /// rmcp's HTTP server looks tools up here to check `Mcp-Param-*` headers
    /// against the arguments (SEP-2243); without it that check is skipped.
    fn get_tool(&self, name: &str) -> Option<Tool> {
        self.tools().into_iter().find(|tool| tool.name == name)
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        match request.name.as_ref() {
            "add" => {
                let sum = int_argument(&request, "a")? + int_argument(&request, "b")?;
                Ok(text(sum.to_string()))
            }
            "echo" => Ok(text(str_argument(&request, "text")?)),
            "route" => {
                let region = str_argument(&request, "region")?;
                let query = str_argument(&request, "query")?;
                Ok(text(format!("region={region} query={query}")))
            }
            "confirm" => self.confirm(&request, &context).await,
            "slow_compute" => self.slow_compute(&request, &context).await,
            "task_confirm" => self.task_confirm(&request, &context).await,
            "slow_fail" => self.slow_fail(&request, &context).await,
            "bump" => {
                let value = self.shared.counter.fetch_add(1, Ordering::SeqCst) + 1;
                self.publish(Change::ResourceUpdated(COUNTER_URI)).await;
                Ok(text(format!("counter={value}")))
            }
            "grow" => {
                let name = {
                    let mut grown = lock(&self.shared.grown);
                    let name = format!("grown_{}", grown.len() + 1);
                    grown.push(name.clone());
                    name
                };
                self.publish(Change::ToolsChanged).await;
                Ok(text(name))
            }
            other if lock(&self.shared.grown).iter().any(|name| name == other) => Ok(text(other.to_owned())),
            other => Err(ErrorData::invalid_params(format!("unknown tool `{other}`"), None)),
        }
    }

    /// `tasks/get`. rmcp has already checked that the server advertises the
    /// extension and the request declares it (else -32601 / -32021).
    async fn get_task(
        &self,
        request: GetTaskParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<GetTaskResult, ErrorData> {
        Ok(GetTaskResult::new(self.shared.tasks.get_task(&request.task_id)?))
    }

    /// `tasks/update`: hands the answers to the task waiting for them.
    async fn update_task(
        &self,
        request: UpdateTaskParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        let keys: Vec<&String> = request.input_responses.keys().collect();
        note(format_args!("tasks/update {} {keys:?}", request.task_id));
        self.shared.tasks.update_task(&request.task_id, request.input_responses)
    }

    /// `tasks/cancel`: cooperative; the task decides how it ends.
    async fn cancel_task(
        &self,
        request: CancelTaskParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        note(format_args!("tasks/cancel {}", request.task_id));
        self.shared.tasks.cancel_task(&request.task_id)
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        let counter = Resource::new(COUNTER_URI, "counter")
            .with_description("A number that `bump` increments")
            .with_mime_type("text/plain");
        Ok(ListResourcesResult::with_all_items(vec![counter]))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        if request.uri != COUNTER_URI {
            return Err(ErrorData::resource_not_found(format!("no resource {}", request.uri), None));
        }
        let value = self.shared.counter.load(Ordering::SeqCst);
        Ok(ReadResourceResult::new(vec![ResourceContents::text(value.to_string(), COUNTER_URI)]).into())
    }

    async fn subscribe(
        &self,
        request: SubscribeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        lock(&self.shared.subscribed).push((context.peer, request.uri));
        Ok(())
    }

    async fn unsubscribe(
        &self,
        request: UnsubscribeRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        // A `Peer` cannot be compared with another, so this forgets every
        // session's subscription to the URI: good enough for a test peer.
        lock(&self.shared.subscribed).retain(|(_, uri)| *uri != request.uri);
        Ok(())
    }

    /// 2026-07-28 `subscriptions/listen`: accept what was asked (rmcp trims
    /// it to what `get_info` advertises) and start buffering changes for it
    /// (see [`Listeners`]).
    fn accepted_subscription_filter(&self, requested: &SubscriptionFilter) -> Option<SubscriptionFilter> {
        let mut listeners = lock(&self.shared.listeners);
        if listeners.pending.len() >= MAX_PENDING {
            listeners.pending.pop_front();
        }
        listeners.pending.push_back(Vec::new());
        Some(requested.clone())
    }

    /// Registers the stream, replays what changed since it was accepted,
    /// and holds it open until the client cancels it.
    async fn listen(&self, context: SubscriptionContext) -> Result<(), ErrorData> {
        let key = self.shared.next_listener.fetch_add(1, Ordering::SeqCst);
        let sink = context.sink().clone();
        let missed = {
            let mut listeners = lock(&self.shared.listeners);
            listeners.active.push((key, sink.clone()));
            // Concurrent listens may swap buffers: at worst one hears a
            // change from a moment before it was accepted.
            listeners.pending.pop_front().unwrap_or_default()
        };
        for change in &missed {
            deliver(&sink, change).await;
        }
        context.cancelled().await;
        lock(&self.shared.listeners).active.retain(|(k, _)| *k != key);
        Ok(())
    }
}

fn usage() -> ! {
    eprintln!("usage: rmcp-peer stdio | rmcp-peer http (PORT=<port>, 0 for any)");
    std::process::exit(2)
}

#[tokio::main]
async fn main() {
    // Logs go to stderr (stdout is the stdio transport): RUST_LOG=debug to see rmcp at work.
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn")),
        )
        .init();
    let mode = std::env::args().nth(1).unwrap_or_default();
    let result = match mode.as_str() {
        "stdio" => stdio().await,
        "http" => http().await,
        _ => usage(),
    };
    if let Err(e) = result {
        eprintln!("rmcp-peer: {e}");
        std::process::exit(1);
    }
}

type Res = Result<(), Box<dyn std::error::Error + Send + Sync>>;

async fn stdio() -> Res {
    // rmcp picks the era from the first message: `initialize`, or a request
    // with full 2026-07-28 `_meta` (a `server/discover` probe keeps both open).
    let running = Demo::default().serve(rmcp::transport::stdio()).await?;
    running.waiting().await?;
    Ok(())
}

async fn http() -> Res {
    let port: u16 = match std::env::var("PORT") {
        Ok(port) => port.parse().map_err(|e| format!("PORT={port}: {e}"))?,
        Err(_) => 0,
    };
    let demo = Demo::default();
    // The default config is already dual-era: `legacy_session_mode` gives
    // `initialize` clients a session (Mcp-Session-Id), and 2026-07-28
    // requests are always served statelessly. Hosts default to loopback, and
    // with no allowed origins listed rmcp does not check Origin (CORS below
    // decides what a browser may do).
    let service: StreamableHttpService<Demo, LocalSessionManager> = StreamableHttpService::new(
        move || Ok(demo.clone()),
        Arc::new(LocalSessionManager::default()),
        StreamableHttpServerConfig::default(),
    );
    let router = axum::Router::new().nest_service("/mcp", service).layer(cors());
    let listener = tokio::net::TcpListener::bind(SocketAddr::from(([127, 0, 0, 1], port))).await?;
    let bound = listener.local_addr()?;
    let mut stdout = std::io::stdout();
    writeln!(stdout, "listening http://127.0.0.1:{}/mcp", bound.port())?;
    stdout.flush()?;
    axum::serve(listener, router)
        .with_graceful_shutdown(async {
            let _ = tokio::signal::ctrl_c().await;
        })
        .await?;
    Ok(())
}

/// CORS for a browser page on another origin (the wasm tests and the demo):
/// any origin, the MCP methods, whatever request headers it asks for (the
/// client sends MCP-Protocol-Version, Mcp-Session-Id, Last-Event-ID,
/// Mcp-Method, Mcp-Name, Mcp-Param-*, Authorization, ...), and the response
/// headers a script must be able to read.
fn cors() -> tower_http::cors::CorsLayer {
    use axum::http::{HeaderName, Method};
    use tower_http::cors::{AllowHeaders, Any, CorsLayer};
    CorsLayer::new()
        .allow_origin(Any)
        .allow_methods([Method::GET, Method::POST, Method::DELETE, Method::OPTIONS])
        .allow_headers(AllowHeaders::mirror_request())
        .expose_headers([HeaderName::from_static("mcp-session-id"), HeaderName::from_static("www-authenticate")])
}
