//! An in-process transport: the client's end and a scriptable server's end.
//!
//! Used by the engine's own tests on every target, and useful to anyone who
//! wants to test code built on the client without a real server.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};

use crate::runtime::channel::{mpsc, oneshot};
use futures::StreamExt;

use super::{Transport, TransportError, TransportEvent};
use crate::protocol::{Message, ProtocolVersion};
use crate::runtime::{BoxFuture, boxed};

#[derive(Default)]
struct Shared {
    /// Failures the next sends report instead of delivering, oldest first.
    injected_failures: VecDeque<TransportError>,
    negotiated: Option<ProtocolVersion>,
    initialized: bool,
    closed: bool,
    /// Sends stay unfinished (and undelivered) while this is set, as over
    /// a network that stalls.
    stalled: bool,
    /// The stalled sends, each finished (and its message delivered) when
    /// its sender fires.
    waiting: Vec<oneshot::Sender<()>>,
}

/// The client's end, to hand to the engine.
pub struct MemoryTransport {
    to_server: mpsc::UnboundedSender<Message>,
    from_server: mpsc::UnboundedReceiver<TransportEvent>,
    shared: Arc<Mutex<Shared>>,
    finished: bool,
}

/// The server's end, driven by a test.
pub struct MemoryServer {
    from_client: mpsc::UnboundedReceiver<Message>,
    to_client: mpsc::UnboundedSender<TransportEvent>,
    shared: Arc<Mutex<Shared>>,
}

/// A connected pair.
pub fn pair() -> (MemoryTransport, MemoryServer) {
    let (to_server, from_client) = mpsc::unbounded();
    let (to_client, from_server) = mpsc::unbounded();
    let shared = Arc::new(Mutex::new(Shared::default()));
    (
        MemoryTransport { to_server, from_server, shared: shared.clone(), finished: false },
        MemoryServer { from_client, to_client, shared },
    )
}

fn lock(shared: &Mutex<Shared>) -> std::sync::MutexGuard<'_, Shared> {
    // A test that panicked while holding the lock must not hide its own panic.
    shared.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

impl std::fmt::Debug for MemoryTransport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("MemoryTransport")
    }
}

impl std::fmt::Debug for MemoryServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("MemoryServer")
    }
}

impl Transport for MemoryTransport {
    fn send(&mut self, message: Message) -> BoxFuture<'static, Result<(), TransportError>> {
        let mut shared = lock(&self.shared);
        if shared.stalled {
            let (release, released) = oneshot::channel();
            shared.waiting.push(release);
            let to_server = self.to_server.clone();
            return boxed(async move {
                // A test that dropped the server's end releases nothing.
                released.await.map_err(|_| TransportError::Closed("the in-memory server is gone".into()))?;
                to_server
                    .unbounded_send(message)
                    .map_err(|_| TransportError::Closed("the in-memory server is gone".into()))
            });
        }
        let outcome = match shared.injected_failures.pop_front() {
            Some(failure) => Err(failure),
            None => self
                .to_server
                .unbounded_send(message)
                .map_err(|_| TransportError::Closed("the in-memory server is gone".into())),
        };
        boxed(async move { outcome })
    }

    fn poll_event(&mut self, cx: &mut Context<'_>) -> Poll<TransportEvent> {
        let from_server = &mut self.from_server;
        super::poll_channel(&mut self.finished, || from_server.poll_next_unpin(cx), "the in-memory server hung up")
    }

    fn set_protocol_version(&mut self, version: ProtocolVersion) {
        lock(&self.shared).negotiated = Some(version);
    }

    fn on_initialized(&mut self) -> BoxFuture<'static, ()> {
        lock(&self.shared).initialized = true;
        boxed(async {})
    }

    fn close(&mut self) -> BoxFuture<'static, Result<(), TransportError>> {
        lock(&self.shared).closed = true;
        self.to_server.close_channel();
        boxed(async { Ok(()) })
    }

    fn kind(&self) -> super::TransportKind {
        super::TransportKind::Memory
    }
}

impl MemoryServer {
    /// The next message the client sent, or `None` once the client closed.
    pub async fn recv(&mut self) -> Option<Message> {
        self.from_client.next().await
    }

    /// Sends a message to the client.
    pub fn send(&self, message: Message) {
        // A client that is gone simply does not read it.
        let _ = self.to_client.unbounded_send(TransportEvent::Message(message));
    }

    /// Sends raw bytes as a server would write them (a single message or a
    /// batch), through the shared codec. Returns how many messages were
    /// delivered; elements that do not decode are logged and skipped.
    pub fn send_raw(&self, payload: &str) -> usize {
        let decoded = match crate::protocol::jsonrpc::decode(payload) {
            Ok(decoded) => decoded,
            Err(error) => {
                log::warn!("skipping a payload that is not JSON-RPC: {error}");
                return 0;
            }
        };
        let mut delivered = 0;
        for message in decoded {
            match message {
                Ok(message) => {
                    self.send(message);
                    delivered += 1;
                }
                Err(error) => log::warn!("skipping a batch element: {error}"),
            }
        }
        delivered
    }

    /// Ends the connection with a reason, as a crashed server would.
    pub fn fail(&self, reason: TransportError) {
        let _ = self.to_client.unbounded_send(TransportEvent::Closed(reason));
    }

    /// From now on the client's sends stay unfinished, and undelivered,
    /// until [`MemoryServer::release_sends`].
    pub fn stall_sends(&self) {
        lock(&self.shared).stalled = true;
    }

    /// How many of the client's sends are stalled now.
    pub fn stalled_sends(&self) -> usize {
        lock(&self.shared).waiting.len()
    }

    /// Finishes every stalled send (delivering its message) and stops
    /// stalling the ones to come.
    pub fn release_sends(&self) {
        let waiting = {
            let mut shared = lock(&self.shared);
            shared.stalled = false;
            std::mem::take(&mut shared.waiting)
        };
        for release in waiting {
            let _ = release.send(());
        }
    }

    /// Makes the client's next `send` fail with `error` instead of delivering.
    pub fn fail_next_send(&self, error: TransportError) {
        lock(&self.shared).injected_failures.push_back(error);
    }

    /// The version the engine reported through `set_protocol_version`, if any.
    pub fn negotiated(&self) -> Option<ProtocolVersion> {
        lock(&self.shared).negotiated
    }

    /// Whether the engine reported the handshake as finished.
    pub fn initialized(&self) -> bool {
        lock(&self.shared).initialized
    }

    /// Whether the engine closed the transport.
    pub fn was_closed(&self) -> bool {
        lock(&self.shared).closed
    }
}
