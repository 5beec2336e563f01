#![cfg(not(target_arch = "wasm32"))]
//! Interop with rmcp 3.11.0, the official Rust SDK, through
//! `tests/peers/rmcp-server` (`rmcp-peer`, built by `cargo xtask setup` into
//! target/rmcp-peer). It serves both eras from one binary, so the same
//! calls are made once statelessly (2026-07-28: `server/discover`,
//! per-request `_meta`, `input_required` rounds) and once over the
//! `initialize` handshake (elicitation as a server request), over stdio and
//! over Streamable HTTP. Change notifications go through `Client::listen`:
//! `subscriptions/listen` in 2026-07-28, `resources/subscribe` and the
//! session's stream before.
//!
//! The tasks extension (`io.modelcontextprotocol/tasks`, SEP-2663) runs
//! against rmcp's `TaskManager`: `slow_compute`, `task_confirm` and
//! `slow_fail` become tasks when the client declares the extension
//! (`with_tasks(true)`), and the peer notes each task event on stderr
//! (`rmcp-peer: task created <id> for <tool>`, `tasks/update`,
//! `tasks/cancel`, ...), which these tests read ([`PeerLog`]) to see what the
//! server saw: a task made, an answer delivered, a cancellation received.
//!
//! Without the binary: a failure under CI, else a skip (tests/support/native.rs).
//! The peer's stderr is shown (prefixed `[rmcp-peer]`): rmcp logs `ERROR ...
//! failed to send pending response during drain` when a client closes an
//! HTTP listen stream, which is how 2026-07-28 cancels one (rmcp has no
//! answer to send it any more). Every wait is bounded; every server process
//! dies with its test.

mod support;

use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use futures::StreamExt;
use mcp_edge::protocol::types::{CallToolResult, ElicitAction, ElicitResult, JsonObject};
use mcp_edge::protocol::{Era, ProtocolVersion};
use mcp_edge::transport::StdioOptions;
use mcp_edge::{Client, Error};
use mcp_edge::{ClientOptions, ConnectOptions, EraChoice, ListenFilter, connect_stdio, connect_url};
use serde_json::{Value, json};
use support::native::{Lines, Server, rmcp_peer};
use support::{arguments, texts, within};

/// Client options whose elicitation handler accepts with a recognisable
/// reason and counts its calls.
fn options(era: EraChoice, reason: &str, calls: &Arc<AtomicUsize>) -> ClientOptions {
    let calls = Arc::clone(calls);
    let reason = reason.to_owned();
    ClientOptions::new("interop-rmcp", "1.0").with_timeout(Duration::from_secs(20)).with_era(era).on_elicitation(
        move |params, _context| {
            calls.fetch_add(1, Ordering::SeqCst);
            let reason = reason.clone();
            async move {
                // The form is the one rmcp-peer's `confirm` sends.
                assert_eq!(params.message, "Proceed with the demo action?");
                let mut content = JsonObject::new();
                content.insert("confirmed".into(), json!(true));
                content.insert("reason".into(), json!(reason));
                Ok(ElicitResult { action: ElicitAction::Accept, content: Some(content) })
            }
        },
        true,
    )
}

fn stdio_options(binary: &Path) -> StdioOptions {
    StdioOptions::new(binary.to_string_lossy().into_owned(), ["stdio"])
}

/// `stdio_options` whose stderr lines go to `log` (and are shown).
fn watched_stdio_options(binary: &Path, log: &PeerLog) -> StdioOptions {
    let log = log.clone();
    stdio_options(binary).on_stderr(move |line| log.push(line))
}

/// The lines a peer wrote to stderr, in order (and shown, prefixed
/// `[rmcp-peer]`): where rmcp-peer notes the task events it handled (see
/// tests/peers/rmcp-server/src/main.rs).
#[derive(Clone)]
struct PeerLog(Lines);

impl Default for PeerLog {
    fn default() -> PeerLog {
        PeerLog(Lines::echoed("[rmcp-peer]"))
    }
}

impl std::ops::Deref for PeerLog {
    type Target = Lines;

