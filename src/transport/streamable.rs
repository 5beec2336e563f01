//! The Streamable HTTP transport (2025-03-26 to 2025-11-25), one
//! implementation for every target over the [`HttpClient`] seam.
//!
//! Every message is its own POST. A request's answer comes as a JSON body or
//! as an SSE stream that may carry server requests and notifications first.
//! When such a stream ends before the answer (a cut, or a server that closes
//! it on purpose to be polled), it is resumed with GET and `Last-Event-ID`.
//! After the handshake a standalone GET stream carries whatever the server
//! sends unprompted.

use std::collections::{HashSet, VecDeque};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Duration;

use futures::StreamExt;
use futures::channel::oneshot;

use super::authorize::{self, AuthContext, StillInsufficient};
use super::inbox::{Inbox, Outbox};
use super::sse::{SseEvent, SseParser};
use super::{Transport, TransportError, TransportEvent};
use crate::auth::{AuthChallenge, AuthProvider};
use crate::http::{DefaultHttp, HttpClient, HttpError, HttpRequest, HttpResponse, Method};
use crate::protocol::jsonrpc::decode;
use crate::protocol::{Message, ProtocolVersion, RequestId, methods};
use crate::runtime::{BoxFuture, boxed, sleep};

mod stateless;

/// The session header (case-insensitive on the wire).
pub const SESSION_HEADER: &str = "Mcp-Session-Id";
/// The negotiated-version header.
pub const VERSION_HEADER: &str = "MCP-Protocol-Version";
/// The resumption header.
pub const LAST_EVENT_ID_HEADER: &str = "Last-Event-ID";

/// How broken streams are resumed.
#[derive(Debug, Clone, PartialEq)]
pub struct ReconnectPolicy {
    /// Consecutive failed attempts before giving up.
    pub max_attempts: u32,
    /// The first delay when the server sent no `retry`.
    pub initial_delay: Duration,
    /// The longest delay.
    pub max_delay: Duration,
    /// How much each failed attempt multiplies the delay.
    pub factor: f64,
}

impl Default for ReconnectPolicy {
    fn default() -> Self {
        ReconnectPolicy {
            max_attempts: 5,
            initial_delay: Duration::from_millis(500),
            max_delay: Duration::from_secs(30),
            factor: 2.0,
        }
    }
}

impl ReconnectPolicy {
    /// The wait before attempt `attempt` (1-based). The server's `retry`
    /// wins; otherwise capped exponential backoff with ±20% jitter, so many
    /// clients cut at once do not come back at once.
    pub fn delay(&self, attempt: u32, server_retry: Option<Duration>) -> Duration {
        if let Some(retry) = server_retry {
            return retry;
        }
        let exponent = attempt.saturating_sub(1).min(30) as i32;
        let base = self.initial_delay.as_secs_f64() * self.factor.powi(exponent);
        let capped = base.min(self.max_delay.as_secs_f64());
        let jitter = 0.8 + 0.4 * crate::runtime::random_unit();
        Duration::from_secs_f64((capped * jitter).min(self.max_delay.as_secs_f64()))
    }
}

/// Configuration of a Streamable HTTP connection.
#[derive(Debug, Clone)]
pub struct StreamableHttpOptions {
    /// The MCP endpoint.
    pub url: String,
    /// Extra headers sent with every request (after the protocol's own).
    pub headers: Vec<(String, String)>,
    /// How broken streams are resumed.
    pub reconnect: ReconnectPolicy,
    /// Open the standalone GET stream after the handshake.
    pub open_server_stream: bool,
    /// The largest JSON body or SSE event accepted.
    pub max_message_bytes: usize,
    /// Authorization (OAuth): credentials on every request, the flow on 401,
    /// step-up on 403 `insufficient_scope`.
    pub auth: Option<Arc<dyn AuthProvider>>,
}

