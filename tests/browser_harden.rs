//! Issue 19's fixes in headless Chromium, against
//! tests/peers/harden-server.mjs (modes by path): a redirect to another
//! origin is refused (the session id and headers are never used there), a
//! request that carries them is never redirected, and the JS API's `timeout` bounds all of
//! connecting (probe and handshake) against a server that never answers.
//!
//! The server's URL is baked in at compile time from
//! `MCP_EDGE_TEST_HARDEN_URL`; `cargo xtask test` (or `cargo xtask peers`)
//! starts the server and sets it.

#![cfg(target_arch = "wasm32")]

mod support;

use mcp_edge::http::{DefaultHttp, HttpClient, HttpRequest, Method};
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

/// Within the origin, `fetch` follows the redirect for requests that carry
/// nothing secret (the probe, `initialize`), but once the session id rides
/// on every request the redirect is no longer followed: the error says to
/// use the URL it leads to, rather than the session dying unexplained.
#[wasm_bindgen_test]
async fn a_redirecting_endpoint_is_named_once_the_session_id_rides() {
    let near = url("/near/mcp");
    let connecting = connect_url(&near, ConnectOptions::new(), ClientOptions::default());
    let error = match web::within("connecting through /near", 30, connecting).await {
        Ok(client) => {
            client.close().await;
            panic!("a request with a session id followed a redirect")
        }
        Err(error) => error.to_string(),
    };
    assert!(error.contains("use the URL it redirects to"), "{error}");
    // The final URL works.
    let ok = url("/ok/mcp");
    let connecting = connect_url(&ok, ConnectOptions::new(), ClientOptions::default());
    let client = web::within("connecting to /ok", 30, connecting).await.unwrap_or_else(|e| panic!("{e}"));
    let result = web::within("echo", 30, client.call_tool("echo", None)).await.unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(support::texts(&result), "{}");
    client.close().await;
}

/// A request that carries the caller's headers is not redirected at all (a
/// page cannot see where a redirect leads): not to another origin, whose
/// server never sees the header, nor within the origin.
#[wasm_bindgen_test]
async fn a_request_with_custom_headers_is_never_redirected() {
    for path in ["/away/mcp", "/near/mcp"] {
        let connect = ConnectOptions::new().header("X-Extra", "page-secret");
        let target = url(path);
        let outcome =
            web::within("connecting with X-Extra", 30, connect_url(&target, connect, ClientOptions::default())).await;
        let error = match outcome {
            Ok(client) => {
                client.close().await;
                panic!("{path}: a redirect was followed with a custom header")
            }
            Err(error) => error.to_string(),
        };
        assert!(error.contains("redirect"), "{path}: {error}");
    }
    let request =
        HttpRequest { method: Method::Get, url: url("/foreign-log?with=page-secret"), headers: Vec::new(), body: None };
    let response = DefaultHttp::default().fetch(request).await.unwrap_or_else(|e| panic!("GET /foreign-log: {e}"));
    let body = response.read_body(1 << 20).await.unwrap_or_else(|e| panic!("GET /foreign-log body: {e}"));
    assert_eq!(String::from_utf8_lossy(&body), "[]", "the other origin saw the header");
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
