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

use std::collections::VecDeque;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};

use futures::Stream;
use futures::channel::oneshot;

use super::{HttpClient, HttpError, HttpRequest, HttpResponse};
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

#[derive(Default)]
struct Slots {
    in_use: usize,
    waiting: VecDeque<oneshot::Sender<()>>,
}

struct Budget {
    limit: usize,
    slots: Mutex<Slots>,
}

impl Budget {
    fn slots(&self) -> std::sync::MutexGuard<'_, Slots> {
        // Two counters: a poisoned lock is still usable.
        self.slots.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// A slot, once one is free.
    async fn acquire(self: Arc<Self>) -> Slot {
        let waiting = {
            let mut slots = self.slots();
            if slots.in_use < self.limit {
                slots.in_use += 1;
                None
            } else {
                // Waiters that gave up (timed out, dropped) leave the queue
                // here too, not only when a slot is handed on: with every
                // slot held by long streams, none is.
                slots.waiting.retain(|turn| !turn.is_canceled());
                let (turn, wait) = oneshot::channel();
                slots.waiting.push_back(turn);
                Some(wait)
            }
        };
        if let Some(wait) = waiting {
            let mut turn = Turn { wait, budget: Some(Arc::clone(&self)) };
            // The budget outlives every waiter (each holds it), so the turn
            // always comes; a dropped sender would only mean it was handed on.
            let _ = (&mut turn.wait).await;
            turn.budget = None;
        }
        Slot(Some(self))
    }

    /// Hands a freed slot to the next waiter still waiting, or frees it.
    fn release(&self) {
        let mut slots = self.slots();
        while let Some(next) = slots.waiting.pop_front() {
            if next.send(()).is_ok() {
                return;
            }
        }
        slots.in_use = slots.in_use.saturating_sub(1);
    }
}

/// A waiter's place in the queue. Dropped after its slot was handed to it
/// but before it took it, it hands the slot on: otherwise the slot would
/// be lost to the budget for good.
struct Turn {
    wait: oneshot::Receiver<()>,
    /// `None` once the slot is taken.
    budget: Option<Arc<Budget>>,
}

impl Drop for Turn {
    fn drop(&mut self) {
        if let Some(budget) = self.budget.take()
            && let Ok(Some(())) = self.wait.try_recv()
        {
            budget.release();
        }
    }
}

/// One exchange's place in the budget, given back when dropped.
struct Slot(Option<Arc<Budget>>);

impl Drop for Slot {
    fn drop(&mut self) {
        if let Some(budget) = self.0.take() {
            budget.release();
        }
    }
}

/// A body that gives its slot back when it ends or is dropped.
struct SlotBody {
    body: BoxStream<'static, Result<Vec<u8>, HttpError>>,
    slot: Option<Slot>,
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
    budget: Option<Arc<Budget>>,
}

impl<H> std::fmt::Debug for Budgeted<H> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        crate::debug::debug_struct(f, "Budgeted")
            .field("limit", &self.budget.as_ref().map(|b| b.limit))
            .finish_non_exhaustive()
    }
}

impl<H: HttpClient> Budgeted<H> {
    /// `http` with at most `limit` exchanges at once (`None`: no limit; a
    /// limit of 0 is taken as 1).
    pub fn new(http: H, limit: Option<usize>) -> Self {
        let budget = limit.map(|limit| Arc::new(Budget { limit: limit.max(1), slots: Mutex::default() }));
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
    fn fetch(&self, request: HttpRequest) -> BoxFuture<'static, Result<HttpResponse, HttpError>> {
        let Some(budget) = self.budget.clone().filter(|_| !is_reply(&request)) else {
            return self.http.fetch(request);
        };
        let http = Arc::clone(&self.http);
        boxed(async move {
            // The exchange starts only once a slot is held.
            let slot = budget.acquire().await;
            let mut response = http.fetch(request).await?;
            let body = std::mem::replace(&mut response.body, Box::pin(futures::stream::empty()));
            response.body = Box::pin(SlotBody { body, slot: Some(slot) });
            Ok(response)
        })
    }
}

#[cfg(test)]
mod tests {
    use std::future::Future;
    use std::pin::pin;
    use std::task::{Context, Poll, Waker};

    use super::*;

    fn budget(limit: usize) -> Arc<Budget> {
        Arc::new(Budget { limit, slots: Mutex::default() })
    }

    fn poll_once<F: Future>(future: std::pin::Pin<&mut F>) -> Poll<F::Output> {
        future.poll(&mut Context::from_waker(Waker::noop()))
    }

    #[test]
    fn a_slot_handed_to_a_waiter_that_then_gave_up_is_not_lost() {
        let budget = budget(1);
        let Poll::Ready(held) = poll_once(pin!(Arc::clone(&budget).acquire())) else { panic!("a free slot waits") };
        {
            let mut waiter = Box::pin(Arc::clone(&budget).acquire());
            assert!(poll_once(waiter.as_mut()).is_pending());
            // The slot goes to the waiter, which is dropped before it runs.
            drop(held);
        }
        assert_eq!(budget.slots().in_use, 0, "the slot came back");
        assert!(poll_once(pin!(Arc::clone(&budget).acquire())).is_ready());
    }

    #[test]
    fn waiters_that_gave_up_leave_the_queue_while_every_slot_stays_held() {
        let budget = budget(1);
        let Poll::Ready(_held) = poll_once(pin!(Arc::clone(&budget).acquire())) else { panic!("a free slot waits") };
        for _ in 0..100 {
            let mut waiter = Box::pin(Arc::clone(&budget).acquire());
            assert!(poll_once(waiter.as_mut()).is_pending());
        }
        assert!(budget.slots().waiting.len() <= 1, "{} waiters kept", budget.slots().waiting.len());
    }
}