impl StreamableHttpOptions {
    /// Defaults for this endpoint.
    pub fn new(url: impl Into<String>) -> Self {
        StreamableHttpOptions {
            url: url.into(),
            headers: Vec::new(),
            reconnect: ReconnectPolicy::default(),
            open_server_stream: true,
            max_message_bytes: 16 * 1024 * 1024,
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
}

impl<H: HttpClient> std::fmt::Debug for StreamableHttpTransport<H> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StreamableHttpTransport").field("url", &self.shared.options.url).finish_non_exhaustive()
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
        StreamableHttpTransport { shared: Arc::new(shared), inbox }
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

    /// The server answered 404 to a request that carried `carried`. Forget
    /// that session, but only if it is still the current one: a late 404 from
    /// the old session must not erase the session a restart just opened.
    fn session_lost(&self, carried: &str) -> TransportError {
        let mut state = self.state();
        if state.session_id.as_deref() == Some(carried) {
            state.session_id = None;
            state.session_expired = true;
        }
        TransportError::SessionExpired
    }

    fn request(&self, method: Method, body: Option<String>, last_event_id: Option<&str>) -> HttpRequest {
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
            if let Some(session) = &state.session_id {
                headers.push((SESSION_HEADER.to_owned(), session.clone()));
            }
            if let Some(version) = state.protocol_version {
                headers.push((VERSION_HEADER.to_owned(), version.as_str().to_owned()));
            }
        }
        if let Some(id) = last_event_id.filter(|id| !id.is_empty()) {
            headers.push((LAST_EVENT_ID_HEADER.to_owned(), id.to_owned()));
        }
        headers.extend(self.options.headers.iter().cloned());
        HttpRequest { method, url: self.options.url.clone(), headers, body }
    }

    async fn fetch(&self, request: HttpRequest) -> Result<HttpResponse, TransportError> {
        Ok(self.exchange(request).await?.0)
    }

    /// Sends a request with the auth provider's credentials, if any; returns
    /// the response and the [`fingerprint`](crate::auth::fingerprint) of the credential it carried.
    async fn exchange(&self, mut request: HttpRequest) -> Result<(HttpResponse, Option<String>), TransportError> {
        let credential = authorize::add_credentials(self.options.auth.as_ref(), &mut request).await?;
        Ok((self.send_http(request).await?, credential))
    }

    /// Sends a request as it is, up to the response's headers.
    async fn send_http(&self, request: HttpRequest) -> Result<HttpResponse, TransportError> {
        let method = request.method;
        self.http.fetch(request).await.map_err(|error| match error {
            HttpError::Network(message) => TransportError::Io(message),
            other => TransportError::Other(format!("{} {}: {other}", method.as_str(), self.options.url)),
        })
    }

    /// A 401, or a 403 with `insufficient_scope`, that the auth provider may
    /// recover from; `None` when there is no provider or nothing to do.
    fn auth_challenge(&self, response: &HttpResponse, credential: Option<String>) -> Option<AuthChallenge> {
        self.options.auth.as_ref()?;
        authorize::challenge_in(response, credential, self.protocol_version())
    }

    fn deliver(&self, message: Message) {
        // The receiver lives as long as the transport; a send after it is
        // gone has nobody to tell.
        let _ = self.inbound.unbounded_send(TransportEvent::Message(message));
    }

    /// Decodes one payload (a message or a batch) and delivers it. Returns
    /// whether it held the response to `awaited`.
    fn deliver_payload(&self, payload: &str, awaited: Option<&RequestId>) -> bool {
        let mut answered = false;
        match decode(payload) {
            Ok(messages) => {
                for message in messages {
                    match message {
                        Ok(message) => {
                            if let (Message::Response(response), Some(awaited)) = (&message, awaited)
                                && response.id.as_ref() == Some(awaited)
                            {
                                answered = true;
                            }
                            self.deliver(message);
                        }
                        Err(error) => log::warn!("skipping an invalid message from {}: {error}", self.options.url),
                    }
                }
            }
            Err(error) => log::warn!("skipping a payload from {} that is not JSON-RPC: {error}", self.options.url),
        }
        answered
    }

