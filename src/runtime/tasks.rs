//! Every task of the wasm32 build (a spawned future, a JS call's promise)
//! in one queue, run from a microtask.
//!
//! wasm-bindgen-futures runs a task woken while its queue runs in the next
//! microtask, not this one. A call crosses from task to task (the JS call's
//! promise hands its request to the session loop, the loop hands the answer
//! back), so every crossing cost a microtask of its own: `queueMicrotask`,
//! the closure into wasm, the queue's bookkeeping, about 25-45 µs of a call
//! in Chromium each. Here a task woken while the queue runs is run in the
//! same microtask, up to [`POLLS_PER_TURN`] polls, after which the rest
//! waits for the next one (a task that wakes itself on every poll cannot
//! hold the queue forever).
//!
//! A waker names its task by slot and generation, so a waker kept after
//! its task ended cannot wake the task that took the slot after it. The
//! bookkeeping has no JS in it and is tested natively; only queueing the
//! microtask is wasm32 only.

// Natively only the tests use the queue: tokio runs the native tasks.
#![cfg_attr(not(target_arch = "wasm32"), allow(dead_code))]

use std::cell::RefCell;
use std::collections::VecDeque;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::task::{Context, Wake, Waker};

/// A task's future (no `Send`: JS values are single-threaded).
pub(crate) type LocalFuture = Pin<Box<dyn Future<Output = ()>>>;

/// The most task polls one microtask makes.
const POLLS_PER_TURN: usize = 1024;

/// What a waker holds: its task's slot and generation, and whether the task
/// is in the ready queue already.
struct Handle {
    slot: usize,
    generation: u64,
    queued: AtomicBool,
}

impl Wake for Handle {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        if !self.queued.swap(true, Ordering::Relaxed) {
            make_ready(self.slot, self.generation);
        }
    }
}

struct Slot {
    generation: u64,
    /// `None` while the task is being polled.
    future: Option<LocalFuture>,
    handle: Arc<Handle>,
}

struct Tasks {
    slots: Vec<Option<Slot>>,
    free: Vec<usize>,
    ready: VecDeque<(usize, u64)>,
    /// Whether a microtask is queued to run the ready tasks.
    turn_queued: bool,
    /// Whether ready tasks are being run (by that microtask, or by a
    /// settled promise's callback): a task woken meanwhile is run by it.
    running: bool,
    generations: u64,
}

// A `const` start: no lazy set-up code for the module to carry.
thread_local! {
    static TASKS: RefCell<Tasks> = const {
        RefCell::new(Tasks {
            slots: Vec::new(),
            free: Vec::new(),
            ready: VecDeque::new(),
            turn_queued: false,
            running: false,
            generations: 0,
        })
    };
}

/// Runs `future` from the next microtask on.
pub(crate) fn spawn(future: LocalFuture) {
    insert(future).wake_by_ref();
}

/// Runs `future` now, up to its first wait, then as [`spawn`] would (the
/// JS face's promises); the tasks it wakes meanwhile (and any other task
/// ready to run) run now too. A call hands its request to the session
/// loop, so the loop sends it before the JS method returns, not in a
/// microtask after: the request leaves that much sooner, and the microtask
/// is saved. Started from inside a run (a JS callback the engine called),
/// the run below polls what it woke.
#[cfg(any(feature = "js", test))]
pub(crate) fn spawn_started(future: LocalFuture) {
    let handle = insert(future);
    let nested = TASKS.with(|tasks| std::mem::replace(&mut tasks.borrow_mut().running, true));
    poll(handle.slot, handle.generation);
    if !nested {
        run_ready();
    }
}

fn insert(future: LocalFuture) -> Arc<Handle> {
    TASKS.with(|tasks| {
        let mut tasks = tasks.borrow_mut();
        tasks.generations += 1;
        let generation = tasks.generations;
        let slot = tasks.free.pop().unwrap_or(tasks.slots.len());
        let handle = Arc::new(Handle { slot, generation, queued: AtomicBool::new(false) });
        let entry = Some(Slot { generation, future: Some(future), handle: Arc::clone(&handle) });
        match tasks.slots.get_mut(slot) {
            Some(place) => *place = entry,
            None => tasks.slots.push(entry),
        }
        handle
    })
}

fn make_ready(slot: usize, generation: u64) {
    let queue_turn = TASKS.with(|tasks| {
        let mut tasks = tasks.borrow_mut();
        tasks.ready.push_back((slot, generation));
        !tasks.running && !std::mem::replace(&mut tasks.turn_queued, true)
    });
    if queue_turn {
        host::queue_turn();
    }
}

