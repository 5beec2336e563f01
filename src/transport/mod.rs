//! The transport seam: one small trait the session engine drives.
//!
//! A transport moves [`Message`]s; it does not know about requests, timeouts
//! or handlers. The engine polls it from its one loop, so a transport never
//! needs a runtime of its own to be driven (it may use one at its edge: stdio
//! is native-only and runs its pipes on tokio).

use std::task::{Context, Poll};

use crate::protocol::{Message, ProtocolVersion};
use crate::runtime::{BoxFuture, MaybeSend};

mod authorize;
mod inbox;
#[cfg(feature = "legacy-sse")]
pub mod legacy;
pub mod memory;
pub mod sse;
#[cfg(not(target_arch = "wasm32"))]
pub mod stdio;
pub mod streamable;

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
    /// transports open the server's GET stream here. The future resolves
    /// once what the server sends unprompted can arrive (the stream is open,
    /// or refused), so a server request sent right after the handshake is
    /// not lost; the caller bounds the wait.
    fn on_initialized(&mut self) -> BoxFuture<'static, ()> {
        crate::runtime::boxed(async {})
    }

    /// Ends the connection gracefully. For stdio: close the server's stdin,
    /// then SIGTERM, then SIGKILL. For HTTP: DELETE the session.
    fn close(&mut self) -> BoxFuture<'static, Result<(), TransportError>>;

    /// Which kind of transport this is. The engine branches on it (an HTTP
    /// exchange can be aborted, a stdio server can be started again); its
    /// [`Display`](std::fmt::Display) is the short name shown to people.
    fn kind(&self) -> TransportKind;
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
    /// The server process could not be started.
    #[error("could not start the server `{command}`: {reason}")]
    Spawn {
        /// The command line.
        command: String,
        /// What the OS said.
        reason: String,
    },
    /// The server process exited.
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
    Io(String),
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

fn stderr_suffix(lines: &[String]) -> String {
    if lines.is_empty() {
        "; it wrote nothing to stderr".to_owned()
    } else {
        format!("; its last stderr lines:\n  {}", lines.join("\n  "))
    }
}