    /// Sends one message as a POST and handles whatever comes back.
    async fn post(self: Arc<Self>, message: Message) -> Result<(), TransportError> {
        let awaited = match &message {
            Message::Request(request) => Some(request.id.clone()),
            _ => None,
        };
        let is_initialize = message.method() == Some(methods::INITIALIZE);
        if !is_initialize && self.state().session_expired {
            return Err(TransportError::SessionExpired);
        }
        let body = message.to_json();
        let this = &*self;
        let (response, carried_session) = authorize::send(
            this,
            StillInsufficient::Fail,
            || {
                let request = this.request(Method::Post, Some(body.clone()), None);
                let carried_session = session_of(&request);
                futures::future::ready(Ok::<_, TransportError>((request, carried_session)))
            },
            |request| this.send_http(request),
        )
        .await?;
        let status = response.status;
        if let (404, Some(carried)) = (status, &carried_session) {
            // The server forgot the session: drop it, so the engine's new
            // handshake goes out without it.
            return Err(self.session_lost(carried));
        }
        if !(200..300).contains(&status) {
            return Err(self.http_failure(response, carried_session.is_some()).await);
        }
        if is_initialize {
            self.adopt_session(&response)?;
        }
        if status == 202 {
            return Ok(());
        }
        self.read_reply(response, awaited, carried_session).await
    }

    /// A 2xx answer with a body: an SSE stream, read (and resumed within
    /// `session`, if it has one) until it ends, or one JSON payload.
    pub(super) async fn read_reply(
        &self,
        response: HttpResponse,
        awaited: Option<RequestId>,
        session: Option<String>,
    ) -> Result<(), TransportError> {
        match response.media_type().as_deref() {
            Some("text/event-stream") => self.read_stream(response, awaited, session).await,
            Some("application/json") => {
                let body = response
                    .read_body(self.options.max_message_bytes)
                    .await
                    .map_err(|e| TransportError::Io(e.to_string()))?;
                let text = String::from_utf8_lossy(&body);
                if text.trim().is_empty() && awaited.is_none() {
                    return Ok(());
                }
                let answered = self.deliver_payload(&text, awaited.as_ref());
                match awaited {
                    Some(id) if !answered => Err(TransportError::InvalidMessage(format!(
                        "the JSON reply to request {id} does not contain its response"
                    ))),
                    _ => Ok(()),
                }
            }
            // A notification or response accepted with 200 and some body.
            _ if awaited.is_none() => Ok(()),
            other => Err(TransportError::InvalidMessage(format!(
                "POST {} answered a request with {} instead of application/json or text/event-stream: \
                 is this the server's MCP endpoint?",
                self.options.url,
                other.unwrap_or("no Content-Type")
            ))),
        }
    }

    fn adopt_session(&self, response: &HttpResponse) -> Result<(), TransportError> {
        let mut state = self.state();
        match response.header(SESSION_HEADER) {
            Some(id) => {
                if id.is_empty() || !id.bytes().all(|b| (0x21..=0x7e).contains(&b)) {
                    return Err(TransportError::InvalidMessage(format!(
                        "the server's {SESSION_HEADER} {id:?} is not visible ASCII"
                    )));
                }
                state.session_id = Some(id.to_owned());
                state.session_header_unreadable = false;
            }
            None => {
                state.session_id = None;
                state.session_header_unreadable = true;
            }
        }
        state.session_expired = false;
        Ok(())
    }

