//! The stateless engine (revision 2026-07-28): scripted over the memory
//! transport, and era detection over stdio against a handshake-only server
//! (one that answers the probe with -32601, one that exits on it), a
//! stateless-only one, and a Python SDK (`mcp` 2.3.0) server.
//!
//! The scripted server runs on any Python 3; the SDK server needs
//! tests/peers/.venv (`cargo xtask setup`). A missing one fails the test
//! under CI (tests/support/native.rs).
// Native only (tokio, processes); `wasm-pack test` builds every test target for wasm32.
#![cfg(not(target_arch = "wasm32"))]

#[path = "../support/mod.rs"]
mod support;

use std::sync::Arc;
use std::time::Duration;

use mcp_edge::Client;
use mcp_edge::protocol::types::{ElicitAction, ElicitResult};
use mcp_edge::protocol::{Era, Message, ProtocolVersion, Request, RequestId, Response};
use mcp_edge::transport::StdioOptions;
use mcp_edge::transport::{MemoryServer, memory_pair};
use mcp_edge::{ClientOptions, EraChoice, EraVerdict, Error, Negotiated, connect_stdio};
use serde_json::{Value, json};
use support::native::{any_python, peers_dir, venv_python};
use support::within;

async fn next_request(server: &mut MemoryServer) -> Request {
    match within("a client message", server.recv()).await {
        Some(Message::Request(request)) => request,
        other => panic!("expected a request, got {other:?}"),
    }
}

fn answer(server: &MemoryServer, id: RequestId, result: Value) {
    server.send(Message::Response(Response { id: Some(id), outcome: Ok(result.into()) }));
}

/// Answers `id` with -32022 (unsupported protocol version), naming `requested`
/// and the 2026-07-28 revision as the one supported.
fn refuse_version(server: &MemoryServer, id: RequestId, requested: &str) {
    server.send(Message::Response(Response {
        id: Some(id),
        outcome: Err(mcp_edge::protocol::ErrorObject {
            code: -32022,
            message: "Unsupported protocol version".into(),
            data: Some(json!({"supported": ["2026-07-28"], "requested": requested})),
        }),
    }));
}

fn meta_of(request: &Request) -> Value {
    request.params.as_ref().and_then(|p| p.get("_meta")).cloned().unwrap_or(Value::Null)
}

fn elicitation_options() -> ClientOptions {
    ClientOptions::new("stateless-test", "1.0").with_timeout(Duration::from_secs(10)).on_elicitation(
        |_params, _context| async { Ok(ElicitResult { action: ElicitAction::Accept, content: None }) },
        true,
    )
}

/// A client over the memory transport, its session loop running and its
/// `start` under way (the task's handle), and the server's end.
fn starting(options: ClientOptions) -> (Client, MemoryServer, tokio::task::JoinHandle<Result<Arc<Negotiated>, Error>>) {
    let (transport, server) = memory_pair();
    let (client, driver) = Client::new(transport, options);
    tokio::spawn(driver);
    let starting = tokio::spawn({
        let client = client.clone();
        async move { client.start().await }
    });
    (client, server, starting)
}

/// A client forced to the stateless era over the memory transport, past
/// its `server/discover`.
async fn stateless_client(options: ClientOptions) -> (Client, MemoryServer) {
    let (client, mut server, starting) = starting(options.with_era(EraChoice::Stateless));
    let discover = next_request(&mut server).await;
    assert_eq!(discover.method, "server/discover");
    // The first answer is a -32022 naming our own version: one corrective retry.
    refuse_version(&server, discover.id.clone(), "2026-07-28");
    let discover = next_request(&mut server).await;
    assert_eq!(discover.method, "server/discover");
    answer(
        &server,
        discover.id,
        json!({"resultType": "complete", "supportedVersions": ["2026-07-28"],
               "capabilities": {"tools": {}, "logging": {}}, "ttlMs": 5000, "cacheScope": "public",
               "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "scripted", "version": "2"}}}),
    );
    let negotiated = within("start", starting).await.expect("join").expect("stateless start");
    assert_eq!(negotiated.version, ProtocolVersion::V2026_07_28);
    assert_eq!(negotiated.result.server_info.name, "scripted");
    (client, server)
}

mod detection;
mod scripted;
