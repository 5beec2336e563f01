//! The transport seam: one small trait the session engine drives.
//!
//! A transport moves [`Message`]s; it does not know about requests, timeouts
//! or handlers. The engine polls it from its one loop, so a transport never
//! needs a runtime of its own to be driven (it may use one at its edge: stdio
//! is native-only and runs its pipes on tokio).

use std::task::{Context, Poll};

use crate::cause::Cause;
use crate::protocol::{Message, ProtocolVersion};
use crate::runtime::{BoxFuture, MaybeSend};

mod authorize;
mod inbox;
#[cfg(feature = "legacy-sse")]
pub(crate) mod legacy;
pub(crate) mod memory;
pub(crate) mod sse;
#[cfg(not(target_arch = "wasm32"))]
pub(crate) mod stdio;
pub(crate) mod streamable;

#[cfg(feature = "legacy-sse")]
pub use legacy::{LegacyError, LegacySseOptions, LegacySseTransport};
pub use memory::{MemoryServer, MemoryTransport, pair as memory_pair};
#[cfg(not(target_arch = "wasm32"))]
pub use stdio::{StderrCallback, StdioOptions, StdioTransport};
pub use streamable::{ReconnectPolicy, StreamableHttpOptions, StreamableHttpTransport};

/// A bidirectional channel of JSON-RPC messages to one server.
pub trait Transport: MaybeSend + 'static {
    /// Hands one message to the server.
    ///
    /// Messages are delivered in the order `send` is called. The future
    /// resolves when the transport is done with the message: for stdio when the
    /// line is written, for HTTP when the server accepted it and any reply
    /// stream has ended. Replies and other server messages produced along the
    /// way come out of [`Transport::poll_event`].
    fn send(&mut self, message: Message) -> BoxFuture<'static, Result<(), TransportError>>;

    /// The next thing that happened on the server's side.
    ///
    /// After [`TransportEvent::Closed`] the transport is finished and is not
    /// polled again.
    fn poll_event(&mut self, cx: &mut Context<'_>) -> Poll<TransportEvent>;

    /// `initialize` negotiated this version. Called before
    /// `notifications/initialized` is sent, so HTTP transports put
    /// `MCP-Protocol-Version` on that message and every later one.
    fn set_protocol_version(&mut self, _version: ProtocolVersion) {}

    /// Hands one request of the stateless revision (2026-07-28) to the
    /// server, with the request-metadata headers an HTTP transport must add
    /// (`MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name`, `Mcp-Param-*`).
    /// Nothing of a session goes with it: no session id, no resumption. A
    /// JSON-RPC error in a 4xx body is that request's answer. Transports
    /// without headers (stdio, memory) send it as any other message.
    fn send_stateless(
        &mut self,
        message: Message,
        _headers: Vec<(String, String)>,
    ) -> BoxFuture<'static, Result<(), TransportError>> {
        self.send(message)
    }

    /// `notifications/initialized` was delivered: the session is open. HTTP
    /// transports open the server's GET stream here unless they open it
    /// lazily ([`Transport::open_server_stream`]). The future resolves
    /// once what the server sends unprompted can arrive (the stream is open,
    /// or refused), so a server request sent right after the handshake is
    /// not lost; the caller bounds the wait.
    fn on_initialized(&mut self) -> BoxFuture<'static, ()> {
        crate::runtime::boxed(async {})
    }

    /// Something needs what the server sends unprompted (a listener, a
    /// subscription, a handler for server requests): HTTP transports open
    /// the standalone GET stream now, if they have not yet in this session.
    /// Resolves like [`Transport::on_initialized`]'s future.
    fn open_server_stream(&mut self) -> BoxFuture<'static, ()> {
        crate::runtime::boxed(async {})
    }

    /// A live view of the session this transport carries (HTTP: its
    /// `Mcp-Session-Id` and the server stream's last event id), read by
    /// [`crate::Client::snapshot`]. Taken once, before the transport moves
    /// into the session loop. `None`: nothing to keep (stdio, memory).
    fn session_view(&self) -> Option<std::sync::Arc<dyn SessionView>> {
        None
    }

    /// Continues a session another client started (from a snapshot): the
    /// next request carries its session id and version, with no handshake.
    fn resume_session(&mut self, _session: TransportSession, _version: ProtocolVersion) {}

    /// Ends the connection gracefully. For stdio: close the server's stdin,
    /// then SIGTERM, then SIGKILL. For HTTP: DELETE the session.
    fn close(&mut self) -> BoxFuture<'static, Result<(), TransportError>>;

    /// Which kind of transport this is. The engine branches on it (an HTTP
    /// exchange can be aborted, a stdio server can be started again); its
    /// [`Display`](std::fmt::Display) is the short name shown to people.
    fn kind(&self) -> TransportKind;
}