    /// Turns an HTTP error status into an error a user can act on.
    async fn http_failure(&self, response: HttpResponse, carried_session: bool) -> TransportError {
        let status = response.status;
        let www_authenticate = response.header("www-authenticate").map(str::to_owned);
        let body = response.read_body(64 * 1024).await.unwrap_or_default();
        let text = String::from_utf8_lossy(&body);
        let mut message = match decode(&text).ok().and_then(|mut m| m.pop()).and_then(Result::ok) {
            Some(Message::Response(crate::protocol::Response { outcome: Err(error), .. })) => {
                format!("the server answered with an error: {error}")
            }
            _ if text.trim().is_empty() => status_text(status).to_owned(),
            _ => format!("{}: {}", status_text(status), text.chars().take(300).collect::<String>()),
        };
        let in_browser = cfg!(target_arch = "wasm32");
        if in_browser && status == 400 && !carried_session && self.state().session_header_unreadable {
            message.push_str(&format!(
                ". The server may have sent {SESSION_HEADER} without exposing it to this page: \
                 its CORS policy must include `Access-Control-Expose-Headers: {SESSION_HEADER}`"
            ));
        }
        if status == 401 {
            match www_authenticate {
                Some(challenge) => message.push_str(&format!(" (WWW-Authenticate: {challenge})")),
                None if in_browser => message.push_str(
                    ". No WWW-Authenticate header is readable: if the server sent one, its CORS policy \
                     must include `Access-Control-Expose-Headers: WWW-Authenticate`",
                ),
                None => {}
            }
        }
        TransportError::Http { status, message }
    }

    /// Reads an SSE stream until it ends, delivering every message. With
    /// `awaited`, a stream that ends before that response is resumed with
    /// GET and `Last-Event-ID` until it comes or attempts run out. The
    /// stream belongs to `session`, the session its POST carried: it cannot
    /// be resumed in another one.
    async fn read_stream(
        &self,
        response: HttpResponse,
        awaited: Option<RequestId>,
        session: Option<String>,
    ) -> Result<(), TransportError> {
        let mut parser = SseParser::with_limit(self.options.max_message_bytes);
        let mut seen = SeenEvents::default();
        let mut response = response;
        let mut failures = 0u32;
        loop {
            let outcome = self.consume(&mut response, &mut parser, &mut seen, awaited.as_ref()).await?;
            parser.finish();
            let Some(id) = &awaited else { return Ok(()) };
            if outcome.answered {
                return Ok(());
            }
            if parser.last_event_id().is_empty() {
                return Err(TransportError::Closed(format!(
                    "the server ended the response stream for request {id} before answering, \
                     and gave no event id to resume from"
                )));
            }
            if outcome.received_any {
                failures = 0;
            }
            let mut last_problem = String::from("the stream ended");
            response = loop {
                failures += 1;
                if failures > self.options.reconnect.max_attempts {
                    return Err(TransportError::Closed(format!(
                        "the response stream for request {id} broke and could not be resumed after {} attempts \
                         (last: {last_problem})",
                        self.options.reconnect.max_attempts
                    )));
                }
                self.check_resumable(session.as_deref())?;
                sleep(self.options.reconnect.delay(failures, parser.retry())).await;
                self.check_resumable(session.as_deref())?;
                let request = self.request(Method::Get, None, Some(parser.last_event_id()));
                match self.fetch(request).await {
                    Ok(resumed)
                        if (200..300).contains(&resumed.status)
                            && resumed.media_type().as_deref() == Some("text/event-stream") =>
                    {
                        break resumed;
                    }
                    Ok(refused) => match (refused.status, &session) {
                        (404, Some(carried)) => return Err(self.session_lost(carried)),
                        (405, _) => {
                            return Err(TransportError::Closed(format!(
                                "the response stream for request {id} broke, and the server does not \
                                 let it be resumed (HTTP 405 to GET {} with {LAST_EVENT_ID_HEADER})",
                                self.options.url
                            )));
                        }
                        (status, _) => {
                            last_problem = match refused.media_type() {
                                Some(media) if (200..300).contains(&status) => {
                                    format!("GET answered {media}, not text/event-stream")
                                }
                                _ => format!("GET answered HTTP {status}"),
                            };
                            log::warn!("resuming request {id}: {last_problem}");
                        }
                    },
                    Err(error) => {
                        log::warn!("resuming request {id}: {error}");
                        last_problem = error.to_string();
                    }
                }
            };
        }
    }

    /// Whether a broken stream of `session` may still be resumed: not after
    /// close, and not once the session is gone or replaced (the engine then
    /// retries the request in the new session).
    fn check_resumable(&self, session: Option<&str>) -> Result<(), TransportError> {
        let state = self.state();
        if state.closed {
            return Err(TransportError::Closed("the transport is closed".into()));
        }
        if session.is_some() && state.session_id.as_deref() != session {
            return Err(TransportError::SessionExpired);
        }
        Ok(())
    }

