//! Where `auth.store` keeps tokens and client registrations: the page's
//! `sessionStorage` (the default in a page) or `localStorage`, the app's own
//! `{ load, save, clear }`, or memory. Each record is the JSON of an
//! [`AuthRecord`] under a key that starts with `mcp-edge:`. Tabs sharing
//! `localStorage` take a Web Lock (`navigator.locks`, named after the key)
//! around read - refresh - write, so a rotated refresh token is presented
//! once across tabs, and keep a copy of each record in IndexedDB to see
//! another tab's latest write once they hold the lock. The storage, the
//! lock and the copy are JS (`store.js`, which says why the copy); the
//! records' JSON is written and read here.

use js_sys::{Function, Promise};
use wasm_bindgen::prelude::wasm_bindgen;
use wasm_bindgen::{JsCast, JsValue};
use web_sys::AbortSignal;

use super::convert::{AbortOnDrop, message_of};
use crate::auth::{AuthError, AuthRecord, StoreLock, TokenStore};
use crate::debug::Quoted;
use crate::runtime::{BoxFuture, boxed, outcome};

/// The prefix of every key this library writes.
pub(crate) const KEY_PREFIX: &str = "mcp-edge:";

/// The storage key of a server's record.
pub(crate) fn record_key(server: &str) -> String {
    format!("{KEY_PREFIX}{server}")
}

/// `sessionStorage` or `localStorage`, for the tests (`options.js` checks
/// that the one asked for is usable).
#[cfg(test)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum WebStorage {
    Session,
    Local,
}

#[cfg(test)]
impl WebStorage {
    fn name(self) -> &'static str {
        match self {
            WebStorage::Session => "sessionStorage",
            WebStorage::Local => "localStorage",
        }
    }

    /// The storage object of the global scope, if it has one and lets this
    /// page use it (sandboxed frames and some privacy settings throw).
    pub(crate) fn open(self) -> Result<web_sys::Storage, String> {
        use js_sys::Reflect;
        let value = Reflect::get(&js_sys::global(), &JsValue::from_str(self.name()))
            .map_err(|e| format!("{} is not usable here: {}", self.name(), message_of(&e)))?;
        if value.is_undefined() || value.is_null() {
            return Err(format!("there is no {} here (workers and Node have none)", self.name()));
        }
        value.dyn_into::<web_sys::Storage>().map_err(|_| format!("{} is not a Storage", self.name()))
    }
}

#[wasm_bindgen(module = "/src/web/store.js")]
extern "C" {
    /// The record under `key` in `store` (a Web Storage's name, or the
    /// app's `{ load, save, clear }`): its text, or undefined.
    #[wasm_bindgen(js_name = loadRecord, catch)]
    fn load_record(store: &JsValue, key: &str) -> Result<Promise, JsValue>;
    /// Keeps `text` under `key`, or with `clear` removes the record.
    #[wasm_bindgen(js_name = saveRecord, catch)]
    fn save_record(store: &JsValue, key: &str, text: &str, clear: bool) -> Result<Promise, JsValue>;
    /// Resolves with the function that lets the lock go, or undefined
    /// where there is no Web Locks API.
    #[wasm_bindgen(js_name = lockRecord, catch)]
    fn lock_record(key: &str, signal: Option<&AbortSignal>) -> Result<Promise, JsValue>;
}

/// A [`TokenStore`] whose records `store.js` keeps: in `sessionStorage`,
/// in `localStorage`, or through the app's `{ load, save, clear }`.
pub(crate) struct JsStore {
    /// What `store.js` is handed: a Web Storage's name, or the app's object.
    target: JsValue,
    /// `localStorage`: shared by the origin's tabs, which take turns.
    shared: bool,
}

impl std::fmt::Debug for JsStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let name = self.target.as_string();
        crate::debug::debug_struct(f, "JsStore").field("storage", &name.as_deref().unwrap_or("the app's")).finish()
    }
}

impl JsStore {
    /// The records kept in `target`: a Web Storage's name, which
    /// `options.js` found usable, or the app's `{ load, save, clear }`,
    /// whose methods it checked. `shared`: `localStorage`.
    pub(crate) fn new(target: JsValue, shared: bool) -> Self {
        JsStore { target, shared }
    }

    /// `sessionStorage` or `localStorage`, if this scope has it and may use it.
    #[cfg(test)]
    pub(crate) fn web(kind: WebStorage) -> Result<Self, String> {
        kind.open()?;
        Ok(JsStore { target: JsValue::from_str(kind.name()), shared: kind == WebStorage::Local })
    }

