//! The standalone GET stream: what the server sends unprompted, for the
//! life of the session.

use std::sync::{Arc, Mutex};

use crate::runtime::channel::oneshot;

use super::super::sse::SseParser;
use super::Shared;
use super::post::PostAttempt;
use super::resume::SeenEvents;
use crate::http::{HttpClient, Method};
use crate::runtime::sleep;
use crate::transport::authorize::{self, StillInsufficient};

/// Whoever waits for the GET stream to be possible: told once, when the
/// first GET is answered, whatever the answer.
#[derive(Debug)]
pub(super) struct Opened(Mutex<Option<oneshot::Sender<()>>>);

impl Opened {
    pub(super) fn tell(&self) {
        if let Some(opened) = self.0.lock().unwrap_or_else(|poisoned| poisoned.into_inner()).take() {
            let _ = opened.send(());
        }
    }
}

impl<H: HttpClient> Shared<H> {
    /// The standalone GET stream: open after the handshake, resumed when it
    /// ends, given up after too many consecutive failures. It belongs to the
    /// session it was opened in and ends when that session is gone.
    pub(super) async fn server_stream(self: Arc<Self>, opened: Option<oneshot::Sender<()>>) {
        // Told once the first GET is answered, whatever the answer: when it
        // comes, before any authorization it leads to (the caller waits for
        // the stream to be possible, not for a person to sign in).
        let opened = Opened(Mutex::new(opened));
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
            // Through the authorization loop (`PostAttempt`): what it
            // cannot recover from comes back as an answer or an error,
            // counted below. A client restored from a snapshot resumes
            // where the other left off.
            let last_event_id = match parser.last_event_id() {
                "" => self.state().stream_last_event_id.clone().unwrap_or_default(),
                id => id.to_owned(),
            };
            let answered = {
                let mut attempt = PostAttempt {
                    shared: &self,
                    method: Method::Get,
                    body: None,
                    last_event_id: Some(&last_event_id),
                    stateless: None,
                    opened: Some(&opened),
                    carried_session: None,
                };
                authorize::send(&*self, StillInsufficient::Fail, &mut attempt).await
            };
            opened.tell();
            match answered {
                Ok(response) if response.status == 405 || response.status == 404 => {
                    log::debug!("the server offers no GET stream (HTTP {})", response.status);
                    return;
                }
                Ok(mut response)
                    if (200..300).contains(&response.status)
                        && response.media_type().as_deref() == Some("text/event-stream") =>
                {
                    // A broken stream ends the read as a closed one does.
                    if self.consume(&mut response, &mut parser, &mut seen, None).await.received_any {
                        failures = 0;
                    } else {
                        failures += 1;
                    }
                    parser.finish();
                }
                Ok(response) => {
                    log::warn!("the server stream was refused with HTTP {}", response.status);
                    failures += 1;
                }
                Err(error) if error.is_auth() => {
                    log::warn!("the server stream needs authorization, which failed: {error}");
                    return;
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
}
