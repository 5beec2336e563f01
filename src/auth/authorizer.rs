//! The one step that differs by platform: sending the user to the
//! authorization page and getting the redirect back.
//!
//! Implementations: [`HeadlessAuthorizer`] here (fetches the page without
//! following redirects and reads `Location`: for servers that authorize
//! without a human, like the conformance suite's); a browser popup, a
//! full-page redirect and an app callback in the JS API (`crate::web`);
//! `LoopbackAuthorizer` (`auth::loopback`) natively (a loopback listener and
//! the system browser).
//!
//! An authorizer that leaves the page (a full-page redirect) cannot hand the
//! redirect back to the flow that started it: it keeps the
//! [`PendingAuthorization`] it is given by [`Authorizer::remember`], and the
//! next page load finishes with
//! [`OAuthProvider::complete_authorization`](super::OAuthProvider::complete_authorization).

use serde::Serialize;

use super::error::AuthError;
use super::metadata::AuthorizationServerMetadata;
use super::store::ClientRegistration;
use crate::cause::Cause;
use crate::http::url::Url;
use crate::http::{HttpClient, HttpRequest, Method};
use crate::protocol::fields::{Fields, deserialize_by_fields};
use crate::runtime::{BoxFuture, MaybeSend, MaybeSync, boxed};

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

/// Everything needed to finish an authorization code flow in another page
/// load: the request's `state` and PKCE verifier, the client, and the
/// authorization server's metadata (so the token request goes where the
/// authorization request went). It holds secrets (the verifier, a client
/// secret): keep it only where this origin alone can read it, and only
/// until the redirect comes back.
#[derive(Clone, PartialEq, Serialize)]
pub struct PendingAuthorization {
    /// The `state` sent.
    pub state: String,
    /// The PKCE code verifier.
    pub code_verifier: String,
    /// The MCP server being authorized for.
    pub server_url: String,
    /// The redirect URI sent.
    pub redirect_uri: String,
    /// The RFC 8707 resource sent.
    pub resource: String,
    /// The scopes asked for (space-separated), if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scope: Option<String>,
    /// The client the request was made as.
    pub client: ClientRegistration,
    /// The authorization server's metadata.
    pub metadata: AuthorizationServerMetadata,
    /// Discovery followed the 2025-03-26 rules.
    pub legacy: bool,
    /// When the request was made, in seconds since the Unix epoch.
    pub created_at: u64,
}

deserialize_by_fields!(PendingAuthorization);

impl PendingAuthorization {
    pub(crate) fn from_fields(fields: &mut Fields) -> Result<Self, String> {
        // The two without an empty value, first: nothing read yet to drop.
        let Some(client) = fields.nested("client", ClientRegistration::from_fields) else {
            return Err(fields.failure("client"));
        };
        let Some(metadata) = fields.nested("metadata", AuthorizationServerMetadata::from_fields) else {
            return Err(fields.failure("metadata"));
        };
        let value = PendingAuthorization {
            state: fields.required_string("state"),
            code_verifier: fields.required_string("code_verifier"),
            server_url: fields.required_string("server_url"),
            redirect_uri: fields.required_string("redirect_uri"),
            resource: fields.required_string("resource"),
            scope: fields.string("scope"),
            client,
            metadata,
            legacy: fields.boolean("legacy").unwrap_or(false),
            created_at: fields.required_unsigned("created_at"),
        };
        fields.done(value)
    }

    /// As JSON, the same as its `Serialize` writes it (`protocol::build`):
    /// what the browser's redirect flow keeps across the page load.
    #[cfg(any(all(target_arch = "wasm32", feature = "js"), test))]
    pub(crate) fn to_value(&self) -> serde_json::Value {
        crate::protocol::build::Builder::new()
            .text("state", Some(&self.state))
            .text("code_verifier", Some(&self.code_verifier))
            .text("server_url", Some(&self.server_url))
            .text("redirect_uri", Some(&self.redirect_uri))
            .text("resource", Some(&self.resource))
            .text("scope", self.scope.as_deref())
            .value("client", Some(self.client.to_value()))
            .value("metadata", Some(self.metadata.to_value()))
            .boolean("legacy", Some(self.legacy))
            .unsigned("created_at", Some(self.created_at))
            .done()
    }
}

impl std::fmt::Debug for PendingAuthorization {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        crate::debug::debug_struct(f, "PendingAuthorization")
            .field("server_url", &self.server_url)
            .field("issuer", &self.metadata.issuer)
            .field("client", &self.client)
            .field("redirect_uri", &self.redirect_uri)
            .finish_non_exhaustive()
    }
}

/// Takes the user through the authorization page.
pub trait Authorizer: std::fmt::Debug + MaybeSend + MaybeSync + 'static {
    /// Opens `request.url` and resolves with the full URL the browser was
    /// redirected to (`redirect_uri?code=...&state=...`, or `?error=...`).
    /// Implementations should give up after a bounded time (the flow also
    /// bounds the wait).
    fn authorize<'a>(&'a self, request: &'a AuthorizationRequest) -> BoxFuture<'a, Result<String, AuthError>>;

    /// Called just before [`Authorizer::authorize`] with what finishing the
    /// flow in another page load needs. An authorizer that leaves the page
    /// keeps it; the others ignore it (the default). Not async: what is
    /// kept must be kept before the page is left, and a page's storage
    /// (Web Storage) answers at once.
    fn remember(&self, pending: &PendingAuthorization) -> Result<(), AuthError> {
        let _ = pending;
        Ok(())
    }
}

/// Fetches the authorization URL without following redirects and returns
/// the `Location` it redirects to. Works only where the authorization
/// server redirects at once (no login page): test servers, or an AS that
/// already knows the user. The HTTP client must not follow redirects
/// itself (natively: `DefaultHttp::without_redirects`).
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
impl HeadlessAuthorizer<crate::http::DefaultHttp> {
    /// Uses reqwest with redirects turned off.
    pub fn new() -> Result<Self, AuthError> {
        let http = crate::http::DefaultHttp::without_redirects()
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
                .map_err(|e| AuthError::Unreachable { url: base.origin() + &base.path, reason: Cause::of(e) })?;
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
