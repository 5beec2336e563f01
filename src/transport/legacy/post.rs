//! Sending one message: a POST to the current endpoint, whose answer comes
//! back on the stream.

use std::sync::Arc;
use std::time::Duration;

use futures::future::{Either, select};

use super::super::TransportError;
use super::super::authorize::{self, Attempt, StillInsufficient};
use super::Shared;
use super::error::human;
use crate::http::{HttpClient, HttpError, HttpRequest, HttpResponse, Method};
use crate::protocol::Message;
use crate::protocol::jsonrpc::decode;
use crate::runtime::{BoxFuture, boxed, sleep};

impl<H: HttpClient> Shared<H> {
    /// Sends one message as a POST to the current endpoint.
    pub(super) async fn post(self: Arc<Self>, message: Message) -> Result<(), TransportError> {
        let body = message.to_json();
        let after = self.options.post_timeout;
        let mut attempt = PostAttempt { shared: &self, body, after, endpoint: String::new() };
        let response = authorize::send(&*self, StillInsufficient::Fail, &mut attempt).await?;
        let endpoint = attempt.endpoint;
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

/// One POST of [`Shared::post`], for the authorization loop.
struct PostAttempt<'a, H> {
    shared: &'a Arc<Shared<H>>,
    body: String,
    after: Duration,
    /// Where the last attempt went.
    endpoint: String,
}

impl<H: HttpClient> Attempt for PostAttempt<'_, H> {
    // The endpoint is asked for again on every attempt: a reconnect during
    // an authorization may have named a new one.
    fn ready(&mut self) -> Option<BoxFuture<'_, Result<(), TransportError>>> {
        Some(boxed(async move {
            self.endpoint = self.shared.endpoint_ready().await?;
            Ok(())
        }))
    }

    fn build(&mut self) -> HttpRequest {
        let mut headers = vec![("Content-Type".to_owned(), "application/json".to_owned())];
        for header in &self.shared.options.headers {
            headers.push(header.clone());
        }
        HttpRequest { method: Method::Post, url: self.endpoint.clone(), headers, body: Some(self.body.clone()) }
    }

    fn fetch(&mut self, request: HttpRequest) -> BoxFuture<'_, Result<HttpResponse, TransportError>> {
        let (after, endpoint) = (self.after, request.url.clone());
        boxed(async move {
            match select(self.shared.http.fetch(request), Box::pin(sleep(after))).await {
                Either::Left((Ok(response), _)) => Ok(response),
                Either::Left((Err(HttpError::Network(reason)), _)) => Err(TransportError::Io(reason)),
                Either::Left((Err(error), _)) => Err(TransportError::Other(format!("POST {endpoint}: {error}"))),
                Either::Right(_) => {
                    Err(TransportError::Closed(format!("POST {endpoint} was not accepted within {}", human(after))))
                }
            }
        })
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
    one_line(&text, 300)
}

/// `text` on one line, each run of white space one space, cut (with `…`)
/// after `limit` characters. Written as one pass rather than by splitting
/// and joining, which took a list of the words of a page of HTML.
fn one_line(text: &str, limit: usize) -> String {
    let mut line = String::new();
    let mut shown = 0;
    let mut gap = false;
    for c in text.chars() {
        if c.is_whitespace() {
            gap = !line.is_empty();
            continue;
        }
        let needed = if gap { 2 } else { 1 };
        if shown + needed > limit {
            line.push('…');
            break;
        }
        if gap {
            line.push(' ');
        }
        line.push(c);
        shown += needed;
        gap = false;
    }
    line
}

#[cfg(test)]
mod tests {
    use super::one_line;

    #[test]
    fn a_body_is_shown_on_one_line_and_cut() {
        assert_eq!(
            one_line("  <html>\n\t<body>Not   Found</body>\n</html>\n", 300),
            "<html> <body>Not Found</body> </html>"
        );
        assert_eq!(one_line("", 300), "");
        assert_eq!(one_line(" \n ", 300), "");
        assert_eq!(one_line("abc def", 5), "abc d…");
        assert_eq!(one_line("abc def", 7), "abc def");
        assert_eq!(one_line("ééé", 2), "éé…");
    }
}
