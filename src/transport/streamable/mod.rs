//! The Streamable HTTP transport (2025-03-26 to 2025-11-25), one
//! implementation for every target over the [`HttpClient`] seam.
//!
//! Every message is its own POST. A request's answer comes as a JSON body or
//! as an SSE stream that may carry server requests and notifications first.
//! When such a stream ends before the answer (a cut, or a server that closes
//! it on purpose to be polled), it is resumed with GET and `Last-Event-ID`.
//! After the handshake a standalone GET stream carries whatever the server
//! sends unprompted.
//!
//! In the stateless revision (2026-07-28) the connection is the same, with
//! the era's header policy. Every request is its own POST carrying the
//! request-metadata headers the engine computed (`MCP-Protocol-Version`,
//! `Mcp-Method`, `Mcp-Name`, `Mcp-Param-*`); nothing of a session goes out
//! or is adopted (no `Mcp-Session-Id`, no GET stream, no DELETE). Stateless
//! servers give no SSE event ids, so a reply stream that breaks before its
//! answer loses the request (the caller may send it again with a new id);
//! only a server of the handshake era answering a probe sets ids, and its
//! stream is resumed as that era says. A 4xx whose body is a JSON-RPC error
//! (-32022, -32021, -32020, -32602, -32601) is the request's answer, so the
//! engine sees the server's error, not an HTTP status.
//!
//! Here: the transport, its shared state and the request every exchange
//! starts from (with either era's headers). `options` configures it;
//! `post` sends a message of either era and reads a JSON reply; `resume`
//! reads an SSE reply and resumes it; `server_stream` is the standalone GET
//! stream; `session` adopts, loses and ends the session.

use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};

use crate::runtime::channel::oneshot;

use super::authorize::{self, AuthContext};
use super::inbox::{Inbox, Outbox};
use super::{SessionView, Transport, TransportError, TransportEvent, TransportSession};
use crate::auth::AuthProvider;
use crate::http::{DefaultHttp, HttpClient, HttpError, HttpRequest, HttpResponse, Method};
use crate::protocol::jsonrpc::decode_owned;
use crate::protocol::{Message, ProtocolVersion, RequestId};
use crate::runtime::{BoxFuture, boxed};

mod options;
mod post;
mod resume;
mod server_stream;
mod session;
#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests;

pub use options::{ReconnectPolicy, StreamableHttpOptions};

/// The session header (case-insensitive on the wire).
pub const SESSION_HEADER: &str = "Mcp-Session-Id";
/// The negotiated-version header.
pub const VERSION_HEADER: &str = "MCP-Protocol-Version";
/// The resumption header.
pub const LAST_EVENT_ID_HEADER: &str = "Last-Event-ID";

/// How often one request is sent again after a 429 or 503 `Retry-After`.
const MAX_RETRIES: u32 = 3;
/// The longest `Retry-After` honoured; a longer one fails the request at
/// once with the server's status (a wait past any sensible timeout).
const MAX_RETRY_AFTER: std::time::Duration = std::time::Duration::from_secs(30);

/// A `Retry-After` in seconds (an HTTP date is not honoured: it needs a
/// clock in step with the server's), if short enough to wait for.
fn retry_after(value: &str) -> Option<std::time::Duration> {
    let seconds: u64 = value.trim_ascii().parse().ok()?;
    let wait = std::time::Duration::from_secs(seconds);
    (wait <= MAX_RETRY_AFTER).then_some(wait)
}

#[derive(Default)]
struct State {
    session_id: Option<String>,
    protocol_version: Option<ProtocolVersion>,
    /// The initialize answer carried no readable session id: in a browser a
    /// CORS policy may have hidden it.
    session_header_unreadable: bool,
    /// The server forgot our session (404): until an `initialize` adopts a
    /// new one, every other message fails at once with
    /// [`TransportError::SessionExpired`] instead of going out without a
    /// session (which a server would refuse with an unhelpful 400).
    session_expired: bool,
    /// The last event id of the standalone GET stream, where a restored
    /// client resumes it.
    stream_last_event_id: Option<String>,
    closed: bool,
}

struct Shared<H> {
    http: H,
    options: StreamableHttpOptions,
    state: Mutex<State>,
    inbound: Outbox,
}

/// A Streamable HTTP connection to one MCP endpoint.
pub struct StreamableHttpTransport<H: HttpClient = DefaultHttp> {
    shared: Arc<Shared<H>>,
    /// Messages from the server, and the standalone GET stream that reads some.
    inbox: Inbox,
    /// The standalone GET stream of the current session was opened.
    stream_open: bool,
}