    fn write(&self, server: &str, text: String, clear: bool) -> impl Future<Output = Result<(), AuthError>> {
        use futures::FutureExt;
        let saving = outcome(save_record(&self.target, &record_key(server), &text, clear));
        saving.map(|saved| saved.map(drop).map_err(store_error))
    }
}

fn store_error(error: JsValue) -> AuthError {
    AuthError::Store(message_of(&error))
}

/// Read field by field, as the auth module reads its JSON.
fn decode(text: &str, key: &str) -> Result<AuthRecord, AuthError> {
    crate::protocol::fields::from_bytes(text.as_bytes(), "an object")
        .map_err(|e| AuthError::Store(format!("the record under {key} is not readable: {e}", key = Quoted(key))))
}

fn encode(record: &AuthRecord) -> String {
    crate::protocol::json_text(&record.to_value())
}

impl TokenStore for JsStore {
    fn load<'a>(&'a self, server: &'a str) -> BoxFuture<'a, Result<Option<AuthRecord>, AuthError>> {
        boxed(async move {
            let key = record_key(server);
            let text = outcome(load_record(&self.target, &key)).await.map_err(store_error)?;
            text.as_string().map(|text| decode(&text, &key)).transpose()
        })
    }

    fn save<'a>(&'a self, server: &'a str, record: &'a AuthRecord) -> BoxFuture<'a, Result<(), AuthError>> {
        boxed(self.write(server, encode(record), false))
    }

    fn clear<'a>(&'a self, server: &'a str) -> BoxFuture<'a, Result<(), AuthError>> {
        boxed(self.write(server, String::new(), true))
    }

    /// `sessionStorage` lives as long as the tab; `localStorage`, and
    /// wherever the app keeps its records, outlive the session.
    fn persistent(&self) -> bool {
        self.target.as_string().as_deref() != Some("sessionStorage")
    }

    /// `localStorage` is shared by the origin's tabs: a Web Lock, then
    /// the wait for this tab's `localStorage` to show the last holder's
    /// write. A tab's own `sessionStorage` needs neither (the provider
    /// already runs one refresh at a time), nor does the app's store.
    fn lock<'a>(&'a self, server: &'a str) -> BoxFuture<'a, Result<StoreLock, AuthError>> {
        let name = record_key(server);
        boxed(async move {
            if !self.shared {
                return Ok(StoreLock::none());
            }
            // Dropped before the lock came (the caller stopped waiting):
            // the request is withdrawn, or the lock let go at once.
            let mut abort = AbortOnDrop::armed();
            let taken = outcome(lock_record(&name, abort.signal().as_ref())).await;
            abort.disarm();
            match taken {
                Ok(release) => Ok(match release.dyn_into::<Function>() {
                    Ok(release) => StoreLock::holding(WebLockRelease(release)),
                    // No Web Locks API (old browsers, insecure contexts).
                    Err(_) => StoreLock::none(),
                }),
                Err(e) => Err(AuthError::Store(format!(
                    "the Web Lock {name} could not be taken: {}",
                    message_of(&e),
                    name = Quoted(&name)
                ))),
            }
        })
    }
}

/// Releases a Web Lock when dropped.
struct WebLockRelease(Function);

impl Drop for WebLockRelease {
    fn drop(&mut self) {
        let _ = self.0.call0(&JsValue::UNDEFINED);
    }
}

#[cfg(test)]
mod tests {
    use std::cell::Cell;
    use std::rc::Rc;
    use std::time::Duration;

    use wasm_bindgen_test::{wasm_bindgen_test, wasm_bindgen_test_configure};

    use super::*;
    use crate::auth::Tokens;
    use crate::runtime::sleep;

    wasm_bindgen_test_configure!(run_in_browser);

    fn record(access_token: &str) -> AuthRecord {
        let tokens = Tokens {
            access_token: access_token.into(),
            token_type: "Bearer".into(),
            refresh_token: Some(format!("refresh of {access_token}")),
            expires_at: None,
            issued_at: None,
            scope: None,
        };
        AuthRecord { tokens: Some(tokens), clients: Vec::new() }
    }

