//! A JS promise as a future whose settling runs the task it wakes at once.
//!
//! `wasm_bindgen_futures::JsFuture` wakes its task from the promise's
//! callback, and the task then runs in a microtask queued for it: for the
//! two promises of every exchange (`fetch`, then its body) that is two
//! microtasks more per call than needed. The callback is a JS job of its
//! own, with nothing of Rust's below it on the stack, so here it runs the
//! woken task itself ([`super::tasks::wake_and_run`]).
//!
//! Every promise is watched through one Rust callback, made once, by
//! `host.js`'s `watch`, which calls it with the promise's slot and how it
//! settled: a fresh pair of Rust closures per promise costs each an
//! allocation, a JS wrapper registered with a `FinalizationRegistry` and its
//! release, four times a call. `host.js` keeps the pair of JS callbacks of
//! each of the first 256 slots, so a slot used again watches its next
//! promise with nothing made but the `then`.

use std::cell::{OnceCell, RefCell};
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll, Waker};

use js_sys::Promise;
use wasm_bindgen::prelude::*;

/// One watched promise.
enum Slot {
    /// Not settled yet; the future is still there to take the outcome.
    Waiting(Option<Waker>),
    /// Not settled yet, and the future was dropped: the slot is freed when
    /// the promise settles (its callback still holds the slot's number).
    Abandoned,
    /// Settled, the outcome not taken yet.
    Settled(Result<JsValue, JsValue>),
    Free,
}

struct Slots {
    slots: Vec<Slot>,
    free: Vec<u32>,
}

// A `const` start: no lazy set-up code for the module to carry.
thread_local! {
    static SLOTS: RefCell<Slots> = const { RefCell::new(Slots { slots: Vec::new(), free: Vec::new() }) };
    /// The one callback every watched promise settles through, made on
    /// first use and kept for the module's life: called with the slot
    /// times two, plus one when the promise fulfilled, and the value.
    static SETTLE: OnceCell<JsValue> = const { OnceCell::new() };
}

#[wasm_bindgen(module = "/src/runtime/host.js")]
extern "C" {
    /// `promise.then(...)`, calling `settle(slot * 2 + 1, value)` or
    /// `settle(slot * 2, reason)`.
    fn watch(promise: &Promise, slot: u32, settle: &JsValue);
}

/// What `promise` settles to; see the module.
pub(crate) struct Settled {
    /// `None` once the outcome was taken (the slot may serve another
    /// promise by then).
    slot: Option<u32>,
}

/// Waits for the promise a JS call returned, or gives what the call threw
/// (an import declared with `catch` that returns a `Promise`: an `async`
/// import would wait through `wasm_bindgen_futures::JsFuture`, whose code
/// the module then carries beside this).
///
/// Not an `async fn`: its state machine was one more layer inlined into
/// every caller's.
#[cfg(feature = "js")]
pub(crate) fn outcome(started: Result<Promise, JsValue>) -> impl Future<Output = Result<JsValue, JsValue>> {
    use futures::future::{Either, ready};
    match started {
        Ok(promise) => Either::Left(settled(&promise)),
        Err(thrown) => Either::Right(ready(Err(thrown))),
    }
}

/// Waits for `promise`.
pub(crate) fn settled(promise: &Promise) -> Settled {
    let slot = SLOTS.with(|slots| {
        let mut slots = slots.borrow_mut();
        match slots.free.pop() {
            Some(slot) => {
                slots.slots[slot as usize] = Slot::Waiting(None);
                slot
            }
            None => {
                slots.slots.push(Slot::Waiting(None));
                (slots.slots.len() - 1) as u32
            }
        }
    });
    SETTLE.with(|callback| {
        let callback = callback.get_or_init(|| {
            Closure::<dyn FnMut(u32, JsValue)>::new(|code: u32, value: JsValue| {
                settle(code >> 1, if code & 1 == 1 { Ok(value) } else { Err(value) })
            })
            .into_js_value()
        });
        watch(promise, slot, callback);
    });
    Settled { slot: Some(slot) }
}

fn settle(slot: u32, outcome: Result<JsValue, JsValue>) {
    let waker = SLOTS.with(|slots| {
        let mut slots = slots.borrow_mut();
        let index = slot as usize;
        match slots.slots.get_mut(index) {
            Some(entry @ Slot::Waiting(_)) => match std::mem::replace(entry, Slot::Settled(outcome)) {
                Slot::Waiting(waker) => waker,
                _ => None,
            },
            Some(entry @ Slot::Abandoned) => {
                *entry = Slot::Free;
                slots.free.push(slot);
                None
            }
            // A promise settles once: nothing else can reach here.
            _ => None,
        }
    });
    if let Some(waker) = waker {
        super::tasks::wake_and_run(waker);
    }
}

impl Future for Settled {
    type Output = Result<JsValue, JsValue>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = self.get_mut();
        // Taken already: a future is not polled after it is ready.
        let Some(slot) = this.slot else { return Poll::Pending };
        let outcome = SLOTS.with(|slots| {
            let mut slots = slots.borrow_mut();
            let entry = slots.slots.get_mut(slot as usize)?;
            if let Slot::Waiting(waker) = entry {
                match waker {
                    Some(waker) if waker.will_wake(cx.waker()) => {}
                    _ => *waker = Some(cx.waker().clone()),
                }
                return None;
            }
            let Slot::Settled(outcome) = std::mem::replace(entry, Slot::Free) else { return None };
            slots.free.push(slot);
            Some(outcome)
        });
        match outcome {
            Some(outcome) => {
                this.slot = None;
                Poll::Ready(outcome)
            }
            None => Poll::Pending,
        }
    }
}

impl Drop for Settled {
    fn drop(&mut self) {
        let Some(slot) = self.slot else { return };
        SLOTS.with(|slots| {
            let mut slots = slots.borrow_mut();
            match slots.slots.get_mut(slot as usize) {
                Some(entry @ Slot::Waiting(_)) => *entry = Slot::Abandoned,
                Some(entry @ Slot::Settled(_)) => {
                    *entry = Slot::Free;
                    slots.free.push(slot);
                }
                _ => {}
            }
        });
    }
}
