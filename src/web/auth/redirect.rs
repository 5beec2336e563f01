//! Redirect mode: the pending flow kept in `sessionStorage` while the page
//! is away at the authorization server, and finishing it when the browser
//! comes back (from the page's URL or what the callback page recorded).

use super::*;
use crate::protocol::build::Builder;
use crate::protocol::fields::{Fields, deserialize_by_fields};
use crate::web::convert::property;
use crate::web::options::check_auth_options;

/// Redirect mode: the pending flow was saved by `remember`; leave the page.
pub(super) async fn redirect(request: &AuthorizationRequest) -> Result<String, AuthError> {
    let window = web_sys::window()
        .ok_or_else(|| AuthError::Authorizer("redirect mode needs a page (there is no window here)".into()))?;
    window
        .location()
        .assign(&request.url)
        .map_err(|e| AuthError::Authorizer(format!("could not go to the authorization page: {}", message_of(&e))))?;
    // The page is unloading; the flow's own bound ends this if it does not.
    futures::future::pending::<()>().await;
    Err(AuthError::Authorizer("the page did not leave for the authorization page".into()))
}

/// A pending redirect-mode flow as kept in `sessionStorage`.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct Stored {
    pub(super) pending: PendingAuthorization,
    /// The page to come back to (the callback page sends the browser there).
    pub(super) return_to: String,
    /// The URL the authorization server redirected to, once the callback
    /// page (or `completeAuthorization`) recorded it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) redirected: Option<String>,
}

deserialize_by_fields!(Stored);

impl Stored {
    fn from_fields(fields: &mut Fields) -> Result<Self, String> {
        let Some(pending) = fields.nested("pending", PendingAuthorization::from_fields) else {
            return Err(fields.failure("pending"));
        };
        let value =
            Stored { pending, return_to: fields.required_string("returnTo"), redirected: fields.string("redirected") };
        fields.done(value)
    }

    /// As JSON text, the same as its `Serialize` writes it (`protocol::build`).
    fn to_text(&self) -> String {
        let value = Builder::new()
            .value("pending", Some(self.pending.to_value()))
            .text("returnTo", Some(&self.return_to))
            .text("redirected", self.redirected.as_deref())
            .done();
        crate::protocol::json_text(&value)
    }
}

/// A pending flow ready to finish.
pub(super) struct Found {
    pub(super) stored: Stored,
    pub(super) redirected: String,
    /// The answer is in the page's own URL (to be cleaned).
    pub(super) from_page_url: bool,
}

pub(super) struct Pending;

impl Pending {
    pub(super) fn storage() -> Result<web_sys::Storage, AuthError> {
        WebStorage::Session.open().map_err(|reason| {
            AuthError::Authorizer(format!("redirect mode keeps the flow in sessionStorage: {reason}"))
        })
    }

    pub(super) fn key(state: &str) -> String {
        format!("{PENDING_PREFIX}{state}")
    }

    /// Keeps the flow under its state, with the page to come back to.
    pub(super) fn save(pending: &PendingAuthorization) -> Result<(), AuthError> {
        let storage = Self::storage()?;
        let return_to = web_sys::window()
            .and_then(|w| w.location().href().ok())
            .map(|href| without_oauth_params(&href))
            .unwrap_or_default();
        let text = Stored { pending: pending.clone(), return_to, redirected: None }.to_text();
        storage.set_item(&Self::key(&pending.state), &text).map_err(|e| {
            AuthError::Store(format!("sessionStorage could not keep the pending authorization: {}", message_of(&e)))
        })
    }

    /// Takes (removes) the pending flow for `server` (any server when
    /// `None`) whose answer is in `page_url` or was recorded.
    pub(super) fn find(server: Option<&str>, page_url: &str) -> Option<Found> {
        let storage = Self::storage().ok()?;
        let url_state = oauth_state(page_url);
        let now = crate::runtime::now_secs();
        let mut keys = Vec::new();
        for index in 0..storage.length().unwrap_or(0) {
            if let Ok(Some(key)) = storage.key(index)
                && key.starts_with(PENDING_PREFIX)
            {
                keys.push(key);
            }
        }
        let mut found = None;
        // Read field by field, as the auth module reads its documents.
        for key in keys {
            let Ok(Some(text)) = storage.get_item(&key) else { continue };
            let Ok(stored) = crate::protocol::fields::from_bytes::<Stored>(text.as_bytes(), "an object") else {
                let _ = storage.remove_item(&key);
                continue;
            };
            if stored.pending.created_at.saturating_add(PENDING_MAX_AGE_SECS) < now {
                let _ = storage.remove_item(&key);
                continue;
            }
            if found.is_some() || server.is_some_and(|s| !same_server(s, &stored.pending.server_url)) {
                continue;
            }
            let answer = match (&stored.redirected, &url_state) {
                (Some(redirected), _) => Some((redirected.clone(), false)),
                (None, Some(state)) if *state == stored.pending.state => Some((page_url.to_owned(), true)),
                _ => None,
            };
            if let Some((redirected, from_page_url)) = answer {
                // A code is good once: the flow is taken whatever happens next.
                let _ = storage.remove_item(&key);
                found = Some(Found { stored, redirected, from_page_url });
            }
        }
        found
    }