    /// What another tab sees in Chromium when it takes the lock the moment
    /// the refreshing tab released it: `localStorage` still shows the old
    /// record for a while. The lock must not be handed over before this
    /// tab's `localStorage` shows the new one.
    #[wasm_bindgen_test]
    async fn the_lock_waits_for_localstorage_to_show_the_last_write() {
        let server = "https://lagging.example/mcp";
        let key = record_key(server);
        let store = JsStore::web(WebStorage::Local).unwrap();
        let raw = WebStorage::Local.open().unwrap();
        store.save(server, &record("new")).await.unwrap();
        let new_text = raw.get_item(&key).unwrap().unwrap();
        raw.set_item(&key, &encode(&record("old"))).unwrap();

        let late_write = move || raw.set_item(&key, &new_text).unwrap();
        assert_eq!(load_while_lagging(&store, server, late_write).await, Some(record("new")));

        // A clear is recorded too: a lagging copy of the cleared record is
        // waited out as well.
        store.clear(server).await.unwrap();
        let (raw, key) = (WebStorage::Local.open().unwrap(), record_key(server));
        raw.set_item(&key, &encode(&record("new"))).unwrap();
        let late_clear = move || raw.remove_item(&key).unwrap();
        assert_eq!(load_while_lagging(&store, server, late_clear).await, None);
    }

    /// Takes `server`'s lock while this tab's `localStorage` lags, until
    /// `lag_ends` (run 150 ms in) brings it up to date, and returns the
    /// record read under the lock; fails if the lock came before that.
    async fn load_while_lagging(
        store: &JsStore,
        server: &str,
        lag_ends: impl FnOnce() + 'static,
    ) -> Option<AuthRecord> {
        let ended = Rc::new(Cell::new(false));
        let lag = {
            let ended = ended.clone();
            async move {
                sleep(Duration::from_millis(150)).await;
                ended.set(true);
                lag_ends();
            }
        };
        let locked = async {
            let _held = store.lock(server).await.unwrap();
            assert!(ended.get(), "the lock came before localStorage showed the last write");
            store.load(server).await.unwrap()
        };
        futures::join!(lag, locked).1
    }

    /// A record changed by hand (or by an older version of this library)
    /// never matches the ledger: the wait is bounded, and then
    /// `localStorage` wins.
    #[wasm_bindgen_test]
    async fn a_record_changed_by_hand_is_taken_after_a_bounded_wait() {
        let server = "https://edited.example/mcp";
        let key = record_key(server);
        let store = JsStore::web(WebStorage::Local).unwrap();
        let raw = WebStorage::Local.open().unwrap();
        store.save(server, &record("saved")).await.unwrap();
        raw.set_item(&key, &encode(&record("edited"))).unwrap();
        let started = crate::runtime::now_millis();
        let held = store.lock(server).await.unwrap();
        let waited = crate::runtime::now_millis() - started;
        assert!(waited < 10_000.0, "the wait was not bounded: {waited} ms");
        assert_eq!(store.load(server).await.unwrap(), Some(record("edited")));
        drop(held);
        store.clear(server).await.unwrap();
    }

    /// A tab that stops waiting for the lock (its refresh was cancelled,
    /// or timed out) must not leave it taken: the request is withdrawn, and
    /// the next tab or task gets the lock once the holder lets it go.
    #[wasm_bindgen_test]
    async fn a_lock_no_longer_waited_for_is_not_kept() {
        let server = "https://abandoned.example/mcp";
        let store = JsStore::web(WebStorage::Local).unwrap();
        let held = store.lock(server).await.unwrap();
        let waiting = store.lock(server);
        let gave_up = futures::future::select(waiting, Box::pin(sleep(Duration::from_millis(100)))).await;
        assert!(matches!(gave_up, futures::future::Either::Right(_)), "the lock was handed out twice");
        drop(gave_up);
        drop(held);
        let next = futures::future::select(store.lock(server), Box::pin(sleep(Duration::from_secs(5)))).await;
        match next {
            futures::future::Either::Left((taken, _)) => drop(taken.unwrap()),
            futures::future::Either::Right(_) => panic!("the abandoned request kept the lock"),
        }
    }

    /// `sessionStorage` is this tab's own: no lock, no copy in IndexedDB.
    #[wasm_bindgen_test]
    async fn session_storage_takes_no_lock() {
        let store = JsStore::web(WebStorage::Session).unwrap();
        assert!(!store.persistent());
        let server = "https://session.example/mcp";
        store.save(server, &record("s")).await.unwrap();
        let _held = store.lock(server).await.unwrap();
        assert_eq!(store.load(server).await.unwrap(), Some(record("s")));
        store.clear(server).await.unwrap();
    }
}
