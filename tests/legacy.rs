//! The legacy HTTP+SSE transport (2024-11-05) and transport detection,
//! against real legacy servers:
//!
//! - server-everything in `sse` mode (the TypeScript SDK's SSEServerTransport
//!   behind express),
//! - `tests/peers/legacy-ts-server.mjs` (the TypeScript SDK 1.32.2's
//!   SSEServerTransport on node:http),
//! - `tests/peers/legacy_py_server.py` (the Python SDK's `MCPServer.run(
//!   transport="sse")`, from the venv `cargo xtask setup` makes),
//!
//! plus server-everything in `streamableHttp` mode (detection must pick
//! Streamable HTTP) and `tests/peers/legacy-odd-server.mjs` for the failure
//! cases. Each connects with detection (`Auto`) and forced (`Sse`), lists
//! tools, calls `echo`, closes; and the `mcp-edge` binary does the same with
//! no flag. A missing peer fails the test under CI, else skips it
//! (tests/support/native.rs).
#![cfg(not(target_arch = "wasm32"))]

mod support;

use std::ffi::OsStr;
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use mcp_edge::BoxFuture;
use mcp_edge::http::{DefaultHttp, HttpClient, HttpError, HttpRequest, HttpResponse, Method};
use mcp_edge::transport::LegacyError;
use mcp_edge::transport::ReconnectPolicy;
use mcp_edge::transport::TransportError;
use mcp_edge::{Client, ClientOptions, ConnectOptions, Error, TransportChoice};
use serde_json::{Value, json};
use support::native::{Server, bounded, everything_index, peers_dir, sdk_script_path, venv_python};
use support::{arguments, texts, within};
use tokio::process::Command;

/// A server process on a free loopback port, killed when dropped, and the
/// path of its MCP endpoint.
struct Peer {
    server: Server,
    path: &'static str,
}

impl Peer {
    async fn start(program: impl AsRef<OsStr>, args: Vec<String>, env: &[(&str, &str)], path: &'static str) -> Peer {
        Peer { server: Server::on_free_port(program, &args, env).await, path }
    }

    async fn everything(mode: &str) -> Option<Peer> {
        let path = if mode == "sse" { "/sse" } else { "/mcp" };
        let index = everything_index()?.to_string_lossy().into_owned();
        Some(Peer::start("node", vec![index, mode.into()], &[], path).await)
    }

    async fn legacy_ts() -> Option<Peer> {
        let script = sdk_script_path("legacy-ts-server.mjs")?.to_string_lossy().into_owned();
        Some(Peer::start("node", vec![script], &[], "/sse").await)
    }

    async fn legacy_py() -> Option<Peer> {
        let python = venv_python()?;
        let script = peers_dir().join("legacy_py_server.py").to_string_lossy().into_owned();
        Some(Peer::start(python, vec![script], &[], "/sse").await)
    }

    async fn odd(mode: &str) -> Peer {
        let script = peers_dir().join("legacy-odd-server.mjs").to_string_lossy().into_owned();
        Peer::start("node", vec![script], &[("MODE", mode)], "/sse").await
    }

    /// The URL the user gives.
    fn url(&self) -> String {
        self.server.url(self.path)
    }

    /// The odd server's request counters.
    async fn stats(&self) -> Value {
        let url = self.server.url("/__stats");
        let response = within("GET /__stats", reqwest::get(url)).await.expect("GET /__stats");
        let body = within("reading /__stats", response.text()).await.expect("reading /__stats");
        serde_json::from_str(&body).unwrap_or_else(|e| panic!("/__stats is not JSON ({e}): {body}"))
    }
}

/// The native HTTP client, recording every request it sends.
#[derive(Clone, Default)]
struct Counting {
    http: DefaultHttp,
    log: Arc<Mutex<Vec<(Method, String)>>>,
}

impl Counting {
    fn requests(&self) -> Vec<(Method, String)> {
        self.log.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }

    fn clear(&self) {
        self.log.lock().unwrap_or_else(|p| p.into_inner()).clear();
    }

    fn count(&self, method: Method, url: &str) -> usize {
        self.requests().iter().filter(|(m, u)| *m == method && u == url).count()
    }
}

impl HttpClient for Counting {
    fn fetch(&self, request: HttpRequest) -> BoxFuture<'static, Result<HttpResponse, HttpError>> {
        self.log.lock().unwrap_or_else(|p| p.into_inner()).push((request.method, request.url.clone()));
        self.http.fetch(request)
    }
}

fn options(transport: TransportChoice) -> ConnectOptions {
    ConnectOptions::new().with_transport(transport)
}