/// A boxed transport is a transport: the engine runs the sessions it opens
/// over a `Box<dyn Transport>` where the build has more than one kind (see
/// `client::negotiate::connect`), and an app may do the same.
impl<T: Transport + ?Sized> Transport for Box<T> {
    fn send(&mut self, message: Message) -> BoxFuture<'static, Result<(), TransportError>> {
        (**self).send(message)
    }
    fn poll_event(&mut self, cx: &mut Context<'_>) -> Poll<TransportEvent> {
        (**self).poll_event(cx)
    }
    fn set_protocol_version(&mut self, version: ProtocolVersion) {
        (**self).set_protocol_version(version)
    }
    fn send_stateless(
        &mut self,
        message: Message,
        headers: Vec<(String, String)>,
    ) -> BoxFuture<'static, Result<(), TransportError>> {
        (**self).send_stateless(message, headers)
    }
    fn on_initialized(&mut self) -> BoxFuture<'static, ()> {
        (**self).on_initialized()
    }
    fn open_server_stream(&mut self) -> BoxFuture<'static, ()> {
        (**self).open_server_stream()
    }
    fn session_view(&self) -> Option<std::sync::Arc<dyn SessionView>> {
        (**self).session_view()
    }
    fn resume_session(&mut self, session: TransportSession, version: ProtocolVersion) {
        (**self).resume_session(session, version)
    }
    fn close(&mut self) -> BoxFuture<'static, Result<(), TransportError>> {
        (**self).close()
    }
    fn kind(&self) -> TransportKind {
        (**self).kind()
    }
}

/// What a transport keeps of a session, for [`crate::Client::snapshot`].
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TransportSession {
    /// The server's `Mcp-Session-Id`, if it assigned one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_id: Option<String>,
    /// The last event id seen on the standalone GET stream (a restored
    /// client resumes it from there with `Last-Event-ID`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_event_id: Option<String>,
}

/// Reads a transport's [`TransportSession`] while the session loop owns it.
pub trait SessionView: MaybeSend + crate::runtime::MaybeSync {
    /// The session as it stands now.
    fn session(&self) -> TransportSession;
}

/// The kinds of transport the engine knows how to treat.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum TransportKind {
    /// A child process over stdin/stdout.
    Stdio,
    /// Streamable HTTP (2025-03-26 and later).
    StreamableHttp,
    /// The legacy HTTP+SSE transport (2024-11-05).
    LegacySse,
    /// An in-process pair, for tests and embedding.
    Memory,
}

impl TransportKind {
    /// The short name for people: `stdio`, `streamable-http`, `sse (legacy)`, `memory`.
    pub fn as_str(self) -> &'static str {
        match self {
            TransportKind::Stdio => "stdio",
            TransportKind::StreamableHttp => "streamable-http",
            TransportKind::LegacySse => "sse (legacy)",
            TransportKind::Memory => "memory",
        }
    }

    /// Whether messages travel as HTTP exchanges (Streamable HTTP or legacy SSE).
    pub fn is_http(self) -> bool {
        matches!(self, TransportKind::StreamableHttp | TransportKind::LegacySse)
    }
}

