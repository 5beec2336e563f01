#![cfg(not(target_arch = "wasm32"))]
//! The fixes of issue 19 against `tests/peers/harden-server.mjs`, a small
//! misbehaving server on 127.0.0.1 (modes by path): every wait of connecting
//! bounded by the caller's timeout, content codings, redirects that never
//! leave the origin, errors that name their cause, and the smaller points
//! (BOM, 202 to a request, `Retry-After`, no authorization metadata, no
//! capabilities). The CLI runs are in the same file: its `--timeout` is the
//! same deadline.
//!
//! Timing assertions are only generous outer bounds (a multiple of the
//! deadline), never speeds.

mod support;

use std::process::Command;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use mcp_edge::BoxFuture;
use mcp_edge::auth::{AuthChallenge, AuthConfig, AuthError, AuthProvider, OAuthProvider, Recovery};
use mcp_edge::http::Method;
use mcp_edge::{Client, ClientOptions, ConnectOptions, EraChoice, Error, TransportChoice, connect_url};
use serde_json::json;
use support::native::{Lines, Server, bounded, run_to_end};
use support::{arguments, texts};

/// The deadline the connect tests give, and the outer bound they allow.
const TIMEOUT: Duration = Duration::from_secs(2);
const OUTER: Duration = Duration::from_secs(6);

async fn server() -> (Server, String) {
    let script = support::native::peers_dir().join("harden-server.mjs");
    Server::announced("node", &[script.to_string_lossy().into_owned()], Lines::default()).await
}

fn options() -> ClientOptions {
    ClientOptions::default().with_timeout(TIMEOUT)
}

async fn connect(url: &str) -> Result<Client, Error> {
    connect_with(url, ConnectOptions::new(), options()).await
}

/// Connects, failing the test if connecting outlives [`OUTER`].
async fn connect_with(url: &str, connect: ConnectOptions, client: ClientOptions) -> Result<Client, Error> {
    match tokio::time::timeout(OUTER, connect_url(url, connect, client)).await {
        Ok(result) => result,
        Err(_) => panic!("connecting to {url} outlived {OUTER:?} with a {TIMEOUT:?} timeout"),
    }
}

async fn call_echo(client: &Client) -> Result<String, Error> {
    let result = client.call_tool("echo", arguments(json!({"said": "hi"}))).await?;
    Ok(texts(&result))
}

/// An error's whole text, its sources included.
fn describe(error: &Error) -> String {
    let mut text = error.to_string();
    let mut source = std::error::Error::source(error);
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}

fn oauth(url: &str) -> OAuthProvider {
    OAuthProvider::new(url, AuthConfig::new("http://127.0.0.1:1/callback")).expect("an OAuth provider")
}

/// The connect deadline ran out (not merely one step's timeout).
fn assert_timeout(error: &Error) {
    let text = describe(error);
    assert!(error.is_timeout() && text.contains("connecting to"), "not the connect deadline: {text}");
}

// 1. One deadline for connecting.

#[tokio::test]
async fn a_silent_server_fails_the_connect_within_the_timeout() {
    bounded(async {
        let (_server, base) = server().await;
        let url = format!("{base}/silent/mcp");
        let error = connect(&url).await.expect_err("a server that never answers");
        assert_timeout(&error);
    })
    .await;
}

#[tokio::test]
async fn a_silent_server_fails_the_connect_within_the_timeout_with_oauth_configured() {
    bounded(async {
        let (_server, base) = server().await;
        let url = format!("{base}/silent/mcp");
        let error = connect_with(&url, ConnectOptions::new().with_auth(oauth(&url)), options())
            .await
            .expect_err("a server that never answers");
        assert_timeout(&error);
    })
    .await;
}

#[tokio::test]
async fn a_silent_server_fails_the_forced_handshake_within_the_timeout() {
    bounded(async {
        let (_server, base) = server().await;
        let url = format!("{base}/silent/mcp");
        // As the CLI does for every URL: OAuth configured, used only on a 401.
        let connect = ConnectOptions::new().with_transport(TransportChoice::StreamableHttp).with_auth(oauth(&url));
        let error = connect_with(&url, connect, options().with_era(EraChoice::Handshake))
            .await
            .expect_err("a server that never answers");
        assert_timeout(&error);
    })
    .await;
}

