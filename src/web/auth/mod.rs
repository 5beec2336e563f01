//! The `auth` option of `McpClient.connect`: OAuth 2.1 with PKCE in pages,
//! Web Workers, Node and Deno.
//!
//! It becomes an [`OAuthProvider`] with this platform's pieces:
//! - an [`Authorizer`]: a popup (the default in a page), a full-page
//!   redirect, or the app's own function (required where there is no window,
//!   for a flow that needs a person);
//! - a [`TokenStore`]: `sessionStorage` (the default in a page),
//!   `localStorage`, the app's `{ load, save, clear }`, or memory;
//! - `fetch` for the authorization server, whose network failures say when
//!   the server is reachable but sends no CORS headers.
//!
//! Redirect mode keeps the pending flow in `sessionStorage` under
//! `mcp-edge:pending:<state>` (so flows never mix) and navigates away; the
//! next `connect` with the same options (or `completeAuthorization`) finds
//! the answer (in the page's URL, or recorded by the callback page),
//! exchanges the code and cleans the URL.

use std::sync::Arc;
use std::time::Duration;

use js_sys::{Array, Function, Promise, Reflect};
use serde::Serialize;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;
use web_sys::{RequestInit, RequestMode};

use super::convert::{WebError, bool_property, message_of, millis_property, object_with, property, string_property};
use super::popup::{DEFAULT_FEATURES, PopupAuthorizer};
use super::store::{CallbackStore, WebStorage, WebStorageStore};
use crate::auth::{
    AuthConfig, AuthError, AuthProvider, AuthorizationRequest, Authorizer, Grant, MemoryTokenStore, OAuthProvider,
    PendingAuthorization, TokenStore,
};
use crate::http::url::Url;
use crate::http::{DefaultHttp, HttpClient, HttpError, HttpRequest, HttpResponse};
use crate::runtime::{BoxFuture, boxed};

mod cors;
mod redirect;

use crate::debug::Quoted;
pub(crate) use cors::ExplainCors;
pub(crate) use redirect::complete_authorization;
use redirect::*;

const OWNER: &str = "options.auth";
/// Where pending redirect-mode flows are kept (+ the state).
const PENDING_PREFIX: &str = "mcp-edge:pending:";
/// A pending flow older than this is dropped unread.
const PENDING_MAX_AGE_SECS: u64 = 3600;
/// The callback page's path, the default redirect URI on this origin.
const CALLBACK_PATH: &str = "/oauth-callback.html";
/// How long the no-cors probe that explains a failed fetch may take.
const PROBE_TIMEOUT: Duration = Duration::from_secs(5);

/// The global object's `location.origin` (pages and workers), if any.
pub(crate) fn global_origin() -> Option<String> {
    let location = Reflect::get(&js_sys::global(), &JsValue::from_str("location")).ok()?;
    if !location.is_object() {
        return None;
    }
    Reflect::get(&location, &JsValue::from_str("origin")).ok()?.as_string().filter(|origin| origin.starts_with("http"))
}

/// What `auth` became.
pub(crate) struct WebAuth {
    provider: Arc<OAuthProvider<ExplainCors>>,
    /// Look for a redirect-mode answer before connecting (in a page).
    finish_redirects: bool,
}

impl std::fmt::Debug for WebAuth {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        crate::debug::debug_struct(f, "WebAuth").field("provider", &self.provider).finish()
    }
}

impl WebAuth {
    /// The provider, for `ConnectOptions::auth`.
    pub(crate) fn provider(&self) -> Arc<dyn AuthProvider> {
        self.provider.clone()
    }

    /// Finishes a redirect-mode flow for this server whose answer is in
    /// the page's URL or was recorded by the callback page. Does nothing
    /// when there is none.
    pub(crate) async fn finish_redirect(&self, server_url: &str) -> Result<(), WebError> {
        if !self.finish_redirects {
            return Ok(());
        }
        let Some(window) = web_sys::window() else {
            return Ok(());
        };
        let Ok(href) = window.location().href() else {
            return Ok(());
        };
        let Some(found) = Pending::find(Some(server_url), &href) else {
            return Ok(());
        };
        let outcome = self.provider.complete_authorization(&found.redirected, &found.stored.pending).await;
        if found.from_page_url {
            clean_page_url(&window, &href);
        }
        outcome.map_err(auth_error)
    }
}

