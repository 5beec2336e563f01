//! The runtime seam: the only place that names an async runtime.
//!
//! The session engine needs three things from its host: a timer, a way to run
//! a background future, and an answer to "must futures be `Send`?". Natively
//! the answer is tokio and yes; on wasm32 it is the JS event loop
//! (`setTimeout`, `spawn_local`) and no, because JS values are single-threaded.
//! Everything above this module is written against [`MaybeSend`] and
//! [`BoxFuture`] so the same code compiles for both.

use std::future::Future;
use std::pin::Pin;
use std::time::Duration;

pub(crate) mod channel;
mod future_set;
#[cfg(target_arch = "wasm32")]
mod promise;
mod tasks;
mod timers;
pub(crate) mod turns;

pub(crate) use future_set::FutureSet;

#[cfg(not(target_arch = "wasm32"))]
mod imp {
    use super::*;

    /// `Send` natively, where work may move between threads.
    pub trait MaybeSend: Send {}
    impl<T: Send + ?Sized> MaybeSend for T {}

    /// `Sync` natively.
    pub trait MaybeSync: Sync {}
    impl<T: Sync + ?Sized> MaybeSync for T {}

    /// A boxed future that is `Send` natively.
    pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

    /// A boxed stream that is `Send` natively.
    pub type BoxStream<'a, T> = Pin<Box<dyn futures::Stream<Item = T> + Send + 'a>>;

    /// Sleeps on the tokio timer. Needs a tokio runtime with time enabled.
    pub async fn sleep(duration: Duration) {
        tokio::time::sleep(duration).await
    }

    /// Runs `future` in the background on the current tokio runtime.
    pub fn spawn(future: impl Future<Output = ()> + Send + 'static) -> Result<(), SpawnError> {
        let handle = tokio::runtime::Handle::try_current().map_err(|_| SpawnError)?;
        handle.spawn(future);
        Ok(())
    }
}

#[cfg(target_arch = "wasm32")]
mod imp {
    use super::*;

    /// No bound on wasm32: everything runs on the one JS thread.
    pub trait MaybeSend {}
    impl<T: ?Sized> MaybeSend for T {}

    /// No bound on wasm32.
    pub trait MaybeSync {}
    impl<T: ?Sized> MaybeSync for T {}

    /// A boxed future with no `Send` bound.
    pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + 'a>>;

    /// A boxed stream with no `Send` bound.
    pub type BoxStream<'a, T> = Pin<Box<dyn futures::Stream<Item = T> + 'a>>;

    /// Sleeps on the global `setTimeout`, which pages, workers, Deno and
    /// Node all have (no `window` needed): every sleep shares one timer
    /// (see `runtime/timers.rs`). Dropping the future leaves its queue.
    /// The timer's own future, not an `async fn` around it (a state machine
    /// more, inlined where each sleep is awaited); so the sleep is counted
    /// from the call, which is where every caller awaits or selects on it.
    pub fn sleep(duration: Duration) -> impl Future<Output = ()> {
        super::timers::sleep_for(duration)
    }

    /// Runs `future` on the JS event loop, from the next microtask on (see
    /// `runtime/tasks.rs`).
    pub fn spawn(future: impl Future<Output = ()> + 'static) -> Result<(), SpawnError> {
        // As a `dyn Future`: the task machinery is compiled once, not once
        // per spawned future's type.
        super::tasks::spawn(Box::pin(future));
        Ok(())
    }
}

pub use imp::{BoxFuture, BoxStream, MaybeSend, MaybeSync, sleep, spawn};
#[cfg(all(target_arch = "wasm32", feature = "js"))]
pub(crate) use promise::outcome;
#[cfg(target_arch = "wasm32")]
pub(crate) use promise::{Settled, settled};
#[cfg(all(target_arch = "wasm32", feature = "js"))]
pub(crate) use tasks::spawn_started;

/// `navigator.userAgent`, where the global object has a `navigator`: how
/// the wasm build tells its hosts apart where their behaviour differs.
#[cfg(target_arch = "wasm32")]
pub(crate) fn user_agent() -> Option<String> {
    #[wasm_bindgen::prelude::wasm_bindgen]
    extern "C" {
        // The glue reads it once, as `typeof navigator === 'undefined' ?
        // null : navigator?.userAgent`: no global object walked from here.
        #[wasm_bindgen(thread_local_v2, js_namespace = navigator, js_name = userAgent)]
        static USER_AGENT: Option<js_sys::JsString>;
    }
    USER_AGENT.with(|agent| agent.as_ref().and_then(|agent| agent.as_string()))
}

