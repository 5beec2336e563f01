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

mod handler;
mod tools;

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
