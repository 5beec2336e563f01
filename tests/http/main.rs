#![cfg(not(target_arch = "wasm32"))]
//! The Streamable HTTP transport against real servers on 127.0.0.1:
//!
//! - the reference `server-everything` (`streamableHttp` mode, from
//!   `tests/peers/node_modules`, installed by `cargo xtask test`): handshake,
//!   tools, progress, sampling and elicitation round trips, DELETE on close;
//! - `tests/peers/chaos-server.mjs`, which cuts its SSE streams at random
//!   byte offsets, sends `retry`, refuses the standalone GET with 405 and
//!   expires sessions on command: resumption must lose and duplicate nothing.
//!
//! Every wait is bounded; every server process is killed when its test ends.

#[path = "../support/mod.rs"]
mod support;

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use mcp_edge::SessionEvent;
use mcp_edge::protocol::types::{CreateMessageResult, ElicitAction, ElicitResult};
use mcp_edge::protocol::{Message, ProtocolVersion};
use mcp_edge::transport::{ReconnectPolicy, StreamableHttpOptions, StreamableHttpTransport};
use mcp_edge::transport::{TransportError, TransportEvent};
use mcp_edge::{Client, ClientOptions, Error, RequestOptions};
use serde_json::{Value, json};
use support::native::{Server, bounded, everything_index, free_port, peers_dir};
use support::watched::{Watched, Watcher};
use support::{arguments, texts, within, within_for};

/// A node server on a free port (killed when dropped).
struct Peer(Server);

impl std::ops::Deref for Peer {
    type Target = Server;

    fn deref(&self) -> &Server {
        &self.0
    }
}

/// How long a server may take to log what a test waits for.
const LOG_WAIT: Duration = Duration::from_secs(5);

impl Peer {
    async fn start(args: Vec<String>, env: &[(&str, &str)]) -> Peer {
        Peer(Server::on_free_port("node", &args, env).await)
    }

    /// Whether the server logs a line that contains `needle` (waiting a
    /// little: its output is a separate pipe).
    async fn logs(&self, needle: &str) -> bool {
        self.output.find_since(0, LOG_WAIT, |line| line.contains(needle).then_some(())).await.is_some()
    }

    async fn everything() -> Option<Peer> {
        let index = everything_index()?;
        Some(Peer::start(vec![index.to_string_lossy().into_owned(), "streamableHttp".to_owned()], &[]).await)
    }

    async fn chaos(env: &[(&str, &str)]) -> Peer {
        let script = peers_dir().join("chaos-server.mjs");
        Peer::start(vec![script.to_string_lossy().into_owned()], env).await
    }

    /// The chaos server's counters.
    async fn stats(&self) -> Value {
        let response = within("GET /stats", reqwest::get(self.url("/stats"))).await.expect("GET /stats");
        let body = within("reading /stats", response.text()).await.expect("reading /stats");
        serde_json::from_str(&body).unwrap_or_else(|e| panic!("/stats is not JSON ({e}): {body}"))
    }

    /// Tells the chaos server to forget every session.
    async fn expire_sessions(&self) {
        let request = reqwest::Client::new().post(self.url("/control")).body(r#"{"expire":true}"#).send();
        let response = within("POST /control", request).await.expect("POST /control");
        assert!(response.status().is_success(), "POST /control: {}", response.status());
    }
}

/// What the tap saw below the engine.
#[derive(Clone, Default)]
struct Observed {
    session_id: Arc<Mutex<Option<String>>>,
    /// Responses delivered by the transport, by request id.
    responses: Arc<Mutex<HashMap<String, usize>>>,
}

impl Observed {
    fn session_id(&self) -> Option<String> {
        self.session_id.lock().unwrap().clone()
    }
}

/// A Streamable HTTP transport whose deliveries the test can see.
type Tap = Watched<StreamableHttpTransport, Observed>;

impl Watcher<StreamableHttpTransport> for Observed {
    fn delivered(&mut self, inner: &StreamableHttpTransport, event: &TransportEvent) {
        // Read here, not only once initialized: `connect` returns before the
        // driver has handled its `Initialized` command. The id is adopted
        // before the initialize answer is delivered.
        *self.session_id.lock().unwrap() = inner.session_id();
        if let TransportEvent::Message(Message::Response(response)) = event {
            let id = response.id.as_ref().map(ToString::to_string).unwrap_or_default();
            *self.responses.lock().unwrap().entry(id).or_default() += 1;
        }
    }

    fn initialized(&mut self, inner: &StreamableHttpTransport) {
        *self.session_id.lock().unwrap() = inner.session_id();
    }
}

fn tap(url: String, reconnect: ReconnectPolicy) -> (Tap, Observed) {
    let mut options = StreamableHttpOptions::new(url);
    options.reconnect = reconnect;
    let observed = Observed::default();
    (Watched { inner: StreamableHttpTransport::new(options), watcher: observed.clone() }, observed)
}

async fn connect(url: String, options: ClientOptions, reconnect: ReconnectPolicy) -> (Client, Observed) {
    let (transport, observed) = tap(url.clone(), reconnect);
    let client = within("connect", Client::connect(transport, options))
        .await
        .unwrap_or_else(|e| panic!("connecting to {url}: {e}"));
    (client, observed)
}

mod chaos;
mod errors;
mod everything;
