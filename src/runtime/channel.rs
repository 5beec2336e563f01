//! The engine's channels: a oneshot (one answer) and an unbounded queue
//! (commands, transport events, notifications), each a value behind one
//! lock that the sending and the receiving side share.
//!
//! They replace `futures::channel`'s, whose lock-free queue and oneshot
//! are made for contention the engine does not have (a message passes from
//! one task to another a few times per request) and cost their code for
//! each type they carry: 2.2 KB of the lite wasm's gzip for three queue
//! and three oneshot types (docs/size.md, session 43). The names and the
//! behaviour are theirs: a receiver learns when every sender is gone, a
//! sender when the receiver is.

use std::collections::VecDeque;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex, MutexGuard};
use std::task::{Context, Poll, Waker};

use futures::Stream;

/// A lock that a panic elsewhere cannot leave unusable: every state here
/// is written in one step, so a poisoned one is still whole.
fn lock<T>(shared: &Mutex<T>) -> MutexGuard<'_, T> {
    shared.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// `Debug` of a channel's end: its name (what is in it is not shown).
macro_rules! debug_by_name {
    ($($end:ident),*) => {$(
        impl<T> std::fmt::Debug for $end<T> {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(stringify!($end))
            }
        }
    )*};
}

/// One answer from one task to another.
pub(crate) mod oneshot {
    use super::*;

    /// The sender went away without sending.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub(crate) struct Canceled;

    struct Slot<T> {
        value: Option<T>,
        /// The receiver's task, waiting for the value.
        waker: Option<Waker>,
        sender: bool,
        receiver: bool,
    }

    /// Sends the one value ([`Sender::send`]); dropped unsent, the receiver
    /// gets [`Canceled`].
    pub(crate) struct Sender<T>(Arc<Mutex<Slot<T>>>);

    /// Resolves to the value, or to [`Canceled`].
    pub(crate) struct Receiver<T>(Arc<Mutex<Slot<T>>>);

    debug_by_name!(Sender, Receiver);

    /// A connected pair.
    pub(crate) fn channel<T>() -> (Sender<T>, Receiver<T>) {
        let slot = Arc::new(Mutex::new(Slot { value: None, waker: None, sender: true, receiver: true }));
        (Sender(slot.clone()), Receiver(slot))
    }

    impl<T> Sender<T> {
        /// Hands `value` over; gives it back when the receiver is gone.
        pub(crate) fn send(self, value: T) -> Result<(), T> {
            let mut slot = lock(&self.0);
            if !slot.receiver {
                return Err(value);
            }
            slot.value = Some(value);
            Ok(())
            // Dropping `self` wakes the receiver.
        }

        /// Whether the receiver is gone (nobody waits for the value).
        pub(crate) fn is_canceled(&self) -> bool {
            !lock(&self.0).receiver
        }
    }

    impl<T> Drop for Sender<T> {
        fn drop(&mut self) {
            let waker = {
                let mut slot = lock(&self.0);
                slot.sender = false;
                slot.waker.take()
            };
            // Woken outside the lock: the receiver's task may run at once.
            if let Some(waker) = waker {
                waker.wake();
            }
        }
    }

    impl<T> Receiver<T> {
        /// The value if it came, `None` if it may still come.
        pub(crate) fn try_recv(&mut self) -> Result<Option<T>, Canceled> {
            let mut slot = lock(&self.0);
            match slot.value.take() {
                Some(value) => Ok(Some(value)),
                None if slot.sender => Ok(None),
                None => Err(Canceled),
            }
        }
    }

    impl<T> Future for Receiver<T> {
        type Output = Result<T, Canceled>;

        fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
            let mut slot = lock(&self.0);
            match slot.value.take() {
                Some(value) => Poll::Ready(Ok(value)),
                None if slot.sender => {
                    slot.waker = Some(cx.waker().clone());
                    Poll::Pending
                }
                None => Poll::Ready(Err(Canceled)),
            }
        }
    }

    impl<T> Drop for Receiver<T> {
        fn drop(&mut self) {
            let mut slot = lock(&self.0);
            slot.receiver = false;
            // A value sent but never taken goes now, not with the sender.
            let unread = slot.value.take();
            drop(slot);
            drop(unread);
        }
    }
}

