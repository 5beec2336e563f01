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

use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Duration;

use futures::channel::oneshot;
use futures::future::{Either, select};
use futures::{FutureExt, StreamExt};

use super::authorize::{self, AuthContext, StillInsufficient};
use super::inbox::{Inbox, Outbox};
use super::sse::{SseEvent, SseParser};
use super::streamable::{LAST_EVENT_ID_HEADER, ReconnectPolicy};
use super::{Transport, TransportError, TransportEvent};
use crate::auth::{AuthError, AuthProvider};
use crate::http::url::{self, Reference};
use crate::http::{DefaultHttp, HttpClient, HttpError, HttpRequest, HttpResponse, Method};
use crate::protocol::jsonrpc::decode;
use crate::protocol::{Message, ProtocolVersion};
use crate::runtime::{BoxFuture, boxed, sleep};

/// Configuration of a legacy HTTP+SSE connection.
#[derive(Debug, Clone)]
pub struct LegacySseOptions {
    /// The SSE URL (the one the user gives).
    pub url: String,
    /// Extra headers sent with every request. In a browser, any header makes
    /// the stream use `fetch` instead of `EventSource`.
    pub headers: Vec<(String, String)>,
    /// How a dropped stream is reopened.
    pub reconnect: ReconnectPolicy,
    /// How long opening the stream may take, up to its `endpoint` event; also
    /// how long a message waits for an endpoint while the stream reconnects.
    pub connect_timeout: Duration,
    /// How long one POST may take until the server accepts it.
    pub post_timeout: Duration,
    /// The largest SSE event accepted.
    pub max_message_bytes: usize,
    /// In a browser with no extra header, read the stream with the browser's
    /// `EventSource` when there is one (on by default). Off: always `fetch`.
    /// Ignored natively, and off whenever `auth` is set.
    pub use_event_source: bool,
    /// Authorization (OAuth): credentials on the GET and every POST, the
    /// flow on 401, step-up on 403 `insufficient_scope`.
    pub auth: Option<Arc<dyn AuthProvider>>,
}

impl LegacySseOptions {
    /// Defaults for this SSE URL.
    pub fn new(url: impl Into<String>) -> Self {
        LegacySseOptions {
            url: url.into(),
            headers: Vec::new(),
            reconnect: ReconnectPolicy::default(),
            connect_timeout: Duration::from_secs(30),
            post_timeout: Duration::from_secs(60),
            max_message_bytes: 16 * 1024 * 1024,
            use_event_source: true,
            auth: None,
        }
    }

    /// Authorizes every request through `provider` (e.g. [`crate::auth::OAuthProvider`]).
    pub fn with_auth(mut self, provider: impl AuthProvider) -> Self {
        self.auth = Some(Arc::new(provider));
        self
    }

    /// Adds a header to every request.
    pub fn header(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.headers.push((name.into(), value.into()));
        self
    }
}

/// Why a legacy HTTP+SSE connection could not be opened or kept.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum LegacyError {
    /// The SSE URL is not an absolute http(s) URL.
    #[error("{url:?} is not an http:// or https:// URL: {reason}")]
    InvalidUrl {
        /// The URL.
        url: String,
        /// What is wrong with it.
        reason: String,
    },
    /// The GET was answered with something other than an event stream.
    #[error("{}: not an HTTP+SSE event stream", attempt_answered(.url, *.status, .media_type.as_deref(), .detail))]
    NotAnEventStream {
        /// The SSE URL.
        url: String,
        /// The status code.
        status: u16,
        /// The media type of the answer, if it had one.
        media_type: Option<String>,
        /// The start of the body, or the server's error message.
        detail: String,
    },
    /// The stream's first event was not `endpoint`.
    #[error("GET {url} opened an event stream whose first event is `{event}`, not `endpoint`: not an HTTP+SSE server")]
    NoEndpoint {
        /// The SSE URL.
        url: String,
        /// The type of the first event.
        event: String,
    },
    /// The `endpoint` event's data is not a usable URI reference.
    #[error("the server at {url} named {endpoint:?} as its message endpoint, which is not a usable URI: {reason}")]
    InvalidEndpoint {
        /// The SSE URL.
        url: String,
        /// The event's data.
        endpoint: String,
        /// What is wrong with it.
        reason: String,
    },
    /// The `endpoint` event names another origin (scheme, host, port) than
    /// the SSE URL's. Messages are never sent there: a server must not be
    /// able to redirect them elsewhere.
    #[error(
        "the server at {url} named {endpoint} as its message endpoint, which is on another origin; \
         refusing to send messages there"
    )]
    ForeignEndpoint {
        /// The SSE URL.
        url: String,
        /// The resolved endpoint.
        endpoint: String,
    },
    /// No `endpoint` event in time.
    #[error("GET {url} sent no `endpoint` event within {}", human(*.after))]
    Timeout {
        /// The SSE URL.
        url: String,
        /// How long we waited.
        after: Duration,
    },
    /// The GET got no answer (network, DNS, TLS, CORS).
    #[error("GET {url} failed: {reason}")]
    Unreachable {
        /// The SSE URL.
        url: String,
        /// Why.
        reason: String,
    },
    /// The stream dropped and could not be reopened.
    #[error(
        "the event stream from {url} dropped and could not be re-established after {attempts} attempts (last: {last})"
    )]
    StreamLost {
        /// The SSE URL.
        url: String,
        /// Attempts made.
        attempts: u32,
        /// What the last attempt got.
        last: String,
    },
    /// Authorization failed (OAuth discovery, registration, consent, tokens).
    #[error(transparent)]
    Auth(AuthError),
    /// The transport was closed.
    #[error("the connection is closed")]
    Closed,
}

impl LegacyError {
    /// What the GET got, in a few words, for "what was tried" messages:
    /// `GET http://host/sse answered 404 text/html`.
    pub fn attempt(&self) -> String {
        match self {
            LegacyError::NotAnEventStream { url, status, media_type, .. } => {
                attempt_answered(url, *status, media_type.as_deref(), "")
            }
            other => other.to_string(),
        }
    }
}

fn attempt_answered(url: &str, status: u16, media_type: Option<&str>, detail: &str) -> String {
    let mut text = format!("GET {url} answered {status}");
    if let Some(media) = media_type {
        text.push(' ');
        text.push_str(media);
    }
    if !detail.is_empty() {
        text.push_str(&format!(" ({detail})"));
    }
    text
}

