//! A set of futures polled by the task that owns it, made for the common
//! case of one in flight.
//!
//! `FuturesUnordered` wakes its owner again whenever it has polled every
//! future it holds (to keep one busy set from starving the executor). With
//! one exchange in flight that is every time: each time its future is woken
//! the owning task runs twice, and on wasm32 each of those runs is a
//! microtask of its own (`queueMicrotask`, the futures queue, the closure
//! into wasm). The first future here is held and polled directly, with the
//! owner's waker; only a second and later ones go to a `FuturesUnordered`.

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use futures::StreamExt;
use futures::stream::FuturesUnordered;

/// Futures run by their owner's `poll`; see the module.
pub(crate) struct FutureSet<F> {
    first: Option<F>,
    rest: FuturesUnordered<F>,
}

impl<F> Default for FutureSet<F> {
    fn default() -> Self {
        FutureSet { first: None, rest: FuturesUnordered::new() }
    }
}

impl<F: Future + Unpin> FutureSet<F> {
    /// Runs `future` from the owner's next poll on.
    pub(crate) fn push(&mut self, future: F) {
        if self.first.is_none() {
            self.first = Some(future);
        } else {
            self.rest.push(future);
        }
    }

    /// The output of a future that finished, if any; `Ready(None)` when the
    /// set is empty.
    pub(crate) fn poll_next(&mut self, cx: &mut Context<'_>) -> Poll<Option<F::Output>> {
        if let Some(first) = &mut self.first
            && let Poll::Ready(output) = Pin::new(first).poll(cx)
        {
            self.first = None;
            return Poll::Ready(Some(output));
        }
        if !self.rest.is_empty()
            && let Poll::Ready(Some(output)) = self.rest.poll_next_unpin(cx)
        {
            return Poll::Ready(Some(output));
        }
        if self.first.is_none() && self.rest.is_empty() { Poll::Ready(None) } else { Poll::Pending }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::task::Wake;

    use crate::runtime::channel::oneshot;

    use super::*;

    struct CountWakes(AtomicUsize);

    impl Wake for CountWakes {
        fn wake(self: Arc<Self>) {
            self.0.fetch_add(1, Ordering::SeqCst);
        }
    }

    type Boxed = Pin<Box<dyn Future<Output = u32>>>;

    fn answer(receiver: oneshot::Receiver<u32>) -> Boxed {
        Box::pin(async move { receiver.await.unwrap_or(0) })
    }

    #[test]
    fn one_future_in_flight_does_not_wake_its_owner_for_nothing() {
        let wakes = Arc::new(CountWakes(AtomicUsize::new(0)));
        let waker = std::task::Waker::from(Arc::clone(&wakes));
        let mut cx = Context::from_waker(&waker);
        let mut set = FutureSet::<Boxed>::default();
        let (send, receive) = oneshot::channel();
        set.push(answer(receive));
        assert!(set.poll_next(&mut cx).is_pending());
        assert_eq!(wakes.0.load(Ordering::SeqCst), 0, "a pending future alone does not wake the owner");
        let _ = send.send(7);
        assert_eq!(wakes.0.load(Ordering::SeqCst), 1, "its own wake-up reaches the owner");
        assert_eq!(set.poll_next(&mut cx), Poll::Ready(Some(7)));
        assert_eq!(set.poll_next(&mut cx), Poll::Ready(None));
    }

    #[test]
    fn every_future_finishes_whatever_order_they_come_in() {
        let waker = std::task::Waker::noop();
        let mut cx = Context::from_waker(waker);
        let mut set = FutureSet::<Boxed>::default();
        let mut senders = Vec::new();
        for _ in 0..5 {
            let (send, receive) = oneshot::channel();
            set.push(answer(receive));
            senders.push(send);
        }
        assert!(set.poll_next(&mut cx).is_pending());
        for (i, send) in senders.into_iter().enumerate().rev() {
            let _ = send.send(i as u32);
        }
        let mut seen = Vec::new();
        while let Poll::Ready(Some(value)) = set.poll_next(&mut cx) {
            seen.push(value);
        }
        seen.sort_unstable();
        assert_eq!(seen, vec![0, 1, 2, 3, 4]);
        // The set takes more after it emptied.
        let (send, receive) = oneshot::channel();
        set.push(answer(receive));
        let _ = send.send(9);
        assert_eq!(set.poll_next(&mut cx), Poll::Ready(Some(9)));
    }
}
