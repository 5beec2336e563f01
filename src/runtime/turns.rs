//! Turns: at most N holders at once, the rest queued in the order they
//! came (a fair semaphore; with one turn, an async mutex).
//!
//! One type serves the HTTP connection budget and the one-at-a-time locks
//! of the engine (OAuth's flows, the session restart), so the module carries
//! one queue rather than this one and `futures`' `Mutex` beside it.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

use super::channel::oneshot;

#[derive(Default)]
struct Slots {
    in_use: usize,
    waiting: VecDeque<oneshot::Sender<()>>,
}

/// The turns; see the module. Shared through an `Arc`.
pub(crate) struct Turns {
    limit: usize,
    slots: Mutex<Slots>,
}

impl Turns {
    /// At most `limit` holders at once (a limit of 0 is taken as 1).
    pub(crate) fn new(limit: usize) -> Arc<Self> {
        Arc::new(Turns { limit: limit.max(1), slots: Mutex::default() })
    }

    /// How many may hold a turn at once.
    pub(crate) fn limit(&self) -> usize {
        self.limit
    }

    fn slots(&self) -> std::sync::MutexGuard<'_, Slots> {
        // Two counters: a poisoned lock is still usable.
        self.slots.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// A turn, once one is free; given back when the [`Held`] is dropped.
    pub(crate) async fn acquire(self: Arc<Self>) -> Held {
        let waiting = {
            let mut slots = self.slots();
            if slots.in_use < self.limit {
                slots.in_use += 1;
                None
            } else {
                // Waiters that gave up (timed out, dropped) leave the queue
                // here too, not only when a turn is handed on: with every
                // turn held for long, none is.
                // A rotation, not `VecDeque::retain` (some 0.4 KB of wasm
                // for this one use): the order is kept.
                for _ in 0..slots.waiting.len() {
                    if let Some(turn) = slots.waiting.pop_front()
                        && !turn.is_canceled()
                    {
                        slots.waiting.push_back(turn);
                    }
                }
                let (turn, wait) = oneshot::channel();
                slots.waiting.push_back(turn);
                Some(wait)
            }
        };
        if let Some(wait) = waiting {
            let mut waiter = Waiter { wait, turns: Some(Arc::clone(&self)) };
            // The turns outlive every waiter (each holds them), so the turn
            // always comes; a dropped sender would only mean it was handed on.
            let _ = (&mut waiter.wait).await;
            waiter.turns = None;
        }
        Held(Some(self))
    }

    /// Hands a freed turn to the next waiter still waiting, or frees it.
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

/// A waiter's place in the queue. Dropped after its turn was handed to it
/// but before it took it, it hands the turn on: otherwise the turn would be
/// lost for good.
struct Waiter {
    wait: oneshot::Receiver<()>,
    /// `None` once the turn is taken.
    turns: Option<Arc<Turns>>,
}

impl Drop for Waiter {
    fn drop(&mut self) {
        if let Some(turns) = self.turns.take()
            && let Ok(Some(())) = self.wait.try_recv()
        {
            turns.release();
        }
    }
}

/// A turn held, given back when dropped.
pub(crate) struct Held(Option<Arc<Turns>>);

impl Drop for Held {
    fn drop(&mut self) {
        if let Some(turns) = self.0.take() {
            turns.release();
        }
    }
}

#[cfg(test)]
mod tests {
    use std::future::Future;
    use std::pin::pin;
    use std::task::{Context, Poll, Waker};

    use super::*;

    fn poll_once<F: Future>(future: std::pin::Pin<&mut F>) -> Poll<F::Output> {
        future.poll(&mut Context::from_waker(Waker::noop()))
    }

    #[test]
    fn a_turn_handed_to_a_waiter_that_then_gave_up_is_not_lost() {
        let turns = Turns::new(1);
        let Poll::Ready(held) = poll_once(pin!(Arc::clone(&turns).acquire())) else { panic!("a free turn waits") };
        {
            let mut waiter = Box::pin(Arc::clone(&turns).acquire());
            assert!(poll_once(waiter.as_mut()).is_pending());
            // The turn goes to the waiter, which is dropped before it runs.
            drop(held);
        }
        assert_eq!(turns.slots().in_use, 0, "the turn came back");
        assert!(poll_once(pin!(Arc::clone(&turns).acquire())).is_ready());
    }

    #[test]
    fn waiters_that_gave_up_leave_the_queue_while_every_turn_stays_held() {
        let turns = Turns::new(1);
        let Poll::Ready(_held) = poll_once(pin!(Arc::clone(&turns).acquire())) else { panic!("a free turn waits") };
        for _ in 0..100 {
            let mut waiter = Box::pin(Arc::clone(&turns).acquire());
            assert!(poll_once(waiter.as_mut()).is_pending());
        }
        assert!(turns.slots().waiting.len() <= 1, "{} waiters kept", turns.slots().waiting.len());
    }

    #[test]
    fn turns_come_in_the_order_asked_and_no_more_than_the_limit_at_once() {
        let turns = Turns::new(2);
        let Poll::Ready(first) = poll_once(pin!(Arc::clone(&turns).acquire())) else { panic!("a free turn waits") };
        let Poll::Ready(_second) = poll_once(pin!(Arc::clone(&turns).acquire())) else { panic!("a free turn waits") };
        let mut third = Box::pin(Arc::clone(&turns).acquire());
        let mut fourth = Box::pin(Arc::clone(&turns).acquire());
        assert!(poll_once(third.as_mut()).is_pending());
        assert!(poll_once(fourth.as_mut()).is_pending());
        drop(first);
        assert!(poll_once(fourth.as_mut()).is_pending(), "the later waiter does not jump the queue");
        assert!(poll_once(third.as_mut()).is_ready());
    }
}