fn human(d: Duration) -> String {
    if d.as_millis() < 1000 { format!("{} ms", d.as_millis()) } else { format!("{:.1} s", d.as_secs_f64()) }
}

impl From<LegacyError> for TransportError {
    fn from(error: LegacyError) -> Self {
        match error {
            // An HTTP refusal keeps its status, so 401/403 reach whoever
            // handles authorization.
            LegacyError::NotAnEventStream { status, .. } if !(200..300).contains(&status) => {
                TransportError::Http { status, message: error.to_string() }
            }
            LegacyError::Closed => TransportError::Closed("the transport is closed".into()),
            LegacyError::Unreachable { .. } => TransportError::Io(error.to_string()),
            LegacyError::Auth(error) => TransportError::Auth(error),
            other => TransportError::Legacy(other),
        }
    }
}

#[derive(Default)]
struct State {
    /// Where messages go now.
    endpoint: Option<String>,
    /// The endpoint of a stream that dropped: restored if the reopened stream
    /// carries on without naming a new one.
    previous_endpoint: Option<String>,
    /// Messages waiting for an endpoint.
    waiters: Vec<oneshot::Sender<Result<String, LegacyError>>>,
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
        f.debug_struct("LegacySseTransport")
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

    /// Resolves once the server named an endpoint (at most `connect_timeout`,
    /// not counting time spent authorizing).
    fn endpoint_ready(self: &Arc<Self>) -> BoxFuture<'static, Result<String, LegacyError>> {
        let receiver = {
            let mut state = self.state();
            if let Some(endpoint) = &state.endpoint {
                return boxed(futures::future::ready(Ok(endpoint.clone())));
            }
            if let Some(failure) = &state.failure {
                return boxed(futures::future::ready(Err(failure.clone())));
            }
            if state.closed {
                return boxed(futures::future::ready(Err(LegacyError::Closed)));
            }
            let (sender, receiver) = oneshot::channel();
            state.waiters.push(sender);
            receiver
        };
        let shared = self.clone();
        let after = self.options.connect_timeout;
        boxed(async move {
            let mut receiver = receiver;
            let mut epoch = shared.state().auth_epoch;
            loop {
                match select(&mut receiver, Box::pin(sleep(after))).await {
                    Either::Left((Ok(outcome), _)) => return outcome,
                    Either::Left((Err(_dropped), _)) => return Err(LegacyError::Closed),
                    Either::Right(_) => {
                        // The authorization is bounded by the provider; the
                        // wait starts over once it is done.
                        let state = shared.state();
                        if state.authorizing > 0 || state.auth_epoch != epoch {
                            epoch = state.auth_epoch;
                            continue;
                        }
                        return Err(LegacyError::Timeout { url: shared.options.url.clone(), after });
                    }
                }
            }
        })
    }

    fn set_endpoint(&self, endpoint: String) {
        let mut state = self.state();
        state.previous_endpoint = None;
        state.endpoint = Some(endpoint.clone());
        for waiter in state.waiters.drain(..) {
            let _ = waiter.send(Ok(endpoint.clone()));
        }
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
        for waiter in state.waiters.drain(..) {
            let _ = waiter.send(Err(error.clone()));
        }
        drop(state);
        let _ = self.inbound.unbounded_send(TransportEvent::Closed(error.into()));
    }

    fn deliver(&self, payload: &str) {
        match decode(payload) {
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

    /// A connection opened.
    fn on_open(&self) {
        self.state().connected_once = true;
    }

    /// A connection dropped (it may be reopened).
    fn on_drop(&self) {
        let mut state = self.state();
        if let Some(endpoint) = state.endpoint.take() {
            state.previous_endpoint = Some(endpoint);
        }
    }

    /// Handles one event of one connection. An error ends the stream for good.
    fn on_event(&self, event: SseEvent, connection: &mut Connection) -> Result<(), LegacyError> {
        let first = connection.events == 0;
        connection.events += 1;
        if event.event == "endpoint" {
            let endpoint = endpoint_url(&self.options.url, &event.data)?;
            log::debug!("the server at {} posts messages to {endpoint}", self.options.url);
            self.set_endpoint(endpoint);
            return Ok(());
        }
        if first {
            let mut state = self.state();
            match state.previous_endpoint.take() {
                // A reopened stream that carries on in the same session.
                Some(previous) => {
                    drop(state);
                    self.set_endpoint(previous);
                }
                None if state.endpoint.is_none() => {
                    return Err(LegacyError::NoEndpoint { url: self.options.url.clone(), event: event.event });
                }
                None => {}
            }
        }
        if event.event != "message" {
            log::debug!("ignoring an SSE event of type {:?}", event.event);
        } else if !event.data.trim().is_empty() {
            self.deliver(&event.data);
        }
        Ok(())
    }

    fn sse_request(&self, last_event_id: &str) -> HttpRequest {
        // Only `Accept` (and `Last-Event-ID` to resume): in a browser any other
        // header makes the GET need a CORS preflight.
        let mut headers = vec![("Accept".to_owned(), "text/event-stream".to_owned())];
        if !last_event_id.is_empty() {
            headers.push((LAST_EVENT_ID_HEADER.to_owned(), last_event_id.to_owned()));
        }
        headers.extend(self.options.headers.iter().cloned());
        HttpRequest { method: Method::Get, url: self.options.url.clone(), headers, body: None }
    }

    /// Reads the stream for the life of the transport.
    async fn run(self: Arc<Self>) {
        if let Err(reason) = check_http_url(&self.options.url) {
            return self.give_up(LegacyError::InvalidUrl { url: self.options.url.clone(), reason });
        }
        #[cfg(target_arch = "wasm32")]
        {
            if self.options.use_event_source
                && self.options.headers.is_empty()
                && self.options.auth.is_none()
                && event_source::available()
            {
                self.state().event_source = true;
                return self.run_event_source().await;
            }
        }
        self.run_fetch().await
    }

    /// The stream over the HTTP seam and the SSE parser.
    async fn run_fetch(self: Arc<Self>) {
        let policy = self.options.reconnect.clone();
        let mut parser = SseParser::with_limit(self.options.max_message_bytes);
        let mut failures = 0u32;
        loop {
            if self.state().closed {
                return;
            }
            let connected_once = self.state().connected_once;
            let problem = match self.open(&parser).await {
                Ok(mut response) => {
                    self.on_open();
                    let mut connection = Connection::default();
                    let outcome = self.read(&mut response, &mut parser, &mut connection).await;
                    parser.finish();
                    self.on_drop();
                    if let Err(fatal) = outcome {
                        return self.give_up(fatal);
                    }
                    if connection.events > 0 {
                        failures = 0;
                    }
                    "the stream ended".to_owned()
                }
                // Before the first connection nothing is retried: the URL
                // does not lead to an event stream.
                Err(error) if !connected_once => return self.give_up(error),
                // EventSource semantics: a refusal fails the connection for
                // good, except statuses that say "later".
                Err(error @ LegacyError::NotAnEventStream { status, .. })
                    if !matches!(status, 408 | 429 | 500..=599) =>
                {
                    return self.give_up(error);
                }
                Err(error) => error.attempt(),
            };
            failures += 1;
            if failures > policy.max_attempts {
                return self.give_up(LegacyError::StreamLost {
                    url: self.options.url.clone(),
                    attempts: policy.max_attempts,
                    last: problem,
                });
            }
            // The server's `retry` is honoured, up to the policy's longest delay.
            let delay = policy.delay(failures, parser.retry().map(|retry| retry.min(policy.max_delay)));
            log::debug!("reopening the event stream from {} in {delay:?} ({problem})", self.options.url);
            sleep(delay).await;
        }
    }

    /// One GET, up to its headers (at most `connect_timeout`, plus the time
    /// an authorization takes when the server asks for one).
    async fn open(&self, parser: &SseParser) -> Result<HttpResponse, LegacyError> {
        let url = self.options.url.clone();
        let after = self.options.connect_timeout;
        let build = || futures::future::ready(Ok((self.sse_request(parser.last_event_id()), ())));
        // The GET's own failures travel through the auth loop as
        // `TransportError::Legacy` and come out unchanged (`open_failure`).
        let fetch = move |request: HttpRequest| async move {
            match select(self.http.fetch(request), Box::pin(sleep(after))).await {
                Either::Left((Ok(response), _)) => Ok(response),
                Either::Left((Err(error), _)) => Err(TransportError::Legacy(LegacyError::Unreachable {
                    url: self.options.url.clone(),
                    reason: http_reason(error),
                })),
                Either::Right(_) => {
                    Err(TransportError::Legacy(LegacyError::Timeout { url: self.options.url.clone(), after }))
                }
            }
        };
        // A 403 a step-up did not cure is reported like any other refusal.
        let (response, ()) = authorize::send(self, StillInsufficient::Answer, build, fetch)
            .await
            .map_err(|error| self.open_failure(error))?;
        let media_type = response.media_type();
        if (200..300).contains(&response.status) && media_type.as_deref() == Some("text/event-stream") {
            return Ok(response);
        }
        let status = response.status;
        let detail = body_excerpt(response, Duration::from_secs(2)).await;
        Err(LegacyError::NotAnEventStream { url, status, media_type, detail })
    }

    /// Reads one connection until it ends or breaks.
    async fn read(
        &self,
        response: &mut HttpResponse,
        parser: &mut SseParser,
        connection: &mut Connection,
    ) -> Result<(), LegacyError> {
        let mut events = Vec::new();
        while let Some(chunk) = response.body.next().await {
            let chunk = match chunk {
                Ok(chunk) => chunk,
                Err(error) => {
                    log::debug!("the event stream from {} broke: {error}", self.options.url);
                    return Ok(());
                }
            };
            if let Err(error) = parser.feed(&chunk, &mut events) {
                log::warn!("skipping an oversized event from {}: {error}", self.options.url);
            }
            for event in events.drain(..) {
                self.on_event(event, connection)?;
            }
            if self.state().closed {
                return Ok(());
            }
        }
        Ok(())
    }

    /// The stream through the browser's `EventSource`, which reconnects by
    /// itself (honouring `retry` and sending `Last-Event-ID`). Consecutive
    /// failed reconnects are counted and bounded here.
    #[cfg(target_arch = "wasm32")]
    async fn run_event_source(self: Arc<Self>) {
        use event_source::Item;
        let (source, mut items) = match event_source::Source::open(&self.options.url) {
            Ok(opened) => opened,
            Err(reason) => {
                return self.give_up(LegacyError::Unreachable { url: self.options.url.clone(), reason });
            }
        };
        let max_attempts = self.options.reconnect.max_attempts;
        // The browser waits the server's `retry` between attempts, however
        // long: a reconnect that takes longer than this is given up.
        let patience = self.options.reconnect.max_delay + self.options.connect_timeout;
        let mut reconnecting = false;
        let mut failures = 0u32;
        let mut connection = Connection::default();
        loop {
            let next = if reconnecting {
                match select(items.next(), Box::pin(sleep(patience))).await {
                    Either::Left((next, _)) => next,
                    Either::Right(_) => {
                        source.close();
                        return self.give_up(LegacyError::StreamLost {
                            url: self.options.url.clone(),
                            attempts: failures,
                            last: format!("the browser did not reopen the event stream within {}", human(patience)),
                        });
                    }
                }
            } else {
                items.next().await
            };
            let Some(item) = next else { return };
            match item {
                Item::Open => {
                    self.on_open();
                    reconnecting = false;
                    connection = Connection::default();
                }
                Item::Event(event) => {
                    if connection.events == 0 {
                        failures = 0;
                    }
                    if let Err(fatal) = self.on_event(event, &mut connection) {
                        source.close();
                        return self.give_up(fatal);
                    }
                }
                Item::Error { closed } => {
                    let connected_once = self.state().connected_once;
                    self.on_drop();
                    if closed || !connected_once {
                        source.close();
                        // The browser says nothing about why: ask once more
                        // with fetch to report what the server answered.
                        let error = match connected_once {
                            false => self.explain_refusal().await,
                            true => LegacyError::StreamLost {
                                url: self.options.url.clone(),
                                attempts: failures + 1,
                                last: "the browser closed the event stream (an error status, \
                                       a type other than text/event-stream, or a CORS refusal)"
                                    .into(),
                            },
                        };
                        return self.give_up(error);
                    }
                    failures += 1;
                    if failures > max_attempts {
                        source.close();
                        return self.give_up(LegacyError::StreamLost {
                            url: self.options.url.clone(),
                            attempts: max_attempts,
                            last: "the browser could not reopen the event stream".into(),
                        });
                    }
                    reconnecting = true;
                    log::debug!("the event stream from {} dropped; the browser reconnects", self.options.url);
                }
            }
            if self.state().closed {
                source.close();
                return;
            }
        }
    }

    /// Why the first `EventSource` connection failed, as far as a `fetch`
    /// of the same URL can tell.
    #[cfg(target_arch = "wasm32")]
    async fn explain_refusal(&self) -> LegacyError {
        let probe = SseParser::new();
        match self.open(&probe).await {
            Err(error) => error,
            Ok(_) => LegacyError::Unreachable {
                url: self.options.url.clone(),
                reason: "the browser's EventSource could not open the stream (a fetch of it can: \
                         the server's CORS policy may not allow EventSource)"
                    .into(),
            },
        }
    }

    /// A failure while opening the stream (the GET's own, or its
    /// authorization's), as a [`LegacyError`].
    fn open_failure(&self, error: TransportError) -> LegacyError {
        match error {
            TransportError::Legacy(error) => error,
            TransportError::Auth(error) => LegacyError::Auth(error),
            TransportError::Http { status, message } => LegacyError::NotAnEventStream {
                url: self.options.url.clone(),
                status,
                media_type: None,
                detail: message,
            },
            other => LegacyError::Unreachable { url: self.options.url.clone(), reason: other.to_string() },
        }
    }

    /// Sends one message as a POST to the current endpoint.
    async fn post(self: Arc<Self>, message: Message) -> Result<(), TransportError> {
        let body = message.to_json();
        let after = self.options.post_timeout;
        let (shared, body) = (&self, &body);
        // The endpoint is asked for again on every attempt: a reconnect
        // during an authorization may have named a new one.
        let build = move || async move {
            let endpoint = shared.endpoint_ready().await?;
            let mut headers = vec![("Content-Type".to_owned(), "application/json".to_owned())];
            headers.extend(shared.options.headers.iter().cloned());
            let request =
                HttpRequest { method: Method::Post, url: endpoint.clone(), headers, body: Some(body.clone()) };
            Ok::<_, TransportError>((request, endpoint))
        };
        let fetch = move |request: HttpRequest| async move {
            let endpoint = request.url.clone();
            match select(shared.http.fetch(request), Box::pin(sleep(after))).await {
                Either::Left((Ok(response), _)) => Ok(response),
                Either::Left((Err(HttpError::Network(reason)), _)) => Err(TransportError::Io(reason)),
                Either::Left((Err(error), _)) => Err(TransportError::Other(format!("POST {endpoint}: {error}"))),
                Either::Right(_) => {
                    Err(TransportError::Closed(format!("POST {endpoint} was not accepted within {}", human(after))))
                }
            }
        };
        let (response, endpoint) = authorize::send(&**shared, StillInsufficient::Fail, build, fetch).await?;
        let status = response.status;
        let accepted = (200..300).contains(&status);
        // The answer comes on the stream; the body ("Accepted") is read so
        // the connection can be reused, but never waited on for long.
        let detail = body_excerpt(response, Duration::from_secs(2)).await;
        if accepted {
            return Ok(());
        }
        let message = if detail.is_empty() {
            format!("POST {endpoint} was refused")
        } else {
            format!("POST {endpoint} was refused: {detail}")
        };
        Err(TransportError::Http { status, message })
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

/// What one connection of the stream has seen.
#[derive(Default)]
struct Connection {
    events: u64,
}

fn http_reason(error: HttpError) -> String {
    match error {
        HttpError::Network(reason) | HttpError::Body(reason) => reason,
        other => other.to_string(),
    }
}

/// The first few hundred characters of a body (or the JSON-RPC error message
/// in it), read for at most `limit`.
async fn body_excerpt(response: HttpResponse, limit: Duration) -> String {
    let body = match select(Box::pin(response.read_body(64 * 1024)), Box::pin(sleep(limit))).await {
        Either::Left((Ok(body), _)) => body,
        _ => return String::new(),
    };
    let text = String::from_utf8_lossy(&body);
    if let Some(Ok(Message::Response(crate::protocol::Response { outcome: Err(error), .. }))) =
        decode(&text).ok().and_then(|mut messages| messages.pop())
    {
        return error.to_string();
    }
    let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
    let mut excerpt: String = text.chars().take(300).collect();
    if excerpt.len() < text.len() {
        excerpt.push('…');
    }
    excerpt
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
            for waiter in state.waiters.drain(..) {
                let _ = waiter.send(Err(LegacyError::Closed));
            }
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

/// Checks that `url` is an absolute http(s) URL with a host.
fn check_http_url(url: &str) -> Result<(), String> {
    let reference = Reference::split(url);
    match reference.scheme.map(str::to_ascii_lowercase).as_deref() {
        Some("http" | "https") => {}
        Some(other) => return Err(format!("the scheme is {other:?}")),
        None => return Err("it has no scheme".into()),
    }
    match reference.authority {
        Some(authority) if !url::host_port(authority).0.is_empty() => Ok(()),
        _ => Err("it has no host".into()),
    }
}

/// The absolute URL an `endpoint` event's data names, refused unless it is
/// on the SSE URL's origin.
pub fn endpoint_url(sse_url: &str, data: &str) -> Result<String, LegacyError> {
    let data = data.trim();
    let invalid = |reason: &str| LegacyError::InvalidEndpoint {
        url: sse_url.to_owned(),
        endpoint: data.to_owned(),
        reason: reason.to_owned(),
    };
    if data.is_empty() {
        return Err(invalid("it is empty"));
    }
    if data.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return Err(invalid("it contains white space or control characters"));
    }
    let resolved = url::resolve(sse_url, data).map_err(|reason| invalid(&reason))?;
    match (url::origin_parts(sse_url), url::origin_parts(&resolved)) {
        (Some(ours), Some(theirs)) if ours == theirs => Ok(resolved),
        _ => Err(LegacyError::ForeignEndpoint { url: sse_url.to_owned(), endpoint: resolved }),
    }
}

/// The browser's `EventSource`, where the global object has one.
#[cfg(target_arch = "wasm32")]
mod event_source {
    use futures::channel::mpsc;
    use wasm_bindgen::JsCast;
    use wasm_bindgen::JsValue;
    use wasm_bindgen::closure::Closure;
    use web_sys::{Event, EventSource, MessageEvent};

    use super::SseEvent;

    /// Whether this global object (window, worker, Node, Deno) has an
    /// `EventSource` constructor.
    pub fn available() -> bool {
        js_sys::Reflect::get(&js_sys::global(), &JsValue::from_str("EventSource"))
            .map(|value| value.is_function())
            .unwrap_or(false)
    }

    /// What the `EventSource` reports.
    pub enum Item {
        /// A connection opened.
        Open,
        /// An `endpoint` or `message` event.
        Event(SseEvent),
        /// A connection failed or dropped; `closed`: the browser gave up
        /// (otherwise it reconnects by itself).
        Error { closed: bool },
    }

    type Listener<T> = Closure<dyn FnMut(T)>;

    /// An open `EventSource`; closed (and its listeners released) on drop.
    pub struct Source {
        source: EventSource,
        _open: Listener<Event>,
        _error: Listener<Event>,
        _message: Listener<MessageEvent>,
        _endpoint: Listener<MessageEvent>,
    }

    impl Source {
        pub fn open(url: &str) -> Result<(Source, mpsc::UnboundedReceiver<Item>), String> {
            let source = EventSource::new(url).map_err(|e| describe(&e))?;
            let (sender, items) = mpsc::unbounded();
            let on_open = {
                let sender = sender.clone();
                Closure::<dyn FnMut(Event)>::new(move |_: Event| {
                    let _ = sender.unbounded_send(Item::Open);
                })
            };
            let on_error = {
                let sender = sender.clone();
                let source = source.clone();
                Closure::<dyn FnMut(Event)>::new(move |_: Event| {
                    let closed = source.ready_state() == EventSource::CLOSED;
                    let _ = sender.unbounded_send(Item::Error { closed });
                })
            };
            let listener = |kind: &'static str| {
                let sender = sender.clone();
                Closure::<dyn FnMut(MessageEvent)>::new(move |event: MessageEvent| {
                    let data = event.data().as_string().unwrap_or_default();
                    let id = event.last_event_id();
                    let _ = sender.unbounded_send(Item::Event(SseEvent { event: kind.to_owned(), data, id }));
                })
            };
            let on_message = listener("message");
            let on_endpoint = listener("endpoint");
            source.set_onopen(Some(on_open.as_ref().unchecked_ref()));
            source.set_onerror(Some(on_error.as_ref().unchecked_ref()));
            source.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
            source
                .add_event_listener_with_callback("endpoint", on_endpoint.as_ref().unchecked_ref())
                .map_err(|e| describe(&e))?;
            let opened =
                Source { source, _open: on_open, _error: on_error, _message: on_message, _endpoint: on_endpoint };
            Ok((opened, items))
        }

        pub fn close(&self) {
            self.source.close();
        }
    }

    impl Drop for Source {
        fn drop(&mut self) {
            self.source.close();
            self.source.set_onopen(None);
            self.source.set_onerror(None);
            self.source.set_onmessage(None);
            let _ =
                self.source.remove_event_listener_with_callback("endpoint", self._endpoint.as_ref().unchecked_ref());
        }
    }

    fn describe(value: &JsValue) -> String {
        match value.dyn_ref::<js_sys::Error>() {
            Some(error) => String::from(error.message()),
            None => value.as_string().unwrap_or_else(|| format!("{value:?}")),
        }
    }
}

#[cfg(test)]
mod tests {
    #[cfg(not(target_arch = "wasm32"))]
    use futures::channel::mpsc;

    use super::*;
    #[cfg(not(target_arch = "wasm32"))]
    use crate::auth::AuthChallenge;

    const SSE: &str = "http://127.0.0.1:3001/sse";

    #[test]
    fn endpoints_the_sdks_send() {
        assert_eq!(
            endpoint_url(SSE, "/message?sessionId=abc").as_deref(),
            Ok("http://127.0.0.1:3001/message?sessionId=abc")
        );
        assert_eq!(
            endpoint_url(SSE, " /messages/?session_id=f00 \n").as_deref(),
            Ok("http://127.0.0.1:3001/messages/?session_id=f00")
        );
        assert_eq!(endpoint_url(SSE, "messages?x=1").as_deref(), Ok("http://127.0.0.1:3001/messages?x=1"));
        assert_eq!(endpoint_url("http://h/a/b/sse", "../m?s=1").as_deref(), Ok("http://h/a/m?s=1"));
        // Absolute, same origin, default port spelled out or not.
        assert_eq!(
            endpoint_url("https://Example.com/sse", "https://example.COM:443/m").as_deref(),
            Ok("https://example.COM:443/m")
        );
        assert_eq!(endpoint_url("http://[::1]:8080/sse", "/m").as_deref(), Ok("http://[::1]:8080/m"));
    }

    #[test]
    fn endpoints_on_another_origin_are_refused() {
        for endpoint in [
            "http://evil.example/steal",
            "//evil.example/steal",
            "https://127.0.0.1:3001/message",
            "http://127.0.0.1:3002/message",
            "http://localhost:3001/message",
            "ftp://127.0.0.1:3001/message",
            "javascript:alert(1)",
            "http://127.0.0.1:3001@evil.example/m",
        ] {
            match endpoint_url(SSE, endpoint) {
                Err(LegacyError::ForeignEndpoint { url, .. }) => assert_eq!(url, SSE),
                other => panic!("{endpoint}: {other:?}"),
            }
        }
    }

    #[test]
    fn unusable_endpoints_are_refused() {
        for endpoint in ["", "   ", "/a b", "1ab:cd", "/m\u{7}"] {
            assert!(
                matches!(endpoint_url(SSE, endpoint), Err(LegacyError::InvalidEndpoint { .. })),
                "{endpoint:?}: {:?}",
                endpoint_url(SSE, endpoint)
            );
        }
    }

    #[test]
    fn origins() {
        assert_eq!(url::origin_parts("http://A.b/x"), Some(("http".into(), "a.b".into(), 80)));
        assert_eq!(url::origin_parts("HTTPS://u:p@h:8443"), Some(("https".into(), "h".into(), 8443)));
        assert_eq!(url::origin_parts("http://h:99999/"), None);
        assert_eq!(url::origin_parts("/relative"), None);
        assert!(check_http_url("http://127.0.0.1:1/sse").is_ok());
        assert!(check_http_url("ws://h/sse").is_err());
        assert!(check_http_url("http:///sse").is_err());
        assert!(check_http_url("127.0.0.1/sse").is_err());
    }

    #[test]
    fn the_refusal_says_what_the_get_got() {
        let error = LegacyError::NotAnEventStream {
            url: SSE.into(),
            status: 404,
            media_type: Some("text/html".into()),
            detail: "Cannot GET /sse".into(),
        };
        assert_eq!(error.attempt(), format!("GET {SSE} answered 404 text/html"));
        assert_eq!(
            error.to_string(),
            format!("GET {SSE} answered 404 text/html (Cannot GET /sse): not an HTTP+SSE event stream")
        );
        assert!(matches!(TransportError::from(error), TransportError::Http { status: 404, .. }));
    }

    /// An HTTP client whose every exchange the test answers by hand.
    #[cfg(not(target_arch = "wasm32"))]
    mod scripted {
        use futures::channel::{mpsc, oneshot};

        use super::super::*;

        pub type Exchange = (HttpRequest, oneshot::Sender<HttpResponse>);

        pub struct Scripted(pub mpsc::UnboundedSender<Exchange>);

        impl HttpClient for Scripted {
            fn fetch(&self, request: HttpRequest) -> BoxFuture<'static, Result<HttpResponse, HttpError>> {
                let (reply, response) = oneshot::channel();
                let sent = self.0.unbounded_send((request, reply));
                boxed(async move {
                    sent.map_err(|_| HttpError::Network("the test is gone".into()))?;
                    response.await.map_err(|_| HttpError::Network("connection refused".into()))
                })
            }
        }

        pub fn transport(policy: ReconnectPolicy) -> (LegacySseTransport<Scripted>, mpsc::UnboundedReceiver<Exchange>) {
            let (sender, exchanges) = mpsc::unbounded();
            let mut options = LegacySseOptions::new("http://test.invalid/sse");
            options.reconnect = policy;
            options.connect_timeout = Duration::from_secs(5);
            (LegacySseTransport::with_http(Scripted(sender), options), exchanges)
        }

        /// A streamed body the test writes to chunk by chunk.
        pub fn stream() -> (HttpResponse, mpsc::UnboundedSender<Result<Vec<u8>, HttpError>>) {
            let (sender, chunks) = mpsc::unbounded();
            let response = HttpResponse {
                status: 200,
                headers: vec![("content-type".into(), "text/event-stream".into())],
                body: Box::pin(chunks),
            };
            (response, sender)
        }

        pub fn response(status: u16, content_type: &str, body: &str) -> HttpResponse {
            let chunks = if body.is_empty() { Vec::new() } else { vec![Ok(body.as_bytes().to_vec())] };
            HttpResponse {
                status,
                headers: vec![("content-type".into(), content_type.into())],
                body: Box::pin(futures::stream::iter(chunks)),
            }
        }

        pub fn header<'a>(request: &'a HttpRequest, name: &str) -> Option<&'a str> {
            request.headers.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
        }
    }

    /// Polls the transport (as the engine would) until the next exchange.
    #[cfg(not(target_arch = "wasm32"))]
    async fn next_exchange<H: HttpClient>(
        transport: &mut LegacySseTransport<H>,
        exchanges: &mut mpsc::UnboundedReceiver<scripted::Exchange>,
        events: &mut Vec<TransportEvent>,
    ) -> scripted::Exchange {
        let wait = futures::future::poll_fn(|cx| {
            while let Poll::Ready(event) = transport.poll_event(cx) {
                events.push(event);
            }
            exchanges.poll_next_unpin(cx)
        });
        tokio::time::timeout(Duration::from_secs(10), wait).await.expect("a request in time").expect("alive")
    }

    #[cfg(not(target_arch = "wasm32"))]
    async fn next_event<H: HttpClient>(transport: &mut LegacySseTransport<H>) -> TransportEvent {
        let wait = futures::future::poll_fn(|cx| transport.poll_event(cx));
        tokio::time::timeout(Duration::from_secs(10), wait).await.expect("an event in time")
    }

    #[cfg(not(target_arch = "wasm32"))]
    fn fast_policy() -> ReconnectPolicy {
        ReconnectPolicy {
            max_attempts: 2,
            initial_delay: Duration::from_millis(10),
            max_delay: Duration::from_millis(50),
            factor: 2.0,
        }
    }

    #[cfg(not(target_arch = "wasm32"))]
    #[tokio::test]
    async fn posts_go_to_the_endpoint_and_a_reconnect_uses_the_new_one() {
        use scripted::*;
        let (mut transport, mut exchanges) = transport(fast_policy());
        let mut events = Vec::new();
        let (get, reply) = next_exchange(&mut transport, &mut exchanges, &mut events).await;
        assert_eq!(get.method, Method::Get);
        assert_eq!(header(&get, "accept"), Some("text/event-stream"));
        assert_eq!(header(&get, LAST_EVENT_ID_HEADER), None);
        let (opened, body) = stream();
        let _ = reply.send(opened);
        body.unbounded_send(Ok(b"retry: 20\nevent: endpoint\ndata: /m?s=1\n\n".to_vec())).unwrap();

        // The POST goes to the endpoint; its answer comes on the stream.
        let send = tokio::spawn(transport.send(Message::request(1, "ping", None)));
        let (post, reply) = next_exchange(&mut transport, &mut exchanges, &mut events).await;
        assert_eq!(post.method, Method::Post);
        assert_eq!(post.url, "http://test.invalid/m?s=1");
        assert_eq!(header(&post, "content-type"), Some("application/json"));
        let _ = reply.send(response(202, "text/plain", "Accepted"));
        assert_eq!(send.await.unwrap(), Ok(()));
        body.unbounded_send(Ok(
            b"id: 7\nevent: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n\n".to_vec()
        ))
        .unwrap();
        match next_event(&mut transport).await {
            TransportEvent::Message(Message::Response(response)) => assert_eq!(response.id, Some(1.into())),
            other => panic!("{other:?}"),
        }

        // The stream drops: it is reopened with Last-Event-ID, and the new
        // endpoint is used from then on.
        drop(body);
        let (get, reply) = next_exchange(&mut transport, &mut exchanges, &mut events).await;
        assert_eq!(get.method, Method::Get);
        assert_eq!(header(&get, LAST_EVENT_ID_HEADER), Some("7"));
        let (opened, body) = stream();
        let _ = reply.send(opened);
        body.unbounded_send(Ok(b"event: endpoint\ndata: /m?s=2\n\n".to_vec())).unwrap();
        let send = tokio::spawn(transport.send(Message::notification("notifications/initialized", None)));
        let (post, reply) = next_exchange(&mut transport, &mut exchanges, &mut events).await;
        assert_eq!(post.url, "http://test.invalid/m?s=2");
        let _ = reply.send(response(
            500,
            "application/json",
            r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32000,"message":"no such session"}}"#,
        ));
        match send.await.unwrap() {
            Err(TransportError::Http { status: 500, message }) => {
                assert!(message.contains("no such session"), "{message}")
            }
            other => panic!("{other:?}"),
        }
        assert!(events.is_empty(), "{events:?}");
        drop(body);
    }

    #[cfg(not(target_arch = "wasm32"))]
    #[tokio::test]
    async fn a_stream_that_cannot_be_reopened_closes_the_transport() {
        use scripted::*;
        let (mut transport, mut exchanges) = transport(fast_policy());
        let mut events = Vec::new();
        let (_, reply) = next_exchange(&mut transport, &mut exchanges, &mut events).await;
        let (opened, body) = stream();
        let _ = reply.send(opened);
        body.unbounded_send(Ok(b"event: endpoint\ndata: /m\n\n".to_vec())).unwrap();
        drop(body);
        // Two failed reopenings (the policy's max_attempts), then the end.
        for _ in 0..2 {
            let (get, reply) = next_exchange(&mut transport, &mut exchanges, &mut events).await;
            assert_eq!(get.method, Method::Get);
            drop(reply); // connection refused
        }
        let closed = match events.pop() {
            Some(event) => event,
            None => next_event(&mut transport).await,
        };
        match closed {
            TransportEvent::Closed(TransportError::Legacy(LegacyError::StreamLost { attempts, last, .. })) => {
                assert_eq!(attempts, 2);
                assert!(last.contains("connection refused"), "{last}");
            }
            other => panic!("{other:?}"),
        }
        // A message after that fails at once with the reason.
        let outcome = transport.send(Message::request(2, "ping", None)).await;
        assert!(matches!(outcome, Err(TransportError::Legacy(LegacyError::StreamLost { .. }))), "{outcome:?}");
    }

    #[cfg(not(target_arch = "wasm32"))]
    #[tokio::test]
    async fn a_foreign_endpoint_is_refused_and_nothing_is_posted() {
        use scripted::*;
        let (sender, mut exchanges) = mpsc::unbounded();
        let options = LegacySseOptions::new("http://test.invalid/sse");
        let connecting = tokio::spawn(LegacySseTransport::connect(Scripted(sender), options));
        let (_, reply) = tokio::time::timeout(Duration::from_secs(5), exchanges.next()).await.unwrap().unwrap();
        let (opened, body) = stream();
        let _ = reply.send(opened);
        body.unbounded_send(Ok(b"event: endpoint\ndata: https://evil.example/m\n\n".to_vec())).unwrap();
        match connecting.await.unwrap() {
            Err(LegacyError::ForeignEndpoint { endpoint, .. }) => assert_eq!(endpoint, "https://evil.example/m"),
            other => panic!("{other:?}"),
        }
        assert!(exchanges.try_recv().is_err(), "something was sent after the refusal");
    }

    #[cfg(not(target_arch = "wasm32"))]
    #[tokio::test]
    async fn connect_reports_what_the_get_got() {
        use scripted::*;
        let (sender, mut exchanges) = mpsc::unbounded();
        let options = LegacySseOptions::new("http://test.invalid/sse");
        let connecting = tokio::spawn(LegacySseTransport::connect(Scripted(sender), options.clone()));
        let (_, reply) = tokio::time::timeout(Duration::from_secs(5), exchanges.next()).await.unwrap().unwrap();
        let _ = reply.send(response(200, "text/html; charset=utf-8", "<html>hello</html>"));
        match connecting.await.unwrap() {
            Err(error @ LegacyError::NotAnEventStream { status: 200, .. }) => {
                assert_eq!(error.attempt(), "GET http://test.invalid/sse answered 200 text/html")
            }
            other => panic!("{other:?}"),
        }

        // A stream whose first event is not `endpoint`.
        let (sender, mut exchanges) = mpsc::unbounded();
        let connecting = tokio::spawn(LegacySseTransport::connect(Scripted(sender), options));
        let (_, reply) = tokio::time::timeout(Duration::from_secs(5), exchanges.next()).await.unwrap().unwrap();
        let (opened, body) = stream();
        let _ = reply.send(opened);
        body.unbounded_send(Ok(b"data: {}\n\n".to_vec())).unwrap();
        assert!(
            matches!(connecting.await.unwrap(), Err(LegacyError::NoEndpoint { ref event, .. }) if event == "message")
        );
    }

    #[cfg(not(target_arch = "wasm32"))]
    #[tokio::test]
    async fn connect_gives_up_in_time_when_no_endpoint_comes() {
        use scripted::*;
        let (sender, mut exchanges) = mpsc::unbounded();
        let mut options = LegacySseOptions::new("http://test.invalid/sse");
        options.connect_timeout = Duration::from_millis(200);
        let connecting = tokio::spawn(LegacySseTransport::connect(Scripted(sender), options));
        let (_, reply) = tokio::time::timeout(Duration::from_secs(5), exchanges.next()).await.unwrap().unwrap();
        let (opened, body) = stream();
        let _ = reply.send(opened);
        body.unbounded_send(Ok(b": just a comment\n\n".to_vec())).unwrap();
        let outcome = tokio::time::timeout(Duration::from_secs(5), connecting).await.unwrap().unwrap();
        assert!(matches!(outcome, Err(LegacyError::Timeout { .. })), "{outcome:?}");
        drop(body);
    }

    /// An auth provider that hands out `Bearer t<n>` after n authorizations,
    /// each taking `delay`, and records the statuses it was challenged with.
    #[cfg(not(target_arch = "wasm32"))]
    #[derive(Debug, Default)]
    struct CountingAuth {
        delay: Duration,
        authorizations: std::sync::atomic::AtomicU32,
        challenges: Mutex<Vec<u16>>,
    }

    #[cfg(not(target_arch = "wasm32"))]
    impl AuthProvider for CountingAuth {
        fn headers<'a>(
            &'a self,
            _method: Method,
            _url: &'a str,
        ) -> BoxFuture<'a, Result<Vec<(String, String)>, AuthError>> {
            let n = self.authorizations.load(std::sync::atomic::Ordering::SeqCst);
            boxed(async move {
                Ok(if n == 0 { Vec::new() } else { vec![("Authorization".to_owned(), format!("Bearer t{n}"))] })
            })
        }

        fn challenged<'a>(
            &'a self,
            challenge: &'a AuthChallenge,
        ) -> BoxFuture<'a, Result<crate::auth::Recovery, AuthError>> {
            boxed(async move {
                self.challenges.lock().unwrap().push(challenge.status);
                sleep(self.delay).await;
                self.authorizations.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                Ok(crate::auth::Recovery::Credentials)
            })
        }
    }

    #[cfg(not(target_arch = "wasm32"))]
    #[tokio::test]
    async fn with_auth_a_401_runs_the_flow_and_a_403_steps_up_once() {
        use scripted::*;
        let auth = Arc::new(CountingAuth::default());
        let (sender, mut exchanges) = mpsc::unbounded();
        let mut options = LegacySseOptions::new("http://test.invalid/sse");
        options.reconnect = fast_policy();
        options.auth = Some(auth.clone());
        let mut transport = LegacySseTransport::with_http(Scripted(sender), options);
        let mut events = Vec::new();

        // The GET is refused, authorized, sent again with the token.
        let (get, reply) = next_exchange(&mut transport, &mut exchanges, &mut events).await;
        assert_eq!(header(&get, "authorization"), None);
        let mut refused = response(401, "text/plain", "");
        refused.headers.push(("www-authenticate".into(), "Bearer realm=\"mcp\"".into()));
        let _ = reply.send(refused);
        let (get, reply) = next_exchange(&mut transport, &mut exchanges, &mut events).await;
        assert_eq!(get.method, Method::Get);
        assert_eq!(header(&get, "authorization"), Some("Bearer t1"));
        let (opened, body) = stream();
        let _ = reply.send(opened);
        body.unbounded_send(Ok(b"event: endpoint\ndata: /m?s=1\n\n".to_vec())).unwrap();

        // A POST whose token expired: the flow runs again, the POST goes again.
        let send = tokio::spawn(transport.send(Message::request(1, "ping", None)));
        let (post, reply) = next_exchange(&mut transport, &mut exchanges, &mut events).await;
        assert_eq!(header(&post, "authorization"), Some("Bearer t1"));
        let _ = reply.send(response(401, "text/plain", ""));
        let (post, reply) = next_exchange(&mut transport, &mut exchanges, &mut events).await;
        assert_eq!(post.url, "http://test.invalid/m?s=1");
        assert_eq!(header(&post, "authorization"), Some("Bearer t2"));
        let _ = reply.send(response(202, "text/plain", "Accepted"));
        assert_eq!(send.await.unwrap(), Ok(()));

        // insufficient_scope: one step-up, then the refusal is final.
        let insufficient = || {
            let mut refused = response(403, "text/plain", "");
            refused
                .headers
                .push(("www-authenticate".into(), "Bearer error=\"insufficient_scope\", scope=\"mcp:write\"".into()));
            refused
        };
        let send = tokio::spawn(transport.send(Message::request(2, "tools/call", None)));
        let (_, reply) = next_exchange(&mut transport, &mut exchanges, &mut events).await;
        let _ = reply.send(insufficient());
        let (post, reply) = next_exchange(&mut transport, &mut exchanges, &mut events).await;
        assert_eq!(header(&post, "authorization"), Some("Bearer t3"));
        let _ = reply.send(insufficient());
        match send.await.unwrap() {
            Err(TransportError::Http { status: 403, message }) => {
                assert!(message.contains("insufficient_scope") && message.contains("mcp:write"), "{message}")
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(*auth.challenges.lock().unwrap(), vec![401, 401, 403]);
        assert!(events.is_empty(), "{events:?}");
        drop(body);
    }

    #[cfg(not(target_arch = "wasm32"))]
    #[tokio::test]
    async fn waiting_for_the_endpoint_does_not_time_out_while_someone_signs_in() {
        use scripted::*;
        let auth = Arc::new(CountingAuth { delay: Duration::from_millis(600), ..CountingAuth::default() });
        let (sender, mut exchanges) = mpsc::unbounded();
        let mut options = LegacySseOptions::new("http://test.invalid/sse");
        options.connect_timeout = Duration::from_millis(200);
        options.auth = Some(auth.clone());
        let connecting = tokio::spawn(LegacySseTransport::connect(Scripted(sender), options));
        let (_, reply) = tokio::time::timeout(Duration::from_secs(5), exchanges.next()).await.unwrap().unwrap();
        let _ = reply.send(response(401, "text/plain", ""));
        let (get, reply) = tokio::time::timeout(Duration::from_secs(5), exchanges.next()).await.unwrap().unwrap();
        assert_eq!(header(&get, "authorization"), Some("Bearer t1"));
        let (opened, body) = stream();
        let _ = reply.send(opened);
        body.unbounded_send(Ok(b"event: endpoint\ndata: /m\n\n".to_vec())).unwrap();
        let transport = tokio::time::timeout(Duration::from_secs(5), connecting).await.unwrap().unwrap();
        assert_eq!(transport.map(|t| t.endpoint()), Ok(Some("http://test.invalid/m".to_owned())));
        drop(body);
    }
}
