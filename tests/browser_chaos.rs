//! Streamable HTTP in headless Chromium against the chaos server
//! (tests/peers/chaos-server.mjs), which cuts SSE streams at random byte
//! offsets: resumption through `fetch` streams must lose and duplicate
//! nothing. Also: a CORS policy that hides `Mcp-Session-Id` gets an error
//! that names the missing `Access-Control-Expose-Headers` entry.
//!
//! The server's URL is baked in at compile time from
//! `MCP_EDGE_TEST_CHAOS_URL`; `cargo xtask test` starts the server and sets it.

#![cfg(target_arch = "wasm32")]

mod support;

use support::{sleep, web};

use std::collections::HashMap;
use std::future::Future;
use std::pin::pin;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures::future::{Either, join_all, select};
use mcp_edge::http::{DefaultHttp, HttpClient, HttpRequest, Method};
use mcp_edge::transport::{ReconnectPolicy, StreamableHttpOptions, StreamableHttpTransport};
use mcp_edge::{Client, ClientOptions};
use serde_json::{Value, json};
use wasm_bindgen_test::{wasm_bindgen_test, wasm_bindgen_test_configure};
use web::required_url;

wasm_bindgen_test_configure!(run_in_browser);

const CHAOS_URL: Option<&str> = option_env!("MCP_EDGE_TEST_CHAOS_URL");

fn chaos_url() -> String {
    required_url(
        CHAOS_URL,
        "MCP_EDGE_TEST_CHAOS_URL was not set when these tests were compiled: run `cargo xtask test`, \
         which starts tests/peers/chaos-server.mjs and sets it",
    )
}

async fn within<T>(what: &str, seconds: u64, work: impl Future<Output = T>) -> T {
    match select(pin!(work), pin!(sleep(Duration::from_secs(seconds)))).await {
        Either::Left((value, _)) => value,
        Either::Right(_) => panic!("{what} did not finish within {seconds} s"),
    }
}

/// The chaos server's counters, read through the same fetch backend.
async fn stats() -> Value {
    let url = chaos_url().replace("/mcp", "/stats");
    let request = HttpRequest { method: Method::Get, url, headers: Vec::new(), body: None };
    let response = DefaultHttp::default().fetch(request).await.unwrap_or_else(|e| panic!("GET /stats: {e}"));
    let body = response.read_body(1 << 20).await.unwrap_or_else(|e| panic!("GET /stats body: {e}"));
    serde_json::from_slice(&body).unwrap_or_else(|e| panic!("GET /stats is not JSON: {e}"))
}

#[wasm_bindgen_test]
async fn resumption_through_fetch_streams_loses_and_duplicates_nothing() {
    let seen: Arc<Mutex<HashMap<String, Vec<u64>>>> = Arc::default();
    let log = seen.clone();
    let options = ClientOptions::default().on_notification(move |notification| {
        let params = notification.params.clone().unwrap_or_default();
        if let (Some(tag), Some(seq)) = (params["data"]["tag"].as_str(), params["data"]["seq"].as_u64()) {
            log.lock().unwrap_or_else(|e| e.into_inner()).entry(tag.to_owned()).or_default().push(seq);
        }
    });
    let mut transport_options = StreamableHttpOptions::new(chaos_url());
    transport_options.reconnect = ReconnectPolicy { max_attempts: 20, ..ReconnectPolicy::default() };
    let transport = StreamableHttpTransport::new(transport_options);
    let client =
        within("connect", 10, Client::connect(transport, options)).await.unwrap_or_else(|e| panic!("connect: {e}"));
    let cuts_before = stats().await["cuts"].as_u64().unwrap_or(0);

    // Rounds of concurrent calls until the server has cut CUTS streams (at
    // most ROUNDS rounds): as many as CI's time allows for the wasm build.
    const CUTS: u64 = 200;
    const ROUNDS: usize = 60;
    const CALLS: usize = 12;
    const COUNT: u64 = 15;
    let mut tags = Vec::new();
    let mut cuts = 0;
    for round in 0..ROUNDS {
        let round_tags: Vec<String> = (0..CALLS).map(|i| format!("r{round}-call-{i}")).collect();
        let calls = round_tags.iter().map(|tag| {
            let client = client.clone();
            async move {
                let arguments = json!({"count": COUNT, "tag": tag});
                client.call_tool_raw("burst", arguments.as_object().cloned(), Default::default()).await
            }
        });
        let results = within("a round of burst calls", 60, join_all(calls)).await;
        for (tag, result) in round_tags.iter().zip(results) {
            let result = result.unwrap_or_else(|e| panic!("{tag}: {e}"));
            assert!(result.to_string().contains(tag.as_str()), "{tag} got {result}");
        }
        tags.extend(round_tags);
        cuts = stats().await["cuts"].as_u64().unwrap_or(0) - cuts_before;
        if cuts >= CUTS {
            break;
        }
    }

    let seen = seen.lock().unwrap_or_else(|e| e.into_inner()).clone();
    let (mut lost, mut duplicated) = (0, 0);
    for tag in &tags {
        let mut seqs = seen.get(tag).cloned().unwrap_or_default();
        seqs.sort_unstable();
        let delivered = seqs.len() as u64;
        seqs.dedup();
        duplicated += delivered - seqs.len() as u64;
        lost += COUNT - seqs.len() as u64;
    }
    web_sys_log(&format!("browser chaos: {} calls, {cuts} cuts, lost {lost}, duplicated {duplicated}", tags.len()));
    assert!(cuts >= CUTS, "the server cut only {cuts} streams in {} calls", tags.len());
    assert_eq!((lost, duplicated), (0, 0));
    client.close().await;
}

#[wasm_bindgen_test]
async fn a_hidden_session_header_is_named_in_the_error() {
    let url = chaos_url().replace("/mcp", "/mcp-hidden");
    let transport = StreamableHttpTransport::new(StreamableHttpOptions::new(url));
    let outcome = within("connect", 10, Client::connect(transport, ClientOptions::default())).await;
    let message = match outcome {
        Ok(_) => panic!("the session cannot work without its session id"),
        Err(error) => error.to_string(),
    };
    assert!(message.contains("Access-Control-Expose-Headers: Mcp-Session-Id"), "{message}");
}

fn web_sys_log(line: &str) {
    wasm_bindgen_test::console_log!("{line}");
}
