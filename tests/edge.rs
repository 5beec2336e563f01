//! What an edge worker needs, against real servers over Streamable HTTP:
//! `Client::snapshot` / `restore_url` with server-everything (handshake
//! era), the chaos server (a forgotten session) and the Python SDK's
//! dual-era server (2026-07-28), and the connection budget. Every HTTP
//! request the client makes is counted at the HTTP seam (the real HTTP
//! client underneath), so the tests say how many requests come before the
//! first tool result, fresh and restored, and how many run at once.

// Native only (tokio, processes); `wasm-pack test` builds every test target for wasm32.
#![cfg(not(target_arch = "wasm32"))]

mod support;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use futures::StreamExt;
use std::time::Duration;

use mcp_edge::http::{DefaultHttp, HttpClient, HttpError, HttpRequest, HttpResponse};
use mcp_edge::protocol::Era;
use mcp_edge::{
    BoxFuture, Client, ClientOptions, ConnectOptions, EraChoice, Snapshot, TransportChoice, connect_url_with_http,
    restore_url_with_http,
};
use serde_json::{Value, json};
use support::native::{Lines, Server, everything_index, peers_dir, venv_python};
use support::{arguments, texts, within};

/// The real HTTP client, with a log of what went out: `POST tools/call`,
/// `GET`, `DELETE`.
#[derive(Clone, Default)]
struct Counted {
    http: DefaultHttp,
    log: Arc<Mutex<Vec<String>>>,
    /// Exchanges under way (until their body is dropped), and the most at once.
    in_flight: Arc<AtomicUsize>,
    most: Arc<AtomicUsize>,
}

/// Counts an exchange out when its body goes.
struct Exchange(Arc<AtomicUsize>);

impl Drop for Exchange {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

impl Counted {
    fn log(&self) -> Vec<String> {
        self.log.lock().unwrap().clone()
    }
}

impl HttpClient for Counted {
    fn fetch(&self, request: HttpRequest) -> BoxFuture<'static, Result<HttpResponse, HttpError>> {
        let method = request.body.as_deref().and_then(|body| serde_json::from_str::<Value>(body).ok());
        let what = match method.as_ref().and_then(|m| m.get("method")).and_then(Value::as_str) {
            Some(method) => format!("{} {method}", request.method.as_str()),
            None if request.body.is_some() => format!("{} (reply)", request.method.as_str()),
            None => request.method.as_str().to_owned(),
        };
        self.log.lock().unwrap().push(what);
        let now = self.in_flight.fetch_add(1, Ordering::SeqCst) + 1;
        self.most.fetch_max(now, Ordering::SeqCst);
        let exchange = Exchange(Arc::clone(&self.in_flight));
        let fetching = self.http.fetch(request);
        Box::pin(async move {
            let mut response = fetching.await?;
            let body = std::mem::replace(&mut response.body, Box::pin(futures::stream::empty()));
            response.body = Box::pin(body.map(move |chunk| {
                let _held = &exchange;
                chunk
            }));
            Ok(response)
        })
    }
}

fn options() -> ClientOptions {
    ClientOptions::new("snapshot-test", "1.0").with_timeout(Duration::from_secs(20))
}

fn connect_options() -> ConnectOptions {
    ConnectOptions::new().with_transport(TransportChoice::StreamableHttp)
}

/// The requests up to and including the first `tools/call`.
fn before_first_result(log: &[String]) -> Vec<String> {
    let end = log.iter().position(|l| l == "POST tools/call").map_or(log.len(), |i| i + 1);
    log[..end].to_vec()
}

async fn everything() -> Option<Server> {
    let index = everything_index()?;
    Some(Server::on_free_port("node", &[index.to_string_lossy().into_owned(), "streamableHttp".to_owned()], &[]).await)
}

async fn echo(client: &Client, text: &str) {
    let result = within("echo", client.call_tool("echo", arguments(json!({ "message": text })))).await.expect("echo");
    assert_eq!(texts(&result), format!("Echo: {text}"), "{result:?}");
}

/// A client restored from `snapshot`, and the log of what it sends.
async fn restore(url: &str, snapshot: &Snapshot, options: ClientOptions) -> (Client, Counted) {
    let sent = Counted::default();
    let restoring = restore_url_with_http(sent.clone(), url, snapshot, connect_options(), options);
    (within("restore", restoring).await.expect("restore"), sent)
}

