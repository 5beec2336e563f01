//! A JS promise as a future whose settling runs the task it wakes at once.
//!
//! `wasm_bindgen_futures::JsFuture` wakes its task from the promise's
//! callback, and the task then runs in a microtask queued for it: for the
//! two promises of every exchange (`fetch`, then its body) that is two
//! microtasks more per call than needed. The callback is a JS job of its
//! own, with nothing of Rust's below it on the stack, so here it runs the
//! woken task itself ([`super::tasks::wake_and_run`]).
//!
//! Every promise is watched through the same two callbacks, made once and
//! bound to the promise's slot (`Function.prototype.bind`): a fresh pair of
//! Rust closures per promise costs each an allocation, a JS wrapper
//! registered with a `FinalizationRegistry` and its release, four times a
//! call. The bound pair is kept with its slot (the first [`KEPT_PAIRS`]
//! slots), so a slot used again watches its next promise with no call
//! into JS but `then`.

use std::cell::RefCell;
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

/// How many slots keep their bound callbacks: more than a session has
/// exchanges in flight most of the time, few enough that a burst of calls
/// does not leave thousands of functions behind.
const KEPT_PAIRS: usize = 256;

struct Slots {
    slots: Vec<Slot>,
    free: Vec<u32>,
    /// The callbacks bound to slot `i`, for the first [`KEPT_PAIRS`] slots.
    /// A slot is free only once its promise settled, and a promise settles
    /// once, so its pair is never called for the promise before.
    bound: Vec<(Callback, Callback)>,
    /// The shared callbacks, made on first use and kept for the module's
    /// life: `(fulfilled, rejected)`, each called with a slot and a value.
    callbacks: Option<(Callback, Callback)>,
}

// A `const` start: no lazy set-up code for the module to carry.
thread_local! {
    static SLOTS: RefCell<Slots> = const {
        RefCell::new(Slots { slots: Vec::new(), free: Vec::new(), bound: Vec::new(), callbacks: None })
    };
}

#[wasm_bindgen]
extern "C" {
    /// One of the shared callbacks, or one bound to a slot.
    #[derive(Clone)]
    type Callback;

    /// `callback.bind(undefined, slot)`.
    #[wasm_bindgen(method, js_name = bind)]
    fn bind_slot(this: &Callback, context: &JsValue, slot: u32) -> Callback;

    /// A promise, seen only for its `then`.
    type Thenable;

    /// `promise.then(fulfilled, rejected)`, the promise it makes unused.
    #[wasm_bindgen(method, js_name = then)]
    fn watch(this: &Thenable, fulfilled: &Callback, rejected: &Callback);
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
    let (slot, fulfilled, rejected) = SLOTS.with(|slots| {
        let mut slots = slots.borrow_mut();
        let slot = match slots.free.pop() {
            Some(slot) => {
                slots.slots[slot as usize] = Slot::Waiting(None);
                slot
            }
            None => {
                slots.slots.push(Slot::Waiting(None));
                (slots.slots.len() - 1) as u32
            }
        };
        if let Some((fulfilled, rejected)) = slots.bound.get(slot as usize) {
            return (slot, fulfilled.clone(), rejected.clone());
        }
        let (fulfilled, rejected) = slots.callbacks.get_or_insert_with(callbacks);
        let undefined = JsValue::UNDEFINED;
        let pair = (fulfilled.bind_slot(&undefined, slot), rejected.bind_slot(&undefined, slot));
        // Slots are numbered in the order they are first used, so the
        // next one to keep is always `bound.len()`.
        if slot as usize == slots.bound.len() && slots.bound.len() < KEPT_PAIRS {
            slots.bound.push(pair.clone());
        }
        (slot, pair.0, pair.1)
    });
    promise.unchecked_ref::<Thenable>().watch(&fulfilled, &rejected);
    Settled { slot: Some(slot) }
}

fn callbacks() -> (Callback, Callback) {
    let make = |ok: bool| {
        Closure::<dyn FnMut(u32, JsValue)>::new(move |slot: u32, value: JsValue| {
            settle(slot, if ok { Ok(value) } else { Err(value) })
        })
        .into_js_value()
        .unchecked_into::<Callback>()
    };
    (make(true), make(false))
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
