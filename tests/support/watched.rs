//! A transport that passes everything through and lets a test watch it:
//! what the client sends, what the transport delivers, when the handshake
//! is done.

use std::sync::Arc;
use std::task::{Context, Poll, ready};

use mcp_edge::BoxFuture;
use mcp_edge::protocol::{Message, ProtocolVersion};
use mcp_edge::transport::{SessionView, Transport, TransportError, TransportEvent, TransportKind, TransportSession};

/// What a test sees of the messages through a [`Watched`] transport.
pub trait Watcher<T>: Send + 'static {
    /// The client sends `message`.
    fn sent(&mut self, _message: &Message) {}
    /// The transport hands `event` to the client (`inner` is the transport).
    fn delivered(&mut self, _inner: &T, _event: &TransportEvent) {}
    /// The handshake is done (`inner` is the transport).
    fn initialized(&mut self, _inner: &T) {}
}

/// A transport that passes everything through to `inner` and shows a
/// [`Watcher`] what goes by.
pub struct Watched<T, W> {
    pub inner: T,
    pub watcher: W,
}

impl<T: Transport, W: Watcher<T>> Transport for Watched<T, W> {
    fn send(&mut self, message: Message) -> BoxFuture<'static, Result<(), TransportError>> {
        self.watcher.sent(&message);
        self.inner.send(message)
    }

    fn poll_event(&mut self, cx: &mut Context<'_>) -> Poll<TransportEvent> {
        let event = ready!(self.inner.poll_event(cx));
        self.watcher.delivered(&self.inner, &event);
        Poll::Ready(event)
    }

    fn set_protocol_version(&mut self, version: ProtocolVersion) {
        self.inner.set_protocol_version(version);
    }

    fn send_stateless(
        &mut self,
        message: Message,
        headers: Vec<(String, String)>,
    ) -> BoxFuture<'static, Result<(), TransportError>> {
        self.watcher.sent(&message);
        self.inner.send_stateless(message, headers)
    }

    fn on_initialized(&mut self) -> BoxFuture<'static, ()> {
        self.watcher.initialized(&self.inner);
        self.inner.on_initialized()
    }

    fn open_server_stream(&mut self) -> BoxFuture<'static, ()> {
        self.inner.open_server_stream()
    }

    fn session_view(&self) -> Option<Arc<dyn SessionView>> {
        self.inner.session_view()
    }

    fn resume_session(&mut self, session: TransportSession, version: ProtocolVersion) {
        self.inner.resume_session(session, version);
    }

    fn close(&mut self) -> BoxFuture<'static, Result<(), TransportError>> {
        self.inner.close()
    }

    fn kind(&self) -> TransportKind {
        self.inner.kind()
    }
}