impl std::fmt::Display for TransportKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl PartialEq<&str> for TransportKind {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

/// What a transport reports from the server's side.
#[derive(Debug)]
pub enum TransportEvent {
    /// A message from the server.
    Message(Message),
    /// The connection is gone for good; pending requests fail with this reason.
    Closed(TransportError),
}

/// A failure below the protocol: the process, the network, the bytes.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum TransportError {
    /// The server process could not be started. (Only stdio starts one,
    /// so this and `ProcessExited` are not in the wasm build.)
    #[cfg(not(target_arch = "wasm32"))]
    #[error("could not start the server `{command}`: {reason}")]
    Spawn {
        /// The command line.
        command: String,
        /// What the OS said; its [`source`](std::error::Error::source) is
        /// the OS error, when there was one.
        #[source]
        reason: Cause,
    },
    /// The server process exited.
    #[cfg(not(target_arch = "wasm32"))]
    #[error("the server process exited ({status}){}", stderr_suffix(.stderr_tail))]
    ProcessExited {
        /// Its exit status, as the OS describes it.
        status: String,
        /// Its last lines of stderr, oldest first.
        stderr_tail: Vec<String>,
    },
    /// The server's session is gone (HTTP 404 on a request that carried
    /// `Mcp-Session-Id`). The engine starts a new session and retries once.
    #[error("the server ended the session")]
    SessionExpired,
    /// The connection was closed (by us, or by the peer with no more detail).
    #[error("the connection is closed: {0}")]
    Closed(String),
    /// An I/O error on the connection.
    #[error("I/O error: {0}")]
    Io(#[source] Cause),
    /// An HTTP-level failure with a status code.
    #[error("HTTP {status}: {message}")]
    Http {
        /// The status code.
        status: u16,
        /// What went wrong, with the server's JSON-RPC error if it sent one.
        message: String,
    },
    /// The server sent something that is not usable.
    #[error("the server sent an invalid message: {0}")]
    InvalidMessage(String),
    /// The legacy HTTP+SSE transport could not open or keep its stream
    /// (e.g. the server named a message endpoint on another origin).
    #[error(transparent)]
    #[cfg(feature = "legacy-sse")]
    Legacy(legacy::LegacyError),
    /// Authorization failed (OAuth discovery, registration, the user's
    /// consent, the token endpoint): the message says what to configure.
    #[error(transparent)]
    Auth(crate::auth::AuthError),
    /// Any other failure.
    #[error("{0}")]
    Other(String),
}

impl TransportError {
    /// Whether something did not happen in time (the legacy transport's
    /// `endpoint` event). Request timeouts are [`crate::client::Error::Timeout`].
    pub fn is_timeout(&self) -> bool {
        match self {
            #[cfg(feature = "legacy-sse")]
            TransportError::Legacy(LegacyError::Timeout { .. }) => true,
            _ => false,
        }
    }

    /// Whether authorization failed: an [`AuthError`](crate::auth::AuthError)
    /// at any depth. A bare 401/403 with no auth provider configured is not
    /// one; see [`http_status`](Self::http_status).
    pub fn is_auth(&self) -> bool {
        self.auth_error().is_some()
    }

    /// The authorization failure, if this is one ([`is_auth`](Self::is_auth)).
    pub fn auth_error(&self) -> Option<&crate::auth::AuthError> {
        match self {
            TransportError::Auth(error) => Some(error),
            #[cfg(feature = "legacy-sse")]
            TransportError::Legacy(LegacyError::Auth(error)) => Some(error),
            _ => None,
        }
    }

    /// Whether the server could not be reached or started: the process did
    /// not spawn, or the network failed (DNS, refused connection, TLS, and in
    /// a browser possibly CORS).
    pub fn is_connect(&self) -> bool {
        match self {
            TransportError::Io(_) => true,
            #[cfg(not(target_arch = "wasm32"))]
            TransportError::Spawn { .. } => true,
            #[cfg(feature = "legacy-sse")]
            TransportError::Legacy(LegacyError::Unreachable { .. }) => true,
            _ => false,
        }
    }