/// An unbounded queue from any number of senders to one receiver.
pub(crate) mod mpsc {
    use super::*;

    struct Queue<T> {
        items: VecDeque<T>,
        /// The receiver's task, waiting for an item.
        waker: Option<Waker>,
        senders: usize,
        /// Taken no more: the receiver is gone, or a sender closed it.
        closed: bool,
    }

    /// Puts items in the queue ([`UnboundedSender::unbounded_send`]).
    pub(crate) struct UnboundedSender<T>(Arc<Mutex<Queue<T>>>);

    /// The items in order; the stream ends once the queue is empty and
    /// every sender is gone (or one closed it).
    pub(crate) struct UnboundedReceiver<T>(Arc<Mutex<Queue<T>>>);

    debug_by_name!(UnboundedSender, UnboundedReceiver);

    /// A connected pair.
    pub(crate) fn unbounded<T>() -> (UnboundedSender<T>, UnboundedReceiver<T>) {
        let queue = Arc::new(Mutex::new(Queue { items: VecDeque::new(), waker: None, senders: 1, closed: false }));
        (UnboundedSender(queue.clone()), UnboundedReceiver(queue))
    }

    /// Wakes `waker` (taken under the lock) once the lock is released.
    fn wake(waker: Option<Waker>) {
        if let Some(waker) = waker {
            waker.wake();
        }
    }

    impl<T> UnboundedSender<T> {
        /// Queues `item`; gives it back when the queue is closed.
        pub(crate) fn unbounded_send(&self, item: T) -> Result<(), T> {
            let mut queue = lock(&self.0);
            if queue.closed {
                return Err(item);
            }
            queue.items.push_back(item);
            let waker = queue.waker.take();
            drop(queue);
            wake(waker);
            Ok(())
        }

        /// Whether items are taken no more.
        pub(crate) fn is_closed(&self) -> bool {
            lock(&self.0).closed
        }

        /// Takes no more items; the receiver still gets those queued.
        pub(crate) fn close_channel(&self) {
            let mut queue = lock(&self.0);
            queue.closed = true;
            let waker = queue.waker.take();
            drop(queue);
            wake(waker);
        }
    }

    impl<T> Clone for UnboundedSender<T> {
        fn clone(&self) -> Self {
            lock(&self.0).senders += 1;
            UnboundedSender(self.0.clone())
        }
    }

    impl<T> Drop for UnboundedSender<T> {
        fn drop(&mut self) {
            let mut queue = lock(&self.0);
            queue.senders -= 1;
            let waker = if queue.senders == 0 { queue.waker.take() } else { None };
            drop(queue);
            wake(waker);
        }
    }

    impl<T> Stream for UnboundedReceiver<T> {
        type Item = T;

        fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<T>> {
            let mut queue = lock(&self.0);
            if let Some(item) = queue.items.pop_front() {
                return Poll::Ready(Some(item));
            }
            if queue.closed || queue.senders == 0 {
                return Poll::Ready(None);
            }
            queue.waker = Some(cx.waker().clone());
            Poll::Pending
        }
    }

    impl<T> Drop for UnboundedReceiver<T> {
        fn drop(&mut self) {
            let mut queue = lock(&self.0);
            queue.closed = true;
            // What was queued and never taken goes now, not with the last sender.
            let unread = std::mem::take(&mut queue.items);
            drop(queue);
            drop(unread);
        }
    }
}

#[cfg(test)]
mod tests {
    use std::future::Future;
    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::task::{Context, Poll, Wake};
    use std::thread::Thread;
    use std::time::{Duration, Instant};

    use futures::StreamExt;

    use super::{mpsc, oneshot};

    /// Wakes the test's thread, and says it was woken.
    struct Unpark(Thread, AtomicBool);

    impl Wake for Unpark {
        fn wake(self: Arc<Self>) {
            self.1.store(true, Ordering::SeqCst);
            self.0.unpark();
        }
    }