fn auth_error(error: AuthError) -> WebError {
    crate::client::Error::Transport(crate::transport::TransportError::Auth(error)).into()
}

/// Reads `options.auth` for the server at `server_url`; `None` when absent.
// The provider holds JS values (not `Send`); `Arc` is the type the
// transport shares providers by on every target.
#[allow(clippy::arc_with_non_send_sync)]
pub(crate) fn auth_options(server_url: &str, options: &JsValue) -> Result<Option<WebAuth>, WebError> {
    let Some(auth) = property(options, "auth") else {
        return Ok(None);
    };
    if !auth.is_object() {
        return Err(WebError::Type(format!("{OWNER} must be an object")));
    }
    let text = |key: &str| string_property(&auth, key, OWNER);
    let in_page = web_sys::window().is_some();
    let origin = global_origin();

    // How the user is sent to the authorization page.
    let timeout = millis_property(&auth, "authorizationTimeout", OWNER)?.unwrap_or(Duration::from_secs(300));
    let authorize = property(&auth, "authorize");
    let mode = match &authorize {
        None if in_page => Mode::Popup,
        None => Mode::NoWindow,
        Some(value) if value.is_function() => Mode::Callback(value.clone().unchecked_into()),
        Some(value) => match value.as_string().as_deref() {
            Some("popup") | Some("redirect") if !in_page => {
                return Err(WebError::Type(format!(
                    "{OWNER}.authorize {} needs a page (there is no window here): pass a function that \
                     takes {{url, redirectUri, state}}, lets the user sign in and resolves with the URL the \
                     authorization server redirected to",
                    Quoted(&value.as_string().unwrap_or_default())
                )));
            }
            Some("popup") => Mode::Popup,
            Some("redirect") => Mode::Redirect,
            _ => {
                return Err(WebError::Type(format!("{OWNER}.authorize must be \"popup\", \"redirect\" or a function")));
            }
        },
    };

    let redirect_uri = match text("redirectUri")? {
        Some(uri) => uri,
        None => match &origin {
            Some(origin) => format!("{origin}{CALLBACK_PATH}"),
            None if matches!(mode, Mode::Callback(_)) => {
                return Err(WebError::Type(format!(
                    "{OWNER}.redirectUri is needed here (there is no page origin to put the callback page on)"
                )));
            }
            // Only a flow with a person needs it, and there is none here.
            None => String::new(),
        },
    };
    let mut config = AuthConfig::new(redirect_uri);
    config.authorization_timeout = timeout;
    config.client_id = text("clientId")?;
    config.client_secret = text("clientSecret")?;
    config.client_metadata_url = text("clientMetadataUrl")?;
    config.private_key_pem = text("privateKeyPem")?;
    config.key_id = text("keyId")?;
    config.token_endpoint_auth_method = match text("tokenEndpointAuthMethod")? {
        None => None,
        Some(method)
            if ["client_secret_basic", "client_secret_post", "private_key_jwt", "none"].contains(&method.as_str()) =>
        {
            Some(method)
        }
        Some(other) => {
            return Err(WebError::Type(format!(
                "{OWNER}.tokenEndpointAuthMethod {other} is not one of client_secret_basic, \
                 client_secret_post, private_key_jwt, none",
                other = Quoted(&other)
            )));
        }
    };
    if let Some(name) = text("clientName")? {
        config.client_name = name;
    }
    config.scopes = scopes(&auth)?;
    config.grant = grant(&auth)?;
    if let Some(insecure) = bool_property(&auth, "allowInsecureHttp", OWNER)? {
        config.allow_insecure_http = insecure;
    }
    // DPoP-bound tokens where the server does not ask for them.
    if let Some(dpop) = bool_property(&auth, "dpop", OWNER)? {
        config.dpop = dpop;
    }

    let store = store(&auth, in_page)?;
    let features = text("popupFeatures")?.unwrap_or_else(|| DEFAULT_FEATURES.to_owned());
    let authorizer = match mode {
        Mode::Popup => WebAuthorizer::Popup(PopupAuthorizer { timeout, features }),
        Mode::Redirect => WebAuthorizer::Redirect,
        Mode::Callback(function) => WebAuthorizer::Callback(function),
        Mode::NoWindow => WebAuthorizer::NoWindow,
    };
    let http = ExplainCors { inner: DefaultHttp::new(), page_origin: origin };
    let provider = OAuthProvider::with_http(http, server_url, config)
        .map_err(|e| WebError::Type(format!("{OWNER}: {e}")))?
        .with_authorizer(authorizer)
        .with_store(store);
    Ok(Some(WebAuth { provider: Arc::new(provider), finish_redirects: in_page }))
}