    /// Whether the connection is gone: closed by either side, or the server
    /// process exited.
    pub fn is_closed(&self) -> bool {
        match self {
            TransportError::Closed(_) => true,
            #[cfg(not(target_arch = "wasm32"))]
            TransportError::ProcessExited { .. } => true,
            #[cfg(feature = "legacy-sse")]
            TransportError::Legacy(LegacyError::Closed) => true,
            _ => false,
        }
    }

    /// Whether the server ended the session (HTTP 404 on a request that
    /// carried `Mcp-Session-Id`).
    pub fn is_session_expired(&self) -> bool {
        matches!(self, TransportError::SessionExpired)
    }

    /// The HTTP status code of the server's refusal, when the failure was one.
    pub fn http_status(&self) -> Option<u16> {
        match self {
            TransportError::Http { status, .. } => Some(*status),
            #[cfg(feature = "legacy-sse")]
            TransportError::Legacy(LegacyError::NotAnEventStream { status, .. }) => Some(*status),
            _ => None,
        }
    }
}

/// One poll of a transport whose events come down a channel (memory,
/// stdio): a `Closed` event finishes it, as does the channel's end (then
/// reported as `gone`), and a finished transport is pending for good.
pub(crate) fn poll_channel(
    finished: &mut bool,
    polled: impl FnOnce() -> Poll<Option<TransportEvent>>,
    gone: &str,
) -> Poll<TransportEvent> {
    if *finished {
        return Poll::Pending;
    }
    let event = match std::task::ready!(polled()) {
        Some(event) => event,
        None => TransportEvent::Closed(TransportError::Closed(gone.into())),
    };
    *finished = matches!(event, TransportEvent::Closed(_));
    Poll::Ready(event)
}

/// Bytes from a peer as text, invalid sequences replaced
/// ([`protocol::utf8_lossy`](crate::protocol::utf8_lossy)).
pub(crate) fn utf8_text(bytes: &[u8]) -> std::borrow::Cow<'_, str> {
    crate::protocol::utf8_lossy(bytes)
}

/// [`utf8_text`] of bytes given up: valid UTF-8 becomes a `String` in
/// place, without a copy.
pub(crate) fn utf8_string(bytes: Vec<u8>) -> String {
    String::from_utf8(bytes).unwrap_or_else(|invalid| utf8_text(invalid.as_bytes()).into_owned())
}