impl<H: HttpClient> std::fmt::Debug for StreamableHttpTransport<H> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        crate::debug::debug_struct(f, "StreamableHttpTransport")
            .field("url", &self.shared.options.url)
            .finish_non_exhaustive()
    }
}

impl StreamableHttpTransport<DefaultHttp> {
    /// A connection through this platform's HTTP client.
    pub fn new(options: StreamableHttpOptions) -> Self {
        Self::with_http(DefaultHttp::default(), options)
    }
}

impl<H: HttpClient> StreamableHttpTransport<H> {
    /// A connection through the given HTTP client.
    pub fn with_http(http: H, options: StreamableHttpOptions) -> Self {
        let (sender, inbox) = Inbox::new();
        let shared = Shared { http, options, state: Mutex::new(State::default()), inbound: sender };
        StreamableHttpTransport { shared: Arc::new(shared), inbox, stream_open: false }
    }

    /// The session id the server assigned, if any.
    pub fn session_id(&self) -> Option<String> {
        self.shared.state().session_id.clone()
    }
}

impl<H: HttpClient> Shared<H> {
    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        // Plain fields, never left half-written: a poisoned lock is usable.
        self.state.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// A request's headers. `stateless`: the request-metadata headers of a
    /// 2026-07-28 POST (the engine chose them): the era's policy is then no
    /// session and no resumption headers, and the version header the engine
    /// chose (it equals `_meta`'s); its headers go before the user's extra
    /// ones.
    fn request(
        &self,
        method: Method,
        body: Option<String>,
        last_event_id: Option<&str>,
        stateless: Option<&[(String, String)]>,
    ) -> HttpRequest {
        let chosen = stateless.unwrap_or_default();
        let version_chosen = chosen.iter().any(|(name, _)| name.eq_ignore_ascii_case(VERSION_HEADER));
        let mut headers = Vec::new();
        match method {
            Method::Post => {
                headers.push(("Content-Type".to_owned(), "application/json".to_owned()));
                headers.push(("Accept".to_owned(), "application/json, text/event-stream".to_owned()));
            }
            Method::Get => headers.push(("Accept".to_owned(), "text/event-stream".to_owned())),
            Method::Delete => {}
        }
        {
            let state = self.state();
            if let (Some(session), None) = (&state.session_id, stateless) {
                headers.push((SESSION_HEADER.to_owned(), session.clone()));
            }
            if let (Some(version), false) = (state.protocol_version, version_chosen) {
                headers.push((VERSION_HEADER.to_owned(), version.as_str().to_owned()));
            }
        }
        if let (Some(id), None) = (last_event_id.filter(|id| !id.is_empty()), stateless) {
            headers.push((LAST_EVENT_ID_HEADER.to_owned(), id.to_owned()));
        }
        for header in chosen {
            headers.push(header.clone());
        }
        for (name, value) in &self.options.headers {
            let dropped = stateless.is_some()
                && (name.eq_ignore_ascii_case(SESSION_HEADER)
                    || name.eq_ignore_ascii_case(LAST_EVENT_ID_HEADER)
                    || (version_chosen && name.eq_ignore_ascii_case(VERSION_HEADER)));
            if !dropped {
                headers.push((name.clone(), value.clone()));
            }
        }
        HttpRequest { method, url: self.options.url.clone(), headers, body }
    }

    /// Sends a request with the auth provider's credentials, if any, and no
    /// recovery from a refusal (`authorize::send` has that).
    async fn fetch(&self, mut request: HttpRequest) -> Result<HttpResponse, TransportError> {
        if let Some(auth) = &self.options.auth {
            let headers = auth.headers(request.method, &request.url).await.map_err(TransportError::Auth)?;
            authorize::attach(&mut request, headers);
        }
        self.send_http(request).await
    }

    /// Sends a request as it is, up to the response's headers. A 429 or 503
    /// with a `Retry-After` of a few seconds is sent again after that wait
    /// (a few times at most); the caller's timeout bounds it all, as the
    /// engine times every request.
    async fn send_http(&self, request: HttpRequest) -> Result<HttpResponse, TransportError> {
        let method = request.method;
        let mut retries = 0;
        loop {
            let response = self.http.fetch(request.clone()).await.map_err(|error| match error {
                HttpError::Network(message) => TransportError::Io(message),
                other => TransportError::Other(format!("{} {}: {other}", method.as_str(), self.options.url)),
            })?;
            let wait = match response.status {
                429 | 503 if retries < MAX_RETRIES => response.header("retry-after").and_then(retry_after),
                _ => None,
            };
            let Some(wait) = wait else { return Ok(response) };
            retries += 1;
            log::debug!("{} {} answered {}: retrying in {wait:?}", method.as_str(), self.options.url, response.status);
            drop(response);
            crate::runtime::sleep(wait).await;
        }
    }