enum Mode {
    Popup,
    Redirect,
    Callback(Function),
    NoWindow,
}

/// `scope`: a space-separated string or an array of strings.
fn scopes(auth: &JsValue) -> Result<Option<Vec<String>>, WebError> {
    let Some(value) = property(auth, "scope") else {
        return Ok(None);
    };
    if let Some(text) = value.as_string() {
        return Ok(Some(text.split_whitespace().map(str::to_owned).collect()));
    }
    if Array::is_array(&value) {
        let mut scopes = Vec::new();
        for item in Array::from(&value).iter() {
            match item.as_string() {
                Some(scope) => scopes.push(scope),
                None => return Err(WebError::Type(format!("{OWNER}.scope must hold strings"))),
            }
        }
        return Ok(Some(scopes));
    }
    Err(WebError::Type(format!("{OWNER}.scope must be a string or an array of strings")))
}

/// `grant`, with `assertion` and `identityProvider` where it needs them.
fn grant(auth: &JsValue) -> Result<Option<Grant>, WebError> {
    let assertion = string_property(auth, "assertion", OWNER)?;
    let idp = property(auth, "identityProvider");
    let named = string_property(auth, "grant", OWNER)?;
    let kind = match (named.as_deref(), &idp, &assertion) {
        (Some(kind), _, _) => kind,
        (None, Some(_), _) => "identity_assertion",
        (None, None, Some(_)) => "jwt_bearer",
        (None, None, None) => return Ok(None),
    };
    match kind {
        "authorization_code" => Ok(Some(Grant::AuthorizationCode)),
        #[cfg(not(feature = "machine-grants"))]
        "client_credentials" | "jwt_bearer" | "identity_assertion" => Err(WebError::Type(format!(
            "{OWNER}.grant {kind} is not in this build of mcp-edge (mcp-edge/lite has the authorization code \
             grant only): import `mcp-edge`, or build with the `machine-grants` feature",
            kind = Quoted(kind)
        ))),
        #[cfg(feature = "machine-grants")]
        "client_credentials" => Ok(Some(Grant::ClientCredentials)),
        #[cfg(feature = "machine-grants")]
        "jwt_bearer" => match assertion {
            Some(assertion) => Ok(Some(Grant::JwtBearer { assertion })),
            None => Err(WebError::Type(format!(
                "{OWNER}.grant \"jwt_bearer\" needs {OWNER}.assertion (the JWT to present)"
            ))),
        },
        #[cfg(feature = "machine-grants")]
        "identity_assertion" => {
            let owner = format!("{OWNER}.identityProvider");
            let idp = idp.ok_or_else(|| {
                WebError::Type(format!(
                    "{OWNER}.grant \"identity_assertion\" needs {owner}: {{tokenEndpoint, idToken, clientId, \
                     clientSecret?}}"
                ))
            })?;
            let required = |key: &str| -> Result<String, WebError> {
                string_property(&idp, key, &owner)?
                    .ok_or_else(|| WebError::Type(format!("{owner}.{key} must be a string")))
            };
            Ok(Some(Grant::IdentityAssertion {
                idp_token_endpoint: required("tokenEndpoint")?,
                id_token: required("idToken")?,
                idp_client_id: required("clientId")?,
                idp_client_secret: string_property(&idp, "clientSecret", &owner)?,
            }))
        }
        other => Err(WebError::Type(format!(
            "{OWNER}.grant {other} is not one of authorization_code, client_credentials, jwt_bearer, \
             identity_assertion",
            other = Quoted(other)
        ))),
    }
}