/// Polls one task if it is still there, and frees its slot once it ends.
/// No borrow of the queue is held while a future runs or is dropped: both
/// may wake, spawn or drop other tasks.
fn poll(slot: usize, generation: u64) {
    let taken = TASKS.with(|tasks| {
        let mut tasks = tasks.borrow_mut();
        let entry = tasks.slots.get_mut(slot)?.as_mut().filter(|entry| entry.generation == generation)?;
        entry.handle.queued.store(false, Ordering::Relaxed);
        Some((entry.future.take()?, Arc::clone(&entry.handle)))
    });
    let Some((mut future, handle)) = taken else { return };
    let waker = Waker::from(handle);
    let finished = future.as_mut().poll(&mut Context::from_waker(&waker)).is_ready();
    let unplaced = if finished {
        TASKS.with(|tasks| {
            let mut tasks = tasks.borrow_mut();
            if let Some(place) = tasks.slots.get_mut(slot) {
                *place = None;
                tasks.free.push(slot);
            }
        });
        Some(future)
    } else {
        TASKS.with(|tasks| match tasks.borrow_mut().slots.get_mut(slot) {
            Some(Some(entry)) if entry.generation == generation => {
                entry.future = Some(future);
                None
            }
            _ => Some(future),
        })
    };
    drop(unplaced);
}

/// The microtask: runs the ready tasks, and those they wake.
fn run_turn() {
    TASKS.with(|tasks| tasks.borrow_mut().turn_queued = false);
    if !TASKS.with(|tasks| std::mem::replace(&mut tasks.borrow_mut().running, true)) {
        run_ready();
    }
}

/// Wakes `waker` and runs what that makes ready at once, where nothing
/// of Rust's is below on the stack: from the callback of a settled promise
/// (a JS job of its own), rather than in yet another microtask (see
/// `settled`). Nested in a run (cannot happen from a promise job), the
/// run below polls the task.
pub(crate) fn wake_and_run(waker: Waker) {
    let nested = TASKS.with(|tasks| std::mem::replace(&mut tasks.borrow_mut().running, true));
    waker.wake();
    if !nested {
        run_ready();
    }
}

/// Polls ready tasks, those they wake included, up to [`POLLS_PER_TURN`];
/// the rest wait for a microtask. Called with `running` set; clears it.
fn run_ready() {
    for _ in 0..POLLS_PER_TURN {
        let next = TASKS.with(|tasks| {
            let mut tasks = tasks.borrow_mut();
            let next = tasks.ready.pop_front();
            if next.is_none() {
                tasks.running = false;
            }
            next
        });
        let Some((slot, generation)) = next else { return };
        poll(slot, generation);
    }
    let queue_turn = TASKS.with(|tasks| {
        let mut tasks = tasks.borrow_mut();
        tasks.running = false;
        !tasks.ready.is_empty() && !std::mem::replace(&mut tasks.turn_queued, true)
    });
    if queue_turn {
        host::queue_turn();
    }
}

#[cfg(target_arch = "wasm32")]
mod host {
    use std::cell::OnceCell;

    use wasm_bindgen::JsCast;
    use wasm_bindgen::prelude::*;

    #[wasm_bindgen]
    extern "C" {
        /// The global `queueMicrotask`, which pages, workers, Node, Deno
        /// and workerd all have.
        #[wasm_bindgen(js_name = queueMicrotask)]
        fn queue_microtask(callback: &js_sys::Function);
    }

    thread_local! {
        /// The microtask's callback, made once.
        static TURN: OnceCell<Closure<dyn FnMut()>> = const { OnceCell::new() };
    }

    pub(super) fn queue_turn() {
        TURN.with(|turn| {
            let callback = turn.get_or_init(|| Closure::new(super::run_turn));
            queue_microtask(callback.as_ref().unchecked_ref());
        });
    }
}

#[cfg(not(target_arch = "wasm32"))]
mod host {
    use std::cell::Cell;

    thread_local! {
        /// How many microtasks the tests' queue asked for.
        pub(super) static QUEUED_TURNS: Cell<usize> = const { Cell::new(0) };
    }

    pub(super) fn queue_turn() {
        QUEUED_TURNS.with(|turns| turns.set(turns.get() + 1));
    }
}