    fn deref(&self) -> &Lines {
        &self.0
    }
}

/// How long a peer may take to note something on stderr.
const NOTE_WAIT: Duration = Duration::from_secs(10);

impl PeerLog {
    /// The first line since `mark` that `found` accepts (returning what it
    /// extracts), waiting up to [`NOTE_WAIT`] for it.
    async fn wait_for<T>(&self, mark: usize, what: &str, found: impl Fn(&str) -> Option<T>) -> T {
        match self.find_since(mark, NOTE_WAIT, found).await {
            Some(value) => value,
            None => panic!("the peer did not note {what} within {NOTE_WAIT:?}; it wrote {:#?}", self.since(mark)),
        }
    }

    #[cfg(feature = "tasks")]
    /// The id of the task the peer made for `tool` since `mark`.
    async fn task_created(&self, mark: usize, tool: &str) -> String {
        let suffix = format!(" for {tool}");
        self.wait_for(mark, &format!("a task for {tool}"), |line| {
            let id = line.strip_prefix("rmcp-peer: task created ")?.strip_suffix(suffix.as_str())?;
            Some(id.to_owned())
        })
        .await
    }

    /// Waits for exactly `line` since `mark`.
    async fn noted(&self, mark: usize, line: &str) {
        self.wait_for(mark, &format!("`{line}`"), |seen| (seen == line).then_some(())).await
    }
}

/// The text of a tool result's single text block.
fn text(result: &CallToolResult) -> String {
    assert_eq!(result.content.len(), 1, "one content block: {result:?}");
    texts(result)
}

/// The calls both eras must get right against the same server. `confirm`
/// asks `via` an `input_required` result (2026-07-28) or an
/// `elicitation/create` request (the handshake era).
async fn exercise(client: &Client, calls: &Arc<AtomicUsize>, reason: &str, via: &str) {
    let tools = within("tools/list", client.list_all_tools()).await.expect("tools/list");
    let names: Vec<&str> = tools.iter().map(|t| t.name.as_str()).collect();
    for expected in ["add", "echo", "route", "confirm", "bump", "grow"] {
        assert!(names.contains(&expected), "{expected} missing from {names:?}");
    }

    let sum = within("add", client.call_tool("add", arguments(json!({"a": 2, "b": 3})))).await.expect("add");
    assert_eq!(text(&sum), "5");
    assert_ne!(sum.is_error, Some(true));

    let echoed = within("echo", client.call_tool("echo", arguments(json!({"text": "héllo wörld"})))).await;
    assert_eq!(text(&echoed.expect("echo")), "héllo wörld");

    // `region` is annotated `x-mcp-header`: over 2026-07-28 HTTP rmcp
    // rejects the call unless Mcp-Param-Region matches the argument.
    let routed = within("route", client.call_tool("route", arguments(json!({"region": "eu-west", "query": "q 1"}))))
        .await
        .expect("route");
    assert_eq!(text(&routed), "region=eu-west query=q 1");
    // A value a header cannot carry as is (non-ASCII, edge spaces) goes
    // Base64-wrapped (`=?base64?...?=`), and rmcp must decode it to match.
    let routed = within("route", client.call_tool("route", arguments(json!({"region": " zürich ", "query": "q"}))))
        .await
        .expect("route with a Base64 header");
    assert_eq!(text(&routed), "region= zürich  query=q");

    let before = calls.load(Ordering::SeqCst);
    let confirmed = within("confirm", client.call_tool("confirm", None)).await.expect("confirm");
    assert_eq!(calls.load(Ordering::SeqCst), before + 1, "the elicitation handler ran once");
    let answer = text(&confirmed);
    let prefix = format!("via {via}, user answered: accept ");
    let content: Value = match answer.strip_prefix(&prefix) {
        Some(content) => serde_json::from_str(content).unwrap_or_default(),
        None => panic!("`{answer}` does not start with `{prefix}`"),
    };
    assert_eq!(content, json!({"confirmed": true, "reason": reason}), "{answer}");

    let resources = within("resources/list", client.list_all_resources()).await.expect("resources/list");
    assert!(resources.iter().any(|r| r.uri == "demo://counter"), "{resources:?}");
    let read = within("resources/read", client.read_resource("demo://counter")).await.expect("resources/read");
    assert_eq!(read.contents.len(), 1, "{read:?}");
}