#[test]
fn the_cli_gives_up_on_a_silent_server_after_its_timeout() {
    let runtime = tokio::runtime::Runtime::new().expect("a runtime");
    let (server, base) = runtime.block_on(server());
    let mut command = Command::new(env!("CARGO_BIN_EXE_mcp-edge"));
    command.args([&format!("{base}/silent/mcp"), "tools", "--timeout", "2", "--no-auth-store"]).env_remove("RUST_LOG");
    let done = run_to_end(command, OUTER, "mcp-edge tools --timeout 2 on a silent server");
    drop(server);
    assert_ne!(done.code, Some(0), "{done:?}");
    assert!(done.stderr.contains("timed out"), "{done:?}");
}

// 2. The legacy `endpoint` wait follows the timeout.

#[tokio::test]
async fn the_legacy_endpoint_wait_follows_the_timeout() {
    bounded(async {
        let (_server, base) = server().await;
        let url = format!("{base}/sse-silent/sse");
        let connect = ConnectOptions::new().with_transport(TransportChoice::Sse);
        let error = connect_with(&url, connect, options()).await.expect_err("no endpoint event");
        // The endpoint wait and the connect deadline are both the caller's
        // timeout: whichever ends first (a millisecond apart) names the cause.
        let text = describe(&error);
        assert!(text.contains("endpoint") || (error.is_timeout() && text.contains("connecting to")), "{text}");
    })
    .await;
}

#[tokio::test]
async fn the_detected_legacy_endpoint_wait_follows_the_timeout() {
    bounded(async {
        let (_server, base) = server().await;
        let url = format!("{base}/sse-silent/sse");
        let error = connect(&url).await.expect_err("no endpoint event");
        let text = describe(&error);
        assert!(text.contains("endpoint") || error.is_timeout(), "{text}");
    })
    .await;
}

// 3. Content codings.

