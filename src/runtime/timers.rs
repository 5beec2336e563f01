//! Every sleep of the wasm32 build on one JS timer.
//!
//! Each request waits on a timeout that almost never fires. A timer of its
//! own per request (`gloo-timers`: a closure handed to JS, `setTimeout`,
//! then `clearTimeout` and the closure's release when the answer comes)
//! cost a Chromium page about 30 µs of every call: Blink's timers are
//! expensive to make and to cancel. Here the sleeps wait in one queue,
//! ordered by deadline, and one `setTimeout` (one closure, made once) is
//! set for the earliest. A sleep that ends early only leaves the queue.
//!
//! A browser keeps that timer set while no sleep waits, so a run of
//! requests sets it once, not once per request: a stale timer finds
//! nothing due and is set again for the next deadline, if there is one.
//! Node (and Bun) would stay alive for a set timer, so there it stays set
//! but is `unref()`ed while no sleep waits, and `ref()`ed again when one
//! does: two flag flips per request instead of a `setTimeout` and a
//! `clearTimeout`. Deno and workerd (which ties each timer to the request
//! that set it) have the timer cleared as soon as no sleep waits.
//!
//! [`Queue`] is the bookkeeping alone (no clock, no JS), so it is tested
//! natively; the host part is wasm32 only.

// Natively only the tests use the queue: tokio has its own timers.
#![cfg_attr(not(target_arch = "wasm32"), allow(dead_code))]

use std::cell::RefCell;
use std::cmp::{Ordering, Reverse};
use std::collections::BinaryHeap;
use std::rc::{Rc, Weak};
use std::task::Waker;

/// One sleep, shared by its future (the only strong owner) and the queue.
#[derive(Default)]
pub(crate) struct Slot {
    pub(crate) due: bool,
    pub(crate) waker: Option<Waker>,
}

struct Entry {
    deadline: u64,
    /// Breaks ties in the order the sleeps were made.
    order: u64,
    slot: Weak<RefCell<Slot>>,
}

impl PartialEq for Entry {
    fn eq(&self, other: &Self) -> bool {
        (self.deadline, self.order) == (other.deadline, other.order)
    }
}
impl Eq for Entry {}
impl PartialOrd for Entry {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Entry {
    fn cmp(&self, other: &Self) -> Ordering {
        (self.deadline, self.order).cmp(&(other.deadline, other.order))
    }
}

/// The sleeps waiting, earliest deadline first. Deadlines are whole
/// milliseconds of whatever clock the caller reads.
pub(crate) struct Queue {
    heap: BinaryHeap<Reverse<Entry>>,
    made: u64,
    /// Sleeps whose future still exists and that are not due yet.
    waiting: usize,
    /// The deadline the timer is set for, if it is set.
    pub(crate) armed: Option<u64>,
}

impl Queue {
    pub(crate) const fn new() -> Queue {
        Queue { heap: BinaryHeap::new(), made: 0, waiting: 0, armed: None }
    }

    /// Queues a sleep until `deadline`. Returns the deadline to set the
    /// timer for when it must be set (none set, or set for later).
    pub(crate) fn insert(&mut self, deadline: u64, slot: &Rc<RefCell<Slot>>) -> Option<u64> {
        // A sleep dropped before its deadline stays in the heap until it
        // would have been due: past twice the waiting ones, sweep them out,
        // so the heap holds at most about twice what waits.
        if self.heap.len() >= 2 * self.waiting + 32 {
            // Rebuilt whole, not `BinaryHeap::retain` (whose partial
            // rebuild is more code for a sweep this rare).
            let mut entries = std::mem::take(&mut self.heap).into_vec();
            entries.retain(|Reverse(entry)| entry.slot.strong_count() > 0);
            self.heap = BinaryHeap::from(entries);
        }
        self.made += 1;
        self.waiting += 1;
        self.heap.push(Reverse(Entry { deadline, order: self.made, slot: Rc::downgrade(slot) }));
        match self.armed {
            Some(armed) if armed <= deadline => None,
            _ => Some(deadline),
        }
    }

    /// A sleep's future is gone. Returns whether none waits any more.
    pub(crate) fn forget(&mut self, slot: &Slot) -> bool {
        if !slot.due {
            self.waiting = self.waiting.saturating_sub(1);
        }
        self.waiting == 0
    }

    /// The timer went off at `now`: marks what is due and returns the
    /// wakers to wake (outside any borrow of the queue) and the next
    /// deadline to set the timer for, if any sleep still waits.
    pub(crate) fn expire(&mut self, now: u64) -> (Vec<Waker>, Option<u64>) {
        self.armed = None;
        let mut wakers = Vec::new();
        while let Some(Reverse(entry)) = self.heap.peek() {
            let Some(slot) = entry.slot.upgrade() else {
                self.heap.pop();
                continue;
            };
            if entry.deadline > now {
                return (wakers, Some(entry.deadline));
            }
            self.heap.pop();
            let mut slot = slot.borrow_mut();
            slot.due = true;
            self.waiting = self.waiting.saturating_sub(1);
            wakers.extend(slot.waker.take());
        }
        (wakers, None)
    }

