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
//! each record written to `localStorage` is written here too (an empty text
//! for a cleared one), and a tab that takes the lock waits, for a bounded
//! time, until its `localStorage` shows what the ledger holds. Where
//! IndexedDB is missing or refuses (some private modes), the lock is all
//! there is, as before.

use std::sync::{Mutex, MutexGuard};
use std::time::Duration;

use futures::future::{Either, select};
use js_sys::{Array, Function, Promise, Reflect};
use wasm_bindgen::closure::Closure;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;
use web_sys::Storage;

use super::convert::message_of;
use crate::runtime::{now_millis, sleep};

const DATABASE: &str = "mcp-edge";
const RECORDS: &str = "records";
/// The longest one IndexedDB request may take.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(3);
/// How long a tab waits for its `localStorage` to show the ledger's record:
/// the lag is milliseconds; a record that still differs after this was
/// changed by hand (or by an older version of this library) and is taken
/// as it is.
const CATCH_UP_MS: f64 = 2_000.0;
const POLL: Duration = Duration::from_millis(10);

/// The IndexedDB copy of the `localStorage` records, opened at first use.
#[derive(Default)]
pub(crate) struct Ledger {
    /// The open database; `None` until opened, or after it closed. (A
    /// `Mutex` rather than a `RefCell` keeps the store `Sync`; nothing
    /// holds it across an await.)
    database: Mutex<Option<JsValue>>,
}

impl Ledger {
    /// Records `text` as `key`'s latest record (`None`: cleared), and
    /// returns once the write is committed.
    pub(crate) async fn write(&self, key: &str, text: Option<&str>) {
        let written = async {
            let (transaction, records) = self.records("readwrite").await?;
            let text = JsValue::from_str(text.unwrap_or(""));
            call(&records, "put", &[text, JsValue::from_str(key)])?;
            settled(&transaction, "oncomplete").await.map(drop)
        };
        if let Err(error) = written.await {
            self.forget();
            log::warn!("the IndexedDB copy of {key:?} was not written ({error}); other tabs may read it late");
        }
    }

    /// Waits (at most [`CATCH_UP_MS`]) until `storage` shows the record the
    /// ledger holds for `key`.
    pub(crate) async fn catch_up(&self, storage: &Storage, key: &str) {
        let expected = match self.read(key).await {
            Ok(Some(text)) => text,
            Ok(None) => return,
            Err(error) => {
                self.forget();
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

    async fn read(&self, key: &str) -> Result<Option<String>, String> {
        let (_transaction, records) = self.records("readonly").await?;
        let request = call(&records, "get", &[JsValue::from_str(key)])?;
        Ok(settled(&request, "onsuccess").await?.as_string())
    }

    /// A transaction over the records and its object store.
    async fn records(&self, mode: &str) -> Result<(JsValue, JsValue), String> {
        let cached = self.database().clone();
        let database = match cached {
            Some(database) => database,
            None => open().await?,
        };
        *self.database() = Some(database.clone());
        let transaction = call(&database, "transaction", &[JsValue::from_str(RECORDS), JsValue::from_str(mode)])?;
        let records = call(&transaction, "objectStore", &[JsValue::from_str(RECORDS)])?;
        Ok((transaction, records))
    }

    /// Drops the database after a failure: the next use opens it again
    /// (the browser may have closed it).
    fn forget(&self) {
        self.database().take();
    }

    fn database(&self) -> MutexGuard<'_, Option<JsValue>> {
        self.database.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

/// Opens (creating at first) the database.
async fn open() -> Result<JsValue, String> {
    let factory = Reflect::get(&js_sys::global(), &JsValue::from_str("indexedDB")).unwrap_or(JsValue::UNDEFINED);
    if factory.is_undefined() || factory.is_null() {
        return Err("there is no IndexedDB here".into());
    }
    let request = call(&factory, "open", &[JsValue::from_str(DATABASE), JsValue::from_f64(1.0)])?;
    let upgrade = {
        let request = request.clone();
        Closure::<dyn FnMut(JsValue)>::new(move |_event: JsValue| {
            if let Ok(database) = Reflect::get(&request, &JsValue::from_str("result")) {
                let _ = call(&database, "createObjectStore", &[JsValue::from_str(RECORDS)]);
            }
        })
    };
    let _ = Reflect::set(&request, &JsValue::from_str("onupgradeneeded"), upgrade.as_ref());
    let opened = settled(&request, "onsuccess").await;
    let _ = Reflect::set(&request, &JsValue::from_str("onupgradeneeded"), &JsValue::NULL);
    opened
}

/// Waits for an IndexedDB request's or transaction's `success_event`
/// (`onsuccess`, `oncomplete`) and returns its `result`; its error, its
/// abort or [`REQUEST_TIMEOUT`] are errors.
async fn settled(target: &JsValue, success_event: &str) -> Result<JsValue, String> {
    let promise = Promise::new(&mut |resolve, reject| {
        let _ = Reflect::set(target, &JsValue::from_str(success_event), &resolve);
        let _ = Reflect::set(target, &JsValue::from_str("onerror"), &reject);
        let _ = Reflect::set(target, &JsValue::from_str("onabort"), &reject);
    });
    let outcome = match select(JsFuture::from(promise), Box::pin(sleep(REQUEST_TIMEOUT))).await {
        Either::Left((Ok(_), _)) => {
            Ok(Reflect::get(target, &JsValue::from_str("result")).unwrap_or(JsValue::UNDEFINED))
        }
        Either::Left((Err(_), _)) => Err(Reflect::get(target, &JsValue::from_str("error"))
            .ok()
            .filter(|e| !e.is_null() && !e.is_undefined())
            .map_or_else(|| "aborted".to_owned(), |e| message_of(&e))),
        Either::Right(_) => Err(format!("no answer within {} s", REQUEST_TIMEOUT.as_secs())),
    };
    for handler in [success_event, "onerror", "onabort"] {
        let _ = Reflect::set(target, &JsValue::from_str(handler), &JsValue::NULL);
    }
    outcome
}

/// `target[method](...args)`, a throw as its message.
fn call(target: &JsValue, method: &str, args: &[JsValue]) -> Result<JsValue, String> {
    let function = Reflect::get(target, &JsValue::from_str(method))
        .ok()
        .and_then(|f| f.dyn_into::<Function>().ok())
        .ok_or_else(|| format!("IndexedDB has no {method}"))?;
    function.apply(target, &args.iter().collect::<Array>()).map_err(|e| message_of(&e))
}
