//! Timers and promises as futures on the JS event loop, without a closure
//! per wait.
//!
//! `gloo_timers` and `wasm_bindgen_futures::JsFuture` make a new Rust
//! closure for every timer and two for every promise. Each one is a
//! JS-side wrapper registered with a `FinalizationRegistry`, later
//! unregistered and destroyed: on a `tools/call` in Node that was the
//! largest share of the boundary crossings. Here one callback is made
//! once per thread and every wait is a slot in a table: a timer passes its
//! slot's key through `setTimeout`'s extra arguments, a promise's handlers
//! are the callback bound to the key (`Function.prototype.bind`,
//! which JS does without calling back into the wasm).

use std::cell::RefCell;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll, Waker};

use js_sys::Promise;
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;

#[wasm_bindgen]
extern "C" {
    /// A JS function: the shared callbacks and their bound copies.
    #[wasm_bindgen(js_name = Function)]
    type Callback;

    /// `callback.bind(null, key, fulfilled)`.
    #[wasm_bindgen(method, js_name = bind)]
    fn bind_key(this: &Callback, context: &JsValue, key: f64, fulfilled: bool) -> Callback;

    /// A promise, as far as waiting for it goes.
    #[wasm_bindgen(js_name = Promise)]
    type Thenable;

    /// `promise.then(onFulfilled, onRejected)`; the promise it returns is
    /// not needed.
    #[wasm_bindgen(method, js_name = then)]
    fn then_both(this: &Thenable, fulfilled: &Callback, rejected: &Callback);

    /// `setTimeout(handler, millis, key, true)`: the handler is called with
    /// the key and `true`, as a fulfilled promise's would be.
    #[wasm_bindgen(js_name = setTimeout)]
    fn set_timeout(handler: &Callback, millis: i32, key: f64, fulfilled: bool) -> JsValue;

    #[wasm_bindgen(js_name = clearTimeout)]
    fn clear_timeout(handle: &JsValue);
}

/// Keys carry the slot's index in their low bits and its generation above,
/// so a key that outlived its slot (a stale callback) matches nothing.
const INDEX_BITS: u32 = 24;
const INDEX_MASK: u64 = (1 << INDEX_BITS) - 1;
/// Generations wrap below 2^29, keeping keys exact in an `f64`.
const GENERATION_MASK: u32 = (1 << 29) - 1;

enum Slot {
    Free,
    Waiting(Option<Waker>),
    /// Its future was dropped before JS called back: freed when it does
    /// (a promise's handlers cannot be taken back).
    Abandoned,
    Settled(Result<JsValue, JsValue>),
}

struct Table {
    slots: Vec<(u32, Slot)>,
    free: Vec<usize>,
}

impl Table {
    fn take(&mut self) -> f64 {
        let index = match self.free.pop() {
            Some(index) => index,
            None => {
                self.slots.push((0, Slot::Free));
                self.slots.len() - 1
            }
        };
        let (generation, slot) = &mut self.slots[index];
        *slot = Slot::Waiting(None);
        ((u64::from(*generation) << INDEX_BITS) | index as u64) as f64
    }

    fn slot(&mut self, key: f64) -> Option<&mut Slot> {
        let key = key as u64;
        let (generation, slot) = self.slots.get_mut((key & INDEX_MASK) as usize)?;
        (u64::from(*generation) == key >> INDEX_BITS).then_some(slot)
    }

    fn release(&mut self, key: f64) {
        let index = (key as u64 & INDEX_MASK) as usize;
        if let Some((generation, slot)) = self.slots.get_mut(index)
            && u64::from(*generation) == key as u64 >> INDEX_BITS
        {
            *generation = (*generation + 1) & GENERATION_MASK;
            *slot = Slot::Free;
            self.free.push(index);
        }
    }
}

thread_local! {
    static TABLE: RefCell<Table> = const { RefCell::new(Table { slots: Vec::new(), free: Vec::new() }) };
    /// The one callback every timer and promise calls back.
    static CALLBACK: Callback = Closure::<dyn Fn(f64, bool, JsValue)>::new(|key: f64, fulfilled: bool, value: JsValue| {
        settle_slot(key, if fulfilled { Ok(value) } else { Err(value) })
    })
    .into_js_value()
    .unchecked_into();
}

