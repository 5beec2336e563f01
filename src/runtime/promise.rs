//! A JS promise as a future whose settling runs the task it wakes at once.
//!
//! `wasm_bindgen_futures::JsFuture` wakes its task from the promise's
//! callback, and the task then runs in a microtask queued for it: for the
//! two promises of every exchange (`fetch`, then its body) that is two
//! microtasks more per call than needed. The callback is a JS job of its
//! own, with nothing of Rust's below it on the stack, so here it runs the
//! woken task itself ([`super::tasks::wake_and_run`]).

use std::cell::RefCell;
use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;
use std::task::{Context, Poll, Waker};

use js_sys::Promise;
use wasm_bindgen::prelude::*;

type Callback = Closure<dyn FnMut(JsValue)>;

#[derive(Default)]
struct State {
    outcome: Option<Result<JsValue, JsValue>>,
    waker: Option<Waker>,
    /// The two callbacks, kept alive until one runs (as `JsFuture` does:
    /// a promise that never settles keeps them).
    callbacks: Option<(Callback, Callback)>,
}

/// What `promise` settles to; see the module.
pub(crate) struct Settled {
    state: Rc<RefCell<State>>,
}

/// Waits for `promise`.
pub(crate) fn settled(promise: &Promise) -> Settled {
    let state = Rc::new(RefCell::new(State::default()));
    let callback = |ok: bool| {
        let state = Rc::clone(&state);
        Closure::once(move |value: JsValue| settle(&state, if ok { Ok(value) } else { Err(value) }))
    };
    let (fulfilled, rejected) = (callback(true), callback(false));
    let _ = promise.then2(&fulfilled, &rejected);
    state.borrow_mut().callbacks = Some((fulfilled, rejected));
    Settled { state }
}

fn settle(state: &Rc<RefCell<State>>, outcome: Result<JsValue, JsValue>) {
    let (waker, callbacks) = {
        let mut state = state.borrow_mut();
        state.outcome = Some(outcome);
        (state.waker.take(), state.callbacks.take())
    };
    // Released outside the borrow (wasm-bindgen defers a running
    // callback's release until it returns).
    drop(callbacks);
    if let Some(waker) = waker {
        super::tasks::wake_and_run(waker);
    }
}

impl Future for Settled {
    type Output = Result<JsValue, JsValue>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let mut state = self.state.borrow_mut();
        if let Some(outcome) = state.outcome.take() {
            return Poll::Ready(outcome);
        }
        match &state.waker {
            Some(waker) if waker.will_wake(cx.waker()) => {}
            _ => state.waker = Some(cx.waker().clone()),
        }
        Poll::Pending
    }
}