    /// Reads one connection's events. A broken connection ends the read
    /// like a closed one: the caller decides whether to resume.
    async fn consume(
        &self,
        response: &mut HttpResponse,
        parser: &mut SseParser,
        seen: &mut SeenEvents,
        awaited: Option<&RequestId>,
    ) -> Result<StreamOutcome, TransportError> {
        let mut outcome = StreamOutcome::default();
        let mut events = Vec::new();
        seen.new_connection();
        while let Some(chunk) = response.body.next().await {
            let chunk = match chunk {
                Ok(chunk) => chunk,
                Err(error) => {
                    log::debug!("the event stream from {} broke: {error}", self.options.url);
                    break;
                }
            };
            if let Err(error) = parser.feed(&chunk, &mut events) {
                log::warn!("skipping an oversized event from {}: {error}", self.options.url);
            }
            for event in events.drain(..) {
                outcome.received_any = true;
                if !seen.first_time(&event) {
                    log::debug!("dropping a replayed event {}", event.id);
                    continue;
                }
                // A priming event (an id with empty data, 2025-11-25) only
                // gives a resumption point.
                if event.data.trim().is_empty() {
                    continue;
                }
                if event.event != "message" {
                    log::debug!("ignoring an SSE event of type {:?}", event.event);
                    continue;
                }
                if self.deliver_payload(&event.data, awaited) {
                    outcome.answered = true;
                }
            }
        }
        Ok(outcome)
    }

    /// The standalone GET stream: open after the handshake, resumed when it
    /// ends, given up after too many consecutive failures. It belongs to the
    /// session it was opened in and ends when that session is gone.
    async fn server_stream(self: Arc<Self>, opened: Option<oneshot::Sender<()>>) {
        // Told once the first GET is answered, whatever the answer.
        let mut opened = opened;
        let mut parser = SseParser::with_limit(self.options.max_message_bytes);
        let mut seen = SeenEvents::default();
        let mut failures = 0u32;
        let session = self.state().session_id.clone();
        loop {
            {
                let state = self.state();
                if state.closed || state.session_id != session {
                    return;
                }
            }
            let request = self.request(Method::Get, None, Some(parser.last_event_id()));
            let answered = self.exchange(request).await;
            if let Some(opened) = opened.take() {
                let _ = opened.send(());
            }
            match answered {
                Ok((response, credential)) if response.status == 401 && self.options.auth.is_some() => {
                    let challenge = self.auth_challenge(&response, credential);
                    drop(response);
                    if let (Some(auth), Some(challenge)) = (&self.options.auth, challenge)
                        && let Err(error) = auth.challenged(&challenge).await
                    {
                        log::warn!("the server stream needs authorization, which failed: {error}");
                        return;
                    }
                    failures += 1;
                }
                Ok((response, _)) if response.status == 405 || response.status == 404 => {
                    log::debug!("the server offers no GET stream (HTTP {})", response.status);
                    return;
                }
                Ok((mut response, _))
                    if (200..300).contains(&response.status)
                        && response.media_type().as_deref() == Some("text/event-stream") =>
                {
                    match self.consume(&mut response, &mut parser, &mut seen, None).await {
                        Ok(outcome) if outcome.received_any => failures = 0,
                        Ok(_) => failures += 1,
                        Err(error) => {
                            log::warn!("the server stream failed: {error}");
                            failures += 1;
                        }
                    }
                    parser.finish();
                }
                Ok((response, _)) => {
                    log::warn!("the server stream was refused with HTTP {}", response.status);
                    failures += 1;
                }
                Err(error) => {
                    log::warn!("the server stream could not connect: {error}");
                    failures += 1;
                }
            }
            if failures > self.options.reconnect.max_attempts {
                log::warn!("giving up on the server stream after {} failed attempts", failures - 1);
                return;
            }
            sleep(self.options.reconnect.delay(failures.max(1), parser.retry())).await;
        }
    }

