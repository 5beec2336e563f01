//! The one step that differs by platform: sending the user to the
//! authorization page and getting the redirect back.
//!
//! Implementations: [`HeadlessAuthorizer`] here (fetches the page without
//! following redirects and reads `Location`: for servers that authorize
//! without a human, like the conformance suite's); later a browser popup or
//! full-page redirect (wasm), and a loopback listener that opens the system
//! browser (native).

use super::error::AuthError;
use super::url::Url;
use crate::runtime::{BoxFuture, MaybeSend, MaybeSync, boxed};
use crate::transport::http::{HttpClient, HttpRequest, Method};

/// One authorization request to hand to the user.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AuthorizationRequest {
    /// The full authorization URL to open (https, or http to localhost).
    pub url: String,
    /// The redirect URI the authorization server will send the browser to.
    pub redirect_uri: String,
    /// The `state` in `url`; the flow checks it again on the way back, an
    /// implementation may use it to match a callback to its request.
    pub state: String,
}

/// Takes the user through the authorization page.
pub trait Authorizer: std::fmt::Debug + MaybeSend + MaybeSync + 'static {
    /// Opens `request.url` and resolves with the full URL the browser was
    /// redirected to (`redirect_uri?code=...&state=...`, or `?error=...`).
    /// Implementations should give up after a bounded time (the flow also
    /// bounds the wait).
    fn authorize<'a>(&'a self, request: &'a AuthorizationRequest) -> BoxFuture<'a, Result<String, AuthError>>;
}

/// Fetches the authorization URL without following redirects and returns
/// the `Location` it redirects to. Works only where the authorization
/// server redirects at once (no login page): test servers, or an AS that
/// already knows the user. The HTTP client must not follow redirects
/// itself (natively: [`crate::transport::http::DefaultHttp::without_redirects`]).
#[derive(Clone)]
pub struct HeadlessAuthorizer<H: HttpClient> {
    http: H,
}

impl<H: HttpClient> std::fmt::Debug for HeadlessAuthorizer<H> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("HeadlessAuthorizer")
    }
}

impl<H: HttpClient> HeadlessAuthorizer<H> {
    /// Uses `http`, which must not follow redirects.
    pub fn with_http(http: H) -> Self {
        HeadlessAuthorizer { http }
    }
}

#[cfg(not(target_arch = "wasm32"))]
impl HeadlessAuthorizer<crate::transport::http::DefaultHttp> {
    /// Uses reqwest with redirects turned off.
    pub fn new() -> Result<Self, AuthError> {
        let http = crate::transport::http::DefaultHttp::without_redirects()
            .map_err(|e| AuthError::Config(format!("could not build an HTTP client: {e}")))?;
        Ok(HeadlessAuthorizer { http })
    }
}

impl<H: HttpClient> Authorizer for HeadlessAuthorizer<H> {
    fn authorize<'a>(&'a self, request: &'a AuthorizationRequest) -> BoxFuture<'a, Result<String, AuthError>> {
        boxed(async move {
            let base = Url::parse(&request.url).map_err(AuthError::Authorizer)?;
            let exchange =
                HttpRequest { method: Method::Get, url: request.url.clone(), headers: Vec::new(), body: None };
            let response = self
                .http
                .fetch(exchange)
                .await
                .map_err(|e| AuthError::Unreachable { url: base.origin() + &base.path, reason: e.to_string() })?;
            let status = response.status;
            match response.header("location") {
                Some(location) if (300..400).contains(&status) => {
                    let target = base.join(location).map_err(|e| {
                        AuthError::InvalidAuthorizationResponse(format!("the redirect is not a URL: {e}"))
                    })?;
                    Ok(target.to_string())
                }
                _ => Err(AuthError::Authorizer(format!(
                    "the authorization endpoint answered HTTP {status} instead of redirecting: it needs a person \
                     to sign in, so use an interactive authorizer (browser or loopback)"
                ))),
            }
        })
    }
}
