//! A set of futures polled by the task that owns it, made for the common
//! case of one in flight.
//!
//! The first future is held and polled directly, with the owner's waker.
//! A second and later ones each get a slot and a waker of their own, which
//! lists the slot as woken and wakes the owner; the owner's poll polls the
//! woken slots only, so 2,000 requests in flight cost one poll for the one
//! answered. This is what `FuturesUnordered` does, without two of its
//! habits: it wakes its owner again whenever it has polled every future
//! (with one exchange in flight, every time: on wasm32 a second microtask
//! per wake-up), and its lock-free queue of woken tasks is compiled for
//! each type of future it holds (0.5 KB of the lite wasm's gzip for the two
//! here, the session loop's and the HTTP inbox's). Here the list of woken
//! slots is one lock, and its code is the same for both.

use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::task::{Context, Poll, Wake, Waker};

/// Futures run by their owner's `poll`; see the module.
pub(crate) struct FutureSet<F> {
    first: Option<F>,
    /// The others, by slot, each with its waker; `None` for a free slot.
    rest: Vec<Option<(F, Arc<SlotWaker>)>>,
    /// The free slots of `rest`.
    free: Vec<usize>,
    woken: Arc<Woken>,
}

/// The slots woken since the owner last looked, and the owner's waker.
#[derive(Default)]
struct Woken(Mutex<WokenSlots>);

#[derive(Default)]
struct WokenSlots {
    slots: Vec<usize>,
    owner: Option<Waker>,
}

impl Woken {
    fn lock(&self) -> MutexGuard<'_, WokenSlots> {
        // Each change is one step: a poisoned lock is still whole.
        self.0.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

/// The waker of one slot's future.
struct SlotWaker {
    woken: Arc<Woken>,
    slot: usize,
    /// In the woken list already (cleared when the owner polls the slot).
    listed: AtomicBool,
}

impl Wake for SlotWaker {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        if self.listed.swap(true, Ordering::AcqRel) {
            return;
        }
        let owner = {
            let mut woken = self.woken.lock();
            woken.slots.push(self.slot);
            woken.owner.clone()
        };
        // Woken outside the lock: the owner may run at once.
        if let Some(owner) = owner {
            owner.wake();
        }
    }
}

impl<F> Default for FutureSet<F> {
    fn default() -> Self {
        FutureSet { first: None, rest: Vec::new(), free: Vec::new(), woken: Arc::default() }
    }
}

impl<F: Future + Unpin> FutureSet<F> {
    /// Runs `future` from the owner's next poll on.
    pub(crate) fn push(&mut self, future: F) {
        if self.first.is_none() {
            self.first = Some(future);
            return;
        }
        let slot = self.free.pop().unwrap_or(self.rest.len());
        // Listed as woken: its first poll is the owner's next.
        let waker = Arc::new(SlotWaker { woken: self.woken.clone(), slot, listed: AtomicBool::new(true) });
        self.woken.lock().slots.push(slot);
        match self.rest.get_mut(slot) {
            Some(free) => *free = Some((future, waker)),
            None => self.rest.push(Some((future, waker))),
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
        let slots = {
            let mut woken = self.woken.lock();
            if !woken.owner.as_ref().is_some_and(|owner| owner.will_wake(cx.waker())) {
                woken.owner = Some(cx.waker().clone());
            }
            std::mem::take(&mut woken.slots)
        };
        for (at, &slot) in slots.iter().enumerate() {
            // A slot freed (and perhaps taken again) since it was woken is
            // polled once for nothing, which is harmless.
            let Some(Some((future, waker))) = self.rest.get_mut(slot) else { continue };
            waker.listed.store(false, Ordering::Release);
            let own = Waker::from(waker.clone());
            if let Poll::Ready(output) = Pin::new(future).poll(&mut Context::from_waker(&own)) {
                self.rest[slot] = None;
                self.free.push(slot);
                // The slots not polled yet stay woken for the next poll.
                self.woken.lock().slots.extend_from_slice(&slots[at + 1..]);
                return Poll::Ready(Some(output));
            }
        }
        if self.first.is_none() && self.free.len() == self.rest.len() { Poll::Ready(None) } else { Poll::Pending }
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

    /// Pending until its flag is set; counts its polls.
    struct Counted {
        polls: Arc<AtomicUsize>,
        done: Arc<std::sync::atomic::AtomicBool>,
        waker: Arc<std::sync::Mutex<Option<std::task::Waker>>>,
    }

    impl Future for Counted {
        type Output = ();

        fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
            self.polls.fetch_add(1, Ordering::SeqCst);
            if self.done.load(Ordering::SeqCst) {
                return Poll::Ready(());
            }
            if let Ok(mut registered) = self.waker.lock() {
                *registered = Some(cx.waker().clone());
            }
            Poll::Pending
        }
    }

    #[test]
    fn only_the_woken_futures_are_polled() {
        let waker = std::task::Waker::noop();
        let mut cx = Context::from_waker(waker);
        let mut set = FutureSet::<Counted>::default();
        let polls = Arc::new(AtomicUsize::new(0));
        let mut handles = Vec::new();
        for _ in 0..100 {
            let done = Arc::new(std::sync::atomic::AtomicBool::new(false));
            let waker = Arc::new(std::sync::Mutex::new(None));
            set.push(Counted { polls: polls.clone(), done: done.clone(), waker: waker.clone() });
            handles.push((done, waker));
        }
        assert!(set.poll_next(&mut cx).is_pending());
        assert_eq!(polls.swap(0, Ordering::SeqCst), 100, "each is polled once at first");
        assert!(set.poll_next(&mut cx).is_pending());
        assert_eq!(polls.swap(0, Ordering::SeqCst), 1, "then only the first, held apart");
        // One of them is done and woken, twice: it is polled once.
        let (done, waker) = &handles[37];
        done.store(true, Ordering::SeqCst);
        let Some(woken) = waker.lock().ok().and_then(|registered| registered.clone()) else {
            panic!("the future registered no waker")
        };
        woken.wake_by_ref();
        woken.wake_by_ref();
        assert_eq!(set.poll_next(&mut cx), Poll::Ready(Some(())));
        assert!(set.poll_next(&mut cx).is_pending());
        assert_eq!(polls.swap(0, Ordering::SeqCst), 3, "the first twice, the woken one once");
        // Its slot is taken again; the old waker's late call polls the new
        // future once for nothing, and nothing breaks.
        let late = Arc::new(std::sync::atomic::AtomicBool::new(false));
        set.push(Counted { polls: polls.clone(), done: late.clone(), waker: Arc::default() });
        woken.wake_by_ref();
        assert!(set.poll_next(&mut cx).is_pending());
        late.store(true, Ordering::SeqCst);
        assert!(set.poll_next(&mut cx).is_pending(), "not woken: not polled");
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