async fn connect(http: &Counting, url: &str, transport: TransportChoice) -> Result<Client, Error> {
    let client = ClientOptions::new("legacy-tests", "0.0.0");
    within("connecting", mcp_edge::connect_url_with_http(http.clone(), url, options(transport), client)).await
}

/// Lists the tools, calls `echo`, closes.
async fn use_echo(client: &Client) {
    assert_eq!(client.transport_kind(), "sse (legacy)");
    let tools = within("tools/list", client.list_all_tools()).await.expect("tools/list");
    assert!(
        tools.iter().any(|tool| tool.name == "echo"),
        "no echo tool: {:?}",
        tools.iter().map(|t| &t.name).collect::<Vec<_>>()
    );
    let result = within("tools/call echo", client.call_tool("echo", arguments(json!({ "message": "hello legacy" }))))
        .await
        .expect("tools/call echo");
    assert!(!result.is_error(), "{result:?}");
    assert!(texts(&result).contains("hello legacy"), "{}", texts(&result));
    within("close", client.close()).await;
}

/// Auto detection picks legacy; the verdict is remembered, so connecting
/// again sends no detection POST; forcing `Sse` never POSTs to the SSE URL.
async fn legacy_server_round_trips(peer: Peer) {
    let url = peer.url();
    let http = Counting::default();
    let client = connect(&http, &url, TransportChoice::Auto).await.expect("auto connect");
    use_echo(&client).await;
    let requests = http.requests();
    // The era probe (`server/discover`), then `initialize`: both POSTs fail.
    assert_eq!(requests.first(), Some(&(Method::Post, url.clone())), "the era probe POSTs: {requests:?}");
    assert_eq!(requests.get(1), Some(&(Method::Post, url.clone())), "detection starts with a POST: {requests:?}");
    assert_eq!(requests.get(2), Some(&(Method::Get, url.clone())), "then GETs the same URL: {requests:?}");
    assert!(
        requests[3..]
            .iter()
            .all(|(method, to)| *method == Method::Post && to != &url && to.starts_with(&url[..url.len() - 4])),
        "then POSTs to the endpoint on the same origin: {requests:?}"
    );
    assert_eq!(mcp_edge::remembered_transport(&url), Some(TransportChoice::Sse));

    // Connecting again: the verdict is remembered, nothing is probed.
    http.clear();
    let client = connect(&http, &url, TransportChoice::Auto).await.expect("auto connect, remembered");
    use_echo(&client).await;
    assert_eq!(http.count(Method::Post, &url), 0, "probed again: {:?}", http.requests());
    assert_eq!(http.requests().first(), Some(&(Method::Get, url.clone())));

    // Forced.
    mcp_edge::forget_transport(&url);
    http.clear();
    let client = connect(&http, &url, TransportChoice::Sse).await.expect("forced sse connect");
    use_echo(&client).await;
    assert_eq!(http.count(Method::Post, &url), 0, "forced sse probed: {:?}", http.requests());
    assert_eq!(mcp_edge::remembered_transport(&url), None, "a forced choice is not a verdict");
    drop(peer);
}

#[tokio::test]
async fn everything_sse_auto_and_forced() {
    bounded(async {
        let Some(peer) = Peer::everything("sse").await else { return };
        legacy_server_round_trips(peer).await
    })
    .await
}

#[tokio::test]
async fn typescript_sdk_sse_server_auto_and_forced() {
    bounded(async {
        let Some(peer) = Peer::legacy_ts().await else { return };
        legacy_server_round_trips(peer).await
    })
    .await
}

#[tokio::test]
async fn python_sdk_sse_server_auto_and_forced() {
    bounded(async {
        let Some(peer) = Peer::legacy_py().await else { return };
        legacy_server_round_trips(peer).await
    })
    .await
}

#[tokio::test]
async fn auto_picks_streamable_http_and_remembers_it() {
    bounded(async {
        let Some(peer) = Peer::everything("streamableHttp").await else { return };
        let url = peer.url();
        let http = Counting::default();
        let client = connect(&http, &url, TransportChoice::Auto).await.expect("auto connect");
        assert_eq!(client.transport_kind(), "streamable-http");
        let tools = within("tools/list", client.list_all_tools()).await.expect("tools/list");
        assert!(tools.iter().any(|tool| tool.name == "echo"));
        within("close", client.close()).await;
        assert_eq!(mcp_edge::remembered_transport(&url), Some(TransportChoice::StreamableHttp));
        // No legacy probe happened: every request went to the one URL, and the
        // first was the initialize POST.
        assert_eq!(http.requests().first(), Some(&(Method::Post, url.clone())));

        // Connecting again uses the verdict: the same exchanges, no probe.
        let first = http.requests().len();
        http.clear();
        let client = connect(&http, &url, TransportChoice::Auto).await.expect("auto connect, remembered");
        assert_eq!(client.transport_kind(), "streamable-http");
        within("close", client.close()).await;
        assert_eq!(http.requests().first(), Some(&(Method::Post, url.clone())));
        assert!(http.requests().len() <= first, "{:?}", http.requests());

        // Forcing legacy at a Streamable HTTP endpoint fails clearly.
        let error = connect(&http, &url, TransportChoice::Sse).await.expect_err("not a legacy server");
        assert!(error.to_string().contains(&format!("GET {url} answered")), "{error}");
    })
    .await
}

