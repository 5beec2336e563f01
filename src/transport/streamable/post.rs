//! Sending one message as a POST, and reading its reply: a JSON body, or
//! an SSE stream (see `resume`); a refusal becomes an error a user can act
//! on.

use std::sync::Arc;

use super::super::TransportError;
use super::super::authorize::{self, Attempt, StillInsufficient};
use super::server_stream::Opened;
use super::session::session_of;
use super::{SESSION_HEADER, Shared};
use crate::cause::Cause;
use crate::http::{HttpClient, HttpRequest, HttpResponse, Method};
use crate::protocol::jsonrpc::decode;
use crate::protocol::{Message, RequestId, Response, methods};
use crate::runtime::{BoxFuture, boxed};

impl<H: HttpClient> Shared<H> {
    /// Sends one message as a POST and handles whatever comes back.
    ///
    /// `stateless`: the request-metadata headers of a 2026-07-28 request
    /// (see `Shared::request`), whose answer is read by that era's rules;
    /// `None` for the handshake era. One function for both eras, so that
    /// the authorization loop around the POST is compiled once.
    pub(super) async fn post(
        self: Arc<Self>,
        message: Message,
        stateless: Option<Vec<(String, String)>>,
    ) -> Result<(), TransportError> {
        let awaited = match &message {
            Message::Request(request) => Some(request.id.clone()),
            _ => None,
        };
        let is_initialize = stateless.is_none() && message.method() == Some(methods::INITIALIZE);
        if stateless.is_none() && !is_initialize && self.state().session_expired {
            return Err(TransportError::SessionExpired);
        }
        let body = message.to_json();
        // Only its text goes out: every call in flight holds this future,
        // so the params tree is freed now, not when the reply came.
        drop(message);
        // A stateless POST carries no session (see `Shared::request`), so
        // what follows reads its answer by that era's rules too.
        let (response, carried_session) = {
            let mut attempt = PostAttempt {
                shared: &self,
                method: Method::Post,
                body: Some(body),
                last_event_id: None,
                stateless: stateless.as_deref(),
                opened: None,
                carried_session: None,
            };
            let response = authorize::send(&*self, StillInsufficient::Fail, &mut attempt).await?;
            (response, attempt.carried_session)
        };
        let status = response.status;
        if let (404, Some(carried)) = (status, &carried_session) {
            // The server forgot the session: drop it, so the engine's new
            // handshake goes out without it.
            return Err(self.session_lost(carried));
        }
        if !(200..300).contains(&status) {
            // Its body read here (the reading of a JSON reply is in this
            // future already), then judged by a plain call.
            let stateless_id = stateless.is_some().then_some(awaited).flatten();
            let answers = (400..=499).contains(&status) && response.media_type().as_deref() == Some("application/json");
            let www_authenticate = response.header("www-authenticate").map(str::to_owned);
            let body = response.read_body(64 * 1024).await.unwrap_or_default();
            return self.refusal(status, answers, www_authenticate, &body, stateless_id, carried_session.is_some());
        }
        if is_initialize {
            self.adopt_session(&response)?;
        }
        if status == 202 {
            // 202 is for notifications and responses; a request must be
            // answered (JSON or a stream): waiting would only run out the
            // clock. A stateless request's 202 is its end: no answer.
            return match awaited {
                Some(id) if stateless.is_none() => Err(TransportError::InvalidMessage(format!(
                    "the server answered request {id} with 202 Accepted, which carries no response \
                     (a request must be answered with application/json or text/event-stream)"
                ))),
                _ => Ok(()),
            };
        }
        // A 2xx answer with a body: an SSE stream, read (and resumed within
        // the session it carried, if any) until it ends, or one JSON
        // payload. A stateless server sets no event ids, so its broken
        // stream ends the request; one that does is of the handshake era
        // (this was a probe) and its stream is resumed as that era does.
        match response.media_type().as_deref() {
            Some("text/event-stream") => Box::pin(self.read_stream(response, awaited, carried_session)).await,
            Some("application/json") => {
                let body = response
                    .read_body(self.options.max_message_bytes)
                    .await
                    .map_err(|e| TransportError::Io(Cause::of(e)))?;
                let text = crate::transport::utf8_string(body);
                if text.trim_ascii().is_empty() {
                    return match awaited {
                        None => Ok(()),
                        Some(id) => Err(TransportError::InvalidMessage(format!(
                            "the server answered request {id} with an empty application/json body"
                        ))),
                    };
                }
                let delivered = self.deliver_reply(text, awaited.as_ref());
                match (awaited, delivered.problem) {
                    (Some(_), _) if delivered.answered => Ok(()),
                    (Some(id), Some(problem)) => Err(TransportError::InvalidMessage(format!(
                        "the JSON reply to request {id} cannot be read: {problem}"
                    ))),
                    (Some(id), None) => Err(TransportError::InvalidMessage(format!(
                        "the JSON reply to request {id} does not contain its response"
                    ))),
                    (None, _) => Ok(()),
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

    /// A non-2xx answer. For a stateless request (`stateless_id`: its id), a
    /// JSON-RPC error in a 4xx JSON body answers the request (its id, or no
    /// id at all, as servers that fail before reading the body send it), so
    /// the engine sees the server's error (-32022, -32021, -32020, -32602,
    /// -32601), not an HTTP status. Anything else becomes an error a user
    /// can act on.
    /// `answers`: a 4xx JSON body, which may hold a JSON-RPC error.
    pub(super) fn refusal(
        &self,
        status: u16,
        answers: bool,
        www_authenticate: Option<String>,
        body: &[u8],
        stateless_id: Option<RequestId>,
        carried_session: bool,
    ) -> Result<(), TransportError> {
        let text = crate::transport::utf8_text(body);
        let shown = || text.chars().take(300).collect::<String>();
        let error = decode(&text).ok().and_then(|mut m| m.pop()).and_then(Result::ok);
        if let (true, Some(id)) = (answers, stateless_id) {
            if let Some(Message::Response(Response { id: answered, outcome: Err(error) })) = error
                && answered.as_ref().is_none_or(|answered| *answered == id)
            {
                self.deliver(Message::Response(Response { id: Some(id), outcome: Err(error) }));
                return Ok(());
            }
            return Err(TransportError::Http { status, message: format!("not a JSON-RPC error: {}", shown()) });
        }
        let mut message = match error {
            Some(Message::Response(Response { outcome: Err(error), .. })) => {
                format!("the server answered with an error: {error}")
            }
            _ if text.trim_ascii().is_empty() => status_text(status).to_owned(),
            _ => format!("{}: {}", status_text(status), shown()),
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
        Err(TransportError::Http { status, message })
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

/// One request through the authorization loop of both HTTP transports
/// (`authorize::send`): a 401 runs the flow and the request goes again at
/// once, a 403 `insufficient_scope` steps up; `carried_session` is then the
/// session id the request carried. `stateless`: the request-metadata
/// headers of a 2026-07-28 POST. `opened` is told (once) as soon as an
/// answer comes, before any authorization it leads to. Kept in a block of
/// its caller's, so that its body does not live on across later awaits.
pub(super) struct PostAttempt<'a, H> {
    pub(super) shared: &'a Shared<H>,
    pub(super) method: Method,
    pub(super) body: Option<String>,
    pub(super) last_event_id: Option<&'a str>,
    pub(super) stateless: Option<&'a [(String, String)]>,
    pub(super) opened: Option<&'a Opened>,
    /// The session id the last attempt carried.
    pub(super) carried_session: Option<String>,
}

impl<H: HttpClient> Attempt for PostAttempt<'_, H> {
    fn build(&mut self) -> HttpRequest {
        let request = self.shared.request(self.method, self.body.clone(), self.last_event_id, self.stateless);
        self.carried_session = session_of(&request);
        request
    }

    fn fetch(&mut self, request: HttpRequest) -> BoxFuture<'_, Result<HttpResponse, TransportError>> {
        boxed(async move {
            let answer = self.shared.send_http(request).await;
            if let Some(opened) = self.opened {
                opened.tell();
            }
            answer
        })
    }
}
