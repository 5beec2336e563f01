//! The fault catalog in headless Chromium: every mode of
//! tests/peers/fault-server.mjs that means the same in a browser (`web` in
//! its table) through the Rust API on `fetch`, judged as natively
//! (tests/support/faults.rs). The score is printed to the runner's output.
//!
//! The server's base URL is baked in at compile time from
//! `MCP_EDGE_TEST_FAULTS_URL`; `cargo xtask test` (and `cargo xtask peers`)
//! start the server and set it.

#![cfg(target_arch = "wasm32")]

mod support;

use support::faults::{catalog, report, run_all};
use support::web::{self, connect_client, get, object, rejected, required_url, text, tool};
use wasm_bindgen::JsValue;
use wasm_bindgen_test::{wasm_bindgen_test, wasm_bindgen_test_configure};

wasm_bindgen_test_configure!(run_in_browser);

const FAULTS_URL: Option<&str> = option_env!("MCP_EDGE_TEST_FAULTS_URL");

/// Modes that fail in a browser today for a reason the issue names and
/// another branch fixes: reported, not fatal. A listed mode that passes
/// fails the suite (take it off the list).
const KNOWN: &[(&str, &str)] = &[];

#[wasm_bindgen_test]
async fn every_web_fault_mode_behaves_as_the_spec_implies() {
    let base = required_url(
        FAULTS_URL,
        "MCP_EDGE_TEST_FAULTS_URL was not set when these tests were compiled: run `cargo xtask test`, \
         which starts tests/peers/fault-server.mjs and sets it",
    );
    let mut catalog = catalog(&base).await;
    for mode in &mut catalog.modes {
        if let Some(expect) = mode.browser_expect.take() {
            mode.expect = expect;
        }
    }
    // One at a time: the modes share the page's thread, and one that floods it
    // (an endless stream) would delay the timers of the others.
    let results = run_all(&base, &catalog, |mode| mode.web, 1).await;
    let failed = report("Chromium", &results);
    for (mode, verdict) in &results {
        let line = match verdict {
            Ok(what) => format!("ok {}: {what}", mode.name),
            Err(why) => format!("FAILED {}: {why}", mode.name),
        };
        web_sys_log(&line);
    }
    web_sys_log(&format!("fault catalog, Chromium: {}/{} modes pass", results.len() - failed.len(), results.len()));
    let unexpected: Vec<&String> = failed.iter().filter(|name| !KNOWN.iter().any(|(known, _)| known == name)).collect();
    let fixed: Vec<&str> =
        KNOWN.iter().map(|(name, _)| *name).filter(|name| !failed.iter().any(|f| f == name)).collect();
    assert!(unexpected.is_empty(), "modes that misbehave: {unexpected:?}");
    assert!(fixed.is_empty(), "modes listed as known failures now pass (take them off KNOWN): {fixed:?}");
}

/// The JS API hands results on as they came; a `null` `tools/call` result
/// must still be refused as malformed, as the Rust API refuses it natively
/// and here (the catalog above runs the Rust API, so it cannot see this).
#[wasm_bindgen_test]
async fn the_js_api_refuses_a_null_tool_result() {
    let base = required_url(FAULTS_URL, "MCP_EDGE_TEST_FAULTS_URL was not set when these tests were compiled");
    let options = object(&[("timeout", 5000.into())]);
    let client = connect_client("McpClient.connect", 20, format!("{base}/mode/rpc-null-result/mcp"), options).await;
    let arguments = object(&[("text", "hello".into())]);
    let error =
        rejected("callTool with a null result", 10, client.call_tool(tool("echo", arguments), JsValue::UNDEFINED))
            .await;
    let message = text(&get(&error, "message"));
    assert!(message.contains("malformed"), "{}", web::describe(&error));
    web::close(client).await;
}

fn web_sys_log(line: &str) {
    wasm_bindgen_test::console_log!("{line}");
}