    async fn delete_session(self: Arc<Self>) -> Result<(), TransportError> {
        if self.state().session_id.is_none() {
            return Ok(());
        }
        let request = self.request(Method::Delete, None, None);
        self.state().session_id = None;
        match self.fetch(request).await {
            // 405: the server does not let clients end sessions; that is fine.
            Ok(response)
                if (200..300).contains(&response.status) || response.status == 405 || response.status == 404 =>
            {
                Ok(())
            }
            Ok(response) => Err(TransportError::Http {
                status: response.status,
                message: "the server refused to end the session".into(),
            }),
            Err(error) => Err(error),
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

/// The session id a request carries, if any.
fn session_of(request: &HttpRequest) -> Option<String> {
    request.headers.iter().find(|(name, _)| name == SESSION_HEADER).map(|(_, value)| value.clone())
}

#[derive(Default)]
struct StreamOutcome {
    answered: bool,
    received_any: bool,
}

/// Event ids already delivered on one stream, so a server that replays too
/// much after `Last-Event-ID` cannot make us deliver a message twice.
///
/// An SSE id persists from event to event until the server sets a new one,
/// so only an id that changed names a new event; events that merely inherit
/// the current id are always new.
#[derive(Default)]
struct SeenEvents {
    ids: HashSet<String>,
    order: VecDeque<String>,
    current: Option<String>,
}

impl SeenEvents {
    const REMEMBERED: usize = 4096;

    /// A reconnect: the next event's id is compared with history again.
    fn new_connection(&mut self) {
        self.current = None;
    }

    fn first_time(&mut self, event: &SseEvent) -> bool {
        if event.id.is_empty() || self.current.as_deref() == Some(event.id.as_str()) {
            return true;
        }
        self.current = Some(event.id.clone());
        if !self.ids.insert(event.id.clone()) {
            return false;
        }
        self.order.push_back(event.id.clone());
        if self.order.len() > Self::REMEMBERED
            && let Some(oldest) = self.order.pop_front()
        {
            self.ids.remove(&oldest);
        }
        true
    }
}

fn status_text(status: u16) -> &'static str {
    match status {
        400 => "bad request",
        401 => "unauthorized",
        403 => "forbidden",
        404 => "not found",
        405 => "method not allowed",
        406 => "not acceptable",
        415 => "unsupported media type",
        429 => "too many requests",
        500..=599 => "server error",
        _ => "unexpected status",
    }
}

impl<H: HttpClient> Transport for StreamableHttpTransport<H> {
    fn send(&mut self, message: Message) -> BoxFuture<'static, Result<(), TransportError>> {
        boxed(self.shared.clone().post(message))
    }

    fn poll_event(&mut self, cx: &mut Context<'_>) -> Poll<TransportEvent> {
        self.inbox.poll_event(cx)
    }

    fn send_stateless(
        &mut self,
        message: Message,
        headers: Vec<(String, String)>,
    ) -> BoxFuture<'static, Result<(), TransportError>> {
        boxed(self.shared.clone().post_stateless(message, headers))
    }

    fn set_protocol_version(&mut self, version: ProtocolVersion) {
        self.shared.state().protocol_version = Some(version);
    }

    fn on_initialized(&mut self) -> BoxFuture<'static, ()> {
        if !self.shared.options.open_server_stream {
            return boxed(async {});
        }
        // After a session restart, the old session's stream is dropped
        // (which aborts its request): one GET stream per session.
        self.inbox.clear();
        let (opened, ready) = oneshot::channel();
        self.inbox.run(boxed(self.shared.clone().server_stream(Some(opened))));
        // Dropped unsent (the stream gave up): ready all the same.
        boxed(async move {
            let _ = ready.await;
        })
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn server_retry_wins_over_backoff() {
        let policy = ReconnectPolicy::default();
        assert_eq!(policy.delay(3, Some(Duration::from_millis(1234))), Duration::from_millis(1234));
    }