/// A number in `[0, 1)` for jitter; not for anything secret.
#[cfg(not(target_arch = "wasm32"))]
pub fn random_unit() -> f64 {
    use std::sync::atomic::{AtomicU64, Ordering};
    use std::time::{SystemTime, UNIX_EPOCH};
    static STATE: AtomicU64 = AtomicU64::new(0);
    let nanos = SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_nanos() as u64).unwrap_or(0);
    // splitmix64 over time and a counter: cheap, and distinct per call.
    let mut z = nanos.wrapping_add(STATE.fetch_add(0x9E37_79B9_7F4A_7C15, Ordering::Relaxed));
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^= z >> 31;
    (z >> 11) as f64 / (1u64 << 53) as f64
}

/// A number in `[0, 1)` for jitter; not for anything secret.
#[cfg(target_arch = "wasm32")]
pub fn random_unit() -> f64 {
    js_sys::Math::random()
}

/// Milliseconds since the Unix epoch: the crate's one wall clock (ages of
/// cached verdicts, task deadlines; [`now_secs`] reads it too). A clock set
/// before 1970 reads as 0.
#[cfg(not(target_arch = "wasm32"))]
pub fn now_millis() -> f64 {
    use std::time::{SystemTime, UNIX_EPOCH};
    SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_secs_f64() * 1000.0).unwrap_or(0.0)
}

/// Milliseconds since the Unix epoch: the crate's one wall clock (ages of
/// cached verdicts, task deadlines; [`now_secs`] reads it too).
#[cfg(target_arch = "wasm32")]
pub fn now_millis() -> f64 {
    js_sys::Date::now()
}

/// A number of milliseconds as a `Duration`, to the microsecond. It cannot
/// panic, unlike `Duration::from_secs_f64`: NaN and negative numbers are
/// zero, and a number past what a `u64` of microseconds holds (some 584,000
/// years) is that longest wait, as good as none. The crate's one conversion
/// from a float: with `from_secs_f64` gone, its float code (half a KB of
/// wasm) is too.
pub fn duration_from_millis(ms: f64) -> Duration {
    // `as` saturates: NaN and negatives to 0, the too large to u64::MAX.
    Duration::from_micros((ms * 1000.0) as u64)
}

/// Whole seconds since the Unix epoch, from [`now_millis`]: the unit OAuth
/// speaks (token `expires_in`, JWT `iat`/`exp`, registration expiry).
pub fn now_secs() -> u64 {
    // `as` saturates: a negative or NaN reading becomes 0.
    (now_millis() / 1000.0) as u64
}

/// A wait as error messages give it: `250 ms`, `2.0 s`. Integer tenths
/// rather than `{:.1}` of an `f64`: float formatting would pull core's
/// float printing (about 15 KB) into the wasm for this alone. Milliseconds
/// as a `u64` (saturating: 584 million years), not the `u128` of
/// `as_millis`, whose printing and division are 2.9 KB of wasm of their own.
pub(crate) fn human_duration(d: std::time::Duration) -> String {
    let millis = whole_millis(d);
    // `timeout: 0.5` (ms) is a real wait, not "0 ms".
    if millis == 0 && !d.is_zero() {
        return "under 1 ms".to_owned();
    }
    if millis < 1000 {
        return format!("{millis} ms");
    }
    let tenths = (millis + 50) / 100;
    format!("{}.{} s", tenths / 10, tenths % 10)
}

/// `d` in whole milliseconds, saturating at `u64::MAX`.
pub(crate) fn whole_millis(d: std::time::Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

/// There is no runtime to run background work on (natively: not inside tokio).
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("no async runtime to run the session on: call this from inside a tokio runtime")]
pub struct SpawnError;

/// Boxes a future as a [`BoxFuture`].
pub fn boxed<'a, T>(future: impl Future<Output = T> + MaybeSend + 'a) -> BoxFuture<'a, T> {
    Box::pin(future)
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    #[test]
    fn waits_read_as_milliseconds_or_tenths_of_seconds() {
        let cases =
            [(250, "250 ms"), (999, "999 ms"), (1000, "1.0 s"), (2000, "2.0 s"), (1949, "1.9 s"), (90_000, "90.0 s")];
        for (millis, text) in cases {
            assert_eq!(super::human_duration(Duration::from_millis(millis)), text);
        }
        for (micros, text) in [(0, "0 ms"), (1, "under 1 ms"), (500, "under 1 ms"), (1_500, "1 ms")] {
            assert_eq!(super::human_duration(Duration::from_micros(micros)), text);
        }
    }

    #[test]
    fn milliseconds_become_a_duration_without_a_panic() {
        use super::duration_from_millis;
        assert_eq!(duration_from_millis(1500.0), Duration::from_millis(1500));
        assert_eq!(duration_from_millis(0.25), Duration::from_micros(250));
        for nothing in [0.0, -0.0, -5.0, f64::NAN, f64::NEG_INFINITY] {
            assert_eq!(duration_from_millis(nothing), Duration::ZERO, "{nothing}");
        }
        for endless in [1e300, f64::MAX, f64::INFINITY] {
            assert_eq!(duration_from_millis(endless), Duration::from_micros(u64::MAX), "{endless}");
        }
    }
}