/// JS called back for `key`: store the outcome and wake the waiter (after
/// the table is released: a waker may poll at once).
fn settle_slot(key: f64, outcome: Result<JsValue, JsValue>) {
    let waker = TABLE.with(|table| {
        let mut table = table.borrow_mut();
        let slot = table.slot(key)?;
        match std::mem::replace(slot, Slot::Settled(outcome)) {
            Slot::Waiting(waker) => waker,
            Slot::Abandoned => {
                table.release(key);
                None
            }
            // Called twice (cannot happen for a timer or a promise): keep
            // the first outcome.
            earlier => {
                *slot = earlier;
                None
            }
        }
    });
    if let Some(waker) = waker {
        waker.wake();
    }
}

/// Ready with the outcome once the slot is settled; otherwise keeps the
/// waker to wake.
fn poll_slot(key: f64, cx: &mut Context<'_>) -> Poll<Result<JsValue, JsValue>> {
    TABLE.with(|table| {
        let mut table = table.borrow_mut();
        let Some(slot) = table.slot(key) else {
            // Only a released key, which a finished future never polls.
            return Poll::Ready(Err(JsValue::UNDEFINED));
        };
        match std::mem::replace(slot, Slot::Free) {
            Slot::Settled(outcome) => {
                table.release(key);
                Poll::Ready(outcome)
            }
            Slot::Waiting(waker) => {
                let waker = match waker {
                    Some(waker) if waker.will_wake(cx.waker()) => waker,
                    _ => cx.waker().clone(),
                };
                *slot = Slot::Waiting(Some(waker));
                Poll::Pending
            }
            other => {
                *slot = other;
                Poll::Ready(Err(JsValue::UNDEFINED))
            }
        }
    })
}

/// A promise's outcome as a future: `Ok` with the value it was fulfilled
/// with, `Err` with what it was rejected with.
pub struct Settled {
    key: Option<f64>,
}

/// Waits for `promise`.
pub fn settled(promise: &Promise) -> Settled {
    let key = TABLE.with(|table| table.borrow_mut().take());
    CALLBACK.with(|callback| {
        let fulfilled = callback.bind_key(&JsValue::NULL, key, true);
        let rejected = callback.bind_key(&JsValue::NULL, key, false);
        promise.unchecked_ref::<Thenable>().then_both(&fulfilled, &rejected);
    });
    Settled { key: Some(key) }
}

impl Future for Settled {
    type Output = Result<JsValue, JsValue>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let Some(key) = self.key else {
            return Poll::Ready(Err(JsValue::UNDEFINED));
        };
        let polled = poll_slot(key, cx);
        if polled.is_ready() {
            self.key = None;
        }
        polled
    }
}

impl Drop for Settled {
    fn drop(&mut self) {
        if let Some(key) = self.key {
            TABLE.with(|table| {
                let mut table = table.borrow_mut();
                match table.slot(key) {
                    Some(slot @ Slot::Waiting(_)) => *slot = Slot::Abandoned,
                    Some(_) => table.release(key),
                    None => {}
                }
            });
        }
    }
}

/// A `setTimeout` as a future; dropping it clears the timer.
pub struct Sleep {
    millis: i32,
    /// The slot's key and the timer's handle, once polled.
    armed: Option<(f64, JsValue)>,
    done: bool,
}

/// Resolves after `millis` milliseconds (the timer starts at the first poll).
pub fn sleep_millis(millis: i32) -> Sleep {
    Sleep { millis, armed: None, done: false }
}

impl Future for Sleep {
    type Output = ();

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        if self.done {
            return Poll::Ready(());
        }
        let Some((key, _)) = &self.armed else {
            let key = TABLE.with(|table| {
                let mut table = table.borrow_mut();
                let key = table.take();
                if let Some(Slot::Waiting(waker)) = table.slot(key) {
                    *waker = Some(cx.waker().clone());
                }
                key
            });
            let handle = CALLBACK.with(|callback| set_timeout(callback, self.millis, key, true));
            self.armed = Some((key, handle));
            return Poll::Pending;
        };
        let key = *key;
        match poll_slot(key, cx) {
            Poll::Ready(_) => {
                self.done = true;
                self.armed = None;
                Poll::Ready(())
            }
            Poll::Pending => Poll::Pending,
        }
    }
}

impl Drop for Sleep {
    fn drop(&mut self) {
        if let Some((key, handle)) = self.armed.take() {
            // Cleared, the timer never calls back: the slot is free now.
            clear_timeout(&handle);
            TABLE.with(|table| table.borrow_mut().release(key));
        }
    }
}
