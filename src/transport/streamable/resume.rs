//! Reading an SSE reply stream, and resuming it with GET and
//! `Last-Event-ID` when it ends before the answer.

use crate::hash::Names;

use futures::StreamExt;

use super::super::TransportError;
use super::super::sse::{SseEvent, SseParser};
use super::{LAST_EVENT_ID_HEADER, Shared};
use crate::http::{HttpClient, HttpResponse, Method};
use crate::protocol::RequestId;
use crate::runtime::sleep;

impl<H: HttpClient> Shared<H> {
    /// Reads an SSE stream until it ends, delivering every message. With
    /// `awaited`, a stream that ends before that response is resumed with
    /// GET and `Last-Event-ID` until it comes or attempts run out. The
    /// stream belongs to `session`, the session its POST carried: it cannot
    /// be resumed in another one.
    pub(super) async fn read_stream(
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
            let outcome = self.consume(&mut response, &mut parser, &mut seen, awaited.as_ref()).await;
            parser.finish();
            let Some(id) = &awaited else { return Ok(()) };
            if outcome.answered {
                return Ok(());
            }
            // The stream held something for us that could not be read: that
            // is the cause, not the stream's end.
            if let Some(problem) = outcome.problem {
                return Err(TransportError::InvalidMessage(format!(
                    "the response stream for request {id} held an event that cannot be read: {problem}"
                )));
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
                let request = self.request(Method::Get, None, Some(parser.last_event_id()), None);
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

    /// Reads one connection's events. A broken connection ends the read
    /// like a closed one: the caller decides whether to resume.
    pub(super) async fn consume(
        &self,
        response: &mut HttpResponse,
        parser: &mut SseParser,
        seen: &mut SeenEvents,
        awaited: Option<&RequestId>,
    ) -> StreamOutcome {
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
                outcome.problem = Some(error.to_string());
            }
            for event in events.drain(..) {
                outcome.received_any = true;
                if awaited.is_none() && !event.id.is_empty() {
                    // Where a client restored from a snapshot resumes.
                    self.state().stream_last_event_id = Some(event.id.clone());
                }
                if !seen.first_time(&event) {
                    log::debug!("dropping a replayed event {}", event.id);
                    continue;
                }
                // A priming event (an id with empty data, 2025-11-25) only
                // gives a resumption point.
                if event.data.trim_ascii().is_empty() {
                    continue;
                }
                if event.event != "message" {
                    log::debug!("ignoring an SSE event of type {:?}", event.event);
                    continue;
                }
                let delivered = self.deliver_reply(event.data, awaited);
                outcome.answered |= delivered.answered;
                if delivered.problem.is_some() {
                    outcome.problem = delivered.problem;
                }
            }
        }
        outcome
    }
}

#[derive(Default)]
pub(super) struct StreamOutcome {
    pub(super) answered: bool,
    pub(super) received_any: bool,
    /// Why an event could not be delivered (too large, not JSON-RPC).
    pub(super) problem: Option<String>,
}

/// Event ids already delivered on one stream, so a server that replays too
/// much after `Last-Event-ID` cannot make us deliver a message twice.
///
/// An SSE id persists from event to event until the server sets a new one,
/// so only an id that changed names a new event; events that merely inherit
/// the current id are always new.
#[derive(Default)]
pub(super) struct SeenEvents {
    ids: Names,
    /// The ids in `ids`, a ring: once full, `oldest` is the next to go.
    /// (A ring over a `Vec`, as a `VecDeque<String>` would be one more
    /// collection's code in the wasm module.)
    order: Vec<String>,
    oldest: usize,
    current: Option<String>,
}

impl SeenEvents {
    const REMEMBERED: usize = 4096;

    /// A reconnect: the next event's id is compared with history again.
    pub(super) fn new_connection(&mut self) {
        self.current = None;
    }

    pub(super) fn first_time(&mut self, event: &SseEvent) -> bool {
        if event.id.is_empty() || self.current.as_deref() == Some(event.id.as_str()) {
            return true;
        }
        self.current = Some(event.id.clone());
        if !self.ids.insert(event.id.clone()) {
            return false;
        }
        if self.order.len() < Self::REMEMBERED {
            self.order.push(event.id.clone());
        } else if let Some(slot) = self.order.get_mut(self.oldest) {
            let oldest = std::mem::replace(slot, event.id.clone());
            self.ids.remove(&oldest);
            self.oldest = (self.oldest + 1) % Self::REMEMBERED;
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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

    #[test]
    fn the_last_4096_ids_are_remembered() {
        let mut seen = SeenEvents::default();
        let event = |i: usize| SseEvent { event: "message".into(), data: "{}".into(), id: i.to_string() };
        // Two and a half times round the ring.
        let made = SeenEvents::REMEMBERED * 5 / 2;
        for i in 0..made {
            assert!(seen.first_time(&event(i)));
        }
        assert_eq!(seen.order.len(), SeenEvents::REMEMBERED);
        seen.new_connection();
        // The newest are known; the one just before them is forgotten.
        for i in (made - SeenEvents::REMEMBERED..made).step_by(97) {
            assert!(!seen.first_time(&event(i)), "{i} was forgotten");
            seen.new_connection();
        }
        assert!(!seen.first_time(&event(made - 1)));
        seen.new_connection();
        assert!(seen.first_time(&event(made - SeenEvents::REMEMBERED - 1)));
    }
}
