//! Sending one message: a POST to the current endpoint, whose answer comes
//! back on the stream.

use std::sync::Arc;
use std::time::Duration;

use futures::future::{Either, select};

use super::super::TransportError;
use super::super::authorize::{self, StillInsufficient};
use super::Shared;
use super::error::human;
use crate::http::{HttpClient, HttpError, HttpRequest, HttpResponse, Method};
use crate::protocol::Message;
use crate::protocol::jsonrpc::decode;
use crate::runtime::sleep;

impl<H: HttpClient> Shared<H> {
    /// Sends one message as a POST to the current endpoint.
    pub(super) async fn post(self: Arc<Self>, message: Message) -> Result<(), TransportError> {
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

/// The first few hundred characters of a body (or the JSON-RPC error message
/// in it), read for at most `limit`.
pub(super) async fn body_excerpt(response: HttpResponse, limit: Duration) -> String {
    let body = match select(Box::pin(response.read_body(64 * 1024)), Box::pin(sleep(limit))).await {
        Either::Left((Ok(body), _)) => body,
        _ => return String::new(),
    };
    let text = crate::transport::utf8_text(&body);
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