/// `bump` and `grow` reach a subscription to the counter and tool list
/// changes, in order, and nothing is left over.
async fn subscriptions(client: &Client) {
    let mut filter = ListenFilter::resource("demo://counter");
    filter.tools_list_changed = true;
    let mut subscription = within("listen", client.listen(filter.clone())).await.expect("listen");
    assert_eq!(subscription.granted(), &filter, "rmcp-peer grants it all");

    // Sent as soon as the subscription is acknowledged: it must not be lost.
    let bumped = within("bump", client.call_tool("bump", None)).await.expect("bump");
    assert!(text(&bumped).starts_with("counter="), "{bumped:?}");
    let updated = within("resources/updated", subscription.next()).await.expect("open").expect("a notification");
    assert_eq!(updated.method, "notifications/resources/updated");
    assert_eq!(updated.params.as_ref().and_then(|p| p.get("uri")), Some(&json!("demo://counter")));

    let grown = text(&within("grow", client.call_tool("grow", None)).await.expect("grow"));
    let changed = within("tools/list_changed", subscription.next()).await.expect("open").expect("a notification");
    assert_eq!(changed.method, "notifications/tools/list_changed");
    let tools = within("tools/list", client.list_all_tools()).await.expect("tools/list");
    assert!(tools.iter().any(|t| t.name == grown), "{grown} missing after list_changed");
    let result = within("grown tool", client.call_tool(&grown, None)).await.expect("the grown tool");
    assert_eq!(text(&result), grown);

    within("closing the subscription", subscription.close()).await;
    // The server is still fine with the subscription gone.
    within("bump", client.call_tool("bump", None)).await.expect("bump after close");
}

fn assert_stateless(client: &Client) {
    assert_eq!(client.era(), Some(Era::Stateless));
    let negotiated = client.negotiated().expect("negotiated");
    assert_eq!(negotiated.version, ProtocolVersion::V2026_07_28);
    assert_eq!(negotiated.result.server_info.name, "rmcp-peer");
}

fn assert_handshake(client: &Client) {
    assert_eq!(client.era(), Some(Era::Handshake));
    let negotiated = client.negotiated().expect("negotiated");
    assert_eq!(negotiated.version, ProtocolVersion::V2025_11_25, "the newest handshake revision");
    assert_eq!(negotiated.result.server_info.name, "rmcp-peer");
}

#[tokio::test]
async fn stdio_auto_speaks_2026_07_28_with_rmcp() {
    let Some(binary) = rmcp_peer() else { return };
    let calls = Arc::new(AtomicUsize::new(0));
    let client =
        within("connect", connect_stdio(stdio_options(&binary), options(EraChoice::Auto, "stdio-auto", &calls)))
            .await
            .expect("connect");
    assert_stateless(&client);
    exercise(&client, &calls, "stdio-auto", "input_required").await;
    subscriptions(&client).await;
    client.close().await;
}

#[tokio::test]
async fn stdio_handshake_against_the_same_binary() {
    let Some(binary) = rmcp_peer() else { return };
    let calls = Arc::new(AtomicUsize::new(0));
    let options = options(EraChoice::Handshake, "stdio-handshake", &calls);
    let client = within("connect", connect_stdio(stdio_options(&binary), options)).await.expect("connect");
    assert_handshake(&client);
    exercise(&client, &calls, "stdio-handshake", "elicitation/create").await;
    subscriptions(&client).await;
    client.close().await;
}

/// `rmcp-peer http` on a port of its choosing; killed when dropped. Its
/// stderr goes to `log` (and is shown).
struct HttpPeer {
    _server: Server,
    url: String,
    log: PeerLog,
}

impl HttpPeer {
    async fn start(binary: &Path) -> HttpPeer {
        let log = PeerLog::default();
        let (server, url) = Server::announced(binary, &["http".to_owned()], log.0.clone()).await;
        assert!(url.starts_with("http://127.0.0.1:") && url.ends_with("/mcp"), "{url}");
        HttpPeer { _server: server, url, log }
    }
}

