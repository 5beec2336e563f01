//! Redirect mode: the pending flow kept in `sessionStorage` while the page
//! is away at the authorization server, and finishing it when the browser
//! comes back (from the page's URL or what the callback page recorded).

use super::*;
use crate::protocol::fields::from_bytes;
use crate::web::convert::property;
use crate::web::options::check_auth_options;
use wasm_bindgen::prelude::wasm_bindgen;

#[wasm_bindgen(module = "/src/web/auth/authorize.js")]
extern "C" {
    /// Keeps the flow (JSON text) under its state, with this page to come
    /// back to; throws an `Error` that says why not.
    #[wasm_bindgen(js_name = savePending, catch)]
    fn save_pending(state: &str, pending: &str) -> Result<(), JsValue>;
    /// The flows whose answer was recorded or is in this page's URL:
    /// `[{key, pending, server, redirected}]`, `pending` as JSON text.
    #[wasm_bindgen(js_name = answeredFlows)]
    fn answered_flows() -> Array;
    /// Removes a flow.
    #[wasm_bindgen(js_name = takePending)]
    fn take_pending(key: &str);
    /// Records a redirect for its flow: the flow's server URL, if any.
    #[wasm_bindgen(js_name = recordRedirect, catch)]
    fn record_redirect(url: &str) -> Result<Option<String>, JsValue>;
    /// Cleans the address bar when `answer` is the page's URL.
    #[wasm_bindgen(js_name = cleanPageUrl)]
    pub(super) fn clean_page_url(answer: &str);
    /// Leaves for the authorization page: a promise that never settles
    /// (the page is unloading).
    #[wasm_bindgen(js_name = leaveFor, catch)]
    pub(super) fn leave_for(url: &str) -> Result<Promise, JsValue>;
}

/// Keeps the flow in `sessionStorage` while the page is away.
pub(super) fn save(pending: &PendingAuthorization) -> Result<(), AuthError> {
    let text = crate::protocol::json_text(&pending.to_value());
    save_pending(&pending.state, &text).map_err(|e| AuthError::Store(message_of(&e)))
}

/// A pending flow ready to finish.
pub(super) struct Found {
    pub(super) pending: PendingAuthorization,
    /// The URL the authorization server redirected to.
    pub(super) redirected: String,
}

/// Takes (removes) the pending flow for `server` whose answer is in the
/// page's URL or was recorded.
pub(super) fn find(server: &str) -> Option<Found> {
    let flows = answered_flows();
    // By index: js_sys's array iterator is code of its own, used nowhere else.
    for at in 0..flows.length() {
        let flow = flows.get(at);
        let text = |key: &str| property(&flow, key).and_then(|v| v.as_string()).unwrap_or_default();
        if !same_server(server, &text("server")) {
            continue;
        }
        // A code is good once: the flow is taken whatever happens next.
        take_pending(&text("key"));
        // Read field by field, as the auth module reads its documents.
        if let Ok(pending) = from_bytes::<PendingAuthorization>(text("pending").as_bytes(), "an object") {
            return Some(Found { pending, redirected: text("redirected") });
        }
    }
    None
}

pub(super) fn same_server(a: &str, b: &str) -> bool {
    use crate::auth::resource::canonical;
    match (canonical(a), canonical(b)) {
        (Ok(a), Ok(b)) => a == b,
        _ => a == b,
    }
}

/// `McpClient.completeAuthorization(url, options)`: the redirect `url`
/// answers a pending redirect-mode flow; finish it with `options.auth`.
/// Resolves `false` when no pending flow matches.
pub(crate) async fn complete_authorization(url: String, options: JsValue) -> Result<JsValue, WebError> {
    let recorded = record_redirect(&url).map_err(|e| auth_error(AuthError::Store(message_of(&e))))?;
    let Some(server) = recorded else {
        return Ok(JsValue::FALSE);
    };
    let auth = property(&options, "auth").unwrap_or_else(|| js_sys::Object::new().into());
    let checked = check_auth_options(&auth, cfg!(feature = "machine-grants")).map_err(WebError::Thrown)?;
    let auth = web_auth(&server, &Checked(checked))?;
    let Some(found) = find(&server) else {
        return Ok(JsValue::FALSE);
    };
    auth.provider.complete_authorization(&found.redirected, &found.pending).await.map_err(auth_error)?;
    clean_page_url(&found.redirected);
    Ok(JsValue::TRUE)
}