async fn echoes_through(mode: &str) {
    let (server, base) = server().await;
    let client = connect(&format!("{base}/{mode}/mcp")).await.unwrap_or_else(|e| panic!("{mode}: {}", describe(&e)));
    let text = call_echo(&client).await.unwrap_or_else(|e| panic!("{mode}: {}", describe(&e)));
    assert_eq!(text, r#"{"said":"hi"}"#);
    client.close().await;
    let sent = server.output.get();
    assert!(
        sent.iter().any(|line| line.starts_with(mode) && line.contains("gzip") && line.contains("br")),
        "Accept-Encoding names gzip and br: {sent:#?}"
    );
}

#[tokio::test]
async fn gzip_json_replies_are_decoded() {
    bounded(echoes_through("gzip-json")).await;
}

#[tokio::test]
async fn gzip_event_streams_are_decoded() {
    bounded(echoes_through("gzip-sse")).await;
}

#[tokio::test]
async fn deflate_and_brotli_replies_are_decoded() {
    bounded(async {
        echoes_through("deflate-json").await;
        echoes_through("br-json").await;
    })
    .await;
}

#[tokio::test]
async fn an_unknown_coding_is_named() {
    bounded(async {
        let (_server, base) = server().await;
        let client = connect(&format!("{base}/odd-coding/mcp")).await.expect("connects");
        let error = call_echo(&client).await.expect_err("x-odd cannot be decoded");
        assert!(describe(&error).contains("x-odd"), "{}", describe(&error));
        client.close().await;
    })
    .await;
}

// 4. Redirects stay within the origin.

#[tokio::test]
async fn a_redirect_to_another_origin_is_refused_and_carries_nothing_there() {
    bounded(async {
        let (server, base) = server().await;
        let connect = ConnectOptions::new().header("X-Extra", "custom-secret");
        let error = connect_with(&format!("{base}/away/mcp"), connect, options()).await.expect_err("refused");
        let text = describe(&error);
        assert!(text.contains("another origin"), "{text}");
        tokio::time::sleep(Duration::from_millis(200)).await;
        let foreign: Vec<String> = server.output.get().into_iter().filter(|l| l.starts_with("foreign")).collect();
        assert!(foreign.is_empty(), "the other origin was reached: {foreign:#?}");
    })
    .await;
}

#[tokio::test]
async fn a_redirect_within_the_origin_is_followed() {
    bounded(async {
        let (_server, base) = server().await;
        let client = connect(&format!("{base}/near/mcp")).await.unwrap_or_else(|e| panic!("{}", describe(&e)));
        assert_eq!(call_echo(&client).await.expect("echo"), r#"{"said":"hi"}"#);
        client.close().await;
    })
    .await;
}

// 5. Errors name their cause.

async fn call_fails(mode: &str) -> String {
    let (_server, base) = server().await;
    let client = connect(&format!("{base}/{mode}/mcp")).await.unwrap_or_else(|e| panic!("{mode}: {}", describe(&e)));
    let error = call_echo(&client).await.expect_err(mode);
    client.close().await;
    describe(&error)
}

#[tokio::test]
async fn broken_json_replies_say_what_is_wrong() {
    bounded(async {
        for (mode, needle) in [
            ("bad-trailing", "trailing"),
            ("bad-nan", "NaN"),
            ("bad-deep", "recursion"),
            ("bad-both", "both"),
            ("bad-nocode", "tool exploded: disk full"),
            ("bad-nullid", "tool exploded: bad input"),
            ("bad-empty", "empty"),
        ] {
            let text = call_fails(mode).await;
            assert!(text.contains(needle), "{mode}: {text:?} should contain {needle:?}");
            assert!(!text.contains("does not contain its response"), "{mode}: {text}");
        }
    })
    .await;
}

#[tokio::test]
async fn a_too_large_event_names_the_limit() {
    bounded(async {
        let text = call_fails("big-event").await;
        assert!(text.contains("16 MiB"), "{text}");
        // The limit is an option.
        let (_server, base) = server().await;
        let mut connect = ConnectOptions::new();
        connect.max_message_bytes = 64 * 1024 * 1024;
        let client = connect_with(&format!("{base}/big-event/mcp"), connect, options().with_timeout(OUTER * 5))
            .await
            .expect("connects");
        let result = client.call_tool("echo", None).await.unwrap_or_else(|e| panic!("{}", describe(&e)));
        assert_eq!(texts(&result).len(), 17 * 1024 * 1024);
        client.close().await;
    })
    .await;
}

#[tokio::test]
async fn a_non_ascii_session_id_is_named() {
    bounded(async {
        let (_server, base) = server().await;
        let connect = ConnectOptions::new().with_transport(TransportChoice::StreamableHttp);
        let error = connect_with(&format!("{base}/odd-session/mcp"), connect, options().with_era(EraChoice::Handshake))
            .await
            .expect_err("a bad session id");
        assert!(describe(&error).contains("session id"), "{}", describe(&error));
    })
    .await;
}

// 6. The smaller points.

#[tokio::test]
async fn a_bom_before_json_is_accepted() {
    bounded(async {
        let (_server, base) = server().await;
        let client = connect(&format!("{base}/bom-json/mcp")).await.unwrap_or_else(|e| panic!("{}", describe(&e)));
        assert_eq!(call_echo(&client).await.expect("echo"), r#"{"said":"hi"}"#);
        client.close().await;
    })
    .await;
}

#[tokio::test]
async fn a_202_to_a_request_fails_at_once() {
    bounded(async {
        let (_server, base) = server().await;
        // A long request timeout: the failure must not be the timeout.
        let client =
            connect_with(&format!("{base}/accepted/mcp"), ConnectOptions::new(), options().with_timeout(OUTER * 5))
                .await
                .expect("connects");
        let error = tokio::time::timeout(OUTER, call_echo(&client))
            .await
            .expect("the 202 ends the call, not the timeout")
            .expect_err("202 is no answer");
        assert!(describe(&error).contains("202"), "{}", describe(&error));
        client.close().await;
    })
    .await;
}

#[tokio::test]
async fn retry_after_is_honoured_on_the_first_request_and_later() {
    bounded(async {
        let (_server, base) = server().await;
        // `Retry-After: 1` must fit in the timeout with room to spare.
        let patient = || options().with_timeout(Duration::from_secs(5));
        let busy_first = format!("{base}/busy-first/mcp");
        let client = connect_with(&busy_first, ConnectOptions::new(), patient())
            .await
            .unwrap_or_else(|e| panic!("{}", describe(&e)));
        client.close().await;
        let client =
            connect_with(&format!("{base}/busy-call/mcp"), ConnectOptions::new(), patient()).await.expect("connects");
        assert_eq!(call_echo(&client).await.unwrap_or_else(|e| panic!("{}", describe(&e))), r#"{"said":"hi"}"#);
        client.close().await;
    })
    .await;
}

#[tokio::test]
async fn authorization_without_metadata_is_named() {
    bounded(async {
        let (_server, base) = server().await;
        let url = format!("{base}/guarded/mcp");
        let error = connect_with(&url, ConnectOptions::new().with_auth(oauth(&url)), options())
            .await
            .expect_err("no way to authorize");
        let text = describe(&error);
        assert!(text.contains("publishes no metadata"), "{text}");
        // A 403 that is no `insufficient_scope` challenge is the server's refusal.
        let url = format!("{base}/forbidden/mcp");
        let error =
            connect_with(&url, ConnectOptions::new().with_auth(oauth(&url)), options()).await.expect_err("refused");
        let text = describe(&error);
        assert!(text.contains("403") && !text.contains("register"), "{text}");
    })
    .await;
}

#[tokio::test]
async fn an_initialize_result_without_capabilities_is_named() {
    bounded(async {
        let (_server, base) = server().await;
        let error = connect(&format!("{base}/no-caps/mcp")).await.expect_err("no capabilities");
        assert!(describe(&error).contains("capabilities"), "{}", describe(&error));
    })
    .await;
}

/// An authorization "flow" the test can watch: no credentials until the
/// server challenges, then `Bearer stream-token` (what /stream-auth wants on
/// its GET). Records the status of every challenge.
#[derive(Debug, Clone, Default)]
struct StreamToken(Arc<Mutex<Vec<u16>>>);

impl AuthProvider for StreamToken {
    fn headers<'a>(
        &'a self,
        _method: Method,
        _url: &'a str,
    ) -> BoxFuture<'a, Result<Vec<(String, String)>, AuthError>> {
        let authorized = !self.0.lock().expect("the challenge log").is_empty();
        Box::pin(async move {
            Ok(match authorized {
                true => vec![("Authorization".to_owned(), "Bearer stream-token".to_owned())],
                false => Vec::new(),
            })
        })
    }

    fn challenged<'a>(&'a self, challenge: &'a AuthChallenge) -> BoxFuture<'a, Result<Recovery, AuthError>> {
        self.0.lock().expect("the challenge log").push(challenge.status);
        Box::pin(async { Ok(Recovery::Credentials) })
    }
}

#[tokio::test]
async fn a_401_on_the_event_stream_is_authorized_and_the_stream_then_delivers() {
    bounded(async {
        let (_server, base) = server().await;
        let url = format!("{base}/stream-auth/mcp");
        let token = StreamToken::default();
        let (sender, mut notes) = tokio::sync::mpsc::unbounded_channel();
        let mut connect =
            ConnectOptions::new().with_transport(TransportChoice::StreamableHttp).with_auth(token.clone());
        connect.eager_server_stream = true;
        let client_options = options().with_era(EraChoice::Handshake).on_notification(move |note| {
            let _ = sender.send(note.clone());
        });
        let client = connect_with(&url, connect, client_options).await.expect("connected (the POSTs need no token)");
        let note = tokio::time::timeout(OUTER, notes.recv())
            .await
            .expect("the notification sent on the authorized stream arrived in time")
            .expect("the client is still listening");
        assert_eq!(note.method, "notifications/message");
        let data = note.params.as_ref().and_then(|params| params.get("data"));
        assert_eq!(data, Some(&json!("stream authorized")), "{note:?}");
        assert_eq!(*token.0.lock().expect("the challenge log"), vec![401], "one challenge: the GET's 401");
        client.close().await;
    })
    .await;
}