#[cfg(not(target_arch = "wasm32"))]
fn stderr_suffix(lines: &[String]) -> String {
    if lines.is_empty() {
        "; it wrote nothing to stderr".to_owned()
    } else {
        format!("; its last stderr lines:\n  {}", crate::debug::joined(lines, "\n  "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::auth::AuthError;

    /// Notes which of its methods were called, each overriding the default.
    struct Recording(std::sync::Arc<std::sync::Mutex<Vec<&'static str>>>);

    impl Recording {
        fn note(&self, name: &'static str) {
            self.0.lock().unwrap_or_else(|p| p.into_inner()).push(name);
        }
    }

    impl Transport for Recording {
        fn send(&mut self, _: Message) -> BoxFuture<'static, Result<(), TransportError>> {
            self.note("send");
            crate::runtime::boxed(async { Ok(()) })
        }
        fn poll_event(&mut self, _: &mut Context<'_>) -> Poll<TransportEvent> {
            self.note("poll_event");
            Poll::Pending
        }
        fn set_protocol_version(&mut self, _: ProtocolVersion) {
            self.note("set_protocol_version");
        }
        fn send_stateless(
            &mut self,
            _: Message,
            _: Vec<(String, String)>,
        ) -> BoxFuture<'static, Result<(), TransportError>> {
            self.note("send_stateless");
            crate::runtime::boxed(async { Ok(()) })
        }
        fn on_initialized(&mut self) -> BoxFuture<'static, ()> {
            self.note("on_initialized");
            crate::runtime::boxed(async {})
        }
        fn open_server_stream(&mut self) -> BoxFuture<'static, ()> {
            self.note("open_server_stream");
            crate::runtime::boxed(async {})
        }
        fn session_view(&self) -> Option<std::sync::Arc<dyn SessionView>> {
            self.note("session_view");
            None
        }
        fn resume_session(&mut self, _: TransportSession, _: ProtocolVersion) {
            self.note("resume_session");
        }
        fn close(&mut self) -> BoxFuture<'static, Result<(), TransportError>> {
            self.note("close");
            crate::runtime::boxed(async { Ok(()) })
        }
        fn kind(&self) -> TransportKind {
            self.note("kind");
            TransportKind::Memory
        }
    }

    /// A method the box did not forward would silently run the trait's
    /// default instead (a stateless request without its headers, say).
    #[test]
    fn a_boxed_transport_forwards_every_method() {
        let calls = std::sync::Arc::default();
        let mut boxed: Box<dyn Transport> = Box::new(Recording(std::sync::Arc::clone(&calls)));
        let message = || Message::notification("notifications/initialized", None);
        let version = ProtocolVersion::V2025_06_18;
        drop(boxed.send(message()));
        let _ = boxed.poll_event(&mut Context::from_waker(std::task::Waker::noop()));
        boxed.set_protocol_version(version);
        drop(boxed.send_stateless(message(), Vec::new()));
        drop(boxed.on_initialized());
        drop(boxed.open_server_stream());
        let _ = boxed.session_view();
        boxed.resume_session(TransportSession::default(), version);
        drop(boxed.close());
        let _ = boxed.kind();
        let calls = calls.lock().unwrap_or_else(|p| p.into_inner()).clone();
        assert_eq!(
            calls,
            [
                "send",
                "poll_event",
                "set_protocol_version",
                "send_stateless",
                "on_initialized",
                "open_server_stream",
                "session_view",
                "resume_session",
                "close",
                "kind"
            ]
        );
    }

    #[test]
    fn the_predicates_say_what_kind_of_failure_it_is() {
        let io = TransportError::Io("connection refused".into());
        assert!(io.is_connect() && !io.is_closed() && !io.is_auth() && !io.is_timeout());
        #[cfg(not(target_arch = "wasm32"))]
        {
            let spawn = TransportError::Spawn { command: "srv".into(), reason: "not found".into() };
            assert!(spawn.is_connect());
            let exited = TransportError::ProcessExited { status: "exit status: 1".into(), stderr_tail: vec![] };
            assert!(exited.is_closed() && !exited.is_connect());
        }
        assert!(TransportError::Closed("bye".into()).is_closed());
        assert!(TransportError::SessionExpired.is_session_expired());
        assert!(!TransportError::SessionExpired.is_closed());
        let http = TransportError::Http { status: 401, message: "Unauthorized".into() };
        assert_eq!(http.http_status(), Some(401));
        assert!(!http.is_auth(), "a bare 401 is not an AuthError");
        assert_eq!(io.http_status(), None);
        let auth = TransportError::Auth(AuthError::Config("no client_id".into()));
        assert!(auth.is_auth() && !auth.is_connect());
        assert_eq!(auth.auth_error(), Some(&AuthError::Config("no client_id".into())));
        assert!(!TransportError::Other("odd".into()).is_auth());
    }

    #[cfg(feature = "legacy-sse")]
    #[test]
    fn the_predicates_see_through_a_legacy_error() {
        let url = String::from("http://127.0.0.1:3001/sse");
        let timeout =
            TransportError::Legacy(LegacyError::Timeout { url: url.clone(), after: std::time::Duration::from_secs(5) });
        assert!(timeout.is_timeout() && !timeout.is_connect());
        let auth = TransportError::Legacy(LegacyError::Auth(AuthError::Config("x".into())));
        assert!(auth.is_auth());
        let unreachable =
            TransportError::Legacy(LegacyError::Unreachable { url: url.clone(), reason: "refused".into() });
        assert!(unreachable.is_connect());
        assert!(TransportError::Legacy(LegacyError::Closed).is_closed());
        let html = LegacyError::NotAnEventStream {
            url,
            status: 200,
            media_type: Some("text/html".into()),
            detail: String::new(),
        };
        assert_eq!(TransportError::Legacy(html).http_status(), Some(200));
    }
}
