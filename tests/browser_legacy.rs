//! The legacy HTTP+SSE transport (2024-11-05) in headless Chromium, against
//! the real server-everything in `sse` mode (it sends permissive CORS
//! headers; the test page is on another port, so every request is
//! cross-origin).
//!
//! Both ways of reading the stream are tried: the browser's `EventSource`
//! (no request header) and `fetch` with the crate's SSE parser (a custom
//! header, which `EventSource` cannot send). Detection from the one URL
//! (`connect_url` with `Auto`) must find the legacy transport too.
//!
//! The server's URL is baked in at compile time from
//! `MCP_EDGE_TEST_LEGACY_URL`; `cargo xtask test` starts the server and sets it.

#![cfg(target_arch = "wasm32")]

mod support;

use support::web;

use mcp_edge::http::DefaultHttp;
use mcp_edge::transport::{LegacyError, LegacySseOptions, LegacySseTransport};
use mcp_edge::web::McpClient;
use mcp_edge::{Client, ClientOptions, ConnectOptions, TransportChoice, connect_url};
use serde_json::json;
use support::{arguments, texts};
use wasm_bindgen_test::{wasm_bindgen_test, wasm_bindgen_test_configure};
use web::{required_url, within};

wasm_bindgen_test_configure!(run_in_browser);

const LEGACY_URL: Option<&str> = option_env!("MCP_EDGE_TEST_LEGACY_URL");

fn legacy_url() -> String {
    required_url(
        LEGACY_URL,
        "MCP_EDGE_TEST_LEGACY_URL was not set when these tests were compiled. Run `cargo xtask test`, \
         which starts server-everything in `sse` mode and sets it; or start it by hand \
         (`PORT=3001 node tests/peers/node_modules/@modelcontextprotocol/server-everything/dist/index.js sse`) \
         and build with MCP_EDGE_TEST_LEGACY_URL=http://127.0.0.1:3001/sse",
    )
}

fn client_options() -> ClientOptions {
    ClientOptions::new("browser-legacy-tests", "0.0.0")
}

/// Lists the tools, calls `echo`, closes.
async fn use_echo(client: Client, tag: &str) {
    assert_eq!(client.transport_kind(), "sse (legacy)");
    let tools = within("tools/list", 30, client.list_all_tools()).await.expect("tools/list");
    assert!(tools.iter().any(|tool| tool.name == "echo"), "no echo tool");
    let message = format!("hello from the {tag} path");
    let result = within("tools/call echo", 30, client.call_tool("echo", arguments(json!({ "message": message }))))
        .await
        .expect("tools/call echo");
    assert!(!result.is_error(), "{result:?}");
    assert!(texts(&result).contains(&message), "{}", texts(&result));
    within("close", 10, client.close()).await;
}

#[wasm_bindgen_test]
async fn event_source_path_connects_lists_tools_and_echoes() {
    let options = LegacySseOptions::new(legacy_url());
    let transport = within("opening the stream", 30, LegacySseTransport::connect(DefaultHttp::new(), options))
        .await
        .expect("an endpoint event");
    assert!(transport.uses_event_source(), "with no header the browser's EventSource reads the stream");
    assert!(transport.endpoint().is_some_and(|endpoint| endpoint.contains("sessionId=")), "{transport:?}");
    let client = within("initialize", 30, Client::connect(transport, client_options())).await.expect("initialize");
    use_echo(client, "EventSource").await;
}

#[wasm_bindgen_test]
async fn fetch_path_with_a_custom_header_connects_lists_tools_and_echoes() {
    let options = LegacySseOptions::new(legacy_url()).header("X-Mcp-Edge-Test", "legacy");
    let transport = within("opening the stream", 30, LegacySseTransport::connect(DefaultHttp::new(), options))
        .await
        .expect("an endpoint event");
    assert!(!transport.uses_event_source(), "EventSource cannot send a header: fetch must read the stream");
    let client = within("initialize", 30, Client::connect(transport, client_options())).await.expect("initialize");
    use_echo(client, "fetch").await;
}

#[wasm_bindgen_test]
async fn fetch_path_when_event_source_is_turned_off() {
    let mut options = LegacySseOptions::new(legacy_url());
    options.use_event_source = false;
    let transport = within("opening the stream", 30, LegacySseTransport::connect(DefaultHttp::new(), options))
        .await
        .expect("an endpoint event");
    assert!(!transport.uses_event_source());
    let client = within("initialize", 30, Client::connect(transport, client_options())).await.expect("initialize");
    use_echo(client, "fetch (no EventSource)").await;
}

#[wasm_bindgen_test]
async fn auto_detection_from_the_one_url_finds_the_legacy_transport() {
    let url = legacy_url();
    let client = within("connect_url", 60, connect_url(&url, ConnectOptions::new(), client_options()))
        .await
        .expect("detection finds HTTP+SSE");
    use_echo(client, "detected").await;
    // With a header (the fetch path), detection is remembered: no probe.
    let options = ConnectOptions::new().with_transport(TransportChoice::Auto).header("X-Mcp-Edge-Test", "auto");
    let client = within("connect_url with a header", 60, connect_url(&url, options, client_options()))
        .await
        .expect("connect again");
    use_echo(client, "detected, with a header").await;
}

#[wasm_bindgen_test]
async fn an_event_source_that_cannot_open_says_what_the_server_answered() {
    // The server's 404 page for an unknown path: EventSource only says
    // "error"; the transport asks again with fetch to report the answer.
    let url = legacy_url().replace("/sse", "/no-such-stream");
    let outcome =
        within("opening the stream", 30, LegacySseTransport::connect(DefaultHttp::new(), LegacySseOptions::new(&url)))
            .await;
    match outcome {
        Err(LegacyError::NotAnEventStream { status: 404, .. }) => {}
        other => panic!("{other:?}"),
    }
}

/// The JS API detects the legacy transport from the one URL, and takes it
/// when forced.
#[wasm_bindgen_test]
async fn the_js_api_connects_to_the_legacy_server_detected_or_forced() {
    use wasm_bindgen::JsValue;
    use wasm_bindgen::convert::TryFromJsValue;
    use wasm_bindgen_futures::JsFuture;
    for transport in ["auto", "sse"] {
        let options = js_sys::Object::new();
        js_sys::Reflect::set(&options, &"transport".into(), &transport.into()).expect("an object");
        let connected =
            within("McpClient.connect", 60, JsFuture::from(McpClient::connect(legacy_url(), options.into())))
                .await
                .unwrap_or_else(|error| panic!("connect ({transport}) failed: {error:?}"));
        let client = McpClient::try_from_js_value(connected).expect("an McpClient");
        assert_eq!(client.transport(), "sse (legacy)", "{transport}");
        let arguments = js_sys::JSON::parse(r#"{"name":"echo","arguments":{"message":"hi from JS"}}"#).expect("JSON");
        let result = within("callTool echo", 30, JsFuture::from(client.call_tool(arguments, JsValue::UNDEFINED)))
            .await
            .expect("callTool echo");
        let text = js_sys::JSON::stringify(&result).ok().and_then(|t| t.as_string()).unwrap_or_default();
        assert!(text.contains("hi from JS"), "{text}");
        within("close", 10, JsFuture::from(client.close())).await.expect("close");
    }
}