    fn deliver(&self, message: Message) {
        // The receiver lives as long as the transport; a send after it is
        // gone has nobody to tell.
        let _ = self.inbound.unbounded_send(TransportEvent::Message(message));
    }

    /// Decodes one payload (a message or a batch) and delivers it: whether
    /// it held the response to `awaited`, and what was wrong with a payload
    /// (or a message in it) that could not be delivered, so a request left
    /// unanswered fails with the cause rather than a generic line.
    fn deliver_reply(&self, payload: String, awaited: Option<&RequestId>) -> Delivered {
        let mut delivered = Delivered::default();
        match decode_owned(payload) {
            Ok(messages) => {
                for message in messages {
                    match message {
                        Ok(message) => {
                            if let (Message::Response(response), Some(awaited)) = (&message, awaited) {
                                match (&response.id, &response.outcome) {
                                    (Some(id), _) if id == awaited => delivered.answered = true,
                                    // JSON-RPC's id null: the server could not tell which
                                    // request it answers; its words are the cause.
                                    (None, Err(error)) => {
                                        delivered.problem = Some(format!(
                                            "the server answered with an error for no request (id null): {error}"
                                        ));
                                    }
                                    _ => {}
                                }
                            }
                            self.deliver(message);
                        }
                        Err(error) => {
                            log::warn!("skipping an invalid message from {}: {error}", self.options.url);
                            delivered.problem = Some(error.to_string());
                        }
                    }
                }
            }
            Err(error) => {
                log::warn!("skipping a payload from {} that is not JSON-RPC: {error}", self.options.url);
                delivered.problem = Some(error.to_string());
            }
        }
        delivered
    }
}

/// What [`Shared::deliver_reply`] made of a payload.
#[derive(Default)]
struct Delivered {
    /// It held the awaited response.
    answered: bool,
    /// Why (part of) it could not be delivered, if it could not.
    problem: Option<String>,
}

impl<H: HttpClient> SessionView for Shared<H> {
    fn session(&self) -> TransportSession {
        let state = self.state();
        TransportSession {
            session_id: state.session_id.clone(),
            last_event_id: state.stream_last_event_id.clone().filter(|id| !id.is_empty()),
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

    fn protocol_version(&self) -> Option<String> {
        self.state().protocol_version.map(|v| v.as_str().to_owned())
    }
}

impl<H: HttpClient> Transport for StreamableHttpTransport<H> {
    fn send(&mut self, message: Message) -> BoxFuture<'static, Result<(), TransportError>> {
        boxed(self.shared.clone().post(message, None))
    }

    fn poll_event(&mut self, cx: &mut Context<'_>) -> Poll<TransportEvent> {
        self.inbox.poll_event(cx)
    }

    fn send_stateless(
        &mut self,
        message: Message,
        headers: Vec<(String, String)>,
    ) -> BoxFuture<'static, Result<(), TransportError>> {
        boxed(self.shared.clone().post(message, Some(headers)))
    }

    fn set_protocol_version(&mut self, version: ProtocolVersion) {
        self.shared.state().protocol_version = Some(version);
    }

    fn on_initialized(&mut self) -> BoxFuture<'static, ()> {
        // A new session: the old session's stream is dropped (which aborts
        // its request): one GET stream per session.
        self.inbox.clear();
        self.stream_open = false;
        if self.shared.options.lazy_server_stream {
            // Opened when something needs it (`open_server_stream`).
            return boxed(async {});
        }
        self.open_server_stream()
    }

    fn open_server_stream(&mut self) -> BoxFuture<'static, ()> {
        if !self.shared.options.open_server_stream || self.stream_open {
            return boxed(async {});
        }
        self.stream_open = true;
        let (opened, ready) = oneshot::channel();
        self.inbox.run(boxed(self.shared.clone().server_stream(Some(opened))));
        // Dropped unsent (the stream gave up): ready all the same.
        boxed(async move {
            let _ = ready.await;
        })
    }

    fn session_view(&self) -> Option<Arc<dyn SessionView>> {
        Some(self.shared.clone())
    }

    fn resume_session(&mut self, session: TransportSession, version: ProtocolVersion) {
        let mut state = self.shared.state();
        state.session_id = session.session_id;
        state.stream_last_event_id = session.last_event_id;
        state.protocol_version = Some(version);
        state.session_expired = false;
    }

    fn close(&mut self) -> BoxFuture<'static, Result<(), TransportError>> {
        self.shared.state().closed = true;
        // Dropping the stream futures aborts their requests.
        self.inbox.clear();
        boxed(self.shared.clone().delete_session())
    }

    fn kind(&self) -> super::TransportKind {
        super::TransportKind::StreamableHttp
    }
}