#[tokio::test]
async fn http_auto_speaks_2026_07_28_with_rmcp() {
    let Some(binary) = rmcp_peer() else { return };
    let peer = HttpPeer::start(&binary).await;
    let calls = Arc::new(AtomicUsize::new(0));
    let options = options(EraChoice::Auto, "http-auto", &calls);
    let client = within("connect", connect_url(&peer.url, ConnectOptions::new(), options)).await.expect("connect");
    assert_stateless(&client);
    exercise(&client, &calls, "http-auto", "input_required").await;
    subscriptions(&client).await;
    client.close().await;
}

#[tokio::test]
async fn http_handshake_against_the_same_server() {
    let Some(binary) = rmcp_peer() else { return };
    let peer = HttpPeer::start(&binary).await;
    let calls = Arc::new(AtomicUsize::new(0));
    let options = options(EraChoice::Handshake, "http-handshake", &calls);
    let client = within("connect", connect_url(&peer.url, ConnectOptions::new(), options)).await.expect("connect");
    assert_handshake(&client);
    assert_eq!(client.transport_kind(), "streamable-http");
    exercise(&client, &calls, "http-handshake", "elicitation/create").await;
    subscriptions(&client).await;
    client.close().await;
}

// ---- The tasks extension (SEP-2663) ----

#[cfg(feature = "tasks")]
/// `options` that declare the tasks extension.
fn task_options(reason: &str, calls: &Arc<AtomicUsize>) -> ClientOptions {
    options(EraChoice::Auto, reason, calls).with_tasks(true)
}

#[cfg(feature = "tasks")]
/// `options` that declare it, with a task deadline of 500 ms.
fn short_task_options(reason: &str, calls: &Arc<AtomicUsize>) -> ClientOptions {
    let mut options = task_options(reason, calls);
    // A pub field (the struct's private fields rule out `..` update syntax).
    options.task_timeout = Duration::from_millis(500);
    options
}

#[cfg(feature = "tasks")]
/// How long the peer runs a task nobody waits for: longer than any test.
const LONG_TASK_SECONDS: u64 = 30;

