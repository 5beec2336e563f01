//! Era detection and the stateless revision (2026-07-28) in headless
//! Chromium, through the JS API (`McpClient`), against real servers on
//! another port (so every request is cross-origin and preflighted):
//!
//! - the Python SDK (`mcp` 2.3.0) over Streamable HTTP
//!   (tests/peers/era_python_http_server.py), which serves 2026-07-28 and the
//!   handshake era on one endpoint, with CORS that allows the `Mcp-*` headers:
//!   era `auto`, `stateless` and `handshake`; tools, an `input_required` round
//!   trip answered by the JS elicitation handler, an `Mcp-Param-*` header;
//! - the same server with a handshake-era CORS allowlist (no `Mcp-Method`),
//!   where the browser refuses the probe's preflight;
//! - server-everything (handshake era only) with era `auto`;
//! - rmcp's server over Streamable HTTP, when its URL was given;
//! - `McpClient.listen` on the Python server in both eras and on rmcp's:
//!   resource updates and tool-list changes reach the JS listener.
//!
//! URLs are baked in at compile time (a page cannot read the environment):
//! `MCP_EDGE_TEST_MODERN_URL`, `MCP_EDGE_TEST_STRICT_CORS_URL`,
//! `MCP_EDGE_TEST_SERVER_URL`, `MCP_EDGE_TEST_RMCP_URL`. `cargo xtask test`
//! starts the servers and sets them.

#![cfg(target_arch = "wasm32")]

mod support;

use support::{sleep, web};

use std::cell::RefCell;
use std::rc::Rc;
use std::time::Duration;

use js_sys::{Array, Promise, Reflect};
use mcp_edge::protocol::Era;
use mcp_edge::web::McpClient;
use wasm_bindgen::JsValue;
use wasm_bindgen::closure::Closure;
use wasm_bindgen_test::{wasm_bindgen_test, wasm_bindgen_test_configure};
use web::{
    close, describe, function2, get, json, object, rejected, required_url, resolved, result_text, set, text, tool,
    within,
};

wasm_bindgen_test_configure!(run_in_browser);

const MODERN_URL: Option<&str> = option_env!("MCP_EDGE_TEST_MODERN_URL");
const STRICT_CORS_URL: Option<&str> = option_env!("MCP_EDGE_TEST_STRICT_CORS_URL");
const SERVER_URL: Option<&str> = option_env!("MCP_EDGE_TEST_SERVER_URL");
const RMCP_URL: Option<&str> = option_env!("MCP_EDGE_TEST_RMCP_URL");

fn required(url: Option<&'static str>, variable: &str, how: &str) -> String {
    required_url(
        url,
        format_args!(
            "{variable} was not set when these tests were compiled. Run `cargo xtask test`, which starts the \
             server and sets it; or start it by hand ({how}) and build with {variable}=http://127.0.0.1:<port>/<path>"
        ),
    )
}

fn modern_url() -> String {
    required(
        MODERN_URL,
        "MCP_EDGE_TEST_MODERN_URL",
        "`PORT=<port> tests/peers/.venv/bin/python tests/peers/era_python_http_server.py`",
    )
}

fn strict_cors_url() -> String {
    required(
        STRICT_CORS_URL,
        "MCP_EDGE_TEST_STRICT_CORS_URL",
        "`MCP_PEER_STRICT_CORS=1 PORT=<port> tests/peers/.venv/bin/python tests/peers/era_python_http_server.py`",
    )
}

fn everything_url() -> String {
    required(
        SERVER_URL,
        "MCP_EDGE_TEST_SERVER_URL",
        "`PORT=<port> node tests/peers/node_modules/@modelcontextprotocol/server-everything/dist/index.js \
         streamableHttp`",
    )
}

/// Connect options with `era` and an elicitation handler that records its
/// params and answers `{confirmed: false}` (the form's default is `true`,
/// so the answer is visibly the handler's).
fn options(era: &str, asked: &Rc<RefCell<Vec<JsValue>>>) -> JsValue {
    let record = asked.clone();
    let elicitation = function2(move |params, _extra| {
        record.borrow_mut().push(params);
        object(&[("action", "accept".into()), ("content", object(&[("confirmed", false.into())]))])
    });
    object(&[
        ("era", era.into()),
        ("clientInfo", object(&[("name", "browser-stateless-test".into()), ("version", "1.0.0".into())])),
        ("elicitation", elicitation),
    ])
}