    /// Records `url` (a redirect carrying `state`) for its pending flow.
    pub(super) fn record(url: &str) -> Result<Option<String>, AuthError> {
        let Some(state) = oauth_state(url) else { return Ok(None) };
        let storage = Self::storage()?;
        let key = Self::key(&state);
        let Ok(Some(text)) = storage.get_item(&key) else { return Ok(None) };
        let Ok(mut stored) = crate::protocol::fields::from_bytes::<Stored>(text.as_bytes(), "an object") else {
            return Ok(None);
        };
        stored.redirected = Some(url.to_owned());
        let server = stored.pending.server_url.clone();
        let text = stored.to_text();
        storage.set_item(&key, &text).map_err(|e| AuthError::Store(format!("sessionStorage: {}", message_of(&e))))?;
        Ok(Some(server))
    }
}

pub(super) fn same_server(a: &str, b: &str) -> bool {
    use crate::auth::resource::canonical;
    match (canonical(a), canonical(b)) {
        (Ok(a), Ok(b)) => a == b,
        _ => a == b,
    }
}

/// The OAuth response parameters a redirect leaves in a URL.
pub(super) const OAUTH_PARAMS: &[&str] =
    &["code", "state", "iss", "error", "error_description", "error_uri", "session_state"];

/// The `state` of a URL that carries an authorization response.
pub(super) fn oauth_state(url: &str) -> Option<String> {
    let parsed = Url::parse(url).ok()?;
    let pairs = parsed.query_pairs();
    let has = |name: &str| pairs.iter().any(|(k, _)| k == name);
    if !(has("code") || has("error")) {
        return None;
    }
    pairs.iter().find(|(k, _)| k == "state").map(|(_, v)| v.clone()).filter(|s| !s.is_empty())
}

/// `url` without the authorization response's parameters.
pub(super) fn without_oauth_params(url: &str) -> String {
    let (rest, fragment) = match url.split_once('#') {
        Some((rest, fragment)) => (rest, Some(fragment)),
        None => (url, None),
    };
    let (base, query) = match rest.split_once('?') {
        Some((base, query)) => (base, query),
        None => return url.to_owned(),
    };
    let kept = query.split('&').filter(|pair| {
        let name = pair.split('=').next().unwrap_or_default();
        !pair.is_empty() && !OAUTH_PARAMS.contains(&name)
    });
    let mut out = base.to_owned();
    for (i, pair) in kept.enumerate() {
        out.push(if i == 0 { '?' } else { '&' });
        out.push_str(pair);
    }
    if let Some(fragment) = fragment {
        out.push('#');
        out.push_str(fragment);
    }
    out
}

/// Takes the code and state out of the address bar (and history).
pub(super) fn clean_page_url(window: &web_sys::Window, href: &str) {
    let cleaned = without_oauth_params(href);
    if cleaned == href {
        return;
    }
    if let Ok(history) = window.history() {
        let _ = history.replace_state_with_url(&JsValue::NULL, "", Some(&cleaned));
    }
}

/// `McpClient.completeAuthorization(url, options)`: the redirect `url`
/// answers a pending redirect-mode flow; finish it with `options.auth`.
/// Resolves `false` when no pending flow matches.
pub(crate) async fn complete_authorization(url: String, options: JsValue) -> Result<bool, WebError> {
    let Some(server) = Pending::record(&url).map_err(auth_error)? else {
        return Ok(false);
    };
    let auth = property(&options, "auth").unwrap_or_else(|| js_sys::Object::new().into());
    let page = Page::here();
    let checked = check_auth_options(&auth, page.in_page, page.origin.as_deref(), cfg!(feature = "machine-grants"))
        .map_err(WebError::Thrown)?;
    let auth = web_auth(&server, &Checked(checked), page)?;
    let page = web_sys::window().and_then(|w| w.location().href().ok()).unwrap_or_default();
    let Some(found) = Pending::find(Some(&server), &page) else {
        return Ok(false);
    };
    auth.provider.complete_authorization(&found.redirected, &found.stored.pending).await.map_err(auth_error)?;
    if let Some(window) = web_sys::window()
        && found.redirected == page
    {
        clean_page_url(&window, &page);
    }
    Ok(true)
}