/// `store`; by default `sessionStorage` in a page (memory if the page may
/// not use it), memory elsewhere.
fn store(auth: &JsValue, in_page: bool) -> Result<Arc<dyn TokenStore>, WebError> {
    let web = |kind: WebStorage| -> Result<Arc<dyn TokenStore>, WebError> {
        WebStorageStore::new(kind).map(|store| Arc::new(store) as Arc<dyn TokenStore>).map_err(|reason| {
            WebError::Type(format!("{OWNER}.store: {reason}; use \"memory\" or your own {{ load, save, clear }}"))
        })
    };
    let Some(value) = property(auth, "store") else {
        if in_page {
            match WebStorageStore::new(WebStorage::Session) {
                Ok(store) => return Ok(Arc::new(store)),
                Err(reason) => log::warn!("keeping OAuth tokens in memory: {reason}"),
            }
        }
        return Ok(Arc::new(MemoryTokenStore::new()));
    };
    match value.as_string().as_deref() {
        Some("memory") => Ok(Arc::new(MemoryTokenStore::new())),
        Some("sessionStorage") => web(WebStorage::Session),
        Some("localStorage") => web(WebStorage::Local),
        Some(_) => Err(WebError::Type(format!(
            "{OWNER}.store must be \"memory\", \"sessionStorage\", \"localStorage\" or {{ load, save, clear }}"
        ))),
        None => CallbackStore::from_js(&value).map(|store| Arc::new(store) as Arc<dyn TokenStore>).ok_or_else(|| {
            WebError::Type(format!("{OWNER}.store must have the methods load(key), save(key, value) and clear(key)"))
        }),
    }
}

/// The authorizers of the JS API.
enum WebAuthorizer {
    Popup(PopupAuthorizer),
    Redirect,
    Callback(Function),
    /// A worker, Node or Deno without `authorize`: a flow that needs a
    /// person cannot run.
    NoWindow,
}

impl std::fmt::Debug for WebAuthorizer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            WebAuthorizer::Popup(_) => "popup",
            WebAuthorizer::Redirect => "redirect",
            WebAuthorizer::Callback(_) => "auth.authorize callback",
            WebAuthorizer::NoWindow => "none (no window)",
        })
    }
}

impl Authorizer for WebAuthorizer {
    fn authorize<'a>(&'a self, request: &'a AuthorizationRequest) -> BoxFuture<'a, Result<String, AuthError>> {
        match self {
            WebAuthorizer::Popup(popup) => popup.authorize(request),
            WebAuthorizer::Redirect => boxed(redirect(request)),
            WebAuthorizer::Callback(function) => boxed(call_authorize(function, request)),
            WebAuthorizer::NoWindow => boxed(async {
                Err(AuthError::Authorizer(
                    "this server needs a person to sign in, and there is no window here (a worker, Node or \
                     Deno) to show the authorization page in: pass auth.authorize, a function that takes \
                     {url, redirectUri, state}, has the user open url (e.g. by posting it to a page) and \
                     resolves with the URL the authorization server redirected to; or use a grant without \
                     a person (auth.grant \"client_credentials\" with clientId and clientSecret or \
                     privateKeyPem)"
                        .into(),
                ))
            }),
        }
    }

    fn remember<'a>(&'a self, pending: &'a PendingAuthorization) -> BoxFuture<'a, Result<(), AuthError>> {
        match self {
            WebAuthorizer::Redirect => boxed(async move { Pending::save(pending) }),
            _ => boxed(async { Ok(()) }),
        }
    }
}

/// Calls `auth.authorize({url, redirectUri, state})` and waits for the URL.
async fn call_authorize(function: &Function, request: &AuthorizationRequest) -> Result<String, AuthError> {
    let argument = object_with(&[
        ("url", &JsValue::from_str(&request.url)),
        ("redirectUri", &JsValue::from_str(&request.redirect_uri)),
        ("state", &JsValue::from_str(&request.state)),
    ]);
    let failed = |e: JsValue| AuthError::Authorizer(format!("auth.authorize failed: {}", message_of(&e)));
    let returned = function.call1(&JsValue::UNDEFINED, &argument).map_err(failed)?;
    let value = JsFuture::from(Promise::resolve(&returned)).await.map_err(failed)?;
    value.as_string().ok_or_else(|| {
        AuthError::Authorizer(
            "auth.authorize must resolve to the URL the authorization server redirected to (a string)".into(),
        )
    })
}
