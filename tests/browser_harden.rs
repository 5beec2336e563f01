//! Issue 19's fixes in headless Chromium, against
//! tests/peers/harden-server.mjs (modes by path): a redirect to another
//! origin is refused (the session id and headers are never used there), one
//! within the origin is followed, and the JS API's `timeout` bounds all of
//! connecting (probe and handshake) against a server that never answers.
//!
//! The server's URL is baked in at compile time from
//! `MCP_EDGE_TEST_HARDEN_URL`; `cargo xtask test` (or `cargo xtask peers`)
//! starts the server and sets it.

#![cfg(target_arch = "wasm32")]

mod support;

use mcp_edge::{ClientOptions, ConnectOptions, connect_url};
use support::web::{self, get, object, rejected, required_url, text};
use wasm_bindgen_test::{wasm_bindgen_test, wasm_bindgen_test_configure};

wasm_bindgen_test_configure!(run_in_browser);

const HARDEN_URL: Option<&str> = option_env!("MCP_EDGE_TEST_HARDEN_URL");

fn url(path: &str) -> String {
    let base = required_url(
        HARDEN_URL,
        "MCP_EDGE_TEST_HARDEN_URL was not set when these tests were compiled: run `cargo xtask test`, \
         which starts tests/peers/harden-server.mjs and sets it",
    );
    format!("{base}{path}")
}

#[wasm_bindgen_test]
async fn a_redirect_to_another_origin_is_refused() {
    let away = url("/away/mcp");
    let connecting = connect_url(&away, ConnectOptions::new(), ClientOptions::default());
    let outcome = web::within("connecting through /away", 30, connecting).await;
    let error = match outcome {
        Ok(client) => {
            client.close().await;
            panic!("a redirect to another origin was followed")
        }
        Err(error) => error.to_string(),
    };
    assert!(error.contains("another origin"), "{error}");
}

#[wasm_bindgen_test]
async fn a_redirect_within_the_origin_is_followed() {
    let near = url("/near/mcp");
    let connecting = connect_url(&near, ConnectOptions::new(), ClientOptions::default());
    let client = web::within("connecting through /near", 30, connecting).await.unwrap_or_else(|e| panic!("{e}"));
    let result = web::within("echo", 30, client.call_tool("echo", None)).await.unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(support::texts(&result), "{}");
    client.close().await;
}

#[wasm_bindgen_test]
async fn the_js_timeout_bounds_connecting_to_a_silent_server() {
    let options = object(&[("timeout", 2000.into())]);
    // Generous: three times the deadline; before the fix it took minutes.
    let error =
        rejected("connect to a silent server", 6, mcp_edge::web::McpClient::connect(url("/silent/mcp"), options)).await;
    let message = text(&get(&error, "message"));
    assert!(message.contains("timed out"), "{}", web::describe(&error));
}