async fn connect(url: &str, options: JsValue) -> McpClient {
    web::connect_client(&format!("McpClient.connect({url})"), 30, url.to_owned(), options).await
}

fn tool_names(page: &JsValue) -> Vec<String> {
    Array::from(&get(page, "tools")).iter().filter_map(|t| get(&t, "name").as_string()).collect()
}

/// listTools has `add` and `confirm`; add 2+3 is 5; `confirm` runs the
/// handler once and its answer shows in the result.
async fn add_and_confirm(client: &McpClient, asked: &Rc<RefCell<Vec<JsValue>>>, label: &str) {
    let page = resolved("listTools", 15, client.list_tools(JsValue::UNDEFINED, JsValue::UNDEFINED)).await;
    let names = tool_names(&page);
    assert!(names.iter().any(|n| n == "add") && names.iter().any(|n| n == "confirm"), "{label}: {names:?}");

    let arguments = object(&[("a", 2.into()), ("b", 3.into())]);
    let result = resolved("callTool add", 15, client.call_tool(tool("add", arguments), JsValue::UNDEFINED)).await;
    assert_eq!(get(&result, "isError").as_bool(), Some(false), "{label}: {}", json(&result));
    assert_eq!(result_text(&result), "5", "{label}: {}", json(&result));

    let before = asked.borrow().len();
    let result =
        resolved("callTool confirm", 20, client.call_tool(tool("confirm", object(&[])), JsValue::UNDEFINED)).await;
    let calls = asked.borrow().len() - before;
    assert_eq!(calls, 1, "{label}: the elicitation handler ran once");
    let params = asked.borrow().last().cloned().unwrap_or(JsValue::UNDEFINED);
    assert_eq!(text(&get(&params, "message")), "Sure?", "{label}: {}", json(&params));
    assert!(get(&params, "requestedSchema").is_object(), "{label}: {}", json(&params));
    // The handler said `confirmed: false`; Python prints it as False.
    assert_eq!(result_text(&result), "accept:False", "{label}: {}", json(&result));
}

#[wasm_bindgen_test]
async fn python_server_with_era_auto_speaks_2026_07_28() {
    let url = modern_url();
    let asked = Rc::default();
    let client = connect(&url, options("auto", &asked)).await;
    assert_eq!(text(&client.get_negotiated_protocol_version()), "2026-07-28");
    assert_eq!(client.client().era(), Some(Era::Stateless));
    assert_eq!(client.transport(), "streamable-http");
    assert_eq!(text(&get(&client.get_server_version(), "name")), "py-http-dual-era");
    add_and_confirm(&client, &asked, "auto").await;

    // `region` is declared `x-mcp-header: Region`: the call carries
    // `Mcp-Param-Region` (the server checks it against the argument), which
    // the server's CORS policy must allow.
    let arguments = object(&[("region", "eu-west-1".into())]);
    let result =
        resolved("callTool region_echo", 15, client.call_tool(tool("region_echo", arguments), JsValue::UNDEFINED))
            .await;
    assert_eq!(result_text(&result), "region:eu-west-1", "{}", json(&result));
    close(client).await;
}

#[wasm_bindgen_test]
async fn python_server_with_era_stateless_forced() {
    let url = modern_url();
    let asked = Rc::default();
    let client = connect(&url, options("stateless", &asked)).await;
    assert_eq!(text(&client.get_negotiated_protocol_version()), "2026-07-28");
    assert_eq!(client.client().era(), Some(Era::Stateless));
    add_and_confirm(&client, &asked, "stateless").await;
    close(client).await;
}

/// The SDK routes requests without a 2026-07-28 `MCP-Protocol-Version` to
/// its handshake-era transport: `initialize`, a session, and the
/// elicitation as a request in the middle of the call.
#[wasm_bindgen_test]
async fn python_server_with_era_handshake_forced() {
    let url = modern_url();
    let asked = Rc::default();
    let client = connect(&url, options("handshake", &asked)).await;
    assert_eq!(text(&client.get_negotiated_protocol_version()), "2025-11-25");
    assert_eq!(client.client().era(), Some(Era::Handshake));
    add_and_confirm(&client, &asked, "handshake").await;
    close(client).await;
}