#[cfg(feature = "tasks")]
/// With the extension declared: `slow_compute` and `task_confirm` complete
/// as tasks, `slow_fail` fails as one, and a call dropped mid-task has the
/// peer receive `tasks/cancel` (and stop the task).
async fn tasks_round_trip(client: &Client, log: &PeerLog, calls: &Arc<AtomicUsize>, reason: &str) {
    assert_stateless(client);
    // `server/discover` advertises the extension (the typed capabilities
    // have no `extensions`: read the raw result).
    let discovery = client.discovery().expect("server/discover was made");
    let advertised = &discovery.result["capabilities"];
    assert_eq!(advertised["extensions"]["io.modelcontextprotocol/tasks"], json!({}), "{advertised}");

    // A 1 s computation: a task, polled to completion.
    let mark = log.mark();
    let args = arguments(json!({"seconds": 1, "label": reason}));
    let done = within("slow_compute as a task", client.call_tool("slow_compute", args)).await.expect("slow_compute");
    assert_eq!(text(&done), format!("done: {reason}"));
    assert_ne!(done.is_error, Some(true));
    let id = log.task_created(mark, "slow_compute").await;
    assert!(!log.since(mark).iter().any(|l| l.contains("ran synchronously")), "{:#?}", log.since(mark));
    assert!(
        !log.since(mark).iter().any(|l| l.starts_with("rmcp-peer: tasks/cancel")),
        "a completed task is not cancelled"
    );
    eprintln!("slow_compute ran as task {id}");

    // input_required inside a task: one handler run, answered by tasks/update.
    let mark = log.mark();
    let before = calls.load(Ordering::SeqCst);
    let confirmed = within("task_confirm", client.call_tool("task_confirm", None)).await.expect("task_confirm");
    assert_eq!(calls.load(Ordering::SeqCst), before + 1, "the elicitation handler ran once");
    let id = log.task_created(mark, "task_confirm").await;
    log.noted(mark, &format!(r#"rmcp-peer: tasks/update {id} ["confirm"]"#)).await;
    let answer = text(&confirmed);
    let prefix = "via task input_required, user answered: accept ";
    let content: Value = match answer.strip_prefix(prefix) {
        Some(content) => serde_json::from_str(content).unwrap_or_default(),
        None => panic!("`{answer}` does not start with `{prefix}`"),
    };
    assert_eq!(content, json!({"confirmed": true, "reason": reason}), "{answer}");

    // A failed task: its JSON-RPC error, as if the call itself had failed.
    let mark = log.mark();
    let failed = within("slow_fail", client.call_tool("slow_fail", arguments(json!({"label": reason})))).await;
    match failed {
        Err(Error::Rpc { method, error }) => {
            assert_eq!(method, "tools/call");
            assert_eq!(error.code, -32603, "{error:?}");
            assert_eq!(error.message, format!("slow_fail failed on purpose: {reason}"));
            assert_eq!(error.data, Some(json!({"label": reason})));
        }
        other => panic!("slow_fail as a task: expected Error::Rpc, got {other:?}"),
    }
    log.task_created(mark, "slow_fail").await;

    // Giving up on a call: the task is cancelled with tasks/cancel. The call
    // is dropped 300 ms after the peer made the task (so the client surely
    // holds the task id by then, and is polling).
    let mark = log.mark();
    let long = arguments(json!({"seconds": LONG_TASK_SECONDS, "label": "never"}));
    let id = {
        let call = client.call_tool("slow_compute", long);
        tokio::pin!(call);
        let running = async {
            let id = log.task_created(mark, "slow_compute").await;
            tokio::time::sleep(Duration::from_millis(300)).await;
            id
        };
        tokio::select! {
            outcome = &mut call => panic!("a {LONG_TASK_SECONDS} s task ended early: {outcome:?}"),
            id = running => id,
        }
        // `call` is dropped here, mid-task.
    };
    log.noted(mark, &format!("rmcp-peer: tasks/cancel {id}")).await;
    log.noted(mark, &format!("rmcp-peer: task {id} stopped: cancelled")).await;

    // The client is still fine.
    let sum = within("add after the tasks", client.call_tool("add", arguments(json!({"a": 2, "b": 3})))).await;
    assert_eq!(text(&sum.expect("add")), "5");
}

/// Without the extension declared, the same tools answer synchronously:
/// no task is made (rmcp would refuse to return one anyway).
async fn no_tasks_without_the_extension(client: &Client, log: &PeerLog) {
    assert_stateless(client);
    let mark = log.mark();
    let args = arguments(json!({"seconds": 1, "label": "sync"}));
    let done = within("slow_compute", client.call_tool("slow_compute", args)).await.expect("slow_compute");
    assert_eq!(text(&done), "done: sync");
    log.noted(mark, "rmcp-peer: slow_compute ran synchronously").await;

    let failed = within("slow_fail", client.call_tool("slow_fail", arguments(json!({"label": "sync"})))).await;
    match failed {
        Err(Error::Rpc { error, .. }) => assert_eq!(error.message, "slow_fail failed on purpose: sync"),
        other => panic!("slow_fail: expected Error::Rpc, got {other:?}"),
    }
    log.noted(mark, "rmcp-peer: slow_fail ran synchronously").await;
    let tasks: Vec<String> = log.since(mark).into_iter().filter(|l| l.contains("task created")).collect();
    assert!(tasks.is_empty(), "tasks made for a client that did not declare the extension: {tasks:?}");
}

#[cfg(feature = "tasks")]
/// `task_timeout` passes (500 ms) on a 30 s task: `Error::Timeout`, and
/// the peer is told with tasks/cancel.
async fn task_timeout_cancels(client: &Client, log: &PeerLog) {
    assert_stateless(client);
    let mark = log.mark();
    let long = arguments(json!({"seconds": LONG_TASK_SECONDS, "label": "too slow"}));
    let started = std::time::Instant::now();
    let outcome = within("slow_compute past the task deadline", client.call_tool("slow_compute", long)).await;
    match outcome {
        Err(Error::Timeout { method, after }) => {
            assert_eq!(method, "tools/call");
            assert_eq!(after, Duration::from_millis(500));
        }
        other => panic!("expected Error::Timeout after 500 ms, got {other:?}"),
    }
    let elapsed = started.elapsed();
    assert!(elapsed < Duration::from_secs(5), "the task deadline took {elapsed:?}");
    let id = log.task_created(mark, "slow_compute").await;
    log.noted(mark, &format!("rmcp-peer: tasks/cancel {id}")).await;
    log.noted(mark, &format!("rmcp-peer: task {id} stopped: cancelled")).await;
}

#[cfg(feature = "tasks")]
#[tokio::test]
async fn stdio_tasks_with_rmcp() {
    let Some(binary) = rmcp_peer() else { return };
    let log = PeerLog::default();
    let calls = Arc::new(AtomicUsize::new(0));
    let options = task_options("stdio-tasks", &calls);
    let client =
        within("connect", connect_stdio(watched_stdio_options(&binary, &log), options)).await.expect("connect");
    tasks_round_trip(&client, &log, &calls, "stdio-tasks").await;
    client.close().await;
}

#[tokio::test]
async fn stdio_without_tasks_is_synchronous() {
    let Some(binary) = rmcp_peer() else { return };
    let log = PeerLog::default();
    let calls = Arc::new(AtomicUsize::new(0));
    let options = options(EraChoice::Auto, "stdio-sync", &calls);
    let client =
        within("connect", connect_stdio(watched_stdio_options(&binary, &log), options)).await.expect("connect");
    no_tasks_without_the_extension(&client, &log).await;
    client.close().await;
}

#[cfg(feature = "tasks")]
#[tokio::test]
async fn stdio_task_timeout_cancels_the_task() {
    let Some(binary) = rmcp_peer() else { return };
    let log = PeerLog::default();
    let calls = Arc::new(AtomicUsize::new(0));
    let options = short_task_options("stdio-deadline", &calls);
    let client =
        within("connect", connect_stdio(watched_stdio_options(&binary, &log), options)).await.expect("connect");
    task_timeout_cancels(&client, &log).await;
    client.close().await;
}

#[cfg(feature = "tasks")]
#[tokio::test]
async fn http_tasks_with_rmcp() {
    let Some(binary) = rmcp_peer() else { return };
    let peer = HttpPeer::start(&binary).await;
    let calls = Arc::new(AtomicUsize::new(0));
    let options = task_options("http-tasks", &calls);
    let client = within("connect", connect_url(&peer.url, ConnectOptions::new(), options)).await.expect("connect");
    // Over HTTP rmcp checks `Mcp-Name: <taskId>` on every tasks/* request
    // (-32020 otherwise): getting through proves the client sends it.
    tasks_round_trip(&client, &peer.log, &calls, "http-tasks").await;
    client.close().await;
}

#[tokio::test]
async fn http_without_tasks_is_synchronous() {
    let Some(binary) = rmcp_peer() else { return };
    let peer = HttpPeer::start(&binary).await;
    let calls = Arc::new(AtomicUsize::new(0));
    let options = options(EraChoice::Auto, "http-sync", &calls);
    let client = within("connect", connect_url(&peer.url, ConnectOptions::new(), options)).await.expect("connect");
    no_tasks_without_the_extension(&client, &peer.log).await;
    client.close().await;
}

#[cfg(feature = "tasks")]
#[tokio::test]
async fn http_task_timeout_cancels_the_task() {
    let Some(binary) = rmcp_peer() else { return };
    let peer = HttpPeer::start(&binary).await;
    let calls = Arc::new(AtomicUsize::new(0));
    let options = short_task_options("http-deadline", &calls);
    let client = within("connect", connect_url(&peer.url, ConnectOptions::new(), options)).await.expect("connect");
    task_timeout_cancels(&client, &peer.log).await;
    client.close().await;
}
