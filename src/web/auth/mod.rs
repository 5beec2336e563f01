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

use js_sys::{Array, Function, Promise};
use wasm_bindgen::JsValue;

use super::convert::{AbortOnDrop, WebError, message_of};
use super::options::Checked;
use super::popup::{DEFAULT_FEATURES, PopupAuthorizer, answer};
use super::store::JsStore;
use crate::auth::{
    AuthConfig, AuthError, AuthProvider, AuthorizationRequest, Authorizer, Grant, MemoryTokenStore, OAuthProvider,
    PendingAuthorization, TokenStore,
};
use crate::http::{DefaultHttp, HttpClient, HttpError, HttpRequest, HttpResponse};
use crate::runtime::{BoxFuture, boxed};

mod cors;
mod redirect;

pub(crate) use cors::ExplainCors;
pub(crate) use redirect::complete_authorization;
use redirect::*;

const OWNER: &str = "options.auth";
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
        let Some(found) = find(server_url) else {
            return Ok(());
        };
        let outcome = self.provider.complete_authorization(&found.redirected, &found.pending).await;
        clean_page_url(&found.redirected);
        outcome.map_err(auth_error)
    }
}

fn auth_error(error: AuthError) -> WebError {
    crate::client::Error::Transport(crate::transport::TransportError::Auth(error)).into()
}

/// `tokenEndpointAuthMethod`'s names, in `options.js`'s order.
const AUTH_METHODS: [&str; 4] = ["client_secret_basic", "client_secret_post", "private_key_jwt", "none"];

/// `options.auth`, checked by `options.js`, as the OAuth provider for the
/// server at `server_url`.
// The provider holds JS values (not `Send`); `Arc` is the type the
// transport shares providers by on every target.
#[allow(clippy::arc_with_non_send_sync)]
pub(crate) fn web_auth(server_url: &str, auth: &Checked) -> Result<WebAuth, WebError> {
    let timeout = auth.millis(place::AUTHORIZATION_TIMEOUT).unwrap_or(Duration::from_secs(300));
    let in_page = auth.flag(place::IN_PAGE) == Some(true);
    // `options.js` made the callback page on this origin the default; without
    // a page origin only a flow with a person needs one, and it asked for it
    // where there is one (an `authorize` function).
    let mut config = AuthConfig::new(auth.text(place::REDIRECT_URI).unwrap_or_default());
    config.authorization_timeout = timeout;
    config.client_id = auth.text(place::CLIENT_ID);
    config.client_secret = auth.text(place::CLIENT_SECRET);
    config.client_metadata_url = auth.text(place::CLIENT_METADATA_URL);
    config.private_key_pem = auth.text(place::PRIVATE_KEY_PEM);
    config.key_id = auth.text(place::KEY_ID);
    config.token_endpoint_auth_method = auth
        .index(place::TOKEN_ENDPOINT_AUTH_METHOD)
        .and_then(|i| AUTH_METHODS.get(i as usize))
        .map(|method| (*method).to_owned());
    if let Some(name) = auth.text(place::CLIENT_NAME) {
        config.client_name = name;
    }
    config.scopes = auth.text(place::SCOPES).map(|scopes| crate::auth::scope::words(&scopes));
    config.grant = grant(auth);
    if let Some(insecure) = auth.flag(place::ALLOW_INSECURE_HTTP) {
        config.allow_insecure_http = insecure;
    }
    // DPoP-bound tokens where the server does not ask for them.
    if let Some(dpop) = auth.flag(place::DPOP) {
        config.dpop = dpop;
    }

    let authorizer = match (auth.function(place::AUTHORIZE), auth.index(place::MODE)) {
        (Some(function), _) => WebAuthorizer::Callback(function),
        (None, Some(0)) => WebAuthorizer::Popup(PopupAuthorizer {
            timeout,
            features: auth.text(place::POPUP_FEATURES).unwrap_or_else(|| DEFAULT_FEATURES.to_owned()),
        }),
        (None, Some(1)) => WebAuthorizer::Redirect,
        _ => WebAuthorizer::NoWindow,
    };
    let http = ExplainCors { inner: DefaultHttp::new(), page_origin: auth.text(place::ORIGIN) };
    let provider = OAuthProvider::with_http(http, server_url, config)
        .map_err(|e| WebError::Type(format!("{OWNER}: {e}")))?
        .with_authorizer(authorizer)
        .with_store(store(auth));
    Ok(WebAuth { provider: Arc::new(provider), finish_redirects: in_page })
}

