//! The legacy HTTP+SSE transport (protocol 2024-11-05), one implementation
//! for every target.
//!
//! The client opens an SSE stream with GET; the server's first event is
//! `endpoint`, whose data is a URI (resolved against the SSE URL, and refused
//! if it is on another origin) to POST every client message to. The server's
//! messages, responses included, come back as `message` events on the stream.
//!
//! The stream is read by a background future that [`Transport::poll_event`]
//! polls, so nothing is spawned. When it drops it is reopened with
//! EventSource semantics (`retry`, `Last-Event-ID`, capped backoff, bounded
//! attempts); a reopened stream normally names a new endpoint (a new server
//! session), which later POSTs use. When it cannot be reopened the transport
//! reports [`TransportEvent::Closed`] and pending requests fail with the
//! reason.
//!
//! Natively, and in a browser when a request header is needed (the browser's
//! `EventSource` cannot set one) or where `EventSource` does not exist
//! (workers, Node, Deno), the GET goes through the [`HttpClient`] seam and
//! the crate's SSE parser. In a browser with no header, the browser's own
//! `EventSource` reads the stream (it reconnects by itself, sending
//! `Last-Event-ID`).
//!
//! With an [`AuthProvider`] ([`LegacySseOptions::auth`]) the GET and every
//! POST carry its credentials; a 401 runs the flow and the request is sent
//! again once, a 403 `insufficient_scope` steps up once. The stream is then
//! always read with `fetch` (`EventSource` cannot send a header).
//!
//! Here: the transport and its shared state. `options` and `error` are what
//! users see; `endpoint` resolves, checks and waits for the `endpoint`
//! event; `reader` reads (and reopens) the stream, through `event_source` in
//! a browser; `post` sends messages.

use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};

use crate::runtime::channel::oneshot;
use futures::FutureExt;

use super::authorize::AuthContext;
use super::inbox::{Inbox, Outbox};
use super::{Transport, TransportError, TransportEvent};
use crate::auth::AuthProvider;
use crate::http::{DefaultHttp, HttpClient};
use crate::protocol::jsonrpc::decode_owned;
use crate::protocol::{Message, ProtocolVersion};
use crate::runtime::{BoxFuture, boxed};

mod endpoint;
mod error;
#[cfg(target_arch = "wasm32")]
mod event_source;
mod options;
mod post;
mod reader;
#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests;

pub use endpoint::endpoint_url;
pub use error::LegacyError;
pub use options::LegacySseOptions;

#[derive(Default)]
struct State {
    /// Where messages go now.
    endpoint: Option<String>,
    /// The endpoint of a stream that dropped: restored if the reopened stream
    /// carries on without naming a new one.
    previous_endpoint: Option<String>,
    /// Messages waiting for an endpoint, woken when one is named or there
    /// will be none (they then read which from here).
    waiters: Vec<oneshot::Sender<()>>,
    /// The stream gave up for good.
    failure: Option<LegacyError>,
    /// A stream was open once: later failures are reconnects.
    connected_once: bool,
    closed: bool,
    /// The stream is read by the browser's `EventSource`.
    event_source: bool,
    /// Authorizations running now: waiting for an endpoint does not time
    /// out meanwhile (a person may be signing in).
    authorizing: u32,
    /// Bumped when an authorization starts or ends.
    auth_epoch: u64,
}

impl State {
    fn wake_waiters(&mut self) {
        for waiter in self.waiters.drain(..) {
            let _ = waiter.send(());
        }
    }
}

struct Shared<H> {
    http: H,
    options: LegacySseOptions,
    state: Mutex<State>,
    inbound: Outbox,
}

/// A legacy HTTP+SSE (2024-11-05) connection to one server.
pub struct LegacySseTransport<H: HttpClient = DefaultHttp> {
    shared: Arc<Shared<H>>,
    /// Messages from the server, and the future that reads the stream.
    inbox: Inbox,
}

impl<H: HttpClient> std::fmt::Debug for LegacySseTransport<H> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        crate::debug::debug_struct(f, "LegacySseTransport")
            .field("url", &self.shared.options.url)
            .field("endpoint", &self.endpoint())
            .finish_non_exhaustive()
    }
}

impl LegacySseTransport<DefaultHttp> {
    /// A connection through this platform's HTTP client; the stream opens
    /// when the engine first polls the transport.
    pub fn new(options: LegacySseOptions) -> Self {
        Self::with_http(DefaultHttp::default(), options)
    }
}