#[tokio::test]
async fn a_dropped_stream_that_cannot_be_reopened_fails_pending_requests() {
    bounded(async {
        let Some(mut peer) = Peer::legacy_ts().await else { return };
        let url = peer.url();
        let mut connect_options = options(TransportChoice::Sse);
        connect_options.reconnect = ReconnectPolicy {
            max_attempts: 2,
            initial_delay: Duration::from_millis(50),
            max_delay: Duration::from_millis(200),
            factor: 2.0,
        };
        let client = within(
            "connecting",
            mcp_edge::connect_url(&url, connect_options, ClientOptions::new("legacy-tests", "0.0.0")),
        )
        .await
        .expect("connect");
        within("tools/list", client.list_all_tools()).await.expect("tools/list");
        // The server goes away for good.
        peer.server.child.start_kill().expect("kill the server");
        let _ = within("the server exits", peer.server.child.wait()).await;
        // A request in flight when the stream is noticed gone may fail with
        // the POST's own error; soon every request fails with the reason.
        let started = Instant::now();
        let error = loop {
            let outcome = within("tools/list after the server died", client.list_tools(None)).await;
            match outcome {
                Err(error @ Error::Transport(TransportError::Legacy(LegacyError::StreamLost { .. }))) => break error,
                other => {
                    assert!(started.elapsed() < Duration::from_secs(20), "still {other:?} after 20 s");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                }
            }
        };
        match &error {
            Error::Transport(TransportError::Legacy(LegacyError::StreamLost { url: lost, attempts, .. })) => {
                assert_eq!(lost, &url);
                assert_eq!(*attempts, 2);
            }
            other => panic!("{other:?}"),
        }
        assert!(error.to_string().contains("could not be re-established"), "{error}");
        // Every later call fails at once with the same reason.
        let later = within("a later call", client.list_tools(None)).await.expect_err("the session is over");
        assert!(later.to_string().contains("could not be re-established"), "{later}");
    })
    .await
}

#[tokio::test]
async fn an_endpoint_on_another_origin_is_refused() {
    bounded(async {
        let peer = Peer::odd("foreign").await;
        let url = peer.url();
        let http = Counting::default();
        for transport in [TransportChoice::Auto, TransportChoice::Sse] {
            let error = connect(&http, &url, transport).await.expect_err("a foreign endpoint");
            match &error {
                Error::Transport(TransportError::Legacy(LegacyError::ForeignEndpoint { url: sse, endpoint })) => {
                    assert_eq!(sse, &url);
                    assert_eq!(endpoint, "http://evil.invalid:1/steal?sessionId=1");
                }
                other => panic!("{transport}: {other:?}"),
            }
            assert!(error.to_string().contains("another origin"), "{error}");
        }
        // Nothing went anywhere but the SSE URL: the era probe and the
        // detection POST (auto only), two GETs.
        assert!(http.requests().iter().all(|(_, to)| to == &url), "{:?}", http.requests());
        assert_eq!(peer.stats().await, json!({ "posts": 2, "gets": 2, "other": 0 }));
        assert_eq!(mcp_edge::remembered_transport(&url), None);
    })
    .await
}

#[tokio::test]
async fn a_web_page_is_not_an_mcp_server_and_the_error_says_what_was_tried() {
    bounded(async {
        for (mode, get) in [("html200", "200 text/html"), ("html404", "404 text/html")] {
            let peer = Peer::odd(mode).await;
            let url = peer.url();
            let http = Counting::default();
            let error = connect(&http, &url, TransportChoice::Auto).await.expect_err("not an MCP server");
            assert_eq!(
                error.to_string(),
                format!(
                    "POST {url} answered 404; GET {url} answered {get}: not an MCP server \
                     (neither Streamable HTTP nor HTTP+SSE)"
                )
            );
            match error {
                Error::NotMcpServer { url: reported, attempts } => {
                    assert_eq!(reported, url);
                    assert_eq!(attempts.len(), 2);
                }
                other => panic!("{other:?}"),
            }
            // The era probe, the detection POST, the GET.
            let expected = vec![(Method::Post, url.clone()), (Method::Post, url.clone()), (Method::Get, url.clone())];
            assert_eq!(http.requests(), expected);
            assert_eq!(mcp_edge::remembered_transport(&url), None);
        }
    })
    .await
}

