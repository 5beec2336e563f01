//! A connection budget: at most N HTTP exchanges of one client at once,
//! the rest queued in order.
//!
//! workerd lets one incoming request hold six outgoing connections at a
//! time and fails the rest, so there the default is six. Elsewhere it is
//! none: a browser queues beyond six per origin on HTTP/1.1 itself (and
//! multiplexes on HTTP/2, which a budget would throttle), and a budget in
//! front of the browser's queue cost a page 0.67x the TS SDK's throughput
//! with a thousand calls at once (`cargo xtask bench`). An exchange holds its slot until its response body has
//! ended or been dropped (an SSE reply stream, the GET stream: for as long
//! as they are read). A client's answer to a server request (a JSON-RPC
//! response body) is not queued: the server request it answers may be
//! what holds the slots, and queuing it would wait for ever.

use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use futures::Stream;

use super::{HttpClient, HttpError, HttpRequest, HttpResponse};
use crate::runtime::turns::{Held, Turns};
use crate::runtime::{BoxFuture, BoxStream, boxed};

/// workerd's limit of simultaneous outgoing connections per incoming request.
pub const WORKERD_MAX_CONNECTIONS: usize = 6;

/// The default budget: [`WORKERD_MAX_CONNECTIONS`] in workerd (Cloudflare
/// Workers), none anywhere else.
pub fn default_max_connections() -> Option<usize> {
    in_workerd().then_some(WORKERD_MAX_CONNECTIONS)
}

/// Whether this is workerd, which names itself in `navigator.userAgent`.
#[cfg(target_arch = "wasm32")]
fn in_workerd() -> bool {
    crate::runtime::user_agent().is_some_and(|agent| agent == "Cloudflare-Workers")
}

#[cfg(not(target_arch = "wasm32"))]
fn in_workerd() -> bool {
    false
}

/// A body that gives its slot back when it ends or is dropped.
struct SlotBody {
    body: BoxStream<'static, Result<Vec<u8>, HttpError>>,
    slot: Option<Held>,
}

impl Stream for SlotBody {
    type Item = Result<Vec<u8>, HttpError>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let polled = self.body.as_mut().poll_next(cx);
        if let Poll::Ready(None | Some(Err(_))) = &polled {
            self.slot = None;
        }
        polled
    }
}

/// An [`HttpClient`] that runs at most `limit` exchanges at once through
/// `http`; clones share the budget.
#[derive(Clone)]
pub struct Budgeted<H> {
    http: Arc<H>,
    budget: Option<Arc<Turns>>,
}

impl<H> std::fmt::Debug for Budgeted<H> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        crate::debug::debug_struct(f, "Budgeted")
            .field("limit", &self.budget.as_ref().map(|b| b.limit()))
            .finish_non_exhaustive()
    }
}

impl<H: HttpClient> Budgeted<H> {
    /// `http` with at most `limit` exchanges at once (`None`: no limit; a
    /// limit of 0 is taken as 1).
    pub fn new(http: H, limit: Option<usize>) -> Self {
        let budget = limit.map(Turns::new);
        Budgeted { http: Arc::new(http), budget }
    }
}

/// A JSON-RPC response body (the client answering a server request).
fn is_reply(request: &HttpRequest) -> bool {
    let Some(body) = &request.body else { return false };
    match crate::protocol::json::parse(body) {
        Ok(serde_json::Value::Object(message)) => !message.contains_key("method"),
        _ => false,
    }
}

impl<H: HttpClient> HttpClient for Budgeted<H> {
    fn follows_redirects(&self) -> bool {
        self.http.follows_redirects()
    }

    fn fetch(&self, request: HttpRequest) -> BoxFuture<'static, Result<HttpResponse, HttpError>> {
        let Some(budget) = self.budget.clone().filter(|_| !is_reply(&request)) else {
            return self.http.fetch(request);
        };
        let http = Arc::clone(&self.http);
        boxed(async move {
            // The exchange starts only once a slot is held.
            let slot = budget.acquire().await;
            let HttpResponse { status, headers, body } = http.fetch(request).await?;
            Ok(HttpResponse { status, headers, body: Box::pin(SlotBody { body, slot: Some(slot) }) })
        })
    }
}