/// A dual-era server whose CORS allowlist is the handshake era's (no
/// `Mcp-Method`): the browser refuses the `server/discover` probe's
/// preflight and the page sees only an opaque `TypeError`. The digest
/// (§2.3 step 3d) counts that as a handshake-era signal in a browser: the
/// `initialize` that follows carries only headers old allowlists cover.
#[wasm_bindgen_test]
async fn a_preflight_that_refuses_mcp_method_means_the_handshake_era() {
    let url = strict_cors_url();
    let asked = Rc::default();
    let client = connect(&url, options("auto", &asked)).await;
    assert_eq!(text(&client.get_negotiated_protocol_version()), "2025-11-25");
    assert_eq!(client.client().era(), Some(Era::Handshake));
    add_and_confirm(&client, &asked, "strict CORS").await;
    close(client).await;
}

/// Forced to the stateless era, the same server cannot be reached: the
/// error names CORS as the likely cause (the browser gives no detail).
#[wasm_bindgen_test]
async fn a_preflight_that_refuses_mcp_method_fails_the_stateless_era_with_a_cors_hint() {
    let url = strict_cors_url();
    let asked = Rc::default();
    let error = rejected("McpClient.connect", 30, McpClient::connect(url, options("stateless", &asked))).await;
    assert_eq!(text(&get(&error, "name")), "McpError", "{}", describe(&error));
    let message = text(&get(&error, "message"));
    assert!(message.contains("CORS policy may not allow"), "{message}");
}

/// server-everything speaks only the handshake era (TS SDK 1.x): the probe
/// is answered with an error, so `initialize` follows.
#[wasm_bindgen_test]
async fn server_everything_with_era_auto_is_the_handshake_era() {
    let url = everything_url();
    let asked = Rc::default();
    let client = connect(&url, options("auto", &asked)).await;
    assert_eq!(text(&client.get_negotiated_protocol_version()), "2025-11-25");
    assert_eq!(client.client().era(), Some(Era::Handshake));
    assert_eq!(client.transport(), "streamable-http");
    let page = resolved("listTools", 15, client.list_tools(JsValue::UNDEFINED, JsValue::UNDEFINED)).await;
    assert!(tool_names(&page).iter().any(|n| n == "echo"), "{}", json(&page));
    let arguments = object(&[("message", "hi from auto".into())]);
    let result = resolved("callTool echo", 15, client.call_tool(tool("echo", arguments), JsValue::UNDEFINED)).await;
    assert!(result_text(&result).contains("hi from auto"), "{}", json(&result));
    close(client).await;
}

/// rmcp's server (Rust) over Streamable HTTP. Its URL is optional when the
/// tests are built by hand; when `cargo xtask test` built them (the Python
/// server's URL is set), a missing rmcp URL is a failure.
#[wasm_bindgen_test]
async fn rmcp_server_with_era_auto_speaks_2026_07_28() {
    let url = match (set(RMCP_URL), set(MODERN_URL)) {
        (Some(url), _) => url.to_owned(),
        (None, Some(_)) => panic!(
            "MCP_EDGE_TEST_RMCP_URL was not set at compile time although MCP_EDGE_TEST_MODERN_URL was: \
             `cargo xtask test` starts rmcp's server (target/rmcp-peer/release/rmcp-peer http) and sets it"
        ),
        (None, None) => {
            wasm_bindgen_test::console_log!("skipped: MCP_EDGE_TEST_RMCP_URL was not set at compile time");
            return;
        }
    };
    let asked = Rc::default();
    let client = connect(&url, options("auto", &asked)).await;
    assert_eq!(text(&client.get_negotiated_protocol_version()), "2026-07-28");
    assert_eq!(client.client().era(), Some(Era::Stateless));
    add_and_confirm_rmcp(&client, &asked).await;
    close(client).await;
}

