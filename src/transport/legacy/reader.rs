//! Reading the server's event stream for the life of the transport: over
//! the HTTP seam and the SSE parser, or (in a browser) through the
//! browser's `EventSource`; reopened with EventSource semantics.

use std::sync::Arc;
use std::time::Duration;

use futures::StreamExt;
use futures::future::{Either, select};

use super::super::TransportError;
use super::super::authorize::{self, Attempt, StillInsufficient};
use super::super::sse::{SseEvent, SseParser};
use super::super::streamable::LAST_EVENT_ID_HEADER;
use super::endpoint::check_http_url;
use super::endpoint_url;
#[cfg(target_arch = "wasm32")]
use super::error::human;
#[cfg(target_arch = "wasm32")]
use super::event_source;
use super::post::body_excerpt;
use super::{LegacyError, Shared};
use crate::cause::Cause;
use crate::http::{HttpClient, HttpError, HttpRequest, HttpResponse, Method};
use crate::runtime::{BoxFuture, boxed, sleep};

impl<H: HttpClient> Shared<H> {
    /// A connection opened.
    pub(super) fn on_open(&self) {
        self.state().connected_once = true;
    }

    /// A connection dropped (it may be reopened).
    pub(super) fn on_drop(&self) {
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
        } else if !event.data.trim_ascii().is_empty() {
            self.deliver(event.data);
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
        for header in &self.options.headers {
            headers.push(header.clone());
        }
        HttpRequest { method: Method::Get, url: self.options.url.clone(), headers, body: None }
    }

    /// Reads the stream for the life of the transport.
    pub(super) async fn run(self: Arc<Self>) {
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
        // The stream over the HTTP seam and the SSE parser.
        let parser = SseParser::with_limit(self.options.max_message_bytes);
        self.fetch_from(parser, 0, None).await
    }

    /// The fetch loop, from `failures` consecutive failed connections,
    /// after waiting `wait` (the `EventSource`'s stream handed over): one
    /// `.await` of the sleep for every wait before a connection.
    async fn fetch_from(self: Arc<Self>, mut parser: SseParser, mut failures: u32, mut wait: Option<Duration>) {
        let policy = self.options.reconnect.clone();
        loop {
            if let Some(delay) = wait.take() {
                sleep(delay).await;
            }
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
            wait = Some(delay);
        }
    }

    /// One GET, up to its headers (at most `connect_timeout`, plus the time
    /// an authorization takes when the server asks for one).
    async fn open(&self, parser: &SseParser) -> Result<HttpResponse, LegacyError> {
        let url = self.options.url.clone();
        // The GET's own failures travel through the auth loop as
        // `TransportError::Legacy` and come out unchanged (`open_failure`).
        // A 403 a step-up did not cure is reported like any other refusal.
        let mut attempt = GetAttempt { shared: self, parser };
        let response = authorize::send(self, StillInsufficient::Answer, &mut attempt)
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
                return self.give_up(LegacyError::Unreachable { url: self.options.url.clone(), reason: reason.into() });
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
                    connection.last_event_id.clone_from(&event.id);
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
                    if connection.events > 0 {
                        // The stream ended after it carried events: the
                        // browser would wait its own reconnection time
                        // (seconds, whatever the server's answer will be)
                        // while requests wait for their answers on this
                        // stream. Reopen it at once with fetch, as natively:
                        // a server that refuses the new stream fails them at
                        // once with its answer, one that resumes the session
                        // gets `Last-Event-ID` and carries on.
                        source.close();
                        drop(source);
                        let (parser, delay) = self.take_over(&connection.last_event_id, failures);
                        return self.fetch_from(parser, failures, Some(delay)).await;
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

    /// Goes on reading with fetch after the `EventSource`'s stream ended:
    /// the parser that knows the last event's id, and the wait before the
    /// first fetch.
    #[cfg(target_arch = "wasm32")]
    fn take_over(&self, last_event_id: &str, failures: u32) -> (SseParser, Duration) {
        self.state().event_source = false;
        let mut parser = SseParser::with_limit(self.options.max_message_bytes);
        // The parser is the one place the id of the last event lives: an
        // event with only an `id` sets it and dispatches nothing.
        if !last_event_id.is_empty() {
            let _ = parser.feed(format!("id: {last_event_id}\n\n").as_bytes(), &mut Vec::new());
        }
        let delay = self.options.reconnect.delay(failures, None);
        log::debug!("the event stream from {} ended; reopening it with fetch in {delay:?}", self.options.url);
        (parser, delay)
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
            other => LegacyError::Unreachable { url: self.options.url.clone(), reason: Cause::of(other) },
        }
    }
}

/// The GET of [`Shared::open`], for the authorization loop.
struct GetAttempt<'a, H> {
    shared: &'a Shared<H>,
    parser: &'a SseParser,
}

impl<H: HttpClient> Attempt for GetAttempt<'_, H> {
    fn build(&mut self) -> HttpRequest {
        self.shared.sse_request(self.parser.last_event_id())
    }

    fn fetch(&mut self, request: HttpRequest) -> BoxFuture<'_, Result<HttpResponse, TransportError>> {
        let (shared, after) = (self.shared, self.shared.options.connect_timeout);
        boxed(async move {
            match select(shared.http.fetch(request), Box::pin(sleep(after))).await {
                Either::Left((Ok(response), _)) => Ok(response),
                Either::Left((Err(error), _)) => Err(TransportError::Legacy(LegacyError::Unreachable {
                    url: shared.options.url.clone(),
                    reason: http_reason(error),
                })),
                Either::Right(_) => {
                    Err(TransportError::Legacy(LegacyError::Timeout { url: shared.options.url.clone(), after }))
                }
            }
        })
    }
}

/// What one connection of the stream has seen.
#[derive(Default)]
struct Connection {
    events: u64,
    /// The id of its last event (what the browser's `EventSource` saw).
    #[cfg(target_arch = "wasm32")]
    last_event_id: String,
}

fn http_reason(error: HttpError) -> Cause {
    match error {
        HttpError::Network(reason) | HttpError::Body(reason) => reason,
        other => Cause::of(other),
    }
}