    /// How many entries the heap holds, dropped sleeps included.
    #[cfg(test)]
    fn held(&self) -> usize {
        self.heap.len()
    }
}

#[cfg(target_arch = "wasm32")]
pub(crate) use host::sleep_for;

#[cfg(target_arch = "wasm32")]
mod host {
    use std::cell::{OnceCell, RefCell};
    use std::future::Future;
    use std::pin::Pin;
    use std::rc::Rc;
    use std::task::{Context, Poll};

    use wasm_bindgen::JsCast;
    use wasm_bindgen::prelude::*;

    use super::{Queue, Slot};

    #[wasm_bindgen]
    extern "C" {
        #[wasm_bindgen(js_name = setTimeout)]
        fn set_timeout(callback: &js_sys::Function, millis: i32) -> JsValue;
        #[wasm_bindgen(js_name = clearTimeout)]
        fn clear_timeout(handle: &JsValue);

        /// Node's and Bun's `Timeout` object.
        type Timeout;
        /// The timer keeps the process alive again.
        #[wasm_bindgen(method, js_name = ref)]
        fn hold(this: &Timeout);
        /// The timer no longer keeps the process alive.
        #[wasm_bindgen(method, js_name = unref)]
        fn release(this: &Timeout);
    }

    /// What becomes of the timer while no sleep waits.
    #[derive(Clone, Copy, PartialEq, Eq)]
    enum Idle {
        /// Stays set (browsers: nothing stays alive for it).
        KeepSet,
        /// Stays set, `unref()`ed (Node, Bun: `setTimeout` returns an object
        /// with `ref` and `unref`); `held` says whether it is `ref()`ed.
        Unref { held: bool },
        /// Cleared (Deno, workerd, any other host).
        Clear,
    }

    struct Host {
        queue: Queue,
        /// What `setTimeout` returned for the timer that is set.
        handle: Option<JsValue>,
        /// `None` until the first timer is set (a browser names itself; Node
        /// is told by its handle).
        idle: Option<Idle>,
    }

    thread_local! {
        // A `const` start (no lazy set-up code); `arm` finds out the host.
        static HOST: RefCell<Host> = const { RefCell::new(Host { queue: Queue::new(), handle: None, idle: None }) };
        /// The timer's callback, made once and kept for the module's life.
        static FIRED: OnceCell<Closure<dyn FnMut()>> = const { OnceCell::new() };
    }

    /// A page or a browser worker: every browser names itself "Mozilla/5.0
    /// ..."; Node ("Node.js/"), Deno ("Deno/"), Bun and workerd do not.
    fn browser() -> bool {
        crate::runtime::user_agent().is_some_and(|agent| agent.starts_with("Mozilla/"))
    }

    /// The clock of the deadlines (and of the runtime's `sleep`):
    /// `Date.now()`, whole milliseconds.
    fn now() -> u64 {
        js_sys::Date::now().max(0.0) as u64
    }

    fn arm(host: &mut Host, deadline: u64) {
        if let Some(handle) = host.handle.take() {
            clear_timeout(&handle);
        }
        // `setTimeout` takes an i32; a longer wait is set again when the
        // timer goes off early.
        let millis = deadline.saturating_sub(now()).min(i32::MAX as u64) as i32;
        let handle = FIRED.with(|fired| {
            let callback = fired.get_or_init(|| Closure::new(fire));
            set_timeout(callback.as_ref().unchecked_ref(), millis)
        });
        match host.idle {
            None if browser() => host.idle = Some(Idle::KeepSet),
            None if handle.is_object() && js_sys::Reflect::has(&handle, &"unref".into()).unwrap_or(false) => {
                host.idle = Some(Idle::Unref { held: true });
            }
            None => host.idle = Some(Idle::Clear),
            // A new timer keeps the process alive.
            Some(Idle::Unref { .. }) => host.idle = Some(Idle::Unref { held: true }),
            Some(_) => {}
        }
        host.handle = Some(handle);
        host.queue.armed = Some(deadline);
    }

    /// A sleep joined the timer that is set: in Node it keeps the process
    /// alive again.
    fn hold(host: &mut Host) {
        if let (Some(Idle::Unref { held: false }), Some(handle)) = (host.idle, &host.handle) {
            handle.unchecked_ref::<Timeout>().hold();
            host.idle = Some(Idle::Unref { held: true });
        }
    }

