//! The session engine against a scripted in-memory server: handshake,
//! ids, timeouts, cancellation races, progress, server requests, sessions.
//! Runs natively on tokio and, under wasm-bindgen-test, in headless Chromium
//! on the JS event loop: the same engine code on both.

#[path = "../support/mod.rs"]
mod support;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures::StreamExt;
use futures::future::{Either, select};
use mcp_edge::Client;
use mcp_edge::protocol::types::{CreateMessageResult, ElicitAction, ElicitResult};
use mcp_edge::protocol::{ErrorObject, Message, Notification, ProtocolVersion, Request, RequestId, Response, codes};
use mcp_edge::transport::TransportError;
use mcp_edge::transport::{MemoryServer, memory_pair};
use mcp_edge::{ClientOptions, EraChoice, Error, ListenFilter, RequestContext, RequestOptions, SessionEvent};
use serde_json::{Value, json};
use support::{sleep, spawn, within};

#[cfg(target_arch = "wasm32")]
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

macro_rules! tests {
    ($(async fn $name:ident() $body:block)*) => {
        $(
            #[cfg_attr(not(target_arch = "wasm32"), tokio::test)]
            #[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
            async fn $name() $body
        )*
    };
}

fn start(options: ClientOptions) -> (Client, MemoryServer) {
    let (transport, server) = memory_pair();
    let (client, driver) = Client::new(transport, options);
    spawn(driver);
    (client, server)
}

async fn next(server: &mut MemoryServer) -> Message {
    within("a client message", server.recv()).await.unwrap_or_else(|| panic!("the client hung up"))
}

async fn next_request(server: &mut MemoryServer) -> Request {
    match next(server).await {
        Message::Request(request) => request,
        other => panic!("expected a request, got {other:?}"),
    }
}

async fn next_notification(server: &mut MemoryServer) -> Notification {
    match next(server).await {
        Message::Notification(notification) => notification,
        other => panic!("expected a notification, got {other:?}"),
    }
}

async fn next_response(server: &mut MemoryServer) -> Response {
    match next(server).await {
        Message::Response(response) => response,
        other => panic!("expected a response, got {other:?}"),
    }
}

fn init_result(version: &str) -> Value {
    json!({
        "protocolVersion": version,
        "capabilities": {"tools": {}, "resources": {"subscribe": true}, "prompts": {}, "logging": {}},
        "serverInfo": {"name": "scripted", "version": "1.0"}
    })
}

/// Answers the handshake as a server of `version` would.
async fn serve_handshake(server: &mut MemoryServer, version: &str) -> Request {
    let initialize = next_request(server).await;
    assert_eq!(initialize.method, "initialize");
    server.send(Message::result(initialize.id.clone(), init_result(version)));
    let initialized = next_notification(server).await;
    assert_eq!(initialized.method, "notifications/initialized");
    initialize
}

async fn connected(options: ClientOptions) -> (Client, MemoryServer) {
    let (client, mut server) = start(options);
    let (outcome, _) =
        futures::join!(within("initialize", client.initialize()), serve_handshake(&mut server, "2025-11-25"));
    if let Err(e) = outcome {
        panic!("initialize failed: {e}");
    }
    (client, server)
}

/// A client past `server/discover` of a 2026-07-28 server that offers
/// list changes and resource subscriptions.
async fn connected_stateless() -> (Client, MemoryServer) {
    let (client, mut server) = start(ClientOptions::default().with_era(EraChoice::Stateless));
    let server_side = async {
        let discover = next_request(&mut server).await;
        assert_eq!(discover.method, "server/discover");
        let capabilities =
            json!({"tools": {"listChanged": true}, "resources": {"subscribe": true, "listChanged": true}});
        server.send(Message::result(
            discover.id,
            json!({"resultType": "complete", "supportedVersions": ["2026-07-28"], "capabilities": capabilities,
                   "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "scripted", "version": "2"}}}),
        ));
    };
    let (outcome, ()) = futures::join!(within("start", client.start()), server_side);
    if let Err(e) = outcome {
        panic!("stateless start failed: {e}");
    }
    (client, server)
}

/// A notification of subscription `id` (2026-07-28).
fn tagged(method: &str, id: &RequestId, params: Value) -> Message {
    let mut params = params;
    params["_meta"] = json!({"io.modelcontextprotocol/subscriptionId": id.to_value()});
    Message::notification(method, Some(params))
}

/// Sends `method` as a notification before answering a ping: once the
/// ping is answered, the notification was heard.
async fn notify_then_answer_ping(client: &Client, server: &mut MemoryServer, method: &str) {
    let ping = client.request("ping", None, RequestOptions::default());
    let server_side = async {
        let request = next_request(server).await;
        server.send(Message::notification(method, None));
        server.send(Message::result(request.id, json!({})));
    };
    let (outcome, ()) = futures::join!(within("ping", ping), server_side);
    ok(outcome);
}

fn ok<T>(outcome: Result<T, Error>) -> T {
    outcome.unwrap_or_else(|e| panic!("unexpected error: {e}"))
}

mod notifications;
mod requests;
mod server_requests;
mod sessions;