/// The places of `authOptions`' answer (`options.js`'s `AUTH_READ`).
mod place {
    pub(super) const AUTHORIZATION_TIMEOUT: u32 = 0;
    pub(super) const REDIRECT_URI: u32 = 1;
    pub(super) const CLIENT_ID: u32 = 2;
    pub(super) const CLIENT_SECRET: u32 = 3;
    pub(super) const CLIENT_METADATA_URL: u32 = 4;
    pub(super) const PRIVATE_KEY_PEM: u32 = 5;
    pub(super) const KEY_ID: u32 = 6;
    pub(super) const TOKEN_ENDPOINT_AUTH_METHOD: u32 = 7;
    pub(super) const CLIENT_NAME: u32 = 8;
    #[cfg(any(feature = "machine-grants", test))]
    pub(super) const ASSERTION: u32 = 9;
    pub(super) const GRANT: u32 = 10;
    pub(super) const ALLOW_INSECURE_HTTP: u32 = 11;
    pub(super) const DPOP: u32 = 12;
    pub(super) const POPUP_FEATURES: u32 = 13;
    pub(super) const IN_PAGE: u32 = 14;
    pub(super) const ORIGIN: u32 = 15;
    pub(super) const AUTHORIZE: u32 = 16;
    pub(super) const MODE: u32 = 17;
    pub(super) const SCOPES: u32 = 18;
    #[cfg(any(feature = "machine-grants", test))]
    pub(super) const IDENTITY_PROVIDER: u32 = 19;
    pub(super) const STORE: u32 = 20;
    pub(super) const STORE_OBJECT: u32 = 21;
}

/// The places of `identityProvider`'s (`options.js`'s `IDP_READ`).
#[cfg(feature = "machine-grants")]
mod idp_place {
    pub(super) const TOKEN_ENDPOINT: u32 = 0;
    pub(super) const ID_TOKEN: u32 = 1;
    pub(super) const CLIENT_ID: u32 = 2;
    pub(super) const CLIENT_SECRET: u32 = 3;
}

/// The grant `options.js` read (its index in the file's `GRANTS`), with
/// what it needs.
fn grant(auth: &Checked) -> Option<Grant> {
    match auth.index(place::GRANT)? {
        #[cfg(feature = "machine-grants")]
        1 => Some(Grant::ClientCredentials),
        #[cfg(feature = "machine-grants")]
        2 => Some(Grant::JwtBearer { assertion: auth.text(place::ASSERTION).unwrap_or_default() }),
        #[cfg(feature = "machine-grants")]
        3 => {
            let idp = Checked(auth.value(place::IDENTITY_PROVIDER)?);
            Some(Grant::IdentityAssertion {
                idp_token_endpoint: idp.text(idp_place::TOKEN_ENDPOINT).unwrap_or_default(),
                id_token: idp.text(idp_place::ID_TOKEN).unwrap_or_default(),
                idp_client_id: idp.text(idp_place::CLIENT_ID).unwrap_or_default(),
                idp_client_secret: idp.text(idp_place::CLIENT_SECRET),
            })
        }
        // Without `machine-grants`, `options.js` refused the others.
        _ => Some(Grant::AuthorizationCode),
    }
}

/// `store` as `options.js` resolved it (by default `sessionStorage` in a
/// page that may use it, else memory): what `store.js` keeps the records
/// in, or memory.
fn store(auth: &Checked) -> Arc<dyn TokenStore> {
    match auth.value(place::STORE_OBJECT) {
        // 3: `localStorage`, shared by the origin's tabs.
        Some(target) => Arc::new(JsStore::new(target, auth.index(place::STORE) == Some(3))),
        None => Arc::new(MemoryTokenStore::new()),
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
        // Every way is one promise awaited by the one `answer` (a thrown
        // string or `Error` is the authorizer's error, in its own words).
        let started = match self {
            WebAuthorizer::Popup(popup) => return popup.authorize(request),
            // The pending flow was saved by `remember`; the page leaves, and
            // the promise never settles (the flow's own bound ends the wait
            // if the page stays).
            WebAuthorizer::Redirect => leave_for(&request.url),
            WebAuthorizer::Callback(function) => {
                Ok(call_authorize(function, &request.url, &request.redirect_uri, &request.state))
            }
            WebAuthorizer::NoWindow => Err(JsValue::from_str(
                "this server needs a person to sign in, and there is no window here (a worker, Node or \
                 Deno) to show the authorization page in: pass auth.authorize, a function that takes \
                 {url, redirectUri, state}, has the user open url (e.g. by posting it to a page) and \
                 resolves with the URL the authorization server redirected to; or use a grant without \
                 a person (auth.grant \"client_credentials\" with clientId and clientSecret or \
                 privateKeyPem)",
            )),
        };
        boxed(answer(started, AbortOnDrop::unarmed()))
    }

    fn remember(&self, pending: &PendingAuthorization) -> Result<(), AuthError> {
        match self {
            WebAuthorizer::Redirect => save(pending),
            _ => Ok(()),
        }
    }
}

