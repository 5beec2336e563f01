#![cfg(not(target_arch = "wasm32"))]
//! Interop with rmcp 3.9.0, the official Rust SDK, through
//! `tests/peers/rmcp-server` (`rmcp-peer`, built by `cargo xtask setup` into
//! target/rmcp-peer). It serves both eras from one binary, so the same
//! calls are made once statelessly (2026-07-28: `server/discover`,
//! per-request `_meta`, `input_required` rounds) and once over the
//! `initialize` handshake (elicitation as a server request), over stdio and
//! over Streamable HTTP. Change notifications go through `Client::listen`:
//! `subscriptions/listen` in 2026-07-28, `resources/subscribe` and the
//! session's stream before.
//!
//! Without the binary: a failure under CI (`CI` set), else `skipped: ...`.
//! The peer's stderr is shown: rmcp logs `ERROR ... failed to send pending
//! response during drain` when a client closes an HTTP listen stream, which
//! is how 2026-07-28 cancels one (rmcp has no answer to send it any more).
//! Every wait is bounded; every server process dies with its test.

use std::future::Future;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use futures::StreamExt;
use mcp_edge::Client;
use mcp_edge::client::{ClientOptions, ConnectOptions, EraChoice, ListenFilter, connect_stdio, connect_url};
use mcp_edge::protocol::types::{CallToolResult, ElicitAction, ElicitResult, JsonObject};
use mcp_edge::protocol::{Era, ProtocolVersion};
use mcp_edge::transport::stdio::StdioOptions;
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::{Child, Command};

const STEP: Duration = Duration::from_secs(30);

async fn within<T>(what: &str, future: impl Future<Output = T>) -> T {
    match tokio::time::timeout(STEP, future).await {
        Ok(value) => value,
        Err(_) => panic!("timed out after {STEP:?}: {what}"),
    }
}

/// The peer binary, or `None` (test skipped) when it was not built; under
/// CI a missing binary fails the test instead of passing it vacuously.
fn peer_binary() -> Option<PathBuf> {
    let binary = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/rmcp-peer/release/rmcp-peer");
    if binary.is_file() {
        return Some(binary);
    }
    let message = format!("{} is missing: run `cargo xtask setup` (step rmcp peer)", binary.display());
    if std::env::var_os("CI").is_some() {
        panic!("{message}");
    }
    eprintln!("skipped: {message}");
    None
}

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

fn arguments(value: Value) -> Option<JsonObject> {
    match value {
        Value::Object(map) => Some(map),
        _ => None,
    }
}

/// The text of a tool result's single text block.
fn text(result: &CallToolResult) -> String {
    let content = serde_json::to_value(&result.content).unwrap_or_default();
    assert_eq!(content.as_array().map(Vec::len), Some(1), "one content block: {content}");
    content[0]["text"].as_str().unwrap_or_default().to_owned()
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
    let Some(binary) = peer_binary() else { return };
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
    let Some(binary) = peer_binary() else { return };
    let calls = Arc::new(AtomicUsize::new(0));
    let options = options(EraChoice::Handshake, "stdio-handshake", &calls);
    let client = within("connect", connect_stdio(stdio_options(&binary), options)).await.expect("connect");
    assert_handshake(&client);
    exercise(&client, &calls, "stdio-handshake", "elicitation/create").await;
    subscriptions(&client).await;
    client.close().await;
}

/// `rmcp-peer http` on a port of its choosing; killed when dropped.
struct HttpPeer {
    _child: Child,
    url: String,
}

impl HttpPeer {
    async fn start(binary: &Path) -> HttpPeer {
        let mut child = Command::new(binary)
            .arg("http")
            .env("PORT", "0")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .kill_on_drop(true)
            .spawn()
            .expect("starting rmcp-peer http");
        let stdout = child.stdout.take().expect("piped stdout");
        let mut lines = BufReader::new(stdout).lines();
        let line = within("rmcp-peer's `listening` line", lines.next_line())
            .await
            .expect("reading rmcp-peer's stdout")
            .expect("rmcp-peer exited before listening");
        let url = line.strip_prefix("listening ").expect("`listening <url>`").trim().to_owned();
        assert!(url.starts_with("http://127.0.0.1:") && url.ends_with("/mcp"), "{url}");
        HttpPeer { _child: child, url }
    }
}

#[tokio::test]
async fn http_auto_speaks_2026_07_28_with_rmcp() {
    let Some(binary) = peer_binary() else { return };
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
    let Some(binary) = peer_binary() else { return };
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