// The bookkeeping's tests, natively (on wasm32 the microtask is real).
#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests {
    use std::cell::Cell;
    use std::rc::Rc;

    use crate::runtime::channel::oneshot;

    use super::*;

    fn turns() -> usize {
        host::QUEUED_TURNS.with(Cell::get)
    }

    fn pending_tasks() -> usize {
        TASKS.with(|tasks| tasks.borrow().slots.iter().filter(|slot| slot.is_some()).count())
    }

    /// The "session loop" of the two tests below: a task that answers
    /// the one question it is asked with the number after it.
    fn spawn_answerer() -> (oneshot::Sender<u32>, oneshot::Receiver<u32>) {
        let (ask, asked) = oneshot::channel::<u32>();
        let (answer, answered) = oneshot::channel::<u32>();
        spawn(Box::pin(async move {
            if let Ok(question) = asked.await {
                let _ = answer.send(question + 1);
            }
        }));
        (ask, answered)
    }

    /// The "call": started now, asks 41, and waits for 42; the flag says
    /// it got it.
    fn start_call(ask: oneshot::Sender<u32>, answered: oneshot::Receiver<u32>) -> Rc<Cell<bool>> {
        let done = Rc::new(Cell::new(false));
        let seen = Rc::clone(&done);
        spawn_started(Box::pin(async move {
            let _ = ask.send(41);
            seen.set(answered.await == Ok(42));
        }));
        done
    }

    #[test]
    fn a_task_woken_by_another_runs_in_the_same_microtask() {
        let (ask, answered) = spawn_answerer();
        let done = start_call(ask, answered);
        let before = turns();
        run_turn();
        assert!(done.get(), "the call ended by the end of the first microtask (here, inside `spawn_started`)");
        assert_eq!(turns(), before, "no second microtask was asked for");
        assert_eq!(pending_tasks(), 0);
    }

    #[test]
    fn a_started_call_and_the_loop_it_wakes_run_before_it_returns() {
        let (ask, answered) = spawn_answerer();
        // The "session loop", already waiting for a request.
        run_turn();
        let before = turns();
        let done = start_call(ask, answered);
        assert!(done.get(), "the loop ran, and answered, before spawn_started returned");
        assert_eq!(turns(), before, "no microtask was asked for");
        assert_eq!(pending_tasks(), 0);
    }

    #[test]
    fn a_task_started_inside_a_run_is_left_to_that_run() {
        let (ask, asked) = oneshot::channel::<u32>();
        let answered = Rc::new(Cell::new(None));
        let seen = Rc::clone(&answered);
        spawn(Box::pin(async move {
            seen.set(asked.await.ok());
        }));
        run_turn();
        // A task that starts another while it runs (a JS callback the
        // engine called, calling the client again).
        let inner_done = Rc::new(Cell::new(false));
        let flag = Rc::clone(&inner_done);
        spawn(Box::pin(async move {
            spawn_started(Box::pin(async move {
                let _ = ask.send(7);
                flag.set(true);
            }));
        }));
        run_turn();
        assert!(inner_done.get());
        assert_eq!(answered.get(), Some(7), "the run below polled the task it woke");
        assert_eq!(pending_tasks(), 0);
    }

    #[test]
    fn a_task_that_always_wakes_itself_leaves_the_rest_to_the_next_microtask() {
        let polls = Rc::new(Cell::new(0usize));
        let counted = Rc::clone(&polls);
        spawn(Box::pin(futures::future::poll_fn(move |cx| {
            counted.set(counted.get() + 1);
            cx.waker().wake_by_ref();
            if counted.get() > POLLS_PER_TURN + 10 { std::task::Poll::Ready(()) } else { std::task::Poll::Pending }
        })));
        let before = turns();
        run_turn();
        assert_eq!(polls.get(), POLLS_PER_TURN);
        assert_eq!(turns(), before + 1, "the next microtask was asked for");
        run_turn();
        assert_eq!(polls.get(), POLLS_PER_TURN + 11);
        assert_eq!(pending_tasks(), 0);
    }

    #[test]
    fn a_waker_kept_after_its_task_ended_does_not_wake_the_next_task_in_its_slot() {
        let kept: Rc<RefCell<Option<Waker>>> = Rc::default();
        let keep = Rc::clone(&kept);
        spawn_started(Box::pin(futures::future::poll_fn(move |cx| {
            *keep.borrow_mut() = Some(cx.waker().clone());
            std::task::Poll::Ready(())
        })));
        assert_eq!(pending_tasks(), 0);
        let polls = Rc::new(Cell::new(0usize));
        let counted = Rc::clone(&polls);
        // Takes the freed slot, and waits for ever.
        spawn_started(Box::pin(futures::future::poll_fn(move |_| {
            counted.set(counted.get() + 1);
            std::task::Poll::<()>::Pending
        })));
        assert_eq!(polls.get(), 1);
        if let Some(waker) = kept.borrow_mut().take() {
            waker.wake();
        }
        run_turn();
        assert_eq!(polls.get(), 1, "the old waker did not poll the new task");
        TASKS.with(|tasks| tasks.borrow_mut().slots.clear());
    }
}