#[tokio::test]
async fn a_401_to_the_detection_post_is_an_auth_error_and_nothing_is_probed() {
    bounded(async {
        let peer = Peer::odd("auth401").await;
        let url = peer.url();
        let http = Counting::default();
        let error = connect(&http, &url, TransportChoice::Auto).await.expect_err("unauthorized");
        assert!(matches!(error, Error::Transport(TransportError::Http { status: 401, .. })), "{error:?}");
        assert!(error.to_string().contains("Bearer"), "{error}");
        assert_eq!(http.requests(), vec![(Method::Post, url.clone())], "probed past a 401");
        assert_eq!(peer.stats().await, json!({ "posts": 1, "gets": 0, "other": 0 }));
    })
    .await
}

/// The `mcp-edge` binary's run: exit code, stdout, stderr.
async fn cli(args: &[&str]) -> (Option<i32>, String, String) {
    let output =
        Command::new(env!("CARGO_BIN_EXE_mcp-edge")).args(args).stdin(Stdio::null()).kill_on_drop(true).output();
    let output = within("the mcp-edge binary", output).await.expect("run mcp-edge");
    (
        output.status.code(),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

async fn cli_against(peer: Peer) {
    let url = peer.url();
    let (code, stdout, stderr) = cli(&[&url, "tools"]).await;
    assert_eq!(code, Some(0), "tools: {stderr}");
    assert!(stdout.contains("echo"), "{stdout}");
    let (code, stdout, stderr) = cli(&[&url, "info"]).await;
    assert_eq!(code, Some(0), "info: {stderr}");
    assert!(stdout.lines().any(|line| line == "transport: sse (legacy)"), "{stdout}");
    let (code, stdout, stderr) = cli(&[&url, "call", "echo", r#"{"message": "from the cli"}"#]).await;
    assert_eq!(code, Some(0), "call: {stderr}");
    assert!(stdout.contains("from the cli"), "{stdout}");
    let (code, stdout, stderr) = cli(&["--transport", "sse", "--json", &url, "info"]).await;
    assert_eq!(code, Some(0), "--transport sse: {stderr}");
    let info: Value = serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("not JSON ({e}): {stdout}"));
    assert_eq!(info["transport"], "sse (legacy)");
}

#[tokio::test]
async fn cli_everything_sse() {
    bounded(async {
        let Some(peer) = Peer::everything("sse").await else { return };
        cli_against(peer).await
    })
    .await
}

#[tokio::test]
async fn cli_typescript_sdk_sse_server() {
    bounded(async {
        let Some(peer) = Peer::legacy_ts().await else { return };
        cli_against(peer).await
    })
    .await
}

#[tokio::test]
async fn cli_python_sdk_sse_server() {
    bounded(async {
        let Some(peer) = Peer::legacy_py().await else { return };
        cli_against(peer).await
    })
    .await
}

#[tokio::test]
async fn cli_transport_option() {
    bounded(async {
        let Some(streamable) = Peer::everything("streamableHttp").await else { return };
        let (code, stdout, stderr) = cli(&["--transport", "streamable-http", &streamable.url(), "info"]).await;
        assert_eq!(code, Some(0), "{stderr}");
        assert!(stdout.lines().any(|line| line == "transport: streamable-http"), "{stdout}");

        let page = Peer::odd("html404").await;
        let url = page.url();
        let (code, _, stderr) = cli(&[&url, "tools"]).await;
        assert_eq!(code, Some(2));
        assert_eq!(
            stderr.trim(),
            format!(
                "mcp-edge: POST {url} answered 404; GET {url} answered 404 text/html: not an MCP server \
                 (neither Streamable HTTP nor HTTP+SSE)"
            )
        );

        let (code, _, stderr) = cli(&["--transport", "sse", "node server.js", "tools"]).await;
        assert_eq!(code, Some(2));
        assert!(stderr.contains("--transport sse applies to http:// and https:// servers"), "{stderr}");

        let (code, _, stderr) = cli(&["--transport", "websocket", &url, "tools"]).await;
        assert_eq!(code, Some(2), "{stderr}");
        assert!(stderr.contains("invalid value 'websocket' for '--transport"), "{stderr}");
    })
    .await
}