/// rmcp's peer (tests/peers/rmcp-server): `add` gives 5, `confirm` runs
/// the handler once and reports `via <route>, user answered: <action> <content>`.
async fn add_and_confirm_rmcp(client: &McpClient, asked: &Rc<RefCell<Vec<JsValue>>>) {
    let page = resolved("listTools", 15, client.list_tools(JsValue::UNDEFINED, JsValue::UNDEFINED)).await;
    let names = tool_names(&page);
    assert!(names.iter().any(|n| n == "add") && names.iter().any(|n| n == "confirm"), "rmcp: {names:?}");
    let arguments = object(&[("a", 2.into()), ("b", 3.into())]);
    let result = resolved("callTool add", 15, client.call_tool(tool("add", arguments), JsValue::UNDEFINED)).await;
    assert_eq!(result_text(&result), "5", "rmcp: {}", json(&result));
    let before = asked.borrow().len();
    let result =
        resolved("callTool confirm", 20, client.call_tool(tool("confirm", object(&[])), JsValue::UNDEFINED)).await;
    assert_eq!(asked.borrow().len() - before, 1, "rmcp: the elicitation handler ran once");
    let answer = result_text(&result);
    // 2026-07-28: the peer took the input_required route (not a server request).
    assert!(answer.starts_with("via input_required, user answered: accept"), "rmcp: {answer}");
    assert!(answer.contains(r#""confirmed":false"#), "rmcp: {answer}");
}

/// Notifications a listener received, as `(method, params)`.
type Heard = Rc<RefCell<Vec<(String, JsValue)>>>;

fn listener(heard: &Heard) -> js_sys::Function {
    let heard = heard.clone();
    let f = Closure::<dyn FnMut(JsValue)>::new(move |notification: JsValue| {
        heard.borrow_mut().push((text(&get(&notification, "method")), get(&notification, "params")));
    });
    f.into_js_value().into()
}

/// Waits until `heard` has a `method` notification (bounded).
async fn heard_one(heard: &Heard, method: &str) -> JsValue {
    within(&format!("a {method} notification"), 15, async {
        loop {
            if let Some((_, params)) = heard.borrow().iter().find(|(m, _)| m == method) {
                return params.clone();
            }
            sleep(Duration::from_millis(20)).await;
        }
    })
    .await
}

/// `listen` through the JS API: granted filter, notifications to the
/// listener as the server's tools change things, `close()`, `closed`.
async fn listen_round_trip(client: &McpClient, uri: &str, touch: JsValue, change_tools: JsValue) {
    let heard: Heard = Rc::default();
    let filter = object(&[
        ("toolsListChanged", true.into()),
        ("resourceSubscriptions", Array::of1(&JsValue::from_str(uri)).into()),
    ]);
    let subscription = resolved("listen", 15, client.listen(filter, listener(&heard))).await;
    let granted = Reflect::get(&subscription, &"granted".into()).unwrap_or(JsValue::UNDEFINED);
    assert_eq!(text(&Array::from(&get(&granted, "resourceSubscriptions")).get(0)), uri, "{}", json(&granted));

    resolved("callTool touch", 15, client.call_tool(touch, JsValue::UNDEFINED)).await;
    let updated = heard_one(&heard, "notifications/resources/updated").await;
    assert_eq!(text(&get(&updated, "uri")), uri, "{}", json(&updated));
    if get(&granted, "toolsListChanged").as_bool() == Some(true) {
        resolved("callTool change tools", 15, client.call_tool(change_tools, JsValue::UNDEFINED)).await;
        heard_one(&heard, "notifications/tools/list_changed").await;
    }

    let close: js_sys::Function = Reflect::get(&subscription, &"close".into()).expect("close").into();
    let closing: Promise = close.call0(&subscription).expect("close()").into();
    resolved("subscription.close()", 10, closing).await;
    let closed: Promise = Reflect::get(&subscription, &"closed".into()).expect("closed").into();
    resolved("subscription.closed", 10, closed).await;
    // The session goes on after the subscription ends.
    resolved("listTools after close", 15, client.list_tools(JsValue::UNDEFINED, JsValue::UNDEFINED)).await;
}

#[wasm_bindgen_test]
async fn listen_on_the_python_server_in_both_eras() {
    let url = modern_url();
    for era in ["auto", "handshake"] {
        let asked = Rc::default();
        let client = connect(&url, options(era, &asked)).await;
        let touch = tool("set_note", object(&[("text", format!("hello from {era}").into())]));
        listen_round_trip(&client, "note://greeting", touch, tool("toggle_extra", object(&[]))).await;
        close(client).await;
    }
}

#[wasm_bindgen_test]
async fn listen_on_the_rmcp_server() {
    let Some(url) = set(RMCP_URL) else {
        assert!(set(MODERN_URL).is_none(), "MCP_EDGE_TEST_RMCP_URL missing in an xtask build");
        return;
    };
    let asked = Rc::default();
    let client = connect(url, options("auto", &asked)).await;
    assert_eq!(client.client().era(), Some(Era::Stateless));
    listen_round_trip(&client, "demo://counter", tool("bump", object(&[])), tool("grow", object(&[]))).await;
    close(client).await;
}