    #[test]
    fn backoff_grows_and_is_capped() {
        let policy = ReconnectPolicy::default();
        for attempt in 1..40 {
            let delay = policy.delay(attempt, None);
            assert!(delay <= policy.max_delay, "attempt {attempt}: {delay:?}");
            assert!(delay >= policy.initial_delay.mul_f64(0.8), "attempt {attempt}: {delay:?}");
        }
        assert!(policy.delay(4, None) > policy.delay(1, None));
    }

    /// An HTTP client whose every exchange the test answers by hand.
    #[cfg(not(target_arch = "wasm32"))]
    mod scripted {
        use futures::channel::{mpsc, oneshot};

        use super::super::*;

        pub type Exchange = (HttpRequest, oneshot::Sender<HttpResponse>);

        pub struct Scripted(mpsc::UnboundedSender<Exchange>);

        impl HttpClient for Scripted {
            fn fetch(&self, request: HttpRequest) -> BoxFuture<'static, Result<HttpResponse, HttpError>> {
                let (reply, response) = oneshot::channel();
                let sent = self.0.unbounded_send((request, reply));
                boxed(async move {
                    sent.map_err(|_| HttpError::Network("the test is gone".into()))?;
                    response.await.map_err(|_| HttpError::Network("the test dropped the exchange".into()))
                })
            }
        }

        pub fn transport(
            policy: ReconnectPolicy,
        ) -> (StreamableHttpTransport<Scripted>, mpsc::UnboundedReceiver<Exchange>) {
            let (sender, exchanges) = mpsc::unbounded();
            let mut options = StreamableHttpOptions::new("http://test.invalid/mcp");
            options.reconnect = policy;
            (StreamableHttpTransport::with_http(Scripted(sender), options), exchanges)
        }

        pub fn response(status: u16, headers: &[(&str, &str)], body: &str) -> HttpResponse {
            let chunks = if body.is_empty() { Vec::new() } else { vec![Ok(body.as_bytes().to_vec())] };
            HttpResponse {
                status,
                headers: headers.iter().map(|(n, v)| (n.to_string(), v.to_string())).collect(),
                body: Box::pin(futures::stream::iter(chunks)),
            }
        }

        pub fn initialized(id: i64, session: &str) -> HttpResponse {
            let body = format!(r#"{{"jsonrpc":"2.0","id":{id},"result":{{}}}}"#);
            response(200, &[("content-type", "application/json"), ("mcp-session-id", session)], &body)
        }

        pub fn session(request: &HttpRequest) -> Option<&str> {
            request.headers.iter().find(|(n, _)| n == SESSION_HEADER).map(|(_, v)| v.as_str())
        }
    }

    #[cfg(not(target_arch = "wasm32"))]
    async fn next(exchanges: &mut futures::channel::mpsc::UnboundedReceiver<scripted::Exchange>) -> scripted::Exchange {
        tokio::time::timeout(Duration::from_secs(5), exchanges.next())
            .await
            .expect("a request in time")
            .expect("the transport is alive")
    }