    fn fire() {
        let wakers = HOST.with(|host| {
            let mut host = host.borrow_mut();
            host.handle = None;
            let (wakers, next) = host.queue.expire(now());
            if let Some(deadline) = next {
                arm(&mut host, deadline);
            }
            wakers
        });
        for waker in wakers {
            waker.wake();
        }
    }

    /// Resolves once `duration` has passed on the clock of `now`.
    pub(crate) fn sleep_for(duration: std::time::Duration) -> Sleep {
        sleep_until(now().saturating_add(crate::runtime::whole_millis(duration)))
    }

    /// Resolves at `deadline` (milliseconds of `Date.now()`).
    fn sleep_until(deadline: u64) -> Sleep {
        let slot = Rc::new(RefCell::new(Slot::default()));
        HOST.with(|host| {
            let mut host = host.borrow_mut();
            match host.queue.insert(deadline, &slot) {
                Some(deadline) => arm(&mut host, deadline),
                None => hold(&mut host),
            }
        });
        Sleep { slot }
    }

    pub(crate) struct Sleep {
        slot: Rc<RefCell<Slot>>,
    }

    impl Future for Sleep {
        type Output = ();

        fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
            let mut slot = self.slot.borrow_mut();
            if slot.due {
                return Poll::Ready(());
            }
            match &slot.waker {
                Some(waker) if waker.will_wake(cx.waker()) => {}
                _ => slot.waker = Some(cx.waker().clone()),
            }
            Poll::Pending
        }
    }

    impl Drop for Sleep {
        fn drop(&mut self) {
            // `try_with`: a sleep dropped while the thread's storage is torn
            // down has no queue to leave.
            let _ = HOST.try_with(|host| {
                let mut host = host.borrow_mut();
                if !host.queue.forget(&self.slot.borrow()) {
                    return;
                }
                match (host.idle, &host.handle) {
                    (Some(Idle::KeepSet), _) => {}
                    (Some(Idle::Unref { held: true }), Some(handle)) => {
                        handle.unchecked_ref::<Timeout>().release();
                        host.idle = Some(Idle::Unref { held: false });
                    }
                    (Some(Idle::Unref { .. }), _) => {}
                    _ => {
                        if let Some(handle) = host.handle.take() {
                            clear_timeout(&handle);
                        }
                        host.queue.armed = None;
                    }
                }
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn slot() -> Rc<RefCell<Slot>> {
        Rc::new(RefCell::new(Slot::default()))
    }

    #[test]
    fn the_timer_is_set_for_the_earliest_deadline_only() {
        let mut queue = Queue::new();
        let (a, b, c) = (slot(), slot(), slot());
        assert_eq!(queue.insert(500, &a), Some(500));
        queue.armed = Some(500);
        // Later deadlines ride on the timer already set.
        assert_eq!(queue.insert(700, &b), None);
        assert_eq!(queue.insert(500, &b), None);
        // An earlier one sets it again.
        assert_eq!(queue.insert(100, &c), Some(100));
    }

    #[test]
    fn due_sleeps_are_marked_in_deadline_order_and_the_next_deadline_is_returned() {
        let mut queue = Queue::new();
        let (a, b, c) = (slot(), slot(), slot());
        queue.insert(300, &a);
        queue.insert(100, &b);
        queue.insert(200, &c);
        let (_, next) = queue.expire(99);
        assert_eq!(next, Some(100));
        assert!(!b.borrow().due);
        let (_, next) = queue.expire(250);
        assert_eq!(next, Some(300));
        assert!(b.borrow().due && c.borrow().due && !a.borrow().due);
        let (_, next) = queue.expire(300);
        assert_eq!(next, None);
        assert!(a.borrow().due);
    }

    #[test]
    fn a_dropped_sleep_is_skipped_and_no_timer_is_kept_for_it() {
        let mut queue = Queue::new();
        let (a, b) = (slot(), slot());
        queue.insert(100, &a);
        queue.insert(200, &b);
        assert!(!queue.forget(&a.borrow()));
        drop(a);
        // Nothing is due at 150: the dropped sleep at 100 is passed over.
        let (wakers, next) = queue.expire(150);
        assert!(wakers.is_empty());
        assert_eq!(next, Some(200));
        assert!(queue.forget(&b.borrow()));
        drop(b);
        assert_eq!(queue.expire(1_000).1, None);
    }

    #[test]
    fn sleeps_that_end_early_do_not_pile_up() {
        // 10,000 requests one after another, each with a timeout that never
        // fires: the heap stays near what waits, not what was made.
        let mut queue = Queue::new();
        for i in 0..10_000u64 {
            let sleep = slot();
            queue.insert(60_000 + i, &sleep);
            queue.forget(&sleep.borrow());
        }
        assert!(queue.held() <= 64, "{} entries held", queue.held());
        assert_eq!(queue.waiting, 0);
    }
}
