//! Why tabs sharing `localStorage` need more than a Web Lock.
//!
//! Chromium hands one tab's `localStorage` writes to the other tabs
//! asynchronously, on another channel than the one that grants Web Locks.
//! A tab that takes the lock the moment another released it can still read
//! the record as it was before the other's refresh, and present the refresh
//! token the other just rotated; an authorization server that detects the
//! reuse revokes the whole grant (CI caught this once in the OAuth browser
//! test: two refresh requests, the second refused).
//!
//! IndexedDB has no such lag: a transaction that completed before the lock
//! was released is seen by every transaction after it, in every tab. So
//! each record written to `localStorage` is written there too (an empty
//! text for a cleared one), and a tab that takes the lock waits, for a
//! bounded time, until its `localStorage` shows what the ledger holds.
//!
//! The IndexedDB side is the package's `ledger.js`, which the browser
//! entries install under `Symbol.for("mcp-edge.ledger")`: written through
//! wasm-bindgen it was 2.8 KB of the wasm's gzip. Where it is not installed
//! (the `raw` entries) or IndexedDB is missing (Deno, some private modes),
//! the lock is all there is, as before.

use std::time::Duration;

use futures::future::{Either, select};
use js_sys::{Array, Function, Promise, Reflect};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;
use web_sys::Storage;

use super::convert::message_of;
use crate::runtime::{now_millis, sleep};

/// The symbol `ledger.js` installs its `{ read, write }` under.
const INSTALLED: &str = "mcp-edge.ledger";
/// The longest one read or write may take.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(3);
/// How long a tab waits for its `localStorage` to show the ledger's record:
/// the lag is milliseconds; a record that still differs after this was
/// changed by hand (or by an older version of this library) and is taken
/// as it is.
const CATCH_UP_MS: f64 = 2_000.0;
const POLL: Duration = Duration::from_millis(10);

/// The installed ledger: `read(key)` and `write(key, text)`, each
/// returning a promise.
pub(crate) struct Ledger(JsValue);

impl Ledger {
    /// The ledger the page's entry installed, if any.
    pub(crate) fn installed() -> Option<Ledger> {
        let found = Reflect::get(&js_sys::global(), &js_sys::Symbol::for_(INSTALLED)).ok()?;
        found.is_object().then_some(Ledger(found))
    }

    /// Records `text` as `key`'s latest record (`None`: cleared), and
    /// returns once the write is committed.
    pub(crate) async fn write(&self, key: &str, text: Option<&str>) {
        let args = [JsValue::from_str(key), JsValue::from_str(text.unwrap_or(""))];
        if let Err(error) = self.call("write", &args).await {
            log::warn!("the IndexedDB copy of {key:?} was not written ({error}); other tabs may read it late");
        }
    }

    /// Waits (at most [`CATCH_UP_MS`]) until `storage` shows the record the
    /// ledger holds for `key`.
    pub(crate) async fn catch_up(&self, storage: &Storage, key: &str) {
        let expected = match self.call("read", &[JsValue::from_str(key)]).await {
            Ok(text) => match text.as_string() {
                Some(text) => text,
                None => return,
            },
            Err(error) => {
                log::debug!("the IndexedDB copy of {key:?} was not read ({error})");
                return;
            }
        };
        let deadline = now_millis() + CATCH_UP_MS;
        loop {
            let current = storage.get_item(key).ok().flatten().unwrap_or_default();
            if current == expected {
                return;
            }
            if now_millis() > deadline {
                log::warn!("localStorage's {key:?} differs from the copy in IndexedDB: using localStorage's");
                return;
            }
            sleep(POLL).await;
        }
    }

    /// `ledger[method](...args)`, awaited for at most [`REQUEST_TIMEOUT`].
    async fn call(&self, method: &str, args: &[JsValue]) -> Result<JsValue, String> {
        let function = Reflect::get(&self.0, &JsValue::from_str(method))
            .ok()
            .and_then(|f| f.dyn_into::<Function>().ok())
            .ok_or_else(|| format!("the ledger has no {method}"))?;
        let returned = function.apply(&self.0, &args.iter().collect::<Array>()).map_err(|e| message_of(&e))?;
        let settled = JsFuture::from(Promise::resolve(&returned));
        match select(settled, Box::pin(sleep(REQUEST_TIMEOUT))).await {
            Either::Left((outcome, _)) => outcome.map_err(|e| message_of(&e)),
            Either::Right(_) => Err(format!("no answer within {} s", REQUEST_TIMEOUT.as_secs())),
        }
    }
}