    #[cfg(not(target_arch = "wasm32"))]
    #[tokio::test]
    async fn a_late_404_from_the_old_session_does_not_erase_the_new_one() {
        use scripted::*;
        let (mut transport, mut exchanges) = transport(ReconnectPolicy::default());
        let init = tokio::spawn(transport.send(Message::request(1, methods::INITIALIZE, None)));
        let (_, reply) = next(&mut exchanges).await;
        let _ = reply.send(initialized(1, "old"));
        assert_eq!(init.await.unwrap(), Ok(()));

        // B goes out in the old session and waits; A finds the session gone.
        let b = tokio::spawn(transport.send(Message::request(2, "tools/list", None)));
        let (request_b, reply_b) = next(&mut exchanges).await;
        assert_eq!(session(&request_b), Some("old"));
        let a = tokio::spawn(transport.send(Message::request(3, "tools/list", None)));
        let (_, reply_a) = next(&mut exchanges).await;
        let _ = reply_a.send(response(404, &[], ""));
        assert_eq!(a.await.unwrap(), Err(TransportError::SessionExpired));
        assert_eq!(transport.session_id(), None);

        // Until a new handshake, nothing else goes out without a session.
        assert_eq!(transport.send(Message::request(4, "tools/list", None)).await, Err(TransportError::SessionExpired));
        assert!(exchanges.try_recv().is_err(), "a request went out without a session");

        let init = tokio::spawn(transport.send(Message::request(5, methods::INITIALIZE, None)));
        let (request, reply) = next(&mut exchanges).await;
        assert_eq!(session(&request), None, "the new handshake must not carry the old session");
        let _ = reply.send(initialized(5, "new"));
        assert_eq!(init.await.unwrap(), Ok(()));

        // B's 404 arrives late: it expires the old session, not the new one.
        let _ = reply_b.send(response(404, &[], ""));
        assert_eq!(b.await.unwrap(), Err(TransportError::SessionExpired));
        assert_eq!(transport.session_id().as_deref(), Some("new"));
        let c = tokio::spawn(transport.send(Message::request(6, "tools/list", None)));
        let (request_c, reply_c) = next(&mut exchanges).await;
        assert_eq!(session(&request_c), Some("new"));
        let _ = reply_c.send(response(
            200,
            &[("content-type", "application/json")],
            r#"{"jsonrpc":"2.0","id":6,"result":{}}"#,
        ));
        assert_eq!(c.await.unwrap(), Ok(()));
    }

    #[cfg(not(target_arch = "wasm32"))]
    #[tokio::test]
    async fn a_stream_of_the_old_session_is_not_resumed_in_the_new_one() {
        use scripted::*;
        let policy = ReconnectPolicy { initial_delay: Duration::from_millis(300), ..ReconnectPolicy::default() };
        let (mut transport, mut exchanges) = transport(policy);
        let init = tokio::spawn(transport.send(Message::request(1, methods::INITIALIZE, None)));
        let (_, reply) = next(&mut exchanges).await;
        let _ = reply.send(initialized(1, "old"));
        assert_eq!(init.await.unwrap(), Ok(()));

        // B's stream breaks after its priming event: it will resume later.
        let b = tokio::spawn(transport.send(Message::request(2, "tools/call", None)));
        let (_, reply_b) = next(&mut exchanges).await;
        let _ = reply_b.send(response(200, &[("content-type", "text/event-stream")], "id: old-1\ndata:\n\n"));

        // Meanwhile the session expires and is replaced.
        let a = tokio::spawn(transport.send(Message::request(3, "tools/list", None)));
        let (_, reply_a) = next(&mut exchanges).await;
        let _ = reply_a.send(response(404, &[], ""));
        assert_eq!(a.await.unwrap(), Err(TransportError::SessionExpired));
        let init = tokio::spawn(transport.send(Message::request(4, methods::INITIALIZE, None)));
        let (_, reply) = next(&mut exchanges).await;
        let _ = reply.send(initialized(4, "new"));
        assert_eq!(init.await.unwrap(), Ok(()));

        // B gives up on its stream (the engine retries it) instead of sending
        // the new session a Last-Event-ID from the old one.
        let outcome = tokio::time::timeout(Duration::from_secs(5), b).await.expect("B ends").unwrap();
        assert_eq!(outcome, Err(TransportError::SessionExpired));
        assert!(exchanges.try_recv().is_err(), "the old stream was resumed in the new session");
    }

    #[test]
    fn replayed_events_are_dropped_once_seen() {
        let mut seen = SeenEvents::default();
        let event = |id: &str| SseEvent { event: "message".into(), data: "{}".into(), id: id.into() };
        assert!(seen.first_time(&event("1")));
        // Later events that inherit the id are new events.
        assert!(seen.first_time(&event("1")));
        assert!(seen.first_time(&event("2")));
        assert!(seen.first_time(&event("")));
        // After a reconnect, a replay of an event already delivered is dropped.
        seen.new_connection();
        assert!(!seen.first_time(&event("2")));
        assert!(seen.first_time(&event("3")));
    }
}