/// Through JSON and back, as a worker keeps it.
fn stored(snapshot: &Snapshot) -> Snapshot {
    let json = serde_json::to_string(snapshot).expect("a snapshot serializes");
    assert!(!json.to_ascii_lowercase().contains("bearer"), "no credential in {json}");
    serde_json::from_str(&json).expect("a snapshot deserializes")
}

#[tokio::test]
async fn a_restored_handshake_session_makes_one_request_for_its_first_tool_result() {
    let Some(server) = everything().await else { return };
    let url = server.url("/mcp");

    let fresh = Counted::default();
    let options = options().with_era(EraChoice::Handshake);
    let client = within("connect", connect_url_with_http(fresh.clone(), &url, connect_options(), options.clone()))
        .await
        .expect("connect");
    echo(&client, "fresh").await;
    let fresh_log = before_first_result(&fresh.log());
    println!("fresh client, handshake era: {} requests before the first tool result: {fresh_log:?}", fresh_log.len());
    assert_eq!(fresh_log, ["POST initialize", "POST notifications/initialized", "POST tools/call"]);

    let snapshot = stored(&client.snapshot().expect("a connected client has a snapshot"));
    assert!(snapshot.session.session_id.is_some(), "server-everything assigns a session: {snapshot:?}");
    assert_eq!(snapshot.protocol_version, "2025-11-25");
    within("detach", client.detach()).await;
    assert!(!fresh.log().iter().any(|l| l == "DELETE"), "detach keeps the session: {:?}", fresh.log());

    let (client, restored) = restore(&url, &snapshot, options.clone()).await;
    assert_eq!(client.era(), Some(Era::Handshake));
    assert_eq!(client.negotiated().unwrap().result.server_info, snapshot.server.server_info);
    echo(&client, "restored").await;
    println!("restored client, handshake era: {:?}", restored.log());
    assert_eq!(restored.log(), ["POST tools/call"], "exactly one request for the first tool result");

    // Something that needs the server stream opens it now.
    client.on_notification(|_| {});
    let opened = within("the GET stream", async {
        while !restored.log().iter().any(|l| l == "GET") {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    });
    opened.await;

    within("close", client.close()).await;
    assert!(restored.log().iter().any(|l| l == "DELETE"), "{:?}", restored.log());
}

/// The chaos server answers 404 for a session it forgot (server-everything
/// answers 400, so it cannot show this).
#[tokio::test]
async fn a_restored_session_the_server_forgot_is_started_again_transparently() {
    let script = peers_dir().join("chaos-server.mjs").to_string_lossy().into_owned();
    let server = Server::on_free_port("node", &[script], &[]).await;
    let url = server.url("/mcp");
    let options = options().with_era(EraChoice::Handshake);
    let client = within("connect", connect_url_with_http(Counted::default(), &url, connect_options(), options.clone()))
        .await
        .expect("connect");
    let snapshot = stored(&client.snapshot().expect("snapshot"));
    within("detach", client.detach()).await;
    let expire = reqwest::Client::new().post(server.url("/control")).body(r#"{"expire":true}"#).send();
    assert!(within("POST /control", expire).await.expect("POST /control").status().is_success());

    let (client, again) = restore(&url, &snapshot, options).await;
    let result = within("burst", client.call_tool("burst", arguments(json!({"count": 1, "tag": "t"}))))
        .await
        .expect("burst after a 404");
    assert!(!result.is_error(), "{result:?}");
    assert_eq!(client.restarts(), 1);
    assert_eq!(
        again.log(),
        ["POST tools/call", "POST initialize", "POST notifications/initialized", "POST tools/call"],
        "the 404, a new session, the retry"
    );
    within("close", client.close()).await;
}

#[tokio::test]
async fn a_restored_stateless_client_makes_one_request_for_its_first_tool_result() {
    let Some(python) = venv_python() else { return };
    let script = peers_dir().join("era_python_http_server.py").to_string_lossy().into_owned();
    let (_server, url) = Server::announced(python, &[script], Lines::default()).await;

    let fresh = Counted::default();
    let client = within("connect", connect_url_with_http(fresh.clone(), &url, connect_options(), options()))
        .await
        .expect("connect");
    assert_eq!(client.era(), Some(Era::Stateless));
    let add = || client.call_tool("add", arguments(json!({"a": 2, "b": 3})));
    assert_eq!(texts(&within("add", add()).await.expect("add")), "5");
    let fresh_log = before_first_result(&fresh.log());
    println!("fresh client, 2026-07-28: {} requests before the first tool result: {fresh_log:?}", fresh_log.len());
    assert_eq!(fresh_log, ["POST server/discover", "POST tools/call"]);

    let snapshot = stored(&client.snapshot().expect("snapshot"));
    assert!(snapshot.discover.is_some() && snapshot.discovered_at.is_some(), "{snapshot:?}");
    println!("discover result: {}", snapshot.discover.as_ref().unwrap());
    assert!(snapshot.session.session_id.is_none());
    within("detach", client.detach()).await;

    let (client, restored) = restore(&url, &snapshot, options()).await;
    assert_eq!(client.era(), Some(Era::Stateless));
    let result = within("add", client.call_tool("add", arguments(json!({"a": 4, "b": 5})))).await.expect("add");
    assert_eq!(texts(&result), "9");
    println!("restored client, 2026-07-28: {:?}", restored.log());
    assert_eq!(restored.log(), ["POST tools/call"], "exactly one request for the first tool result");

    // Both SDKs send `ttlMs: 0` with server/discover: the result is stale
    // at once, and the client still goes straight out (the era verdict,
    // digest 2026-07-28 §2.3 step 1), as measured above.
    assert!(!snapshot.discovery_fresh_at(snapshot.taken_at + 1.0));
    let mut fresh = snapshot.clone();
    fresh.discover.as_mut().unwrap()["ttlMs"] = json!(60_000);
    assert!(fresh.discovery_fresh_at(fresh.discovered_at.unwrap() + 1000.0));
}

#[test]
fn a_snapshot_of_another_version_is_refused() {
    let json = json!({
        "version": 99, "era": "handshake", "protocolVersion": "2025-11-25", "transport": "streamable-http",
        "server": {"protocolVersion": "2025-11-25", "capabilities": {}, "serverInfo": {"name": "s", "version": "1"}},
        "takenAt": 0.0
    });
    let snapshot: Snapshot = serde_json::from_value(json).expect("the shape reads");
    let transport = mcp_edge::transport::StreamableHttpTransport::new(mcp_edge::transport::StreamableHttpOptions::new(
        "http://127.0.0.1:9/mcp",
    ));
    let error = Client::restore(transport, options(), &snapshot).expect_err("refused");
    assert!(error.to_string().contains("snapshot version 99"), "{error}");
}

/// A client with a notification listener (so the GET stream holds a
/// connection) and a budget of 3 makes 20 concurrent tool calls: all are
/// answered, and never more than 3 exchanges run at once.
#[tokio::test]
async fn twenty_concurrent_calls_within_a_connection_budget_are_all_answered() {
    let Some(server) = everything().await else { return };
    let url = server.url("/mcp");
    let counted = Counted::default();
    let mut connect = connect_options();
    connect.max_connections = Some(3);
    let options = options().with_era(EraChoice::Handshake).on_notification(|_| {});
    let client =
        within("connect", connect_url_with_http(counted.clone(), &url, connect, options)).await.expect("connect");
    let calls = (0..20).map(|i| {
        let client = client.clone();
        async move {
            let text = format!("call {i}");
            let result = client.call_tool("echo", arguments(json!({ "message": text }))).await;
            (text, result)
        }
    });
    let results = within("20 calls", futures::future::join_all(calls)).await;
    let answered =
        results.iter().filter(|(text, result)| matches!(result, Ok(r) if texts(r) == format!("Echo: {text}"))).count();
    let most = counted.most.load(Ordering::SeqCst);
    println!(
        "20 concurrent calls with a listener open, budget 3: {answered} answered, at most {most} exchanges at once"
    );
    assert_eq!(answered, 20, "{results:?}");
    assert!(counted.log().iter().any(|l| l == "GET"), "the listener's stream is open: {:?}", counted.log());
    assert!(most <= 3, "{most} exchanges at once");
    within("close", client.close()).await;
}

/// A 2026-07-28 listen stream cut twice at random moments (as an edge proxy
/// cuts idle streams) is opened again by itself each time, and the
/// subscription yields `RESYNC` so the app re-lists; the reopened stream
/// then carries the server's change notification.
#[tokio::test]
async fn a_cut_listen_stream_reopens_and_says_resync() {
    use mcp_edge::{ListenFilter, RESYNC};
    let script = peers_dir().join("listen-cut-server.mjs").to_string_lossy().into_owned();
    let server = Server::on_free_port("node", &[script], &[("CUTS", "2")]).await;
    let url = server.url("/mcp");
    let options = options().with_era(EraChoice::Stateless);
    let client = within("connect", connect_url_with_http(Counted::default(), &url, connect_options(), options))
        .await
        .expect("connect");
    let filter = ListenFilter { tools_list_changed: true, ..ListenFilter::default() };
    let mut subscription = within("listen", client.listen(filter)).await.expect("listen");
    for cut in 1..=2 {
        let next = within(&format!("resync {cut}"), subscription.next()).await;
        let notification = next.expect("the subscription goes on").expect("a resync, not an error");
        assert_eq!(notification.method, RESYNC, "{notification:?}");
        println!("resync {cut}: {:?}", notification.params);
    }
    within("touch", client.call_tool("touch", None)).await.expect("touch");
    let changed = within("list_changed", subscription.next()).await.expect("open").expect("a notification");
    assert_eq!(changed.method, "notifications/tools/list_changed");
    let stats: Value = serde_json::from_str(
        &within("GET /stats", async { reqwest::get(server.url("/stats")).await.unwrap().text().await.unwrap() }).await,
    )
    .expect("/stats is JSON");
    assert_eq!((stats["listens"].as_u64(), stats["cuts"].as_u64()), (Some(3), Some(2)), "{stats}");
    drop(subscription);
    within("close", client.close()).await;
}

/// `structuredContent` is checked against the tool's `outputSchema` (with
/// the interpreting validator, as in workerd): a mismatch is a typed error
/// naming the path; the option turns it off.
#[tokio::test]
async fn structured_content_is_validated_against_the_output_schema() {
    let script = peers_dir().join("listen-cut-server.mjs").to_string_lossy().into_owned();
    let server = Server::on_free_port("node", &[script], &[("CUTS", "0")]).await;
    let url = server.url("/mcp");
    for validate in [true, false] {
        let mut options = options().with_era(EraChoice::Stateless);
        options.validate_structured_content = validate;
        let client = within("connect", connect_url_with_http(Counted::default(), &url, connect_options(), options))
            .await
            .expect("connect");
        within("tools/list", client.list_all_tools()).await.expect("tools/list");
        let good = within("measure", client.call_tool("measure", arguments(json!({"good": true})))).await;
        assert_eq!(good.expect("a matching result").structured_content, Some(json!({"n": 3})));
        let bad = within("measure", client.call_tool("measure", arguments(json!({"good": false})))).await;
        match (validate, bad) {
            (true, Err(mcp_edge::Error::InvalidStructuredContent { tool, error })) => {
                assert_eq!((tool.as_str(), error.path.as_str()), ("measure", "/n"), "{error}");
                println!("mismatch reported: {}", mcp_edge::Error::InvalidStructuredContent { tool, error });
            }
            (false, Ok(result)) => assert_eq!(result.structured_content, Some(json!({"n": "three"}))),
            (validate, other) => panic!("validate {validate}: {other:?}"),
        }
        within("close", client.close()).await;
    }
}

/// A tool that asks for an argument as a header (`x-mcp-header`): the
/// snapshot keeps what `tools/list` said, so a restored client's first
/// call carries `Mcp-Param-Region` without listing again (the Python SDK
/// answers a call without it with -32020).
#[tokio::test]
async fn a_restored_stateless_client_keeps_the_tools_header_annotations() {
    let Some(python) = venv_python() else { return };
    let script = peers_dir().join("era_python_http_server.py").to_string_lossy().into_owned();
    let (_server, url) = Server::announced(python, &[script], Lines::default()).await;

    let client = within("connect", connect_url_with_http(Counted::default(), &url, connect_options(), options()))
        .await
        .expect("connect");
    assert_eq!(client.era(), Some(Era::Stateless));
    within("tools/list", client.list_all_tools()).await.expect("tools/list");
    let snapshot = stored(&client.snapshot().expect("snapshot"));
    let region = snapshot.tool_headers.get("region_echo").expect("region_echo's annotation kept");
    assert_eq!(region.len(), 1, "{region:?}");
    assert_eq!((region[0].name.as_str(), region[0].path.as_slice()), ("Region", ["region".to_owned()].as_slice()));
    within("detach", client.detach()).await;

    let (client, restored) = restore(&url, &snapshot, options()).await;
    let region_echo = client.call_tool("region_echo", arguments(json!({"region": "eu-west-1"})));
    let result = within("region_echo", region_echo).await.expect("region_echo on the restored client");
    assert_eq!(texts(&result), "region:eu-west-1", "{result:?}");
    assert_eq!(restored.log(), ["POST tools/call"], "no tools/list before the call");
}