#[wasm_bindgen::prelude::wasm_bindgen(module = "/src/web/options.js")]
extern "C" {
    /// Calls `auth.authorize({url, redirectUri, state})`: resolves with the
    /// URL it resolved with; rejects with an `Error` that says why not.
    #[wasm_bindgen(js_name = callAuthorize)]
    fn call_authorize(authorize: &Function, url: &str, redirect_uri: &str, state: &str) -> Promise;
}

// Run in Chromium by `cargo xtask test` (the library's wasm-bindgen suite).
#[cfg(test)]
mod tests {
    use wasm_bindgen_test::wasm_bindgen_test;

    use super::*;
    use crate::web::options::check_auth_options;

    /// Every `options.auth` value `options.js` hands back is where `place`
    /// says it is: each is given a value no other place holds.
    #[wasm_bindgen_test]
    fn each_auth_option_is_read_from_its_place() {
        let auth = js_sys::JSON::parse(
            r#"{"authorizationTimeout": 7000, "redirectUri": "https://app.example/cb", "clientId": "id",
                "clientSecret": "secret", "clientMetadataUrl": "https://app.example/cimd.json",
                "privateKeyPem": "pem", "keyId": "kid", "tokenEndpointAuthMethod": "none",
                "clientName": "name", "assertion": "jwt", "allowInsecureHttp": true, "dpop": false,
                "popupFeatures": "width=1", "scope": ["a", "b"], "store": "memory"}"#,
        )
        .unwrap_or_else(|e| panic!("bad test JSON: {e:?}"));
        let authorize = Function::new_no_args("");
        let _ = js_sys::Reflect::set(&auth, &JsValue::from_str("authorize"), &authorize);
        let read = match check_auth_options(&auth, true) {
            Ok(read) => Checked(read),
            Err(e) => panic!("authOptions threw: {e:?}"),
        };
        assert_eq!(read.number(place::AUTHORIZATION_TIMEOUT), Some(7000.0));
        let texts = [
            (place::REDIRECT_URI, "https://app.example/cb"),
            (place::CLIENT_ID, "id"),
            (place::CLIENT_SECRET, "secret"),
            (place::CLIENT_METADATA_URL, "https://app.example/cimd.json"),
            (place::PRIVATE_KEY_PEM, "pem"),
            (place::KEY_ID, "kid"),
            (place::CLIENT_NAME, "name"),
            (place::ASSERTION, "jwt"),
            (place::POPUP_FEATURES, "width=1"),
            (place::SCOPES, "a b"),
        ];
        for (at, text) in texts {
            assert_eq!(read.text(at).as_deref(), Some(text), "at {at}");
        }
        assert_eq!(read.index(place::TOKEN_ENDPOINT_AUTH_METHOD), Some(3));
        // Told by `assertion`: jwt_bearer.
        assert_eq!(read.index(place::GRANT), Some(2));
        assert_eq!(read.flag(place::ALLOW_INSECURE_HTTP), Some(true));
        assert_eq!(read.flag(place::DPOP), Some(false));
        // The tests run in a page.
        assert_eq!(read.flag(place::IN_PAGE), Some(true));
        assert!(read.text(place::ORIGIN).is_some_and(|origin| origin.starts_with("http")));
        assert!(read.function(place::AUTHORIZE).is_some());
        assert_eq!(read.index(place::MODE), None);
        assert!(read.value(place::IDENTITY_PROVIDER).is_none());
        assert_eq!(read.index(place::STORE), Some(1));
        assert!(read.value(place::STORE_OBJECT).is_none());
    }
}