impl<H: HttpClient> LegacySseTransport<H> {
    /// A connection through the given HTTP client; the stream opens when the
    /// engine first polls the transport. Messages sent before the `endpoint`
    /// event wait for it (at most `connect_timeout`).
    pub fn with_http(http: H, options: LegacySseOptions) -> Self {
        let (sender, mut inbox) = Inbox::new();
        let shared = Arc::new(Shared { http, options, state: Mutex::new(State::default()), inbound: sender });
        inbox.run(boxed(shared.clone().run()));
        LegacySseTransport { shared, inbox }
    }

    /// Opens the stream and waits (at most `connect_timeout`) for its
    /// `endpoint` event: the transport is then known to be talking to an
    /// HTTP+SSE server.
    pub async fn connect(http: H, options: LegacySseOptions) -> Result<Self, LegacyError> {
        let mut transport = Self::with_http(http, options);
        let mut waiting = transport.shared.endpoint_ready();
        let inbox = &mut transport.inbox;
        futures::future::poll_fn(|cx| {
            inbox.drive(cx);
            waiting.poll_unpin(cx)
        })
        .await?;
        Ok(transport)
    }

    /// The endpoint messages are posted to now, if the server named one.
    pub fn endpoint(&self) -> Option<String> {
        self.shared.state().endpoint.clone()
    }

    /// Whether the stream is read by the browser's `EventSource` (always
    /// false natively).
    pub fn uses_event_source(&self) -> bool {
        self.shared.state().event_source
    }
}

impl<H: HttpClient> Shared<H> {
    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        // Plain fields, never left half-written: a poisoned lock is usable.
        self.state.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// The stream is gone for good: tell the waiting messages and the engine.
    fn give_up(&self, error: LegacyError) {
        let mut state = self.state();
        if state.failure.is_some() || state.closed {
            return;
        }
        log::debug!("the legacy stream from {} ends: {error}", self.options.url);
        state.failure = Some(error.clone());
        state.endpoint = None;
        state.wake_waiters();
        drop(state);
        let _ = self.inbound.unbounded_send(TransportEvent::Closed(error.into()));
    }

    fn deliver(&self, payload: String) {
        match decode_owned(payload) {
            Ok(messages) => {
                for message in messages {
                    match message {
                        Ok(message) => {
                            // The receiver lives as long as the transport.
                            let _ = self.inbound.unbounded_send(TransportEvent::Message(message));
                        }
                        Err(error) => log::warn!("skipping an invalid message from {}: {error}", self.options.url),
                    }
                }
            }
            Err(error) => log::warn!("skipping a payload from {} that is not JSON-RPC: {error}", self.options.url),
        }
    }
}

impl<H: HttpClient> AuthContext for Shared<H> {
    fn auth(&self) -> Option<&Arc<dyn AuthProvider>> {
        self.options.auth.as_ref()
    }

    fn url(&self) -> &str {
        &self.options.url
    }

    // Waiting for an endpoint does not time out while a person may be
    // signing in (see `endpoint_ready`).
    fn authorization_started(&self) {
        let mut state = self.state();
        state.authorizing += 1;
        state.auth_epoch += 1;
    }

    fn authorization_ended(&self) {
        let mut state = self.state();
        state.authorizing = state.authorizing.saturating_sub(1);
        state.auth_epoch += 1;
    }
}

impl<H: HttpClient> Transport for LegacySseTransport<H> {
    fn send(&mut self, message: Message) -> BoxFuture<'static, Result<(), TransportError>> {
        boxed(self.shared.clone().post(message))
    }

    fn poll_event(&mut self, cx: &mut Context<'_>) -> Poll<TransportEvent> {
        self.inbox.poll_event(cx)
    }

    fn set_protocol_version(&mut self, _version: ProtocolVersion) {
        // The legacy transport has no version header.
    }

    fn close(&mut self) -> BoxFuture<'static, Result<(), TransportError>> {
        {
            let mut state = self.shared.state();
            state.closed = true;
            state.endpoint = None;
            state.wake_waiters();
        }
        // Dropping the stream future aborts the GET (or closes the
        // EventSource), which ends the server's session.
        self.inbox.clear();
        boxed(futures::future::ready(Ok(())))
    }

    fn kind(&self) -> super::TransportKind {
        super::TransportKind::LegacySse
    }
}