    /// Runs `future` on this thread, polled again only when it was woken:
    /// a wake that never comes fails the test (after 10 s).
    fn block_on<F: Future>(future: F) -> F::Output {
        let unpark = Arc::new(Unpark(std::thread::current(), AtomicBool::new(false)));
        let waker = unpark.clone().into();
        let mut cx = Context::from_waker(&waker);
        let mut future = std::pin::pin!(future);
        loop {
            if let Poll::Ready(output) = future.as_mut().poll(&mut cx) {
                return output;
            }
            let deadline = Instant::now() + Duration::from_secs(10);
            while !unpark.1.swap(false, Ordering::SeqCst) {
                assert!(Instant::now() < deadline, "the future was never woken");
                std::thread::park_timeout(Duration::from_millis(100));
            }
        }
    }

    #[test]
    fn a_oneshot_answers_once_or_says_it_was_dropped() {
        let (sender, receiver) = oneshot::channel();
        assert!(sender.send(7).is_ok());
        assert_eq!(block_on(receiver), Ok(7));

        let (sender, receiver) = oneshot::channel::<u8>();
        drop(sender);
        assert_eq!(block_on(receiver), Err(oneshot::Canceled));

        let (sender, mut receiver) = oneshot::channel();
        assert_eq!(receiver.try_recv(), Ok(None));
        assert!(!sender.is_canceled());
        drop(receiver);
        assert!(sender.is_canceled());
        assert_eq!(sender.send(1), Err(1));
    }

    #[test]
    fn a_oneshot_wakes_the_receiver_across_threads() {
        let (sender, receiver) = oneshot::channel();
        let thread = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(20));
            sender.send("late").ok();
        });
        assert_eq!(block_on(receiver), Ok("late"));
        thread.join().ok();

        let (sender, receiver) = oneshot::channel::<()>();
        let thread = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(20));
            drop(sender);
        });
        assert_eq!(block_on(receiver), Err(oneshot::Canceled));
        thread.join().ok();
    }

    #[test]
    fn a_queue_delivers_in_order_and_ends_with_its_senders() {
        let (sender, mut receiver) = mpsc::unbounded();
        let second = sender.clone();
        sender.unbounded_send(1).ok();
        second.unbounded_send(2).ok();
        drop(sender);
        assert_eq!(block_on(receiver.next()), Some(1));
        second.unbounded_send(3).ok();
        drop(second);
        // Queued items outlive the senders.
        assert_eq!(block_on(receiver.next()), Some(2));
        assert_eq!(block_on(receiver.next()), Some(3));
        assert_eq!(block_on(receiver.next()), None);
    }

    #[test]
    fn a_closed_queue_refuses_and_drains() {
        let (sender, mut receiver) = mpsc::unbounded();
        sender.unbounded_send("kept").ok();
        sender.close_channel();
        assert!(sender.is_closed());
        assert_eq!(sender.unbounded_send("refused"), Err("refused"));
        assert_eq!(block_on(receiver.next()), Some("kept"));
        assert_eq!(block_on(receiver.next()), None);

        let (sender, receiver) = mpsc::unbounded::<u8>();
        drop(receiver);
        assert!(sender.is_closed());
        assert_eq!(sender.unbounded_send(1), Err(1));
    }

    #[test]
    fn a_queue_wakes_its_receiver_from_other_threads() {
        let (sender, receiver) = mpsc::unbounded();
        let threads: Vec<_> = (0..4)
            .map(|t| {
                let sender = sender.clone();
                std::thread::spawn(move || {
                    for i in 0..250 {
                        sender.unbounded_send(t * 1000 + i).ok();
                    }
                })
            })
            .collect();
        drop(sender);
        let got: Vec<u32> = block_on(receiver.collect());
        for thread in threads {
            thread.join().ok();
        }
        assert_eq!(got.len(), 1000);
        // Each sender's items arrive in the order it sent them.
        for t in 0..4 {
            let own: Vec<u32> = got.iter().copied().filter(|v| v / 1000 == t).collect();
            assert!(own.windows(2).all(|w| w[0] < w[1]));
        }
    }
}
