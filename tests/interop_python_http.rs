//! Interop over Streamable HTTP with the Python SDK (`mcp` 2.3.0):
//! tests/peers/era_python_http_server.py serves 2026-07-28 and the handshake
//! era on one endpoint (the SDK routes by `MCP-Protocol-Version`). Each test
//! starts its own server on a free port of 127.0.0.1.
//!
//! Needs tests/peers/.venv (`cargo xtask setup`): without it the tests fail
//! under CI, else are skipped (tests/support/native.rs).

// Native only (tokio, processes); `wasm-pack test` builds every test target for wasm32.
#![cfg(not(target_arch = "wasm32"))]

mod support;

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use mcp_edge::protocol::types::{ElicitAction, ElicitResult, JsonObject};
use mcp_edge::protocol::{Era, ProtocolVersion};
use mcp_edge::{Client, TransportChoice};
use mcp_edge::{ClientOptions, ConnectOptions, EraChoice, connect_url};
use serde_json::json;
use support::native::{Lines, peers_dir, venv_python};
use support::{arguments, texts, within};

/// The server (killed when dropped) and its endpoint.
struct Server {
    _process: support::native::Server,
    url: String,
}

/// Starts the server on a port of its choosing (it prints the URL).
async fn start() -> Option<Server> {
    let python = venv_python()?;
    let script = peers_dir().join("era_python_http_server.py").to_string_lossy().into_owned();
    let (process, url) = support::native::Server::announced(python, &[script], Lines::default()).await;
    assert!(url.starts_with("http://127.0.0.1:") && url.ends_with("/mcp"), "{url}");
    Some(Server { _process: process, url })
}

/// Options with `era` and an elicitation handler that counts its calls,
/// checks the question, and answers `{confirmed: false}` (the form's default
/// is `true`, so the answer is visibly the handler's).
fn options(era: EraChoice, asked: &Arc<AtomicUsize>) -> ClientOptions {
    let asked = Arc::clone(asked);
    ClientOptions::new("interop-python-http", "1.0")
        .with_timeout(Duration::from_secs(20))
        .on_elicitation(
            move |params, _context| {
                asked.fetch_add(1, Ordering::SeqCst);
                let message = params.message.clone();
                async move {
                    assert_eq!(message, "Sure?");
                    let mut content = JsonObject::new();
                    content.insert("confirmed".into(), json!(false));
                    Ok(ElicitResult { action: ElicitAction::Accept, content: Some(content) })
                }
            },
            true,
        )
        .with_era(era)
}

async fn connect(url: &str, era: EraChoice, asked: &Arc<AtomicUsize>) -> Client {
    let connect = ConnectOptions::new().with_transport(TransportChoice::Auto);
    within("connect", connect_url(url, connect, options(era, asked))).await.expect("connect")
}

/// tools/list has add and confirm; add 2+3 is 5; confirm runs the handler
/// once and shows its answer.
async fn add_and_confirm(client: &Client, asked: &Arc<AtomicUsize>) {
    assert_eq!(client.transport_kind(), "streamable-http");
    let tools = within("tools/list", client.list_all_tools()).await.expect("tools/list");
    let names: Vec<&str> = tools.iter().map(|t| t.name.as_str()).collect();
    assert!(names.contains(&"add") && names.contains(&"confirm"), "{names:?}");

    let result = within("add", client.call_tool("add", arguments(json!({"a": 2, "b": 3})))).await.expect("add");
    assert!(!result.is_error(), "{result:?}");
    assert_eq!(texts(&result), "5", "{result:?}");

    let before = asked.load(Ordering::SeqCst);
    let result = within("confirm", client.call_tool("confirm", None)).await.expect("confirm");
    assert_eq!(asked.load(Ordering::SeqCst) - before, 1, "the elicitation handler ran once");
    // Python prints the handler's `false` as False.
    assert_eq!(texts(&result), "accept:False", "{result:?}");
}

#[tokio::test]
async fn era_auto_finds_2026_07_28() {
    let Some(server) = start().await else { return };
    let asked = Arc::default();
    let client = connect(&server.url, EraChoice::Auto, &asked).await;
    assert_eq!(client.era(), Some(Era::Stateless));
    assert_eq!(client.negotiated().map(|n| n.version), Some(ProtocolVersion::V2026_07_28));
    add_and_confirm(&client, &asked).await;
    // `region` is declared `x-mcp-header: Region`: without a matching
    // `Mcp-Param-Region` header the SDK answers -32020.
    let result = within("region_echo", client.call_tool("region_echo", arguments(json!({"region": "eu-west-1"}))))
        .await
        .expect("region_echo");
    assert_eq!(texts(&result), "region:eu-west-1", "{result:?}");
    within("close", client.close()).await;
}

#[tokio::test]
async fn era_stateless_forced() {
    let Some(server) = start().await else { return };
    let asked = Arc::default();
    let client = connect(&server.url, EraChoice::Stateless, &asked).await;
    assert_eq!(client.era(), Some(Era::Stateless));
    add_and_confirm(&client, &asked).await;
    within("close", client.close()).await;
}

/// The SDK is dual-era over HTTP: without a 2026-07-28
/// `MCP-Protocol-Version` a request goes to its handshake transport.
#[tokio::test]
async fn era_handshake_forced() {
    let Some(server) = start().await else { return };
    let asked = Arc::default();
    let client = connect(&server.url, EraChoice::Handshake, &asked).await;
    assert_eq!(client.era(), Some(Era::Handshake));
    assert_eq!(client.negotiated().map(|n| n.version), Some(ProtocolVersion::V2025_11_25));
    add_and_confirm(&client, &asked).await;
    within("close", client.close()).await;
}
