//! An [`HttpClient`] whose every exchange a test answers by hand: the
//! transports' unit tests (Streamable HTTP, legacy SSE) script a server
//! with it, one request at a time. Native only: the tests run on tokio.

use futures::channel::{mpsc, oneshot};

use super::{HttpClient, HttpError, HttpRequest, HttpResponse};
use crate::runtime::{BoxFuture, boxed};

/// A request the transport sent, and where the test's answer goes.
/// Dropping the sender refuses the request ("connection refused").
pub type Exchange = (HttpRequest, oneshot::Sender<HttpResponse>);

/// The client end: each `fetch` becomes an [`Exchange`] for the test.
pub struct Scripted(mpsc::UnboundedSender<Exchange>);

/// A scripted client and the exchanges it will hand the test.
pub fn scripted() -> (Scripted, mpsc::UnboundedReceiver<Exchange>) {
    let (sender, exchanges) = mpsc::unbounded();
    (Scripted(sender), exchanges)
}

impl HttpClient for Scripted {
    fn fetch(&self, request: HttpRequest) -> BoxFuture<'static, Result<HttpResponse, HttpError>> {
        let (reply, response) = oneshot::channel();
        let sent = self.0.unbounded_send((request, reply));
        boxed(async move {
            sent.map_err(|_| HttpError::Network("the test is gone".into()))?;
            response.await.map_err(|_| HttpError::Network("connection refused: the test dropped the exchange".into()))
        })
    }
}

/// A whole response with these headers and body.
pub fn response(status: u16, headers: &[(&str, &str)], body: &str) -> HttpResponse {
    let chunks = if body.is_empty() { Vec::new() } else { vec![Ok(body.as_bytes().to_vec())] };
    HttpResponse {
        status,
        headers: headers.iter().map(|(n, v)| (n.to_string(), v.to_string())).collect(),
        body: Box::pin(futures::stream::iter(chunks)),
    }
}

/// An open SSE stream the test writes to chunk by chunk (the legacy
/// transport's stream).
#[cfg(feature = "legacy-sse")]
pub fn event_stream() -> (HttpResponse, mpsc::UnboundedSender<Result<Vec<u8>, HttpError>>) {
    let (sender, chunks) = mpsc::unbounded();
    let response = HttpResponse {
        status: 200,
        headers: vec![("content-type".into(), "text/event-stream".into())],
        body: Box::pin(chunks),
    };
    (response, sender)
}

/// A request's header, by name in any case.
pub fn header<'a>(request: &'a HttpRequest, name: &str) -> Option<&'a str> {
    request.headers.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
}
