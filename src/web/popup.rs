//! `auth.authorize: "popup"`: the authorization page in a popup window,
//! opened and listened to by `auth/authorize.js` (which says how the callback page
//! answers, and what is accepted from it).

use std::time::Duration;

use js_sys::Promise;
use wasm_bindgen::JsValue;
use wasm_bindgen::prelude::wasm_bindgen;
use web_sys::AbortSignal;

use super::convert::{AbortOnDrop, message_of};
use crate::auth::{AuthError, AuthorizationRequest, Authorizer};
use crate::runtime::{BoxFuture, boxed};

/// The default window features: a small popup window.
pub(crate) const DEFAULT_FEATURES: &str = "popup=yes,width=520,height=720";

#[wasm_bindgen(module = "/src/web/auth/authorize.js")]
extern "C" {
    /// Resolves with the URL the callback page handed back; rejects with an
    /// `Error` that says what went wrong (blocked, closed, no answer).
    #[wasm_bindgen(js_name = authorizeInPopup, catch)]
    fn authorize_in_popup(
        url: &str,
        state: &str,
        features: &str,
        timeout_ms: f64,
        signal: Option<&AbortSignal>,
    ) -> Result<Promise, JsValue>;
}

/// Opens the authorization page in a popup window.
#[derive(Debug, Clone)]
pub(crate) struct PopupAuthorizer {
    /// The longest the user may take.
    pub(crate) timeout: Duration,
    /// `window.open` features.
    pub(crate) features: String,
}

impl Authorizer for PopupAuthorizer {
    fn authorize<'a>(&'a self, request: &'a AuthorizationRequest) -> BoxFuture<'a, Result<String, AuthError>> {
        // Dropped before the answer (the flow was cancelled): the popup is
        // closed and its listeners removed.
        let abort = AbortOnDrop::armed();
        let timeout_ms = self.timeout.as_secs_f64() * 1000.0;
        let started =
            authorize_in_popup(&request.url, &request.state, &self.features, timeout_ms, abort.signal().as_ref());
        boxed(answer(started, abort))
    }
}

/// What a JS authorizer (the popup, or the app's `auth.authorize` through
/// `options.js`) settled with: the URL, or its `Error`'s text. One wait
/// for both.
pub(crate) async fn answer(started: Result<Promise, JsValue>, abort: AbortOnDrop) -> Result<String, AuthError> {
    let mut abort = abort;
    let answered = crate::runtime::outcome(started).await;
    abort.disarm();
    match answered {
        Ok(url) => url.as_string().ok_or_else(|| AuthError::Authorizer("the authorizer handed back no URL".into())),
        Err(error) => Err(AuthError::Authorizer(message_of(&error))),
    }
}
